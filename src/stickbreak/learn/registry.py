"""Algorithm names (the learner registry is built on them)."""

#: Collapsed inference for LDA (Welling, Teh & Kappen 2008): one sweep of the corpus per lap.
COLLAPSED_ALGORITHMS = ("gibbs", "svb", "cvb", "cvb0", "hybrid_vb_gibbs", "hybrid_cvb_gibbs")
ALGORITHMS = ("vb", "stochastic", "svi", "memoized", "truncation_free") + COLLAPSED_ALGORITHMS
#: Other names accepted for an algorithm.
ALGORITHM_ALIASES = {"svi": "stochastic"}
#: Algorithms that draw fresh minibatches every lap.
MINIBATCH_ALGORITHMS = ("stochastic", "truncation_free")

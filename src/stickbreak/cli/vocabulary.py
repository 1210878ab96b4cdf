"""The words the command line offers (the choices of its options and the defaults its help names),
written out so that reading a command line imports none of the models: ``stickbreak fit ... --out
DIR`` refuses a bad option or directory in a fraction of a second instead of after the two seconds
the estimators take to import. ``tests/cli/test_vocabulary.py`` holds each list equal to the
registry it mirrors (observation models, weight models, learners, initialisations, executors)."""

from __future__ import annotations

#: ``fit mixture --obs``: the observation models of independent items (``ar_gauss`` needs sequences).
MIXTURE_OBS = ("bern", "diag_gauss", "gauss", "mult", "zero_mean_gauss")
#: ``fit mixture --weights``: the mixture weight models.
MIXTURE_WEIGHTS = ("dp", "finite")
#: ``fit mixture --algorithm``: the mixture estimators' plans, with SVI's other name.
MIXTURE_ALGORITHMS = ("vb", "stochastic", "memoized", "truncation_free", "svi")
#: ``fit short-texts --algorithm``: the short-text model's algorithms (those of a DP mixture of word counts).
SHORT_TEXT_ALGORITHMS = ("memoized", "vb", "truncation_free")
#: ``fit mixture --init``: how the first clusters are drawn ("gibbs": mixtures of word counts).
INIT_METHODS = ("kmeans++", "random", "gibbs")
#: ``fit mixture --sampling``: how SVI draws its minibatches.
SAMPLING = ("without_replacement", "with_replacement")
#: ``fit topics --algorithm``: every registered learner of the topic models.
TOPIC_ALGORITHMS = ("vb", "stochastic", "svi", "memoized", "truncation_free", "gibbs", "svb", "cvb", "cvb0",
                    "hybrid_vb_gibbs", "hybrid_cvb_gibbs")
#: ``fit hmm --obs`` and ``--init``.
HMM_OBS_MODELS = ("gauss", "diag_gauss", "zero_mean_gauss", "ar_gauss", "bern", "mult")
HMM_INITS = ("contiguous_blocks", "kmeans++")
#: ``fit admixture --obs``, ``--algorithm``, ``--init`` and ``--local-start``.
ADMIXTURE_OBS_MODELS = ("gauss", "diag_gauss", "zero_mean_gauss", "bern")
ADMIXTURE_ALGORITHMS = ("memoized", "vb")
ADMIXTURE_INITS = ("kmeans++", "random")
LOCAL_STARTS = ("scratch", "warm", "best")
#: ``HDPAdmixture``'s defaults that ``fit admixture`` offers as its own.
ADMIXTURE_DEFAULTS = {"obs_model": "zero_mean_gauss", "n_topics": 50, "concentration": 10.0, "doc_topic_prior": 0.5,
                      "algorithm": "memoized", "init": "kmeans++", "local_start": "scratch", "max_laps": 100,
                      "tol": 1e-6}
#: ``--executor``: the executors by name, and how a Dask scheduler's address starts.
EXECUTORS = ("threads", "processes", "dask")
ADDRESS_SCHEMES = ("tcp://", "tls://", "inproc://", "ucx://", "ws://", "wss://")
#: ``--checkpoint-every``: seconds between saves within a lap.
CHECKPOINT_EVERY = 600.0
#: The exit status of a fit the user interrupted (its files are still written), as for SIGINT.
INTERRUPTED_EXIT = 130

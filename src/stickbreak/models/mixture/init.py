"""Initial global parameters for mixtures: Bregman k-means++ and random examples (Hughes 2016, §2.7),
and for the DP mixture of multinomials the partition of a collapsed Gibbs run (:mod:`.gibbs_start`);
and the same hard splits for a birth's pooled items (:func:`split_labels`).

Each returns hard labels; :func:`params_from_labels` turns labels into global parameters by one
summary and one global step, so every model starts the same way.
"""

from __future__ import annotations

import numpy as np

from .gibbs_start import GIBBS_START_SWEEPS, gibbs_labels, gibbs_sweeps, one_pseudo_count
from .model import MixtureModel
from .params import MixtureLocal, MixtureParams
from ...data.bow import is_integral
from ...obs import expfam


def one_hot(labels: np.ndarray, n_components: int) -> np.ndarray:
    """(N, K) responsibilities that put each item on its label (hard labels as a ``q(z)``)."""
    resp = np.zeros((len(labels), n_components))
    resp[np.arange(len(labels)), labels] = 1.0
    return resp


def _centers(model: MixtureModel, data, labels: np.ndarray, n_components: int) -> expfam.Natural:
    """Smoothed centers: the posterior of each hard cluster (``mu_k = (S_k + tau)/(N_k + nu)``, Alg. 2.1)."""
    resp = one_hot(labels, n_components)
    stats = {"N": resp.sum(axis=0), **model.obs.suff_stats(data, resp, model.obs_prior)}
    return expfam.posterior(model.obs, model.obs_prior, stats)


def random_examples(data, n_components: int, rng: np.random.Generator) -> np.ndarray:
    """Indices of ``n_components`` distinct random items (with repeats only if there are too few)."""
    replace = n_components > data.n_items
    return rng.choice(data.n_items, size=n_components, replace=replace)


def kmeans_plus_plus(model: MixtureModel, data, n_components: int, rng: np.random.Generator) -> np.ndarray:
    """Seeds by Bregman k-means++ (Alg. 2.2): each next seed drawn with probability ∝ its divergence
    from the nearest seed so far, divergences taken between prior-smoothed items."""
    seeds = [int(rng.integers(data.n_items))]
    nearest = np.full(data.n_items, np.inf)
    for _ in range(1, n_components):
        center = _centers(model, data.subset([seeds[-1]]), np.zeros(1, dtype=int), 1)
        nearest = np.minimum(nearest, model.obs.bregman_divergence(data, model.obs_prior, center)[:, 0])
        total = nearest.sum()
        if total > 0 and np.isfinite(total):
            seeds.append(int(rng.choice(data.n_items, p=nearest / total)))
        else:  # every item coincides with a seed: fall back to a uniform draw
            seeds.append(int(rng.integers(data.n_items)))
    return np.array(seeds)


def bregman_kmeans(model: MixtureModel, data, seeds: np.ndarray, n_iters: int) -> np.ndarray:
    """Hard-assignment EM from the given seeds (Alg. 2.1).

    The assignment ``argmax_k log pi_k - D(s(x_n), mu_k)`` uses the *unsmoothed* item, for which
    ``-D`` equals the log-likelihood up to a per-item constant; we score it as
    ``log pi_k + E log p(x_n | phi_k)`` under each center's posterior, so an empty center (the prior)
    never wins by being broad. Centers are the posteriors of the hard clusters.
    """
    n_components = len(seeds)
    centers = _centers(model, data.subset(seeds), np.arange(n_components), n_components)
    log_pi = np.full(n_components, -np.log(n_components))
    labels = np.argmax(model.obs.expected_loglik(centers, data), axis=1)
    for _ in range(n_iters):
        centers = _centers(model, data, labels, n_components)
        counts = np.bincount(labels, minlength=n_components)
        log_pi = np.log((counts + 1.0) / (data.n_items + n_components))  # Eq. 2.77 with unit pseudo-counts
        new_labels = np.argmax(log_pi[None, :] + model.obs.expected_loglik(centers, data), axis=1)
        if np.array_equal(new_labels, labels):
            break
        labels = new_labels
    return labels


#: Collapsed Gibbs sweeps that refine a birth's k-means split of whole word counts, and the DP
#: concentration of that proposal's own sampler (the split is only proposed: the exact ELBO judges it).
SPLIT_SWEEPS = 10
SPLIT_CONCENTRATION = 1.0


def split_labels(model: MixtureModel, pool, n_groups: int, rng: np.random.Generator, n_kmeans_iters: int) -> np.ndarray:
    """Hard labels splitting a birth's pooled items into at most ``n_groups`` groups.

    Bregman k-means++ seeds and hard k-means (Alg. 2.1-2.2). For whole word counts under one
    pseudo-count of every word (a mixture of multinomials, ``model.obs`` "mult"), the k-means
    partition is then the start of ``SPLIT_SWEEPS`` collapsed Gibbs sweeps of the DP mixture of
    multinomials on the pool (:func:`.gibbs_start.gibbs_sweeps`), which moves documents as whole
    documents under the collapsed evidence: on short texts k-means on a few words per item splits
    by chance words, and such births are mostly rejected (births accepted of those tried from a
    k-means++ start: ``benchmarks/results/short_texts*.md``). The sampler's ``n_groups`` largest
    clusters are kept; the items of the others go to the kept group under which they are likeliest.
    When the sampler keeps one group there is no split to propose (the birth is not made).
    """
    labels = bregman_kmeans(model, pool, kmeans_plus_plus(model, pool, n_groups, rng), n_kmeans_iters)
    pseudo_count = one_pseudo_count(model.obs, model.obs_prior)
    if pseudo_count is None or not is_integral(pool.counts.data):
        return labels
    labels = gibbs_sweeps(pool, labels, pseudo_count, SPLIT_CONCENTRATION, SPLIT_SWEEPS, rng)
    return _largest_groups(model, pool, labels, n_groups)


def _largest_groups(model: MixtureModel, data, labels: np.ndarray, n_groups: int) -> np.ndarray:
    """``labels`` with only the ``n_groups`` largest groups, the others' items moved to the kept
    group whose posterior gives them the highest expected log-likelihood."""
    sizes = np.bincount(labels)
    if len(sizes) <= n_groups:
        return labels
    relabel = np.full(len(sizes), -1)
    relabel[np.argsort(-sizes, kind="stable")[:n_groups]] = np.arange(n_groups)
    labels = relabel[labels]
    kept, loose = np.flatnonzero(labels >= 0), np.flatnonzero(labels < 0)
    centers = _centers(model, data.subset(kept), labels[kept], n_groups)
    labels[loose] = np.argmax(model.obs.expected_loglik(centers, data.subset(loose)), axis=1)
    return labels


def params_from_labels(model: MixtureModel, data, labels: np.ndarray, n_components: int) -> MixtureParams:
    resp = one_hot(labels, n_components)
    local = MixtureLocal(resp=resp, log_norm=np.zeros(len(labels)), entropy=np.zeros(n_components))
    return model.global_step(model.summarize(data, local))


def initial_params(model: MixtureModel, data, n_components: int, method: str, rng: np.random.Generator,
                   n_kmeans_iters: int = 5) -> MixtureParams:
    """Global parameters to start from, by ``"kmeans++"`` (seeding + k-means), ``"random"`` examples
    or ``"gibbs"`` (DP mixtures of multinomials: as many components as the sampler, dealt among
    ``n_components`` at first, ends with)."""
    if method == "gibbs":
        labels = gibbs_labels(data, *_gibbs_priors(model), n_components, GIBBS_START_SWEEPS, rng)
        return params_from_labels(model, data, labels, int(labels.max()) + 1)
    if method == "random":
        seeds = random_examples(data, n_components, rng)
        return params_from_labels(model, data.subset(seeds), np.arange(n_components), n_components)
    if method == "kmeans++":
        seeds = kmeans_plus_plus(model, data, n_components, rng)
        labels = bregman_kmeans(model, data, seeds, n_kmeans_iters)
        return params_from_labels(model, data, labels, n_components)
    raise ValueError(f"unknown init method {method!r}; choose 'kmeans++', 'random' or 'gibbs'")


def _gibbs_priors(model: MixtureModel) -> tuple[float, float]:
    """The sampler's priors (:meth:`MixtureModel.sampler_priors`), which ``init="gibbs"`` needs."""
    priors = model.sampler_priors()
    if priors is None:
        raise ValueError("init='gibbs' samples the DP mixture of multinomials with one pseudo_count for every word "
                         f"(obs_model='mult', DP weights, a scalar obs_prior); got obs_model={model.obs.name!r} with "
                         f"{model.weights.name!r} weights; use init='kmeans++'")
    return priors

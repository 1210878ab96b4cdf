"""Peer topic-model runners for ``benchmarks/topics.py``: scikit-learn, gensim and tomotopy.

One runner per peer configuration. Each takes the training matrix (scipy CSR, documents x V, integer
counts), the shared :class:`Settings` and a ``passes`` budget, fits the peer and returns a
:class:`PeerRun` whose ``snapshots`` is a list of
``(pass_index, cumulative_process_cpu_seconds, cumulative_wall_seconds, topic_word)``
(``topic_word``: K x V float array, rows normalised, columns = our column ids). With ``on_snapshot``
the fourth element is ``on_snapshot(pass_index, topic_word)`` instead (``topics.py`` scores each
snapshot at once rather than keeping every K x V matrix in memory).

Timing: the clock covers the library's own training calls only. At a snapshot the cumulative times are
read first, then the topic-word matrix is extracted and ``on_snapshot`` runs; the time spent there
(process CPU and wall) is accumulated and subtracted from everything measured later, so evaluation
never counts. Corpus conversion (gensim's list-of-tuples corpus, tomotopy's ``add_doc``) is timed
separately (``prep_*``). BLAS is limited to one thread (threadpoolctl) around every fit.

Settings follow ``../shared/research/peers.md`` section 3.2: K=20, alpha=0.1, eta=0.01 for every LDA,
seed 0, hyper-parameter optimisation off, everything else at library defaults; the HDPs at library
defaults. How each runner gets per-pass snapshots without changing what the library computes:

* ``sk_batch``: one ``LatentDirichletAllocation(learning_method="batch", max_iter=passes).fit``; the
  instance's ``_em_step`` (one full E+M iteration per pass in ``fit``) is wrapped so a snapshot is
  taken after each call. scikit-learn has no public per-iteration hook or warm start for LDA and
  ``partial_fit`` is online-only; the wrapper only observes. ``fit`` then spends one more E-step on
  the training-set bound (``bound_``), which is post-processing: it is in ``fit_cpu_s`` but not in
  the per-pass times.
* ``sk_online``: ``partial_fit`` once per pass with ``total_samples = D`` (``fit`` uses D, while
  ``partial_fit`` uses ``total_samples``, default 1e6). This performs exactly the minibatch updates
  of ``fit(max_iter=passes)`` (same ``batch_size=128`` slices in the same order, same random stream,
  same learning-rate counter ``n_batch_iter_``); ``check_equivalence`` verifies equal ``components_``.
* ``gensim_online``: one ``LdaModel(..., passes=passes)`` with a gensim callback ``Metric`` whose
  ``get_value`` takes the snapshot at the end of every pass (gensim's public per-epoch hook). With
  ``update_every=1`` the M-step runs after each chunk, so the hook sees the end-of-pass model.
  (Calling ``update(passes=1)`` repeatedly would restart gensim's ``pass_`` term of the learning rate
  and would not count later passes as "extra passes", so it is not equivalent.) ``eval_every=None``:
  gensim's default ``eval_every=10`` computes a perplexity bound on a chunk inside training (pure
  logging, and it draws from the model's random stream); it is turned off as evaluation.
* ``gensim_hdp``: one ``HdpModel(corpus, max_chunks = passes * ceil(D/256))`` (the model is built
  by a subclass whose ``update_chunk`` calls the original and then, every ``ceil(D/256)`` chunks =
  one pass, takes a snapshot). The snapshot applies gensim's pending lazy decay to a copy of
  ``m_lambda`` (what ``update_expectations`` would do) and normalises ``m_lambda + eta`` as
  ``get_topics`` does, so the model state is not touched; the last snapshot equals ``get_topics()``
  after the fit (checked by ``check_equivalence``). Topics out: gensim's own notion, the fixed
  truncation T=150 (rows of ``get_topics()``; gensim has no notion of used topics).
* ``tp_lda`` / ``tp_hdp``: tomotopy ``train(n, workers=1)`` called in increments up to the budget;
  tomotopy continues training across calls (same ``global_step``, same sampler state), checked by
  ``check_equivalence``. ``tp_lda``: ``LDAModel(k=20, alpha=0.1, eta=0.01, seed=0)``,
  ``optim_interval=0``; ``tp_hdp``: ``HDPModel(initial_k=2, alpha=0.1, gamma=0.1, eta=0.01, seed=0)``
  with its default hyper-parameter optimisation (``optim_interval=10``); Phi = live topics only,
  topics out = ``live_k``. Words are fed as ``"w<column id>"`` strings (each document's tokens in
  column order, repeated by count) and mapped back exactly through ``used_vocabs``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

__all__ = ["RUNNERS", "PeerRun", "Settings", "Clock", "check_equivalence", "library_versions"]


@dataclass(frozen=True)
class Settings:
    """peers.md section 3.2 common settings (LDA); the HDPs use their library defaults."""

    n_topics: int = 20
    alpha: float = 0.1  # doc-topic prior
    eta: float = 0.01  # topic-word prior
    seed: int = 0
    sk_batch_size: int = 128  # sklearn online default
    gensim_chunksize: int = 2000  # gensim LdaModel default
    gensim_iterations: int = 50  # gensim LdaModel default
    gensim_hdp_chunksize: int = 256  # gensim HdpModel default
    tp_hdp_initial_k: int = 2
    tp_hdp_alpha: float = 0.1
    tp_hdp_gamma: float = 0.1


@dataclass
class PeerRun:
    snapshots: list  # [(pass_index, cpu_s, wall_s, topic_word or on_snapshot(...))]
    fit_cpu_s: float  # the whole fitting call(s), snapshots excluded, post-processing included
    fit_wall_s: float
    prep_cpu_s: float = 0.0  # corpus conversion, not part of the fit times
    prep_wall_s: float = 0.0
    topics_out: int | None = None
    topics_out_note: str = ""
    extra: dict = field(default_factory=dict)


def _normalise(topic_word) -> np.ndarray:
    topic_word = np.asarray(topic_word, dtype=np.float64)
    return topic_word / topic_word.sum(axis=1, keepdims=True)


class Clock:
    """Cumulative process-CPU and wall time of a fit, excluding the time spent taking snapshots."""

    def __init__(self, on_snapshot: Callable[[int, np.ndarray], Any] | None = None, snapshot_at=None):
        self.on_snapshot = on_snapshot
        self.snapshot_at = None if snapshot_at is None else set(int(p) for p in snapshot_at)
        self.snapshots: list = []
        self.excluded_cpu = 0.0
        self.excluded_wall = 0.0
        self.cpu0 = self.wall0 = None

    def start(self) -> None:
        self.cpu0, self.wall0 = time.process_time(), time.perf_counter()

    def elapsed(self) -> tuple[float, float]:
        return (time.process_time() - self.cpu0 - self.excluded_cpu,
                time.perf_counter() - self.wall0 - self.excluded_wall)

    def wants(self, pass_index: int) -> bool:
        return self.snapshot_at is None or pass_index in self.snapshot_at

    def snapshot(self, pass_index: int, get_topic_word: Callable[[], np.ndarray]) -> None:
        """Read the clock, then (clock stopped) extract and record the topic-word matrix."""
        cpu_in, wall_in = time.process_time(), time.perf_counter()
        cpu, wall = cpu_in - self.cpu0 - self.excluded_cpu, wall_in - self.wall0 - self.excluded_wall
        topic_word = _normalise(get_topic_word())
        value = topic_word if self.on_snapshot is None else self.on_snapshot(pass_index, topic_word)
        self.snapshots.append((int(pass_index), cpu, wall, value))
        self.excluded_cpu += time.process_time() - cpu_in
        self.excluded_wall += time.perf_counter() - wall_in


def _passes_grid(passes: int, snapshot_at) -> list[int]:
    if snapshot_at is None:
        return list(range(1, passes + 1))
    return sorted({int(p) for p in snapshot_at if 1 <= p <= passes} | {passes})


# ---------------------------------------------------------------------------------------------- sklearn

def _sk_model(settings: Settings, method: str, passes: int, D: int):
    from sklearn.decomposition import LatentDirichletAllocation

    return LatentDirichletAllocation(
        n_components=settings.n_topics, doc_topic_prior=settings.alpha, topic_word_prior=settings.eta,
        learning_method=method, max_iter=passes, total_samples=D, random_state=settings.seed,
    )  # batch_size=128, learning_decay=0.7, learning_offset=10, evaluate_every=-1: defaults


def run_sk_batch(X, settings: Settings, passes: int, on_snapshot=None, snapshot_at=None) -> PeerRun:
    Xf = sp.csr_matrix(X, dtype=np.float64)  # sklearn would convert on entry; done outside the clock
    model = _sk_model(settings, "batch", passes, Xf.shape[0])
    clock = Clock(on_snapshot, snapshot_at)
    original = model._em_step
    done = [0]

    def em_step_then_snapshot(*args, **kwargs):  # observation only: the same call, then a snapshot
        out = original(*args, **kwargs)
        done[0] += 1
        if clock.wants(done[0]) or done[0] == passes:
            clock.snapshot(done[0], lambda: model.components_)
        return out

    model._em_step = em_step_then_snapshot
    with threadpool_limits(limits=1, user_api="blas"):
        clock.start()
        model.fit(Xf)
        fit_cpu, fit_wall = clock.elapsed()
    assert done[0] == passes, (done[0], passes)
    return PeerRun(clock.snapshots, fit_cpu, fit_wall, topics_out=settings.n_topics, topics_out_note="K",
                   extra={"fit_includes": "final training-set bound E-step (sklearn fit post-processing)"})


def run_sk_online(X, settings: Settings, passes: int, on_snapshot=None, snapshot_at=None) -> PeerRun:
    Xf = sp.csr_matrix(X, dtype=np.float64)
    model = _sk_model(settings, "online", passes, Xf.shape[0])
    clock = Clock(on_snapshot, snapshot_at)
    with threadpool_limits(limits=1, user_api="blas"):
        clock.start()
        for p in range(1, passes + 1):
            model.partial_fit(Xf)  # one pass: all batch_size=128 minibatches in row order
            if clock.wants(p) or p == passes:
                clock.snapshot(p, lambda: model.components_)
        fit_cpu, fit_wall = clock.elapsed()
    return PeerRun(clock.snapshots, fit_cpu, fit_wall, topics_out=settings.n_topics, topics_out_note="K")


# ----------------------------------------------------------------------------------------------- gensim

def gensim_corpus(X) -> list:
    X = sp.csr_matrix(X)
    return [list(zip(X.indices[a:b].tolist(), X.data[a:b].tolist())) for a, b in zip(X.indptr[:-1], X.indptr[1:])]


def gensim_hdp_topics(model) -> np.ndarray:
    """An ``HdpModel``'s topic-word Dirichlet parameters (T, V) with its pending lazy decay applied:
    what ``update_expectations()`` + ``get_topics()`` would give, without changing the model."""
    decay = np.exp(model.m_r[-1] - np.asarray(model.m_r)[model.m_timestamp])
    return model.m_lambda * decay[None, :] + model.m_eta


def run_gensim_online(X, settings: Settings, passes: int, on_snapshot=None, snapshot_at=None) -> PeerRun:
    from gensim.models import LdaModel
    from gensim.models.callbacks import Metric

    cpu, wall = time.process_time(), time.perf_counter()
    corpus = gensim_corpus(X)
    id2word = {i: f"w{i}" for i in range(X.shape[1])}
    prep_cpu, prep_wall = time.process_time() - cpu, time.perf_counter() - wall
    clock = Clock(on_snapshot, snapshot_at)

    class Snapshot(Metric):
        """gensim per-epoch callback metric; ``get_value`` is called at the end of every pass."""

        def __init__(self):
            self.logger, self.title, self.model = None, "snapshot", None

        def get_value(self, **kwargs):
            self.done = getattr(self, "done", 0) + 1
            model = kwargs["model"]
            if clock.wants(self.done) or self.done == passes:
                clock.snapshot(self.done, model.get_topics)
            return 0.0

    metric = Snapshot()
    with threadpool_limits(limits=1, user_api="blas"):
        clock.start()
        model = LdaModel(corpus, num_topics=settings.n_topics, id2word=id2word, chunksize=settings.gensim_chunksize,
                         passes=passes, iterations=settings.gensim_iterations, alpha=settings.alpha, eta=settings.eta,
                         eval_every=None, random_state=settings.seed, callbacks=[metric])
        fit_cpu, fit_wall = clock.elapsed()
    assert metric.done == passes
    return PeerRun(clock.snapshots, fit_cpu, fit_wall, prep_cpu, prep_wall, topics_out=settings.n_topics,
                   topics_out_note="K", extra={"model": model} if on_snapshot is None else {})


def run_gensim_hdp(X, settings: Settings, passes: int, on_snapshot=None, snapshot_at=None) -> PeerRun:
    from gensim.models import HdpModel

    cpu, wall = time.process_time(), time.perf_counter()
    corpus = gensim_corpus(X)
    id2word = {i: f"w{i}" for i in range(X.shape[1])}
    prep_cpu, prep_wall = time.process_time() - cpu, time.perf_counter() - wall
    chunks_per_pass = math.ceil(X.shape[0] / settings.gensim_hdp_chunksize)
    clock = Clock(on_snapshot, snapshot_at)

    class SnapshotHdp(HdpModel):
        chunks_done = 0

        def update_chunk(self, chunk, update=True, opt_o=True):
            out = super().update_chunk(chunk, update, opt_o)
            self.chunks_done += 1
            if self.chunks_done % chunks_per_pass == 0:
                p = self.chunks_done // chunks_per_pass
                if clock.wants(p) or p == passes:
                    clock.snapshot(p, lambda: gensim_hdp_topics(self))
            return out

    import logging
    logging.getLogger("gensim").setLevel(logging.WARNING)  # print_topics(20) logs at INFO
    with threadpool_limits(limits=1, user_api="blas"):
        clock.start()
        model = SnapshotHdp(corpus, id2word, max_chunks=passes * chunks_per_pass,
                            chunksize=settings.gensim_hdp_chunksize, random_state=settings.seed)
        fit_cpu, fit_wall = clock.elapsed()
    assert model.chunks_done == passes * chunks_per_pass
    return PeerRun(clock.snapshots, fit_cpu, fit_wall, prep_cpu, prep_wall, topics_out=int(model.m_T),
                   topics_out_note="gensim: fixed truncation T (get_topics() rows)",
                   extra={"model": model, "chunks_per_pass": chunks_per_pass} if on_snapshot is None
                   else {"chunks_per_pass": chunks_per_pass})


# --------------------------------------------------------------------------------------------- tomotopy

def _tp_add_docs(model, X) -> None:
    X = sp.csr_matrix(X)
    names = np.array([f"w{i}" for i in range(X.shape[1])], dtype=object)
    for a, b in zip(X.indptr[:-1], X.indptr[1:]):
        model.add_doc(names[np.repeat(X.indices[a:b], X.data[a:b].astype(np.int64))].tolist())


def _tp_topic_word(model, topics, V: int) -> np.ndarray:
    cols = np.array([int(w[1:]) for w in model.used_vocabs])
    out = np.zeros((len(topics), V))
    for row, k in enumerate(topics):
        out[row, cols] = model.get_topic_word_dist(k, normalize=True)
    return out


def _run_tomotopy(model, X, passes, on_snapshot, snapshot_at, live_only: bool):
    V = X.shape[1]
    cpu, wall = time.process_time(), time.perf_counter()
    _tp_add_docs(model, X)
    prep_cpu, prep_wall = time.process_time() - cpu, time.perf_counter() - wall

    def topics():
        ks = [k for k in range(model.k) if model.is_live_topic(k)] if live_only else list(range(model.k))
        return _tp_topic_word(model, ks, V)

    clock = Clock(on_snapshot, snapshot_at)
    grid = _passes_grid(passes, snapshot_at)
    live = []
    with threadpool_limits(limits=1, user_api="blas"):
        clock.start()
        done = 0
        for p in grid:
            model.train(p - done, workers=1)
            done = p
            clock.snapshot(p, topics)
            if live_only:
                live.append((p, int(model.live_k)))
        fit_cpu, fit_wall = clock.elapsed()
    assert model.global_step == passes, (model.global_step, passes)
    return clock, fit_cpu, fit_wall, prep_cpu, prep_wall, live


def run_tp_lda(X, settings: Settings, passes: int, on_snapshot=None, snapshot_at=None) -> PeerRun:
    import tomotopy as tp

    model = tp.LDAModel(k=settings.n_topics, alpha=settings.alpha, eta=settings.eta, seed=settings.seed)
    model.optim_interval = 0
    clock, fit_cpu, fit_wall, prep_cpu, prep_wall, _ = _run_tomotopy(model, X, passes, on_snapshot, snapshot_at, False)
    return PeerRun(clock.snapshots, fit_cpu, fit_wall, prep_cpu, prep_wall, topics_out=settings.n_topics,
                   topics_out_note="K", extra={"model": model} if on_snapshot is None else {})


def run_tp_hdp(X, settings: Settings, passes: int, on_snapshot=None, snapshot_at=None) -> PeerRun:
    import tomotopy as tp

    model = tp.HDPModel(initial_k=settings.tp_hdp_initial_k, alpha=settings.tp_hdp_alpha, gamma=settings.tp_hdp_gamma,
                        eta=settings.eta, seed=settings.seed)  # optim_interval=10 (default)
    clock, fit_cpu, fit_wall, prep_cpu, prep_wall, live = _run_tomotopy(
        model, X, passes, on_snapshot, snapshot_at, True)
    return PeerRun(clock.snapshots, fit_cpu, fit_wall, prep_cpu, prep_wall, topics_out=int(model.live_k),
                   topics_out_note="tomotopy: live_k (live topics)",
                   extra={"live_k_by_pass": live, **({"model": model} if on_snapshot is None else {})})


#: name -> (runner, kind). kind "vb": ``passes`` = VB passes; "gibbs": ``passes`` = Gibbs sweeps.
RUNNERS: dict[str, tuple[Callable[..., PeerRun], str, str]] = {
    "sk_batch": (run_sk_batch, "vb", "lda"),
    "sk_online": (run_sk_online, "vb", "lda"),
    "gensim_online": (run_gensim_online, "vb", "lda"),
    "tp_lda": (run_tp_lda, "gibbs", "lda"),
    "gensim_hdp": (run_gensim_hdp, "vb", "hdp"),
    "tp_hdp": (run_tp_hdp, "gibbs", "hdp"),
}

LIBRARY = {"sk": "scikit-learn", "gensim": "gensim", "tp": "tomotopy"}


def library_versions() -> dict:
    out = {}
    for module, name in (("sklearn", "scikit-learn"), ("gensim", "gensim"), ("tomotopy", "tomotopy")):
        try:
            out[name] = __import__(module).__version__
        except Exception as exc:  # noqa: BLE001 - report, do not fail
            out[name] = f"not importable ({type(exc).__name__}: {exc})"
    try:
        import tomotopy

        out["tomotopy.isa"] = tomotopy.isa
    except Exception:  # noqa: BLE001
        pass
    return out


def check_equivalence(X, passes: int = 3, settings: Settings = Settings()) -> dict:
    """The incremental / hooked runs equal plain one-call fits (max |difference| of normalised topic-word
    matrices; BLAS pinned to one thread for both, as multi-threaded BLAS alone changes gensim's HDP)."""
    with threadpool_limits(limits=1, user_api="blas"):
        return _check_equivalence(X, passes, settings)


def _check_equivalence(X, passes: int, settings: Settings) -> dict:
    from sklearn.decomposition import LatentDirichletAllocation

    out = {}
    Xf = sp.csr_matrix(X, dtype=np.float64)
    for method, runner in (("batch", run_sk_batch), ("online", run_sk_online)):
        plain = LatentDirichletAllocation(n_components=settings.n_topics, doc_topic_prior=settings.alpha,
                                          topic_word_prior=settings.eta, learning_method=method, max_iter=passes,
                                          random_state=settings.seed).fit(Xf)
        out[f"sk_{method}"] = float(np.abs(runner(X, settings,
                                                  passes).snapshots[-1][3] - _normalise(plain.components_)).max())

    from gensim.models import HdpModel, LdaModel

    corpus, id2word = gensim_corpus(X), {i: f"w{i}" for i in range(X.shape[1])}
    plain = LdaModel(corpus, num_topics=settings.n_topics, id2word=id2word, chunksize=settings.gensim_chunksize,
                     passes=passes, iterations=settings.gensim_iterations, alpha=settings.alpha, eta=settings.eta,
                     eval_every=None, random_state=settings.seed)
    out["gensim_online"] = float(np.abs(run_gensim_online(X, settings, passes).snapshots[-1][3]
                                        - _normalise(plain.get_topics())).max())
    run = run_gensim_hdp(X, settings, passes)
    plain = HdpModel(corpus, id2word, max_chunks=passes * math.ceil(X.shape[0] / 256), random_state=settings.seed)
    out["gensim_hdp"] = float(np.abs(run.snapshots[-1][3] - _normalise(plain.get_topics())).max())
    out["gensim_hdp_snapshot_vs_own_get_topics"] = float(np.abs(run.snapshots[-1][3]
                                                                - _normalise(run.extra["model"].get_topics())).max())

    import tomotopy as tp

    for name, make, live in (("tp_lda", lambda: tp.LDAModel(k=settings.n_topics, alpha=settings.alpha, eta=settings.eta,
                                                             seed=settings.seed), False),
                             ("tp_hdp", lambda: tp.HDPModel(initial_k=2, alpha=0.1, gamma=0.1, eta=settings.eta,
                                                            seed=settings.seed), True)):
        sweeps = 4 * passes + 3  # crosses tomotopy's optim_interval=10 for the HDP
        model = make()
        if name == "tp_lda":
            model.optim_interval = 0
        _tp_add_docs(model, X)
        model.train(sweeps, workers=1)
        ks = [k for k in range(model.k) if model.is_live_topic(k)] if live else list(range(model.k))
        plain = _normalise(_tp_topic_word(model, ks, X.shape[1]))
        run = RUNNERS[name][0](X, settings, sweeps, snapshot_at=[1, 2, 5, sweeps])
        got = run.snapshots[-1][3]
        out[name] = (float(np.abs(got - plain).max()) if got.shape == plain.shape
                     else f"shapes differ {got.shape} {plain.shape}")
    return out

"""One local step and summary (:func:`local_summary`), what every executor runs for a batch or a
part of one, and the serial ``sweep`` over batches that whole-data proposals are given (:func:`on_batches`)."""

from __future__ import annotations


def local_summary(model, params, batch, warm=None, merge_pairs=None, keep_loglik: bool = False,
                  keep_local: bool = False, features=None, n_features: int = 0, keep_own_local: bool = False) -> tuple:
    """One local step and summary, what every executor runs for a batch or a part of one:
    ``(stats, warm start)``, and the local parameters with ``keep_local``. ``merge_pairs`` and
    ``keep_loglik`` are memoized VI's (:class:`~stickbreak.core.protocols.Memoizable`).
    ``features``: ``batch`` and ``params`` hold only these of ``n_features`` features (a
    :class:`~stickbreak.core.protocols.FeatureSliced` model's part on a worker); the statistics
    and local parameters come back over all of them. ``keep_own_local`` appends the local
    parameters as the local step gave them, on ``batch``'s own features (what a move's per-batch
    work runs on where the part lives)."""
    if merge_pairs is None:
        own = model.local_step(params, batch, warm=warm)
    else:
        own = model.local_step(params, batch, warm=warm, keep_loglik=keep_loglik, merge_pairs=merge_pairs)
    local = own if features is None else model.local_to_all_features(own, features, n_features)
    pairs = {} if merge_pairs is None else {"merge_pairs": merge_pairs}
    stats = model.summarize(batch, local, params.uids, **pairs)
    return (stats, model.warm_start(local)) + ((local,) if keep_local else ()) + ((own,) if keep_own_local else ())


def on_batches(batches):
    """The ``sweep`` of :meth:`~stickbreak.core.protocols.WholeDataBirths.birth_proposal` that runs
    here: ``sweep(model, params, merge_pairs)`` is each batch's statistics, in order."""

    def sweep(model, params, merge_pairs=None):
        return [local_summary(model, params, batch, None, merge_pairs)[0] for batch in batches]

    return sweep

"""A topic model's delete proposal at one part of a batch, round by round (Hughes 2016, §5.5.2;
the learner's loop: :func:`stickbreak.moves.delete.refined`)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ...core.local_parts import local_summary

#: A document takes part in every refinement round if it holds at least this many of the targets' tokens
#: (thesis: 0.01).
DELETE_MIN_COUNT = 0.01


@dataclass(eq=False)
class DeletePart:
    """What a part keeps between rounds: its documents' counts over the remaining topics (each
    round's warm start), which documents the targets hold, and the others' statistics."""

    warm: np.ndarray
    targeted: np.ndarray
    fixed: object = None
    targeted_docs: object = None  # the part's targeted documents, cut once for every round


def delete_part(local, params, targets) -> DeletePart:
    """The documents' counts ``N_dk`` without the targets, and which documents hold at least
    ``DELETE_MIN_COUNT`` of the targets' tokens."""
    removed = np.isin(params.uids, np.atleast_1d(targets))
    start = local.doc_topic
    return DeletePart(np.ascontiguousarray(start[:, ~removed]), start[:, removed].sum(axis=1) >= DELETE_MIN_COUNT)


def delete_round(model, part: DeletePart, batch, current, step: int, last: bool, merge_pairs=None, features=None,
                 n_features: int = 0):
    """One round's statistics of the part over the remaining topics, exact for a valid ``q``, and
    its documents' counts (the batch's next warm start, unless local steps start from scratch).

    The targeted documents re-run the fixed point over the other topics, warm from their counts,
    in every round. The other documents (a few of the targets' tokens at most) take one iteration
    from there, once, in the first round: any valid ``q`` keeps the proposal exact, and theirs
    barely depends on the refinement. Their part and the targeted documents' last round gather
    the merged terms of ``merge_pairs``, so merges can follow the delete."""

    def run(index, docs, max_iter, pairs):
        on_index = replace(model, local=replace(model.local, start="warm", max_iter=max_iter))
        stats, part.warm[index] = local_summary(on_index, current, docs, part.warm[index], pairs,
                                                features=features, n_features=n_features)[:2]
        return stats

    index = np.flatnonzero(part.targeted)
    if step == 0:
        others = np.flatnonzero(~part.targeted)
        part.fixed = run(others, batch.subset(others), 1, merge_pairs) if len(others) else None
        part.targeted_docs = batch.subset(index) if len(index) else None
    stats = run(index, part.targeted_docs, model.local.max_iter, merge_pairs if last else None) if len(index) else None
    fixed = part.fixed if last or part.fixed is None else part.fixed.without_merge_terms()
    stats = fixed if stats is None else stats if fixed is None else fixed + stats
    return stats, (part.warm if model.local.start != "scratch" else None)

"""A batch's local parameters from those of its parts (an executor splits a batch among workers).

Local parameters hold per-item arrays (responsibilities, document-topic counts), which stack in
item order, and per-batch sums (entropies, expected counts), which add; the rest (priors, merge
pairs) is the same in every part. Each local type names its per-item and summed fields.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

import numpy as np
import scipy.sparse as sp


def _stacked(values: list):
    if any(v is None for v in values):
        return None
    if sp.issparse(values[0]):
        return sp.vstack(values, format="csr")
    return np.concatenate(values)


def join_parts(parts: Sequence[Any], per_item: tuple[str, ...], summed: tuple[str, ...]):
    """The dataclass of a whole batch from those of its consecutive parts: ``per_item`` fields
    stacked along the first axis in part order, ``summed`` fields added, the others the first part's."""
    if len(parts) == 1:
        return parts[0]
    fields = [vars(part) for part in parts]
    changes = {name: _stacked([f[name] for f in fields]) for name in per_item}
    changes.update({name: sum(f[name] for f in fields[1:]) + fields[0][name] if fields[0][name] is not None else None
                    for name in summed})
    return replace(parts[0], **changes)

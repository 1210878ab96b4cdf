"""A topic merge's ELBO from the two topics' rows (Hughes 2016, §5.5.1): the data term is a sum over
topics of ``E[log p(x | phi_k)] - KL(q(phi_k) || p(phi_k))``, so merging ``removed`` into ``kept``
changes it only by the new row of ``kept`` minus the two old rows: O(V) where rescoring every
topic costs O(K V). The other terms (entropy, documents, top-level sticks) are O(K) and recomputed.
"""

from __future__ import annotations

import numpy as np

from ...core.suffstats import SuffStats
from ...obs import expfam, mult
from ...obs.expfam import select_components


def _rows(stats: SuffStats, rows: np.ndarray) -> dict:
    return {name: value[rows] for name, value in stats.fields.items()}


def merged_terms(model, stats: SuffStats, candidate: SuffStats, params, terms: dict, kept: int,
                 removed: int) -> dict[str, float]:
    """``model.elbo_terms`` of ``model.score(merged, params)``, with ``terms`` those of ``stats``
    and ``params`` (``merged``: ``stats`` with ``removed`` merged into ``kept``; ``candidate``:
    ``merged`` without the word counts, whose merged row is the sum of the two rows)."""
    before = stats.indices_of([kept, removed])
    rows = _rows(stats, before)
    old = expfam.elbo_data(mult, model.obs_prior, select_components(params.obs, before), rows, 0.0,
                           expected=select_components(params.expected_log_phi, before))
    after = {"N": candidate.fields["N"][[candidate.index_of(kept)]],
             "word_counts": rows["word_counts"][:1] + rows["word_counts"][1:]}
    new = expfam.elbo_data(mult, model.obs_prior, expfam.posterior(mult, model.obs_prior, after), after, 0.0)
    data = terms["data"] - old + new
    return {"data": data, **model.allocation_terms(model.weights_step(candidate, params), candidate)}

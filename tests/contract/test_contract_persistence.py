"""Save/load round trip through the public estimators: ``est.save(path)`` then ``stickbreak.load(path)``
gives an estimator of the same class, with the same parameters, that predicts and scores exactly alike."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import stickbreak
from stickbreak import DILN, HDPHMM, LDA, DPMixture, FiniteHMM, FiniteMixture, HDPAdmixture, HDPTopicModel
from stickbreak.datasets.synthetic import make_lda_corpus, make_sticky_hmm_toy


def _points():
    X = np.random.default_rng(0).normal(size=(80, 2)) + np.repeat([[0.0, 0.0], [4.0, 4.0]], 40, axis=0)
    return (X,), (X,)


def _documents():
    counts, _, _ = make_lda_corpus(n_docs=60, n_topics=3, n_words=30, doc_length=40, seed=2)
    return (counts,), (counts[:10],)


def _sequences():
    X, offsets, _ = make_sticky_hmm_toy(n_sequences=3, length=60, n_states=3, seed=0)
    lengths = np.diff(offsets)
    return (X, lengths), (X, lengths)  # positional for predict; fit takes lengths by keyword


#: estimator, its data, and what must come out the same after the round trip.
ESTIMATOR_CASES = {
    "DPMixture": (lambda: DPMixture(algorithm="vb", n_components=4, max_laps=5, random_state=0), _points,
                  ("predict_proba", "score_samples")),
    "FiniteMixture": (lambda: FiniteMixture(n_components=3, max_laps=5, random_state=0), _points,
                      ("predict_proba", "score_samples")),
    "LDA": (lambda: LDA(n_topics=3, max_laps=4, random_state=0), _documents, ("transform", "score")),
    "HDPTopicModel": (lambda: HDPTopicModel(n_topics=4, max_laps=4, random_state=0), _documents,
                      ("transform", "score")),
    "DILN": (lambda: DILN(n_topics=4, latent_dim=2, init="random", max_laps=3, tol=0.0, random_state=0), _documents,
             ("transform",)),
    "HDPHMM": (lambda: HDPHMM(n_states=4, max_laps=4, random_state=0), _sequences,
               ("predict_proba", "score_sequences")),
    "FiniteHMM": (lambda: FiniteHMM(n_states=3, max_laps=4, random_state=0), _sequences,
                  ("predict_proba", "score_sequences")),
    "HDPAdmixture": (lambda: HDPAdmixture(n_topics=4, obs_model="gauss", max_laps=4, random_state=0), _sequences,
                     ("transform", "topic_proportions", "score_samples")),
}


@pytest.mark.parametrize("name", ESTIMATOR_CASES)
def test_save_load_round_trip_predicts_the_same(name, tmp_path):
    make, data, outputs = ESTIMATOR_CASES[name]
    fit_args, predict_args = data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fitted = make().fit(fit_args[0], lengths=fit_args[1]) if len(fit_args) == 2 else make().fit(*fit_args)
    back = stickbreak.load(fitted.save(tmp_path / name))
    assert type(back) is type(fitted)
    assert back.get_params().keys() == fitted.get_params().keys()
    for method in outputs:
        want, got = getattr(fitted, method)(*predict_args), getattr(back, method)(*predict_args)
        np.testing.assert_array_equal(got, want, err_msg=method)

"""``algorithm_options``: validated, frozen options; the old keywords are gone (after 0.1.0), older saved files
still load; clone/save/set_params; the constructors' sizes."""

import dataclasses
import inspect
import warnings

import numpy as np
import pytest
from sklearn.base import clone

import stickbreak
from stickbreak import DILN, LDA, DPMixture, FiniteHMM, FiniteMixture, HDPHMM, HDPTopicModel
from stickbreak.config import DILNOptions, HMMOptions, MixtureOptions, TopicOptions
from stickbreak.datasets.synthetic import make_lda_corpus


@pytest.fixture(scope="module")
def corpus():
    return make_lda_corpus(n_docs=60, n_topics=3, n_words=30, doc_length=40, seed=4)[0]


@pytest.fixture(scope="module")
def points():
    rng = np.random.default_rng(0)
    return np.concatenate([rng.normal(size=(40, 2)) + 4 * i for i in range(3)])


@pytest.fixture(scope="module")
def sequences():
    rng = np.random.default_rng(1)
    return [np.concatenate([rng.normal(size=(20, 2)) + 3 * (j % 2) for j in range(3)]) for _ in range(4)]


#: (estimator class, constructor arguments, old option keywords, which data).
CASES = [
    (LDA, dict(n_topics=3, algorithm="svi", batch_size=20, max_laps=3),
     dict(learning_rate_delay=1.0, learning_rate_decay=0.9, local_tol=0.1), "corpus"),
    (LDA, dict(n_topics=3, algorithm="cvb0", max_laps=3), dict(sample_threshold=2, burn_in=1), "corpus"),
    (HDPTopicModel, dict(n_topics=5, variational_family="two_level", algorithm="svi", batch_size=20, max_laps=2),
     dict(doc_truncation=3, learning_rate_delay=2.0), "corpus"),
    (HDPTopicModel, dict(algorithm="truncation_free", batch_size=20, max_laps=2, tol=0.0),
     dict(prune_every=30, n_sweeps=2, total_docs=100), "corpus"),
    (HDPTopicModel, dict(algorithm="gibbs", max_laps=3, tol=0.0),
     dict(burn_in=1, concentration_priors=((1, 1), (1, 0.1))),
     "corpus"),
    (DILN, dict(n_topics=4, latent_dim=2, algorithm="svi", batch_size=30, max_laps=2),
     dict(learning_rate_delay=5.0, newton_steps=2, local_max_iter=20), "corpus"),
    (DPMixture, dict(n_components=4, algorithm="svi", n_batches=3, max_laps=4),
     dict(learning_rate_delay=1.0, sampling="with_replacement"), "points"),
    (HDPHMM, dict(n_states=4, algorithm="svi", n_batches=2, max_laps=3), dict(learning_rate_decay=0.9), "sequences"),
]


@pytest.mark.parametrize("cls, args, legacy, data", CASES, ids=lambda v: getattr(v, "__name__", None))
def test_old_keywords_are_gone_and_options_fit(cls, args, legacy, data, request):
    with pytest.raises(TypeError, match=f"unexpected keyword argument {next(iter(legacy))!r}"):
        cls(**args, **legacy, random_state=0)  # the spellings removed after 0.1.0 (CHANGELOG.md)
    est = cls(**args, algorithm_options=legacy, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        est.fit(request.getfixturevalue(data))
    assert np.isfinite(est.lower_bound_)


def test_options_survive_clone_save_and_set_params(corpus, tmp_path):
    est = HDPTopicModel(n_topics=4, algorithm="vb", max_laps=2, algorithm_options={"doc_truncation": 7},
                        random_state=0)
    assert clone(est).get_params() == est.get_params()
    back = stickbreak.load(est.set_params(tol=0.0).fit(corpus).save(tmp_path / "m.npz"))
    assert back.algorithm_options == {"doc_truncation": 7}
    est.set_params(algorithm_options={"doc_truncation": 7, "burn_in": 3}, max_laps=4)
    assert est.algorithm_options == {"doc_truncation": 7, "burn_in": 3} and est.max_laps == 4
    with pytest.raises(ValueError, match="Invalid parameter 'burn_in'"):
        est.set_params(burn_in=3)
    with pytest.raises(AttributeError):
        _ = est.doc_truncation


def test_files_saved_by_0_1_keep_their_options():
    """Saved constructor parameters of 0.1.0 held the options by name: they go into algorithm_options."""
    est = HDPTopicModel._from_params({"n_topics": 4, "algorithm": "vb", "doc_truncation": 7, "algorithm_options": None})
    assert est.algorithm_options == {"doc_truncation": 7} and est.n_topics == 4


def test_unknown_keywords():
    with pytest.raises(TypeError, match="unexpected keyword argument 'n_topic'"):
        HDPTopicModel(n_topic=4)


def test_paper_presets_merge_overrides():
    hdp = HDPTopicModel.paper_preset("hoffman2013", algorithm_options={"doc_truncation": 10})
    assert hdp.algorithm_options == {"learning_rate_delay": 1.0, "learning_rate_decay": 0.9, "doc_truncation": 10,
                                     "n_restarts": 0}
    lda = LDA.paper_preset("hoffman2013", n_topics=20, algorithm_options={"learning_rate_decay": 0.8})
    assert lda.algorithm_options == {"learning_rate_delay": 1.0, "learning_rate_decay": 0.8}


@pytest.mark.parametrize("est, error, message", [
    (LDA(algorithm_options={"learning_rate": 0.9}), ValueError,
     (r"LDA has no algorithm option\(s\) \['learning_rate'\] \(did you mean \['learning_rate_decay', "
      r"'learning_rate_delay'\]\?\); valid options are \[")),
    (LDA(algorithm_options={"doc_truncation": 5}), ValueError, r"no algorithm option\(s\) \['doc_truncation'\]"),
    (HDPTopicModel(algorithm_options={"max_laps": 5}), ValueError,
     r"constructor arguments, e\.g\. HDPTopicModel\(max_laps"),
    (HDPTopicModel(algorithm_options=[("burn_in", 2)]), TypeError, "algorithm_options must be a dict"),
    (HDPTopicModel(algorithm="gibbs", algorithm_options={"burn_in": -1}), ValueError,
     "HDPTopicModel algorithm_options: burn_in must be >= 0, got -1"),
    (LDA(algorithm="svi", algorithm_options={"learning_rate_decay": 0.4}), ValueError,
     r"learning_rate_decay \(kappa\) must be in \(0.5, 1\], got 0.4"),
    (LDA(algorithm_options={"local_start": "middle"}), ValueError, "local_start='middle' is not valid; choose one of"),
    (DILN(algorithm_options={"newton_steps": 0}), ValueError, "DILN algorithm_options: newton_steps must be >= 1"),
    (DPMixture(algorithm_options={"sampling": "sometimes"}), ValueError, "sampling='sometimes' is not valid"),
    (FiniteHMM(algorithm_options={"sampling": "with_replacement"}), ValueError,
     r"no algorithm option\(s\) \['sampling'\]"),
])
def test_options_are_validated_before_any_work(est, error, message, corpus):
    X = corpus if isinstance(est, (LDA, HDPTopicModel, DILN)) else np.zeros((10, 2))
    with pytest.raises(error, match=message):
        est.fit(X)


@pytest.mark.parametrize("options_class", [TopicOptions, DILNOptions, MixtureOptions, HMMOptions])
def test_options_are_frozen_dataclasses(options_class):
    options = options_class()
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.learning_rate_decay = 0.9


#: Constructor parameters before (main, 2026-11) and now; the algorithm-only knobs are options.
#: The nonparametric estimators and the mixtures gained ``learn_concentration`` (issue 24), every
#: estimator ``executor`` (issue 25: where the local steps run).
SIGNATURE_SIZES = {HDPTopicModel: (32, 22), LDA: (25, 17), DILN: (27, 21), HDPHMM: (21, 22), FiniteHMM: (20, 20),
                   DPMixture: (21, 21), FiniteMixture: (21, 21)}


@pytest.mark.parametrize("cls", list(SIGNATURE_SIZES), ids=lambda c: c.__name__)
def test_constructors_take_what_users_tune(cls):
    names = cls._get_param_names()
    assert len(names) <= SIGNATURE_SIZES[cls][1]
    assert "algorithm_options" in names
    assert not set(names) & set(cls._option_names())  # every option lives in algorithm_options only
    kinds = {p.kind for p in inspect.signature(cls.__init__).parameters.values()}
    assert inspect.Parameter.VAR_KEYWORD not in kinds  # constructors only assign their named arguments


def test_an_estimator_without_presets_says_so():
    from stickbreak import DILN

    with pytest.raises(ValueError, match="DILN has no paper presets; pass the settings to its constructor"):
        DILN.paper_preset("hoffman2013")

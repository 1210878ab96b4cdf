"""scikit-learn's own estimator checks (``parametrize_with_checks``) on every estimator.

The few checks that cannot hold are declared with their reason (scikit-learn's
``expected_failed_checks``), so a new failure anywhere else fails the suite:

* the sampling topic algorithms (collapsed LDA, the HDP's Gibbs sampler, truncation-free SVI)
  sample word tokens, so they refuse the non-integer floats these checks fit on;
* a multinomial mixture (:class:`ShortTextTopicModel`) refuses non-integer counts too;
* an HMM's frames form sequences: shuffling or subsetting them changes every state's neighbours;
  an admixture's items (without ``lengths``: one group) share their group's topic weights, so
  subsetting them changes what each item is scored with (their order does not matter).
"""

import warnings

from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

from stickbreak import (DILN, HDPHMM, LDA, DPMixture, FiniteHMM, FiniteMixture, HDPAdmixture, HDPTopicModel,
                        ShortTextTopicModel)

#: Checks that fit on non-integer floats (every check that fits, for these estimators).
FITS_ON_FLOATS = (
    "check_dict_unchanged", "check_dont_overwrite_parameters", "check_dtype_object", "check_estimator_sparse_array",
    "check_estimator_sparse_matrix", "check_estimator_sparse_tag", "check_estimators_dtypes",
    "check_estimators_fit_returns_self", "check_estimators_nan_inf", "check_estimators_overwrite_params",
    "check_estimators_pickle", "check_f_contiguous_array_estimator", "check_fit2d_1feature", "check_fit2d_1sample",
    "check_fit2d_predict1d", "check_fit_check_is_fitted", "check_fit_idempotent", "check_fit_score_takes_y",
    "check_methods_sample_order_invariance", "check_methods_subset_invariance", "check_n_features_in",
    "check_n_features_in_after_fitting", "check_pipeline_consistency", "check_readonly_memmap_input",
    "check_transformer_data_not_an_array", "check_transformer_general", "check_transformer_preserve_dtypes",
)
SAMPLES_TOKENS = "samples word tokens, so it needs whole-number counts; this check fits on non-integer floats"
FRAMES_IN_ORDER = "an HMM's frames form sequences: reordering or subsetting them changes the states' neighbours"
COUNTS_WORDS = ("a multinomial mixture's likelihood counts whole words (its base measure is the multinomial "
                "coefficient); this check fits on non-integer floats")
GROUPED_ITEMS = "an admixture's items share their group's topic weights: subsetting a group changes them"

ESTIMATORS = [
    DPMixture(algorithm="vb", n_components=3, max_laps=30, tol=1e-4),
    FiniteMixture(n_components=3, max_laps=30, tol=1e-4),
    ShortTextTopicModel(n_topics=3, max_laps=10),
    LDA(n_topics=3, max_laps=5),
    LDA(n_topics=3, algorithm="stochastic", max_laps=5),
    LDA(n_topics=3, algorithm="gibbs", max_laps=5),
    HDPTopicModel(n_topics=5, max_laps=5),
    HDPTopicModel(n_topics=5, algorithm="stochastic", max_laps=5),
    HDPTopicModel(n_topics=5, algorithm="stochastic", variational_family="two_level", max_laps=5),
    HDPTopicModel(n_topics=5, algorithm="truncation_free", max_laps=5),
    HDPTopicModel(n_topics=5, algorithm="gibbs", max_laps=5),
    DILN(n_topics=5, max_laps=3),
    HDPHMM(n_states=3, max_laps=5),
    FiniteHMM(n_states=3, max_laps=5),
    HDPAdmixture(n_topics=3, obs_model="gauss", max_laps=5),
]


def expected_failures(estimator) -> dict:
    if isinstance(estimator, (HDPHMM, FiniteHMM)):
        return {"check_methods_sample_order_invariance": FRAMES_IN_ORDER,
                "check_methods_subset_invariance": FRAMES_IN_ORDER}
    if isinstance(estimator, HDPAdmixture):
        return {"check_methods_subset_invariance": GROUPED_ITEMS}
    if isinstance(estimator, (LDA, HDPTopicModel)) and estimator._variant().integer_counts:
        return dict.fromkeys(FITS_ON_FLOATS, SAMPLES_TOKENS)
    if isinstance(estimator, ShortTextTopicModel):
        return dict.fromkeys(FITS_ON_FLOATS + ("check_clustering", "check_estimators_partial_fit_n_features"),
                             COUNTS_WORDS)
    return {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failures)
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)

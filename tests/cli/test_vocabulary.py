"""The command line reads its options without importing a model (``stickbreak.cli.vocabulary``
writes its choices out), so each written-out list must equal the registry it stands for, and
reading a command line (or refusing it) must not load the estimators."""

import subprocess
import sys

from stickbreak import config, obs, priors
from stickbreak.cli import vocabulary as words
from stickbreak.estimators import HDPAdmixture
from stickbreak.estimators._checkpoint import EVERY
from stickbreak.estimators.admixture import ADMIXTURE_ALGORITHMS, ADMIXTURE_INITS, ADMIXTURE_OBS_MODELS
from stickbreak.estimators.hmm_base import HMM_INITS, HMM_OBS_MODELS
from stickbreak.estimators.mixture_base import MIXTURE_PLANS
from stickbreak.models.topics.options import START_NAMES
from stickbreak.parallel.factory import ADDRESS_SCHEMES, EXECUTORS


def test_every_written_out_choice_equals_its_registry():
    assert set(words.MIXTURE_OBS) == set(obs.OBS_MODELS) - {"ar_gauss"}  # the AR model needs sequences
    assert set(words.MIXTURE_WEIGHTS) == set(priors.MIXTURE_WEIGHTS)
    assert words.MIXTURE_ALGORITHMS == (*MIXTURE_PLANS, "svi")
    assert set(words.SHORT_TEXT_ALGORITHMS) < set(MIXTURE_PLANS)
    assert (words.INIT_METHODS, words.SAMPLING, words.TOPIC_ALGORITHMS) == (
        config.INIT_METHODS, config.SAMPLING, config.ALGORITHMS)
    assert (words.HMM_OBS_MODELS, words.HMM_INITS) == (HMM_OBS_MODELS, HMM_INITS)
    assert (words.ADMIXTURE_OBS_MODELS, words.ADMIXTURE_ALGORITHMS, words.ADMIXTURE_INITS, words.LOCAL_STARTS) == (
        ADMIXTURE_OBS_MODELS, ADMIXTURE_ALGORITHMS, ADMIXTURE_INITS, START_NAMES)
    defaults = HDPAdmixture().get_params()
    assert words.ADMIXTURE_DEFAULTS == {name: defaults[name] for name in words.ADMIXTURE_DEFAULTS}
    assert (words.EXECUTORS, words.ADDRESS_SCHEMES, words.CHECKPOINT_EVERY) == (EXECUTORS, ADDRESS_SCHEMES, EVERY)


def test_a_command_line_is_read_and_refused_without_loading_the_models(tmp_path):
    """``fit ... --out`` on a directory that cannot be written is refused by the parser alone: no
    scikit-learn, numba, scipy.stats or estimator module is imported first (about two seconds)."""
    script = f"""
import sys
from stickbreak.cli.main import build_parser, main
args = build_parser().parse_args(["fit", "topics", "ap", "--algorithm", "gibbs", "--executor", "tcp://h:1",
                                  "--out", {str(tmp_path / "run")!r}])
assert args.run == "topics:run_fit_topics", args.run
try:
    main(["fit", "mixture", "old_faithful", "--out", "/proc/stickbreak-run"])
except SystemExit as refused:
    assert refused.code == 2
heavy = sorted(m for m in ("sklearn", "numba", "scipy.stats", "matplotlib", "stickbreak.estimators",
                          "stickbreak.kernels") if m in sys.modules)
assert not heavy, heavy
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "argument --out: cannot write in /proc/stickbreak-run" in done.stderr

#!/usr/bin/env bash
# Build a separate venv with bnpy 0.1.7 (PyPI sdist) for Python 3.11, outside the repo.
#
#   bash benchmarks/bnpy/recipe.sh            # from /work/main; creates /work/bnpy-venv
#   BNPY_VENV=/some/where bash benchmarks/bnpy/recipe.sh
#
# Why not `pip install bnpy==0.1.7`: bnpy pins joblib==0.14.1 (no cp311 scikit-learn wheel is
# compatible, pip falls back to building an old sklearn and fails), uses np.float (needs
# numpy < 1.24), ships Cython-0.29.21 .c files that fail on 3.11 ("longintrepr.h: No such file")
# and calls inspect.getargspec (removed in 3.11). So: old numpy/scipy pins, --no-deps install,
# regenerate the three Cython sources, and a small import-time shim (see step 4).
# Idempotent: an existing venv is reused, pip skips satisfied pins, bnpy is rebuilt only if
# missing. Single-core build (MAKEFLAGS=-j1); nothing is done with the project's own .venv.
set -euo pipefail

VENV=${BNPY_VENV:-/work/bnpy-venv}
BUILD=${BNPY_BUILD:-/work/bnpy-build}       # where the sdist is downloaded and unpacked
PYTHON=${PYTHON:-python3}                    # must be CPython 3.11
BNPY_SDIST_SHA256=edeb5140128e08a6a836ae92dfcdd042546fcb8d0a289a02d579e08131092201
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

export MAKEFLAGS=-j1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 MPLBACKEND=Agg

"$PYTHON" -c 'import sys; assert sys.version_info[:2] == (3, 11), sys.version' \
  || { echo "recipe.sh: needs Python 3.11 (set PYTHON=...)" >&2; exit 1; }

# 1. venv
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"

# 2. runtime deps (all cp311 wheels; no source builds). The research recipe's ranges are
#    numpy==1.23.5, scipy<1.14, pandas<2.2, scikit-learn<1.6, Cython<3, matplotlib<3.8,
#    contourpy<1.2; these exact versions are what they resolved to (2026-11) and were tested.
"$VENV/bin/pip" install --disable-pip-version-check -q \
  "numpy==1.23.5" "scipy==1.13.1" "pandas==2.1.4" "scikit-learn==1.5.2" \
  "Cython==0.29.37" "matplotlib==3.7.5" "contourpy==1.1.1" \
  "munkres==3.0.0" "numexpr==2.14.1" "psutil==7.2.2" "six==1.17.0" \
  "memory_profiler==0.61.0" "ipython==9.18.1" "wheel==0.48.0" "setuptools==65.5.0"

# 3. bnpy 0.1.7 from the PyPI sdist, with the shipped Cython .c files deleted so that
#    Cython 0.29.37 regenerates them; --no-deps skips the joblib==0.14.1 pin.
if ! "$VENV/bin/python" - <<'EOF' 2>/dev/null
import importlib.metadata as md
assert md.version("bnpy") == "0.1.7"
import bnpy.util.EntropyUtilX, bnpy.util.SparseRespUtilX, bnpy.util.TextFileReaderX
EOF
then
  mkdir -p "$BUILD"
  cd "$BUILD"
  [ -f bnpy-0.1.7.tar.gz ] || "$VENV/bin/pip" download --disable-pip-version-check -q \
      --no-deps --no-binary :all: "bnpy==0.1.7" -d .
  echo "$BNPY_SDIST_SHA256  bnpy-0.1.7.tar.gz" | sha256sum -c -
  rm -rf bnpy-0.1.7
  tar xzf bnpy-0.1.7.tar.gz
  rm -f bnpy-0.1.7/bnpy/util/EntropyUtilX.c bnpy-0.1.7/bnpy/util/SparseRespUtilX.c \
        bnpy-0.1.7/bnpy/util/TextFileReaderX.c
  "$VENV/bin/pip" install --disable-pip-version-check -q --no-deps --no-build-isolation ./bnpy-0.1.7
  cd - >/dev/null
fi

# 4. Import-time shim, installed into the venv (a .pth line runs at interpreter start-up).
#    bnpy.run(DataObj, ..., 'memoVB') calls inspect.getargspec (Runner.getKwArgsForLoadData),
#    which Python 3.11 removed; xrange is reached on a few rarer paths. run_dpmixture.py applies
#    the same shim itself, so it also works without this file. numpy 1.23.5 still has np.float.
SITE=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
cat > "$SITE/bnpy_py311_shim.py" <<'EOF'
"""Python 3.11 compatibility shim for bnpy 0.1.7 (installed by benchmarks/bnpy/recipe.sh)."""
import builtins
import inspect

if not hasattr(inspect, "getargspec"):
    inspect.getargspec = lambda f: inspect.getfullargspec(f)[:4]
if not hasattr(builtins, "xrange"):
    builtins.xrange = range
EOF
echo "import bnpy_py311_shim" > "$SITE/bnpy_py311_shim.pth"

# 5. Smoke test: imports, Cython modules, shim, and a 3-lap fit on 300 synthetic points.
"$VENV/bin/python" - <<'EOF'
import inspect, warnings
warnings.simplefilter("ignore")
assert hasattr(inspect, "getargspec"), "shim not active"
import numpy, scipy, bnpy
import bnpy.util.EntropyUtilX, bnpy.util.SparseRespUtilX, bnpy.util.TextFileReaderX
print("bnpy-venv OK: numpy", numpy.__version__, "scipy", scipy.__version__, "bnpy from", bnpy.__file__)
EOF
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$VENV/bin/python" -c "
import numpy as np
r = np.random.RandomState(0)
np.save('$TMP/x.npy', np.vstack([r.randn(150, 2), r.randn(150, 2) + 6]))"
"$VENV/bin/python" "$HERE/run_dpmixture.py" --data "$TMP/x.npy" --out "$TMP/r.npz" \
  --K 1 --moves birth,merge --nBatch 2 --nLap 3 --seed 0 --sF 1.0 --ECovMat eye
echo "recipe.sh: done ($VENV)"

"""The memory check honours the tightest of free memory, ``ulimit -v`` and the cgroup limit (issue 50)."""

import subprocess
import sys

import pytest

from stickbreak.data import DataError
from stickbreak.data import memory


def fake_cgroup(monkeypatch, tmp_path, proc_line: str, files: dict[str, str]) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "proc_cgroup").write_text(proc_line)
    monkeypatch.setattr(memory, "CGROUP_ROOT", tmp_path / "fs")
    monkeypatch.setattr(memory, "PROC_CGROUP", tmp_path / "proc_cgroup")


def test_cgroup_v2_limit_less_usage(monkeypatch, tmp_path):
    fake_cgroup(monkeypatch, tmp_path, "0::/box/job\n",
                {"fs/box/memory.max": "max\n", "fs/box/job/memory.max": str(3 * 2**30),
                 "fs/box/job/memory.current": str(2**30)})
    room = memory._control_group()
    assert room.n_bytes == 2 * 2**30 and "control group" in room.limit


def test_cgroup_v1_takes_the_tightest_ancestor(monkeypatch, tmp_path):
    fake_cgroup(monkeypatch, tmp_path, "4:memory:/a/b\n3:cpu:/\n",
                {"fs/memory/a/memory.limit_in_bytes": str(2**30), "fs/memory/a/memory.usage_in_bytes": "0",
                 "fs/memory/a/b/memory.limit_in_bytes": str(2**63 - 4096),
                 "fs/memory/a/b/memory.usage_in_bytes": "5"})
    assert memory._control_group().n_bytes == 2**30


def test_no_cgroup_limit(monkeypatch, tmp_path):
    fake_cgroup(monkeypatch, tmp_path, "0::/\n", {"fs/memory.max": "max\n"})
    assert memory._control_group() is None


def test_refusal_names_the_limit(monkeypatch):
    monkeypatch.setattr(memory, "headroom", lambda: memory.Headroom(2**30, "this process's control group's "
                                                                           "memory limit (1 GiB)"))
    with pytest.raises(DataError, match=r"needs about 2 GiB of memory but only 1 GiB is left under this process's "
                                         r"control group's memory limit \(1 GiB\); lower it"):
        memory.check_memory(2 * 2**30, "the thing", "lower it")


def test_address_space_limit_is_honoured():
    """Under ``ulimit -v`` of 3 GiB an array of 8 GiB is refused by the check, not by MemoryError."""
    code = ("import resource; resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))\n"
            "from stickbreak.data.memory import headroom, check_memory\n"
            "room = headroom(); assert room.n_bytes < 3 * 2**30 and 'ulimit -v' in room.limit, room\n"
            "check_memory(8 * 2**30, 'x', 'y')\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 1
    assert "DataError: x needs about 8 GiB of memory but only" in run.stderr
    assert "address-space limit (ulimit -v: 3 GiB)" in run.stderr


def test_a_prediction_too_large_is_refused_before_any_work(monkeypatch):
    import numpy as np

    from stickbreak import DPMixture

    X = np.random.default_rng(0).normal(size=(200, 2))
    model = DPMixture(algorithm="vb", n_components=5, max_laps=2).fit(X)
    monkeypatch.setattr(memory, "headroom", lambda: memory.Headroom(10_000, "this process's control group's memory "
                                                                            "limit (1 GiB)"))
    with pytest.raises(DataError, match=r"DPMixture's prediction for 200 items over 5 components needs about .* pass "
                                        r"the items in chunks"):
        model.predict(X)

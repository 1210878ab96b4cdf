"""What both bnpy runners need: the Python 3.11 shim and a quiet import of bnpy 0.1.7."""
import builtins
import inspect
import warnings

import numpy as np


def apply_py311_shim():
    """Runtime shim for bnpy 0.1.7 on Python 3.11 (no bnpy file is edited).

    inspect.getargspec was removed in Python 3.11; bnpy.run(DataObj, ..., 'memoVB') calls it in
    Runner.getKwArgsForLoadData. The numpy aliases are no-ops on numpy 1.23.5 (they still exist
    there, with a DeprecationWarning) and only matter if someone runs this on numpy >= 1.24.
    """
    if not hasattr(inspect, "getargspec"):
        inspect.getargspec = lambda f: inspect.getfullargspec(f)[:4]
    if not hasattr(builtins, "xrange"):
        builtins.xrange = range
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, val in (("float", float), ("int", int), ("bool8", np.bool_),
                          ("unicode_", np.str_)):
            try:
                getattr(np, name)
            except AttributeError:
                setattr(np, name, val)


def import_bnpy():
    """``(bnpy, createUniqueRandomSeed)`` with the shim applied and bnpy's deprecation noise off."""
    apply_py311_shim()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # np.float / SafeConfigParser / distutils deprecations
        import bnpy
        from bnpy.Runner import createUniqueRandomSeed
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    return bnpy, createUniqueRandomSeed


def timed_run(bnpy, data, alloc_model: str, obs_model: str, algo: str, taskid: int, verbose: bool, kw: dict):
    """``bnpy.run`` timed: ``(hmodel, info, error, traceback_text, wall_s, cpu_s)``. A crash is
    returned with its traceback (hmodel and info None) so that the runner can record it."""
    import time
    import traceback

    t_wall0, t_cpu0 = time.perf_counter(), time.process_time()
    hmodel = info = err = tb = None
    try:
        hmodel, info = bnpy.run(data, alloc_model, obs_model, algo, taskID=taskid, doSaveToDisk=True,
                                doWriteStdOut=bool(verbose), **kw)
    except Exception as e:  # record bnpy crashes in the output instead of losing the run
        err, tb = e, traceback.format_exc()
    return hmodel, info, err, tb, time.perf_counter() - t_wall0, time.process_time() - t_cpu0

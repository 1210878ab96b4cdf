"""Birth, merge and delete moves for memoized VI (Hughes 2016, Ch. 4).

Every move builds candidate statistics, scores them with the exact whole-data ELBO after a global
step, and is accepted only if the ELBO goes up. Accepted moves are appended to a move log, which
replays them on each batch's cached statistics before they are next subtracted.
"""

def move_summary(trace, moves) -> str:
    """``"moves accepted/tried: merge 12/15, delete 3/6"`` from an estimator's ``trace_``."""
    totals = {kind: [sum((r.get("moves") or {}).get(kind, {}).get(k, 0) for r in trace) for k in ("accepted", "tried")]
              for kind in moves}
    return "moves accepted/tried: " + ", ".join(f"{kind} {a}/{t}" for kind, (a, t) in totals.items())


def k_over_laps(trace) -> str:
    """``"K over the laps: 50 (lap 1), 47 (lap 2), 41 (lap 12)"``: the components used, where they change."""
    steps, last = [], None
    for r in trace:
        if r["n_effective"] != last:
            steps.append(f"{r['n_effective']} (lap {r['lap']})")
            last = r["n_effective"]
    return "K over the laps: " + ", ".join(steps)

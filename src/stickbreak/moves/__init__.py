"""Birth, merge and delete moves for memoized VI (Hughes 2016, Ch. 4).

Every move builds candidate statistics, scores them with the exact whole-data ELBO after a global
step, and is accepted only if the ELBO goes up. Accepted moves are appended to a move log, which
replays them on each batch's cached statistics before they are next subtracted.
"""

MOVE_KINDS = ("birth", "merge", "delete")

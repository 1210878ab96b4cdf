"""
Learning K over the laps: births, merges and deletes
====================================================

Memoized variational inference (Hughes 2016, Ch. 4) visits the data in batches and keeps each
batch's summary statistics, so a proposed move (a birth that splits clusters, a merge of two
clusters, the delete of one) can be scored on the exact whole-data ELBO and kept only if that
rises. Here a DP mixture of diagonal Gaussians on the digits is started from a deliberately wrong
K, once too small (1 cluster) and once too large (80), and we follow K and the ELBO lap by lap,
marking the laps in which moves were accepted.
"""

# %%
# Two runs from a wrong K
# -----------------------
# Four batches per lap; ``trace_`` holds one record per lap (ELBO, K, moves tried and accepted)
# and :func:`stickbreak.plot.accepted_moves` lists the laps with at least one accepted move of
# each kind.
import matplotlib.pyplot as plt

from stickbreak import DPMixture, datasets, plot

X = datasets.load("digits").X

runs = {}
for k_start in (1, 80):
    model = DPMixture(n_components=k_start, obs_model="diag_gauss", n_batches=4, random_state=0).fit(X)
    runs[k_start] = model
    moves = {kind: laps.tolist() for kind, laps in plot.accepted_moves(model.trace_).items()}
    print(f"start K={k_start}: {model.n_components_} clusters after {len(model.trace_)} laps, "
          f"final ELBO {model.lower_bound_:.1f}")
    print(f"  laps with accepted moves: {moves}")

# %%
# K and the ELBO per lap
# ----------------------
# Coloured ticks under the K curves mark the laps with an accepted birth (green), merge (purple)
# or delete (red). The run from one cluster grows by births; the run from 80 shrinks by merges
# and deletes and then also accepts births. Both stop when the relative ELBO change falls below
# ``tol``; they end at different K and ELBO values (printed above): moves are greedy, so where the
# search ends depends on where it starts.
colours = {"birth": "tab:green", "merge": "tab:purple", "delete": "tab:red"}
fig, (ax_k, ax_elbo) = plt.subplots(1, 2, figsize=(12, 4.2), layout="constrained")
for (k_start, model), style in zip(runs.items(), ("-", "--")):
    laps = [record["lap"] for record in model.trace_]
    ax_k.step(laps, [record["n_components"] for record in model.trace_], where="post", linestyle=style,
              color="k", label=f"start K={k_start}")
    ax_elbo.plot(laps[1:], [record["elbo"] for record in model.trace_[1:]], linestyle=style, color="k",
                 label=f"start K={k_start}")
    offset = 0 if k_start == 1 else 1
    for kind, at in plot.accepted_moves(model.trace_).items():
        ax_k.plot(at, [-3 - 5 * offset] * len(at), "|", color=colours[kind], markersize=10, markeredgewidth=2)
for kind, colour in colours.items():
    ax_k.plot([], [], "|", color=colour, markersize=10, markeredgewidth=2, label=f"{kind} accepted")
ax_k.text(0.98, 0.5, "ticks below 0: moves of the run from K=1 (upper row)\nand of the run from K=80 (lower row)",
          transform=ax_k.transAxes, ha="right", fontsize=8)
ax_k.set_xlabel("lap")
ax_k.set_ylabel("clusters K")
ax_k.set_title("K over the laps")
ax_k.legend(fontsize=8)
ax_elbo.set_xlabel("lap")
ax_elbo.set_ylabel("ELBO (nats)")
ax_elbo.set_title("ELBO over the laps (from lap 2)")
ax_elbo.legend(fontsize=8)

# %%
# The package's own trace figure
# ------------------------------
# :func:`stickbreak.plot.plot_trace` draws the same for one run, with K in use (``n_effective``)
# beside K and vertical lines at the laps with accepted moves.
fig = plot.plot_trace(runs[80])
plt.show()

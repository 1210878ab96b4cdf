"""Every plot function returns a Figure with the expected axes and titles."""

import numpy as np
import pytest
from matplotlib.figure import Figure

from fitted_models import corpus, fit
from stickbreak import FiniteMixture, plot
from stickbreak.evaluate import align_states


def titles(fig: Figure) -> list[str]:
    return [ax.get_title() for ax in fig.axes if ax.get_title()]


def test_trace_has_elbo_and_k_and_marks_accepted_moves():
    est, _ = fit("mixture")  # memoized VI with births, merges and deletes
    fig = plot.plot_trace(est)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    assert titles(fig) == ["ELBO over laps", "K over laps"]
    moves = plot.accepted_moves(est.trace_)
    assert moves, "the tiny DP mixture should accept at least one move"
    legend = [text.get_text() for text in fig.axes[1].get_legend().get_texts()]
    assert {f"{kind} accepted" for kind in moves} <= set(legend)
    with_heldout = plot.plot_trace(est, heldout=np.linspace(-7, -6, est.n_iter_))
    assert len(with_heldout.axes) == 3 and titles(with_heldout)[2] == "Held-out score over laps"


@pytest.mark.parametrize("kind", ["lda", "hdp", "diln"])
def test_topic_words_one_axes_per_used_topic_largest_first(kind):
    est, _ = fit(kind)
    fig = plot.plot_topic_words(est, n_words=5)
    topics = est.top_words(5)
    assert len(fig.axes) == min(len(topics), 20)
    assert titles(fig)[0] == f"topic {topics[0]['topic']}: {topics[0]['size']:,.0f} tokens"
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == [str(w) for w, _ in topics[0]["words"]][::-1]
    sizes = plot.plot_topic_sizes(est)
    assert len(sizes.axes) == 1 and titles(sizes) == [f"Topic sizes: {est.n_topics_} used"]


def test_diln_topic_correlations_heatmap():
    est, _ = fit("diln")
    fig = plot.plot_topic_correlation(est, max_topics=4)
    assert len(fig.axes) == 2  # the heatmap and its colour bar
    assert titles(fig)[0].startswith("Topic correlations (") and fig.axes[0].images[0].get_array().shape[0] <= 4


def test_mixture_sizes_means_as_images_and_projection():
    est, data = fit("mixture")
    X = data["X"]
    sizes = plot.plot_cluster_sizes(est)
    assert len(sizes.axes) == 1 and titles(sizes) == [f"Cluster sizes: {est.n_active_components_} used"]
    means = plot.plot_cluster_means(est, X, (8, 8))
    used = len(np.unique(est.predict(X)))
    assert len(means.axes) == min(used, 20) and means.axes[0].images[0].get_array().shape == (8, 8)
    projection = plot.plot_projection(est, X)
    assert len(projection.axes) == 1 and titles(projection)[0].startswith("Items by cluster on 2 principal components")
    with pytest.raises(ValueError, match="image_shape=\\(7, 7\\) holds 49 pixels but X has 64 features"):
        plot.plot_cluster_means(est, X, (7, 7))


def test_hmm_strips_transitions_and_durations():
    est, data = fit("hmm")
    seqs, labels = data["X"], data["labels"]
    strips = plot.plot_state_sequences(est, seqs, labels=labels, n_sequences=2)
    assert len(strips.axes) == 2 and titles(strips) == ["sequence 0: 120 frames", "sequence 1: 120 frames"]
    assert [t.get_text() for t in strips.axes[0].get_yticklabels()] == ["states", "true labels"]
    assert strips.axes[0].images[0].get_array().shape[:2] == (2, 120)
    alone = plot.plot_state_sequences(est, seqs.X, lengths=seqs.lengths)  # hmmlearn-style (X, lengths)
    assert len(alone.axes) == 3 and alone.axes[0].images[0].get_array().shape[:2] == (1, 120)
    transitions = plot.plot_transitions(est)
    assert len(transitions.axes) == 2
    assert titles(transitions)[0] == f"Transition probabilities ({est.n_active_states_} used states)"
    durations = plot.plot_durations(est, seqs)
    assert len(durations.axes) == 1 and titles(durations) == ["State durations"]


def test_aligned_true_labels_take_the_colour_of_their_matched_state():
    est, data = fit("hmm")
    seqs, labels = data["X"], data["labels"]
    states = est.predict(seqs)
    mapping = align_states(labels, states)  # the Hungarian matching hamming_distance scores with
    image = plot.plot_state_sequences(est, seqs, labels=labels, n_sequences=1).axes[0].images[0].get_array()
    matched = np.array([mapping[s] == z for s, z in zip(states[:120], labels[:120])])
    assert matched.mean() > 0.5
    assert np.allclose(image[1, matched], image[0, matched])
    assert not any(np.allclose(image[1, t], image[0, t]) for t in np.flatnonzero(~matched))


def test_mixture_of_word_counts_is_projected_from_its_bag_of_words():
    bow = corpus()
    est = FiniteMixture(3, obs_model="mult", max_laps=3, tol=0, random_state=0).fit(bow)
    fig = plot.plot_projection(est, bow)
    assert len(fig.axes) == 1 and len(fig.axes[0].collections[0].get_offsets()) == bow.n_items

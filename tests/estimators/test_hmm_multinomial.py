"""HDPHMM with multinomial emissions: each frame a vector of word counts (the allocation x observation
pairing HMM x multinomial)."""

import numpy as np
import pytest

from stickbreak import HDPHMM, DataError
from stickbreak.evaluate import hamming_distance


def _count_sequences(seed, n_sequences=6, length=80, n_words=20, tokens=12):
    """Three sticky states, each with its own sparse word distribution."""
    rng = np.random.default_rng(seed)
    words = rng.dirichlet(np.full(n_words, 0.2), size=3)
    sticky = np.full((3, 3), 0.05) + np.eye(3) * 0.85
    X, states = [], []
    for _ in range(n_sequences):
        z = [rng.integers(3)]
        for _ in range(length - 1):
            z.append(rng.choice(3, p=sticky[z[-1]]))
        X.append(np.stack([rng.multinomial(tokens, words[k]) for k in z]).astype(float))
        states.append(z)
    return np.concatenate(X), [length] * n_sequences, np.concatenate(states)


def test_the_defaults_find_the_three_states_of_count_frames():
    X, lengths, truth = _count_sequences(0)
    hmm = HDPHMM(obs_model="mult", random_state=0).fit(X, lengths=lengths)
    assert hmm.n_states_ == 3
    assert hamming_distance(truth, hmm.predict(X, lengths=lengths)) < 0.05
    assert hmm.word_probs_.shape == (3, 20) and np.allclose(hmm.word_probs_.sum(axis=1), 1.0)
    heldout, lengths_t, _ = _count_sequences(1)
    assert np.isfinite(hmm.score(heldout, lengths=lengths_t))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_count_frames_are_validated_and_sampling_says_why_it_cannot():
    X, lengths, _ = _count_sequences(2, n_sequences=2, length=20)
    bad = X.copy()
    bad[3, 1] = -1.0
    with pytest.raises(DataError, match="X"):
        HDPHMM(obs_model="mult").fit(bad, lengths=lengths)
    hmm = HDPHMM(obs_model="mult", n_states=3, max_laps=3, random_state=0).fit(X, lengths=lengths)
    with pytest.raises(ValueError, match="tokens a frame holds"):
        hmm.sample(10)

"""NumPy twin of :mod:`stickbreak.kernels.evaluate.windows`, used only by the tests: gensim's
``WordOccurrenceAccumulator`` walk written out with a Python set per window."""

import numpy as np


def window_occurrences(tokens, starts, n_words, window_size):
    """``(occurrences, co_occurrences, n_windows)``, the pair counts symmetric with the word counts
    on the diagonal."""
    occurrences = np.zeros(n_words, np.int64)
    co = np.zeros((n_words, n_words), np.int64)
    n_windows = 0
    for lo, hi in zip(starts[:-1], starts[1:]):
        doc = [int(t) for t in tokens[lo:hi]]
        windows = [doc] if len(doc) <= window_size else [doc[i:i + window_size]
                                                         for i in range(len(doc) - window_size + 1)]
        present: set = set()
        for i, window in enumerate(windows):
            n_windows += 1
            if not window:
                continue
            if i == 0:
                present = set(window)
            else:
                present.discard(windows[i - 1][0])
                present.add(window[-1])
            words = sorted(w for w in present if w < n_words)
            for a in words:
                occurrences[a] += 1
                for b in words:
                    if a != b:
                        co[a, b] += 1
    co[np.diag_indices(n_words)] = occurrences
    return occurrences, co, n_windows

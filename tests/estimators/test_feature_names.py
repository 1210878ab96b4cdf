"""scikit-learn's feature names: a DataFrame's columns become ``feature_names_in_`` (and a topic
model's vocabulary), are checked at prediction, and survive save/load."""

import numpy as np
import pandas as pd
import pytest

from stickbreak import LDA, DPMixture, HDPHMM, datasets, persist

from conftest import real_data_for

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def _frame(X, prefix):
    return pd.DataFrame(X, columns=[f"{prefix}{j}" for j in range(X.shape[1])])


@pytest.mark.parametrize("make, X, predict", [
    (lambda: DPMixture(n_components=3, max_laps=3, random_state=0), real_data_for("diag_gauss", 200),
     lambda est, X: est.predict(X)),
    (lambda: HDPHMM(n_states=3, max_laps=3, random_state=0), datasets.load("mocap6").X.X[:300],
     lambda est, X: est.predict(X)),
    (lambda: HDPHMM(n_states=3, max_laps=3, random_state=0), datasets.load("mocap6").X.X[:300],
     lambda est, X: est.score(X)),  # score checks the names as predict does
    (lambda: LDA(n_topics=3, max_laps=3, random_state=0), real_data_for("mult")[:60].toarray(),
     lambda est, X: est.transform(X)),
])
def test_dataframe_columns_become_feature_names_checked_at_prediction(make, X, predict, tmp_path):
    frame = _frame(np.asarray(X), "f")
    est = make().fit(frame)
    assert list(est.feature_names_in_) == list(frame.columns)
    expected = predict(est, frame)
    with pytest.raises(ValueError, match="feature names should match"):
        predict(est, _frame(np.asarray(X), "g"))
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        predict(est, frame.to_numpy())
    loaded = persist.load(est.save(tmp_path / "model.npz"))
    assert list(loaded.feature_names_in_) == list(frame.columns)
    np.testing.assert_array_equal(predict(loaded, frame), expected)
    assert not hasattr(make().fit(frame.to_numpy()), "feature_names_in_")


def test_a_topic_model_names_its_words_from_the_dataframe_columns():
    counts = real_data_for("mult")[:60].toarray()
    words = [f"word{j}" for j in range(counts.shape[1])]
    lda = LDA(n_topics=2, max_laps=3, random_state=0).fit(pd.DataFrame(counts, columns=words))
    assert lda.vocabulary_ == tuple(words) and {w for w, _ in lda.top_words(3)[0]["words"]} <= set(words)

"""DPMixture as the clustering step of an embedding pipeline: BERTopic's contract (``fit``,
``predict``, ``labels_``; its ``hdbscan_model``) and turftopic's (a scikit-learn ``ClusterMixin``:
``fit_predict``), with every document assigned, on embeddings that need no download (tf-idf +
TruncatedSVD of the bundled news openings)."""

import numpy as np
import pytest
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.metrics import adjusted_mutual_info_score
from sklearn.preprocessing import normalize

from stickbreak import DPMixture, datasets


@pytest.fixture(scope="module")
def embedded():
    news = datasets.load("news_openings")
    tfidf = TfidfTransformer(sublinear_tf=True).fit_transform(news.X.counts)
    return normalize(TruncatedSVD(20, random_state=0).fit_transform(tfidf)), news


def test_the_clustering_contract_with_every_document_assigned(embedded):
    X, news = embedded
    model = DPMixture(obs_model="gauss", random_state=0)
    assert model.fit(X) is model
    assert model.labels_.shape == (len(X),) and model.labels_.min() >= 0  # no outlier class
    np.testing.assert_array_equal(model.predict(X), model.labels_)
    np.testing.assert_array_equal(DPMixture(obs_model="gauss", random_state=0).fit_predict(X), model.labels_)
    assert model.n_active_components_ >= 5  # K learned, not given
    assert adjusted_mutual_info_score(news.labels, model.labels_) > 0.05


def test_inside_bertopic(embedded):
    bertopic = pytest.importorskip("bertopic", reason="BERTopic is an optional peer (benchmarks/embeddings.py)")
    from bertopic.dimensionality import BaseDimensionalityReduction

    X, news = embedded
    topic_model = bertopic.BERTopic(umap_model=BaseDimensionalityReduction(),
                                    hdbscan_model=DPMixture(obs_model="gauss", random_state=0))
    topics, _ = topic_model.fit_transform(list(news.extras["texts"]), embeddings=X)
    assert min(topics) >= 0 and len(set(topics)) >= 5

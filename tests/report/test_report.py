"""``model.report(path, X)``: one self-contained HTML page per family, every string escaped, every
image a valid PNG, nothing fetched from outside the file."""

import base64
import io
import re

import numpy as np
import pytest
from PIL import Image
from sklearn.exceptions import NotFittedError

from fitted_models import fit
from stickbreak import LDA, __version__
from stickbreak.report import ReportData, write_report
from stickbreak.report.sections import figures

IMAGE = re.compile(r'src="data:image/png;base64,([A-Za-z0-9+/=]*)"')

#: Figures of each kind's report with data: the trace first.
CAPTIONS = {
    "mixture": ["ELBO and K over laps", "Cluster sizes", "Items by cluster (PCA)"],
    "lda": ["ELBO and K over laps", "Top words per topic", "Topic sizes"],
    "hdp": ["ELBO and K over laps", "Top words per topic", "Topic sizes"],
    "diln": ["ELBO and K over laps", "Top words per topic", "Topic sizes", "Topic correlations"],
    "hmm": ["ELBO and K over laps", "Transition matrix", "State sequences", "State durations"],
    "admixture": ["ELBO and K over laps", "Topic sizes", "Topic proportions per group"],
}


def decoded_images(text: str) -> list:
    """Every inline image, decoded as a PNG (raises if one is not)."""
    images = []
    for data in IMAGE.findall(text):
        image = Image.open(io.BytesIO(base64.b64decode(data, validate=True)))
        assert image.format == "PNG"
        image.load()
        images.append(image)
    return images


def check_self_contained(text: str) -> None:
    outside = IMAGE.sub('src=""', text)
    for reference in ("http://", "https://", "//", "<link", "<script", "url(", "@import"):
        assert reference not in outside, reference
    assert "<img" in text and text.count("<img") == len(IMAGE.findall(text))


@pytest.mark.parametrize("kind", list(CAPTIONS))
def test_report_of_each_family(tmp_path, kind):
    est, data = fit(kind)
    path = est.report(tmp_path / "sub" / "report.html", **data)
    text = path.read_text()
    check_self_contained(text)
    assert re.findall(r"<figcaption>(.*?)</figcaption>", text) == CAPTIONS[kind]
    assert len(decoded_images(text)) == len(CAPTIONS[kind])
    for fact in ("stop reason", "max_laps", "final ELBO", "K in use", "training time", f"<td>{__version__}</td>",
                 "<td>numpy</td>", "<td>numba</td>", f"<td>{type(est).__name__}</td>"):
        assert fact in text, fact


@pytest.mark.parametrize("kind", ["lda", "diln"])
def test_vocabulary_words_are_escaped(tmp_path, kind):
    est, data = fit(kind)
    text = est.report(tmp_path / "r.html", **data).read_text()
    assert "<script>" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text and "a&amp;b" in text


def test_report_without_data_draws_what_the_model_alone_shows(tmp_path):
    mixture, _ = fit("mixture")
    text = mixture.report(tmp_path / "m.html").read_text()
    assert re.findall(r"<figcaption>(.*?)</figcaption>", text) == ["ELBO and K over laps", "Cluster sizes"]
    hmm, _ = fit("hmm")
    text = hmm.report(tmp_path / "h.html").read_text()
    assert re.findall(r"<figcaption>(.*?)</figcaption>", text) == ["ELBO and K over laps", "Transition matrix"]


def test_mixture_means_as_images_when_told_the_image_shape(tmp_path):
    est, data = fit("mixture")
    text = est.report(tmp_path / "m.html", data["X"], image_shape=(8, 8)).read_text()
    assert "Cluster means as images" in text and "Items by cluster (PCA)" not in text


def test_run_facts_are_escaped_too(tmp_path):
    est, data = fit("hmm")
    text = write_report(est, tmp_path / "h.html", run={"data": {"source": "a<b>.npz"}, "command": "x & y"}).read_text()
    assert "a&lt;b&gt;.npz" in text and "x &amp; y" in text


def test_report_needs_a_fitted_model(tmp_path):
    with pytest.raises(NotFittedError):
        LDA().report(tmp_path / "r.html")


def test_collapsed_fit_with_heldout_tokens_adds_the_heldout_score_to_the_trace_figure():
    X = fit("lda")[1]["X"]
    counts = X.counts.toarray()
    heldout = np.floor(counts / 4)  # a quarter of each document's tokens held out
    est = LDA(n_topics=3, algorithm="cvb0", max_laps=3, tol=0, random_state=0).fit(counts - heldout, heldout=heldout)
    (caption, trace), *_ = figures(est, ReportData(X))
    assert caption == "ELBO and K over laps" and len(trace.axes) == 3
    assert fit("lda")[0].heldout_per_word_ is None and len(figures(fit("lda")[0], ReportData(X))[0][1].axes) == 2

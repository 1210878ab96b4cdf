"""The data sets bundled with the package (``stickbreak.datasets.load(name)``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources

import numpy as np
from ..data.sequence_io import read_sequences
from ..data.text_io import read_ldac


@dataclass(frozen=True, eq=False)
class Dataset:
    """A bundled data set: ``X`` (dense array, a :class:`~stickbreak.data.BagOfWords` of word
    counts with its ``vocabulary``, or :class:`~stickbreak.data.Sequences` of frames), optional
    ``labels`` (per item, or per frame for sequences), metadata, and ``extras``: further arrays or
    names particular to the data set (e.g. ``Xprev`` for sequences)."""

    name: str
    X: object
    labels: np.ndarray | None
    feature_names: tuple[str, ...] | None
    description: str
    source: str
    extras: dict = field(default_factory=dict)


def _path(filename: str):
    return resources.files(__package__).joinpath("files", filename)


def _old_faithful() -> Dataset:
    with _path("old_faithful.csv").open("r") as fh:
        X = np.loadtxt(fh, delimiter=",", skiprows=1)
    return Dataset(
        "old_faithful", X, None, ("eruption_minutes", "waiting_minutes"),
        "272 eruptions of the Old Faithful geyser: eruption duration and waiting time to the next (minutes).",
        "R datasets::faithful (Azzalini & Bowman 1990), via the bnpy repository",
    )


def _digits() -> Dataset:
    import gzip

    with _path("digits.csv.gz").open("rb") as fh:
        table = np.loadtxt(gzip.open(fh), delimiter=",")
    return Dataset(
        "digits", table[:, :-1], table[:, -1].astype(int), tuple(f"pixel_{i}" for i in range(64)),
        "1,797 handwritten digits as 8x8 images (64 features, grey levels 0-16), labels 0-9.",
        "UCI optdigits test set, as shipped by scikit-learn (CC BY 4.0)",
    )


def _ap() -> Dataset:

    bow = read_ldac(_path("ap.ldac.gz"), _path("ap_vocab.txt.gz"))
    return Dataset(
        "ap", bow, None, bow.vocabulary,
        "2,246 Associated Press news articles as word counts over a 10,473-word vocabulary (LDA-C format).",
        "Blei's lda-c distribution (ap.tgz), via github.com/cjrd/SimpleLDA-R; articles (c) AP, research use",
    )


def _mocap6() -> Dataset:

    with resources.as_file(_path("mocap6.npz")) as path:
        found = read_sequences(path)
        with np.load(path) as z:
            channels, actions = tuple(str(c) for c in z["channel_names"]), tuple(str(a) for a in z["action_names"])
    return Dataset(
        "mocap6", found.sequences, found.labels.astype(int), channels,
        "6 motion-capture sequences (2,058 frames at 10 fps, 12 joint angles) of 12 exercise types: labels 1-12 "
        "per frame; extras: Xprev (previous frame, for AR models), label_names, sequence_names.",
        "github.com/michaelchughes/mocap6dataset (CMU mocap subjects 13 and 14; BSD-2, (c) 2015 Mike Hughes, "
        "see files/mocap6_LICENSE.txt); X and Xprev stored as float32",
        {"Xprev": found.xprev, "label_names": actions, "sequence_names": found.sequence_ids},
    )


_LOADERS = {"ap": _ap, "digits": _digits, "mocap6": _mocap6, "old_faithful": _old_faithful}
_SUMMARY = {
    "ap": "2246 AP news articles x 10473 words (word counts, topic models)",
    "digits": "1797 x 64 handwritten digit images, labels 0-9 (dense, Gaussian models)",
    "mocap6": "6 motion-capture sequences, 2058 frames x 12 joint angles, 12 exercise labels (sequences, HMMs)",
    "old_faithful": "272 x 2 geyser eruptions (dense, Gaussian models)",
}


def names() -> list[str]:
    return sorted(_LOADERS)


def summaries() -> dict[str, str]:
    return dict(_SUMMARY)


def load(name: str) -> Dataset:
    try:
        return _LOADERS[name]()
    except KeyError:
        raise ValueError(f"no bundled data set {name!r}; bundled data sets are {names()}") from None

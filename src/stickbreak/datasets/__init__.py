"""Small real data sets shipped with the package.

>>> from stickbreak import datasets
>>> datasets.names()
['ap', 'digits', 'mocap6', 'news_openings', 'old_faithful']
>>> ds = datasets.load("old_faithful"); ds.X.shape
(272, 2)
>>> seqs = datasets.load("mocap6").X; seqs.n_items, seqs.X.shape
(6, (2058, 12))
"""

from .bundled import Dataset, load, names, summaries
from .reader import read_data

__all__ = ["Dataset", "load", "names", "read_data", "summaries"]

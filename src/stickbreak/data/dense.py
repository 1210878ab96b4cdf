"""Dense real-valued data: one row per item."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import DataError, DataTypeError, describe_rows


def as_float_matrix(X, what: str) -> np.ndarray:
    if hasattr(X, "toarray") and not isinstance(X, np.ndarray):
        raise DataError(f"{what} is a sparse matrix; this model needs dense rows. Pass X.toarray().")
    try:
        arr = np.asarray(X)
    except Exception as exc:  # ragged lists and the like
        raise DataError(f"{what} could not be read as an array ({exc}); pass a 2-D numeric array.") from exc
    if arr.dtype.kind == "O":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise DataTypeError(
                f"{what} holds values that are not numbers ({exc}); encode text or categorical columns first."
            ) from exc
    if arr.dtype.kind == "c":
        raise DataError(f"{what} has complex values: Complex data not supported. Pass real numbers, e.g. X.real or "
                        "abs(X).")
    if arr.dtype.kind not in "biuf":
        raise DataError(
            f"{what} has dtype {arr.dtype}; it must be numeric (bool, int or float). "
            "Convert it, e.g. X.astype(float), after encoding any text columns."
        )
    if arr.ndim == 1:
        raise DataError(
            f"{what} is 1-D with shape {arr.shape}; pass a 2-D array (n_items, n_features). "
            "Reshape your data: X.reshape(-1, 1) for one feature, X.reshape(1, -1) for one item."
        )
    if arr.ndim != 2:
        raise DataError(f"{what} has {arr.ndim} dimensions (shape {arr.shape}); pass a 2-D array "
                        "(n_items, n_features).")
    if arr.shape[0] == 0:
        raise DataError(f"{what} has 0 items (shape={arr.shape}) while a minimum of 1 is required.")
    if arr.shape[1] == 0:
        raise DataError(f"{what} has 0 feature(s) (shape={arr.shape}) while a minimum of 1 is required.")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    bad = ~np.isfinite(arr)
    if bad.any():
        rows = np.flatnonzero(bad.any(axis=1))
        kind = "NaN" if np.isnan(arr[bad]).any() else "infinite"
        raise DataError(
            f"{what} contains {kind} values in rows {describe_rows(rows)}; "
            "remove or impute them before fitting (e.g. sklearn.impute.SimpleImputer)."
        )
    return arr


class FeatureColumns:
    """What data held as one 2-D array ``X`` of rows (items or frames) share: its width."""

    X: np.ndarray

    @property
    def n_features(self) -> int:
        """The number of features: the columns of ``X``, the dimension of one row (item or frame)."""
        return self.X.shape[1]


@dataclass(frozen=True, eq=False)
class DenseData(FeatureColumns):
    """Dense real-valued data: ``X`` of shape (n_items, n_features), float64, finite.

    Parameters
    ----------
    X : ndarray of shape (n_items, n_features)
        The rows, taken as given (no checks); build from user data with :meth:`from_array`,
        which validates them.

    See Also
    --------
    DenseData.from_array : Validated construction from any 2-D array-like.

    Examples
    --------
    >>> from stickbreak import DenseData, datasets
    >>> data = DenseData.from_array(datasets.load("old_faithful").X)
    >>> data.n_items, data.n_features, data.X.dtype
    (272, 2, dtype('float64'))
    >>> data.subset([0, 5, 7]).X.shape
    (3, 2)
    """

    X: np.ndarray

    @classmethod
    def from_array(cls, X, what: str = "X") -> "DenseData":
        """Validated dense data: a 2-D finite numeric array, converted to contiguous float64.

        Parameters
        ----------
        X : array-like of shape (n_items, n_features)
            The data, one row per item (bool, int, float, or objects holding numbers).
        what : str, default="X"
            The name of ``X`` in error messages.

        Returns
        -------
        DenseData
            The data as C-contiguous float64.

        Raises
        ------
        DataError
            If ``X`` is sparse, not 2-D, empty, complex, not numeric, or holds NaN or infinite values.
        """
        return cls(as_float_matrix(X, what))

    @property
    def n_items(self) -> int:
        """The number of items (rows)."""
        return self.X.shape[0]

    def subset(self, index) -> "DenseData":
        """The items at ``index``, as a contiguous copy.

        Parameters
        ----------
        index : int, slice, array-like of int or bool mask
            The rows to keep, in that order.

        Returns
        -------
        DenseData
            The selected rows.
        """
        return DenseData(np.ascontiguousarray(self.X[index]))

"""User-supplied numbers checked before any solver sees them: real, finite, of the right shape.

A model's coefficients, right-hand sides and bounds (:mod:`gamelp.model`) and
a solve's options (:class:`gamelp.backends.base.Options`) are read through
these functions, so a NaN, an infinity, a complex number or an array of the
wrong dimension is refused the same way everywhere: one line naming what was
given (``what``: the block or the option) and the entry at fault, raised as
the caller's error class (``error``, a :class:`~gamelp.errors.GamelpError`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gamelp.errors import GamelpError, ModelError, shown

__all__ = ["as_vector", "entry", "real_array", "refuse_non_finite"]


def entry(index: tuple[int, ...]) -> str:
    """An entry's position as a message names it: ``3`` in a vector, ``[0, 2]`` in a matrix."""
    return str(index[0]) if len(index) == 1 else "[" + ", ".join(map(str, index)) + "]"


def real_array(value, what: str, error: type[GamelpError] = ModelError) -> np.ndarray:
    """``value`` as an array of floats; a complex entry (a nonzero imaginary part) or a non-numeric one is refused.

    Dropping an imaginary part silently would solve another model than the one written; a complex array whose
    imaginary parts are all zero holds real numbers and is read as such.
    """
    arr = np.asarray(value)
    if np.iscomplexobj(arr):
        at = np.argwhere(np.atleast_1d(np.imag(arr)) != 0)
        if at.size:
            raise error(f"{what}: entry {entry(tuple(int(i) for i in at[0]))} is a complex number, not a real one")
        arr = np.real(arr)
    try:
        return arr.astype(float)
    except (TypeError, ValueError):
        raise error(f"{what}: expected real numbers, got {shown(value)}") from None


def refuse_non_finite(
    values: np.ndarray,
    positions: Callable[[int], tuple[int, ...]],
    what: str,
    allow: float | None = None,
    error: type[GamelpError] = ModelError,
) -> None:
    """Refuse a NaN or an infinity among ``values``, naming the first such entry.

    ``allow`` is the one infinity the entries may take (``-inf`` for lower bounds, ``+inf`` for upper ones);
    ``positions(i)`` is the index in the caller's block of ``values[i]``.
    """
    bad = ~np.isfinite(values)
    if allow is not None:
        bad &= values != allow
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        hint = "" if allow is None else f" ({'-' if allow < 0 else '+'}inf for none)"
        raise error(f"{what}: entry {entry(positions(first))} is {values[first]}, not a finite number{hint}")


def as_vector(
    value, size: int, what: str, allow: float | None = None, error: type[GamelpError] = ModelError
) -> np.ndarray:
    """A read-only copy of ``value`` as ``size`` finite real numbers (a scalar is broadcast to all).

    A row or column of a 2-D array is read as a vector; any other shape is refused, as are entries that are not
    finite (but ``allow``: see :func:`refuse_non_finite`).
    """
    arr = real_array(value, what, error)
    if arr.ndim > 2 or (arr.ndim == 2 and min(arr.shape) > 1):
        raise error(f"{what}: expected a vector of {size} values, got an array of shape {arr.shape}")
    if arr.ndim == 0:
        arr = np.full(size, float(arr))
    else:
        arr = arr.reshape(-1).copy()
    if arr.size != size:
        raise error(f"{what}: expected {size} values, got {arr.size}")
    refuse_non_finite(arr, lambda i: (i,), what, allow, error)
    arr.setflags(write=False)
    return arr

"""The numpy twins of the C extension ``_kernels.c``: CFR's treeplex passes and segment reductions.

They run where the extension was not built (no C compiler when pip installed gamelp; :mod:`gamelp.regret.kernels`
picks one or the other). Same functions, same arguments (``_kernels.pyi``), results written into ``out``; the
same answers up to the rounding of sums taken in another order; the same refusals of parents that do not come
before their sequences and of segment bounds that do not rise, with the C messages (dtypes and memory layout are
numpy's business here, not checked).

A treeplex pass walks the sequences one depth at a time (the numpy code CFR ran before the C loops): the depths are
found from ``parent`` by pointer jumping, and the layout of a ``parent`` array, like that of a ``bounds`` array, is
kept for the next call with the same contents (a self-play run passes the same arrays every iteration).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

_LAYOUTS = 32  # the parent and bounds arrays remembered: a self-play run uses a handful


class _Depth(NamedTuple):
    """The sequences of one depth below the root, and where their values go in the depth above."""

    here: slice | np.ndarray  # the sequences (a slice when contiguous, as in level order)
    parent: np.ndarray  # per sequence: its parent
    above: slice  # the range of their parents
    parents: int  # its length
    slot: np.ndarray  # per sequence: its parent, counted from above.start


@lru_cache(maxsize=_LAYOUTS)
def _depths(key: bytes) -> tuple[_Depth, ...] | str:
    """The depths 1, 2, ... of the treeplex whose int64 parent array has the bytes ``key``, or what is wrong."""
    parent = np.frombuffer(key, dtype=np.int64)
    n = parent.size
    late = np.flatnonzero((parent[1:] < 0) | (parent[1:] >= np.arange(1, n))) + 1
    if late.size:
        return f"sequence {late[0]}'s parent {parent[late[0]]} does not come before it"
    up = parent.copy()
    up[0] = 0
    depth = np.ones(n, dtype=np.int64)
    depth[0] = 0
    while up.any():  # pointer jumping: depth[s] counts the steps from s to up[s], which doubles each round
        depth, up = depth + depth[up], up[up]
    layout = []
    for d in range(1, int(depth.max(initial=0)) + 1):
        here = np.flatnonzero(depth == d)
        parents = parent[here]
        lo, hi = int(parents.min()), int(parents.max()) + 1
        contiguous = bool(here[-1] - here[0] == here.size - 1)
        layout.append(
            _Depth(
                slice(int(here[0]), int(here[-1]) + 1) if contiguous else here,
                parents,
                slice(lo, hi),
                hi - lo,
                parents - lo,
            )
        )
    return tuple(layout)


def _treeplex(fn: str, parent: npt.NDArray[np.int64], *arrays: npt.NDArray[np.float64]) -> tuple[_Depth, ...]:
    """The checked depth layout of ``parent``, whose length the float64 ``arrays`` share (``fn`` names the call)."""
    n = arrays[0].size
    for a in arrays[1:]:
        if a.size != n:
            raise ValueError(f"{fn}: the float64 arrays must have one common length")
    if n < 1 or parent.size != n:
        raise ValueError(f"{fn}: parent and the float64 arrays must have one common, non-zero length")
    layout = _depths(np.ascontiguousarray(parent, dtype=np.int64).tobytes())
    if isinstance(layout, str):
        raise ValueError(f"{fn}: {layout}")
    return layout


class _Segments(NamedTuple):
    """Segment ``k`` is ``[starts[k], starts[k+1])`` of a vector of length ``size``; owner and uniform per entry."""

    size: int
    starts: np.ndarray
    owner: np.ndarray
    uniform: np.ndarray


@lru_cache(maxsize=_LAYOUTS)
def _segment_layout(key: bytes) -> _Segments | None:
    """The segments of the int64 bounds array with the bytes ``key``; None unless they rise strictly from 0."""
    bounds = np.frombuffer(key, dtype=np.int64)
    sizes = np.diff(bounds)
    if bounds.size < 2 or bounds[0] != 0 or np.any(sizes < 1):
        return None
    owner = np.repeat(np.arange(sizes.size), sizes)
    return _Segments(int(bounds[-1]), bounds[:-1], owner, 1.0 / sizes[owner])


def _segments(fn: str, bounds: npt.NDArray[np.int64], *arrays: npt.NDArray[np.float64]) -> _Segments:
    """The checked segments of ``bounds``, which must rise strictly from 0 to the length of the float64 ``arrays``."""
    n = arrays[0].size
    for a in arrays[1:]:
        if a.size != n:
            raise ValueError(f"{fn}: the float64 arrays must have one common length")
    layout = _segment_layout(np.ascontiguousarray(bounds, dtype=np.int64).tobytes())
    if layout is None or layout.size != n:
        raise ValueError(f"{fn}: the segment bounds must rise strictly from 0 to the length {n}")
    return layout


def sequence_form(
    parent: npt.NDArray[np.int64], behaviour: npt.NDArray[np.float64], out: npt.NDArray[np.float64]
) -> None:
    """``out[0] = 1``, ``out[s] = behaviour[s] * out[parent[s]]``, top-down one depth at a time."""
    layout = _treeplex("sequence_form", parent, behaviour, out)
    out[0] = 1.0
    for depth in layout:
        out[depth.here] = behaviour[depth.here] * out[depth.parent]


def counterfactual_values(
    parent: npt.NDArray[np.int64],
    behaviour: npt.NDArray[np.float64],
    utility: npt.NDArray[np.float64],
    out: npt.NDArray[np.float64],
) -> None:
    """``out = utility``, then ``out[parent[s]] += behaviour[s] * out[s]``, bottom-up one depth at a time."""
    layout = _treeplex("counterfactual_values", parent, behaviour, utility, out)
    out[:] = utility
    for depth in reversed(layout):
        out[depth.above] += np.bincount(depth.slot, behaviour[depth.here] * out[depth.here], depth.parents)


def positive_part(bounds: npt.NDArray[np.int64], v: npt.NDArray[np.float64], out: npt.NDArray[np.float64]) -> None:
    """Per segment, ``[v]^+`` normalised to sum 1, uniform where no entry is positive (or the sum is NaN)."""
    segments = _segments("positive_part", bounds, v, out)
    positive = np.maximum(v, 0.0)
    totals = np.add.reduceat(positive, segments.starts)[segments.owner]
    out[:] = segments.uniform
    np.divide(positive, totals, out=out, where=totals > 0)


def regret(
    bounds: npt.NDArray[np.int64],
    x: npt.NDArray[np.float64],
    u: npt.NDArray[np.float64],
    out: npt.NDArray[np.float64],
) -> None:
    """Per segment, ``out = u - <x, u>``."""
    segments = _segments("regret", bounds, x, u, out)
    np.subtract(u, np.add.reduceat(x * u, segments.starts)[segments.owner], out=out)

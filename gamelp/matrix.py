"""Two-player zero-sum matrix games: payoffs, optional standard deviations, labels, CSV, dominance.

A :class:`MatrixGame` holds the row player's payoff matrix ``C`` (for the
thesis's deck games ``c_ij`` is the win rate of row deck ``i`` against column
deck ``j``), optionally a matrix of the same shape with the standard
deviations of the estimates, and labels for rows and columns.  The row player
maximises, the column player minimises the row player's payoff.

CSV layout (payoffs and deviations alike): the first row holds the column
labels (its first cell, the corner, is ignored), every later row starts with
its row label followed by one number per column.  The deviations file must
have the same labels in the same order.

:meth:`MatrixGame.reduce_dominated` removes strictly dominated rows and
columns by pure strategies, iterated until none is left (Fryer's recipe, the
thesis's Section 2.3): a row whose entries are all smaller than another row's,
a column whose entries are all larger than another column's.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Sequence

import numpy as np

from gamelp.errors import GamelpError, MatrixFileError
from gamelp.io import atomic_write


class MatrixGameError(GamelpError):
    """A matrix game built in code is inconsistent (shapes, labels, NaN, negative deviations)."""


def _labels(labels: Sequence[str] | None, size: int, prefix: str, what: str) -> tuple[str, ...]:
    if labels is None:
        return tuple(f"{prefix}{i}" for i in range(size))
    labels = tuple(str(label) for label in labels)
    if len(labels) != size:
        raise MatrixGameError(f"{what}: {len(labels)} labels for {size} entries")
    seen = set()
    for label in labels:
        if label in seen:
            raise MatrixGameError(f"{what}: label {label!r} appears twice")
        seen.add(label)
    return labels


def _first_bad_cell(mask: np.ndarray) -> tuple[int, int]:
    i, j = np.argwhere(mask)[0]
    return int(i), int(j)


class MatrixGame:
    """A zero-sum matrix game: ``payoffs[i, j]`` is what the row player gets from the pair ``(i, j)``."""

    def __init__(self, payoffs, row_labels: Sequence[str] | None = None,
                 col_labels: Sequence[str] | None = None, std=None):
        payoffs = np.array(payoffs, dtype=float)
        if payoffs.ndim != 2 or payoffs.size == 0:
            raise MatrixGameError(f"payoffs must be a non-empty 2-d matrix, got shape {payoffs.shape}")
        self.payoffs = payoffs
        self.row_labels = _labels(row_labels, payoffs.shape[0], "r", "row labels")
        self.col_labels = _labels(col_labels, payoffs.shape[1], "c", "column labels")
        bad = ~np.isfinite(payoffs)
        if bad.any():
            i, j = _first_bad_cell(bad)
            raise MatrixGameError(f"payoff ({self.row_labels[i]}, {self.col_labels[j]}) is {payoffs[i, j]}")
        if std is not None:
            std = np.array(std, dtype=float)
            if std.shape != payoffs.shape:
                raise MatrixGameError(f"std has shape {std.shape}, payoffs have shape {payoffs.shape}")
            bad = ~np.isfinite(std) | (std < 0)
            if bad.any():
                i, j = _first_bad_cell(bad)
                raise MatrixGameError(f"std ({self.row_labels[i]}, {self.col_labels[j]}) is {std[i, j]}: "
                                      "deviations must be finite and non-negative")
        self.std = std

    # ----------------------------------------------------------------- basics
    @property
    def shape(self) -> tuple[int, int]:
        return self.payoffs.shape

    def __repr__(self) -> str:
        extra = ", with std" if self.std is not None else ""
        return f"MatrixGame({self.shape[0]}x{self.shape[1]}{extra})"

    def submatrix(self, rows: Sequence[int], cols: Sequence[int]) -> "MatrixGame":
        """The game restricted to the given row and column indices (deviations kept)."""
        rows, cols = np.asarray(rows, dtype=int), np.asarray(cols, dtype=int)
        std = None if self.std is None else self.std[np.ix_(rows, cols)]
        return MatrixGame(self.payoffs[np.ix_(rows, cols)], [self.row_labels[i] for i in rows],
                          [self.col_labels[j] for j in cols], std=std)

    # ----------------------------------------------------------------- dominance
    def reduce_dominated(self) -> tuple["MatrixGame", list[str], list[str]]:
        """Remove strictly dominated rows and columns, iterated; return the game and the removed labels.

        Rows are dropped when another row is strictly larger in every column,
        columns when another column is strictly smaller in every row.  The
        removed labels are listed in the order they were removed (all rows
        dominated in a pass before the columns of that pass).
        """
        rows = np.arange(self.shape[0])
        cols = np.arange(self.shape[1])
        removed_rows: list[str] = []
        removed_cols: list[str] = []
        while True:
            dominated = _dominated_rows(self.payoffs[np.ix_(rows, cols)])
            removed_rows += [self.row_labels[i] for i in rows[dominated]]
            rows = rows[~dominated]
            dominated_c = _dominated_rows(-self.payoffs[np.ix_(rows, cols)].T)
            removed_cols += [self.col_labels[j] for j in cols[dominated_c]]
            cols = cols[~dominated_c]
            if not dominated.any() and not dominated_c.any():
                break
        return self.submatrix(rows, cols), removed_rows, removed_cols

    # ----------------------------------------------------------------- CSV
    @classmethod
    def from_csv(cls, path, std_path=None) -> "MatrixGame":
        """Read payoffs (and deviations from ``std_path``, same labels in the same order) from CSV."""
        row_labels, col_labels, payoffs = _read_csv(Path(path))
        std = None
        if std_path is not None:
            std_rows, std_cols, std = _read_csv(Path(std_path))
            if std.shape != payoffs.shape:
                raise MatrixFileError(f"{std_path}: deviations have shape {std.shape[0]}x{std.shape[1]}, "
                                      f"the payoffs in {path} are {payoffs.shape[0]}x{payoffs.shape[1]}")
            for kind, theirs, ours in (("row", std_rows, row_labels), ("column", std_cols, col_labels)):
                for k, (a, b) in enumerate(zip(theirs, ours)):
                    if a != b:
                        raise MatrixFileError(f"{std_path}: {kind} {k + 1} is labelled {a!r}, "
                                              f"but {b!r} in {path}")
            negative = std < 0
            if negative.any():
                i, j = _first_bad_cell(negative)
                raise MatrixFileError(f"{std_path}: row {row_labels[i]!r}, column {col_labels[j]!r}: "
                                      f"negative deviation {std[i, j]}")
        try:
            return cls(payoffs, row_labels, col_labels, std=std)
        except MatrixGameError as exc:
            raise MatrixFileError(f"{path}: {exc}") from None

    def to_csv(self, path, std_path=None) -> None:
        """Write the payoffs to ``path`` and, when given, the deviations to ``std_path`` (exact floats)."""
        _write_csv(Path(path), self.row_labels, self.col_labels, self.payoffs)
        if std_path is not None:
            if self.std is None:
                raise MatrixGameError(f"cannot write {std_path}: this game has no standard deviations")
            _write_csv(Path(std_path), self.row_labels, self.col_labels, self.std)


def _dominated_rows(C: np.ndarray, chunk: int = 16) -> np.ndarray:
    """Mask of rows of ``C`` strictly dominated by another row (every entry strictly smaller).

    A dominator has a strictly larger row sum, so only those rows are
    candidates; candidates are filtered a chunk of columns at a time, which
    empties the list after a few chunks for all but dominated rows.
    """
    sums = C.sum(axis=1)
    dominated = np.zeros(C.shape[0], dtype=bool)
    for i in range(C.shape[0]):
        candidates = np.flatnonzero(sums > sums[i])
        for start in range(0, C.shape[1], chunk):
            if candidates.size == 0:
                break
            cols = slice(start, start + chunk)
            candidates = candidates[(C[candidates, cols] > C[i, cols]).all(axis=1)]
        dominated[i] = candidates.size > 0
    return dominated


def _read_csv(path: Path) -> tuple[list[str], list[str], np.ndarray]:
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            lines = [(number, row) for number, row in enumerate(csv.reader(handle), start=1)
                     if any(cell.strip() for cell in row)]
    except OSError as exc:
        raise MatrixFileError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except (csv.Error, UnicodeDecodeError) as exc:
        raise MatrixFileError(f"{path}: not a readable CSV file ({exc})") from None
    if not lines:
        raise MatrixFileError(f"{path}: empty file (expected a header row of column labels)")
    header_number, header = lines[0]
    col_labels = [cell.strip() for cell in header[1:]]
    if not col_labels:
        raise MatrixFileError(f"{path}: line {header_number}: the header has no column labels")
    _check_unique(path, col_labels, "column", header_number)
    if len(lines) == 1:
        raise MatrixFileError(f"{path}: no data rows after the header")
    row_labels, values = [], []
    for number, row in lines[1:]:
        label = row[0].strip()
        if len(row) != len(col_labels) + 1:
            raise MatrixFileError(f"{path}: line {number} (row {label!r}) has {len(row) - 1} values, "
                                  f"the header has {len(col_labels)} columns")
        numbers = []
        for col, cell in zip(col_labels, row[1:]):
            text = cell.strip()
            try:
                value = float(text)
            except ValueError:
                raise MatrixFileError(f"{path}: line {number}, row {label!r}, column {col!r}: "
                                      f"{text!r} is not a number") from None
            if not math.isfinite(value):
                raise MatrixFileError(f"{path}: line {number}, row {label!r}, column {col!r}: "
                                      f"{text!r} is not a finite number")
            numbers.append(value)
        row_labels.append(label)
        values.append(numbers)
    _check_unique(path, row_labels, "row", None)
    return row_labels, col_labels, np.array(values, dtype=float)


def _check_unique(path: Path, labels: list[str], kind: str, line: int | None) -> None:
    seen: set[str] = set()
    for label in labels:
        if not label:
            raise MatrixFileError(f"{path}: a {kind} label is empty" + (f" (line {line})" if line else ""))
        if label in seen:
            raise MatrixFileError(f"{path}: {kind} label {label!r} appears twice")
        seen.add(label)


def _write_csv(path: Path, row_labels, col_labels, values: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path, newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([""] + list(col_labels))
        for label, row in zip(row_labels, values):
            writer.writerow([label] + [repr(float(v)) for v in row])

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

Shipped matrices load by name (:meth:`MatrixGame.load`, ``gamelp matrix
solve NAME``): the games' data folder holds ``NAME_payoffs.csv`` and, for
some, the deviations ``NAME_std.csv``; :func:`shipped_matrices` lists the
names found there (:data:`PAYOFFS_SUFFIX` is the naming rule's one place).

:meth:`MatrixGame.reduce_dominated` removes strictly dominated rows and
columns by pure strategies, iterated until none is left (Fryer's recipe,
Esche (2018), Section 2.3): a row whose entries are all smaller than another
row's, a column whose entries are all larger than another column's; for a
robust solve, only those dominated in every matrix of the uncertainty set.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from gamelp.display import Raw, Summarised, frame, shape_text
from gamelp.errors import MatrixFileError, MatrixGameError, did_you_mean
from gamelp.io import atomic_write, open_regular
from gamelp.registry import reader, shipped_data

# A shipped matrix NAME is the file NAME_payoffs.csv of the games' data folder, its deviations NAME_std.csv.
PAYOFFS_SUFFIX = "_payoffs.csv"
STD_SUFFIX = "_std.csv"


def shipped_matrices() -> tuple[str, ...]:
    """The names of the matrices gamelp ships, sorted: ``NAME`` for every ``NAME_payoffs.csv`` of its data folder."""
    return tuple(
        sorted(
            entry.name.removesuffix(PAYOFFS_SUFFIX)
            for entry in shipped_data().iterdir()
            if entry.name.endswith(PAYOFFS_SUFFIX)
        )
    )


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


def _preview(labels: Sequence[str], shown: int = 3) -> str:
    """The first few labels and how many more."""
    more = f", ... ({len(labels)})" if len(labels) > shown else ""
    return ", ".join(labels[:shown]) + more


def _first_bad_cell(mask: np.ndarray) -> tuple[int, int]:
    i, j = np.argwhere(mask)[0]
    return int(i), int(j)


class MatrixGame(Summarised):
    """A zero-sum matrix game: ``payoffs[i, j]`` is what the row player gets from the pair ``(i, j)``."""

    def __init__(
        self, payoffs, row_labels: Sequence[str] | None = None, col_labels: Sequence[str] | None = None, std=None
    ):
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
                raise MatrixGameError(
                    f"std ({self.row_labels[i]}, {self.col_labels[j]}) is {std[i, j]}: "
                    "deviations must be finite and non-negative"
                )
        self.std = std

    # ----------------------------------------------------------------- basics
    @property
    def shape(self) -> tuple[int, int]:
        """(rows, columns) of the payoff matrix."""
        return self.payoffs.shape

    def _summary(self) -> dict:
        return {
            "shape": Raw(shape_text(self.shape)),
            "payoffs": Raw(f"{self.payoffs.min():.4g}..{self.payoffs.max():.4g}"),
            "std": self.std is not None,
            "rows": Raw(_preview(self.row_labels)),
            "cols": Raw(_preview(self.col_labels)),
        }

    def to_frame(self):
        """The payoffs (and standard deviations) as a long pandas DataFrame: row, col, payoff[, std]."""
        rows, cols = np.meshgrid(np.arange(self.shape[0]), np.arange(self.shape[1]), indexing="ij")
        data = {
            "row": np.asarray(self.row_labels, dtype=object)[rows.ravel()],
            "col": np.asarray(self.col_labels, dtype=object)[cols.ravel()],
            "payoff": self.payoffs.ravel(),
        }
        if self.std is not None:
            data["std"] = self.std.ravel()
        return frame(data, "a payoff table")

    def submatrix(self, rows: Sequence[int] | np.ndarray, cols: Sequence[int] | np.ndarray) -> MatrixGame:
        """The game restricted to the given row and column indices (deviations kept)."""
        kept_rows, kept_cols = np.asarray(rows, dtype=int), np.asarray(cols, dtype=int)
        std = None if self.std is None else self.std[np.ix_(kept_rows, kept_cols)]
        return MatrixGame(
            self.payoffs[np.ix_(kept_rows, kept_cols)],
            [self.row_labels[i] for i in kept_rows],
            [self.col_labels[j] for j in kept_cols],
            std=std,
        )

    # ----------------------------------------------------------------- dominance
    def reduce_dominated(self, radius: float = 0.0) -> tuple[MatrixGame, list[str], list[str]]:
        """Remove strictly dominated rows and columns, iterated; return the game and the removed labels.

        With ``radius = 0`` the nominal payoffs decide: rows are dropped when
        another row is strictly larger in every column, columns when another
        column is strictly smaller in every row.  With ``radius R > 0`` the
        dominance must hold for every matrix of the box ``|C - C-hat| <= R Delta``
        around the estimate (which contains the ellipsoidal set of radius R as
        well): row ``i`` goes only if some row ``k`` has ``(C-hat - R Delta)[k] >
        (C-hat + R Delta)[i]`` in every column, column ``j`` only if some column
        ``l`` has ``(C-hat + R Delta)[:, l] < (C-hat - R Delta)[:, j]``.  Such a
        row or column is dominated in every matrix of the set, so removing it
        changes no robust value.  The removed labels are listed in the order
        they were removed (all rows dominated in a pass before the columns of
        that pass).
        """
        if not radius >= 0 or not math.isfinite(radius):
            raise MatrixGameError(f"the radius must be finite and non-negative, got {radius}")
        if radius > 0 and self.std is None:
            raise MatrixGameError("a dominance test over an uncertainty set needs standard deviations")
        spread = radius * self.std if radius > 0 else np.zeros_like(self.payoffs)
        lower, upper = self.payoffs - spread, self.payoffs + spread
        rows = np.arange(self.shape[0])
        cols = np.arange(self.shape[1])
        removed_rows: list[str] = []
        removed_cols: list[str] = []
        while True:
            block = np.ix_(rows, cols)
            dominated = _dominated_rows(lower[block], upper[block])
            removed_rows += [self.row_labels[i] for i in rows[dominated]]
            rows = rows[~dominated]
            block = np.ix_(rows, cols)
            dominated_c = _dominated_rows(-upper[block].T, -lower[block].T)
            removed_cols += [self.col_labels[j] for j in cols[dominated_c]]
            cols = cols[~dominated_c]
            if not dominated.any() and not dominated_c.any():
                break
        return self.submatrix(rows, cols), removed_rows, removed_cols

    # ----------------------------------------------------------------- CSV
    @classmethod
    def from_csv(cls, path, std_path=None) -> MatrixGame:
        """Read payoffs (and deviations from ``std_path``, same labels in the same order) from CSV.

        Parameters
        ----------
        path : str or os.PathLike
            Column labels in the first row, row labels in the first column, the row player's payoffs inside.
        std_path : str or os.PathLike, optional
            The payoffs' standard deviations, with the same labels in the same order (for the robust LPs).

        Returns
        -------
        MatrixGame

        Raises
        ------
        MatrixFileError
            One line naming the file and the entry at fault (missing labels, a non-number, a shape mismatch).
        """
        row_labels, col_labels, payoffs = _read_csv(Path(path))
        std = None
        if std_path is not None:
            std_rows, std_cols, std = _read_csv(Path(std_path))
            if std.shape != payoffs.shape:
                raise MatrixFileError(
                    f"{std_path}: deviations have shape {std.shape[0]}x{std.shape[1]}, "
                    f"the payoffs in {path} are {payoffs.shape[0]}x{payoffs.shape[1]}"
                )
            for kind, theirs, ours in (("row", std_rows, row_labels), ("column", std_cols, col_labels)):
                for k, (a, b) in enumerate(zip(theirs, ours)):
                    if a != b:
                        raise MatrixFileError(f"{std_path}: {kind} {k + 1} is labelled {a!r}, but {b!r} in {path}")
            negative = std < 0
            if negative.any():
                i, j = _first_bad_cell(negative)
                raise MatrixFileError(
                    f"{std_path}: row {row_labels[i]!r}, column {col_labels[j]!r}: negative deviation {std[i, j]}"
                )
        return cls(payoffs, row_labels, col_labels, std=std)  # _read_csv checked all that cls checks

    @classmethod
    def load(cls, path_or_name, std_path=None) -> MatrixGame:
        """Read a payoff CSV by path, a file of a registered matrix format, or a shipped matrix by name.

        A file whose suffix has a matrix reader in the game registry (:mod:`gamelp.registry`; the games layer
        registers Gambit's ``.nfg``) is read by it, and has no deviations.  A path that exists wins over a
        name (:func:`shipped_matrices`).  A shipped matrix brings its
        shipped deviations (``NAME_std.csv``, where there is one) unless
        ``std_path`` names others.

        Parameters
        ----------
        path_or_name : str or os.PathLike
            A payoff CSV (:meth:`from_csv`) or the name of a shipped matrix, such as ``"esche_8c"``.
        std_path : str or os.PathLike, optional
            The payoffs' standard deviations (:meth:`from_csv`).

        Returns
        -------
        MatrixGame

        Raises
        ------
        MatrixFileError
            A file's fault (:meth:`from_csv`), or, in one line, a name that is neither a file nor a shipped
            matrix, with the close name it may have meant and the shipped names.
        """
        read = None if Path(path_or_name).suffix.lower() == ".csv" else reader(str(path_or_name), "matrix")
        if read is not None:
            if std_path is not None:
                raise MatrixFileError(f"{path_or_name}: a {Path(path_or_name).suffix} file has no deviations")
            return read(str(path_or_name))
        if Path(path_or_name).exists():
            return cls.from_csv(path_or_name, std_path)
        name, names = str(path_or_name), shipped_matrices()
        if name not in names:
            typed = Path(name).name.removesuffix(PAYOFFS_SUFFIX).removesuffix(".csv")  # a shipped file's name
            raise MatrixFileError(
                f"{name}: no such file or shipped matrix{did_you_mean(typed, names)} (shipped: {', '.join(names)})"
            )
        data = shipped_data()
        if std_path is None and data.joinpath(name + STD_SUFFIX).is_file():
            std_path = data.joinpath(name + STD_SUFFIX)
        return cls.from_csv(data.joinpath(name + PAYOFFS_SUFFIX), std_path)

    def to_csv(self, path, std_path=None) -> None:
        """Write the payoffs to ``path`` and, when given, the deviations to ``std_path`` (exact floats)."""
        _write_csv(Path(path), self.row_labels, self.col_labels, self.payoffs)
        if std_path is not None:
            if self.std is None:
                raise MatrixGameError(f"cannot write {std_path}: this game has no standard deviations")
            _write_csv(Path(std_path), self.row_labels, self.col_labels, self.std)


DOMINANCE_CHUNK = 16  # pragma: no mutate: columns compared at once; bounds memory, any value gives the same rows


def _dominated_rows(low: np.ndarray, high: np.ndarray, chunk: int = DOMINANCE_CHUNK) -> np.ndarray:
    """Mask of rows ``i`` with another row ``k`` such that ``low[k] > high[i]`` in every column.

    ``low <= high`` are the smallest and largest payoffs each entry can take
    (the same matrix for nominal dominance).  A dominator has a larger sum of
    ``low`` than row ``i``'s sum of ``high``, so only those rows are
    candidates; candidates are filtered a chunk of columns at a time, which
    empties the list after a few chunks for all but dominated rows.
    """
    low_sums, high_sums = low.sum(axis=1), high.sum(axis=1)
    dominated = np.zeros(low.shape[0], dtype=bool)
    for i in range(low.shape[0]):
        candidates = np.flatnonzero(low_sums > high_sums[i])  # pragma: no mutate: >= adds no dominator
        for start in range(0, low.shape[1], chunk):
            if candidates.size == 0:
                break
            cols = slice(start, start + chunk)
            candidates = candidates[(low[candidates, cols] > high[i, cols]).all(axis=1)]
        dominated[i] = candidates.size > 0
    return dominated


# Plain ASCII decimals only: Python's float() also takes "1_000" and full-width digits.
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)
_LAYOUT = "the first row must hold the column labels and the first column the row labels"


def _read_csv(path: Path) -> tuple[list[str], list[str], np.ndarray]:
    try:
        with open_regular(path, MatrixFileError, newline="", encoding="utf-8-sig") as handle:
            lines = [
                (number, row)
                for number, row in enumerate(csv.reader(handle), start=1)
                if any(cell.strip() for cell in row)
            ]
    except (csv.Error, UnicodeDecodeError) as exc:
        raise MatrixFileError(f"{path}: not a readable CSV file ({exc})") from None
    if not lines:
        raise MatrixFileError(f"{path}: empty file (expected a header row of column labels)")
    header_number, header = lines[0]
    col_labels = [cell.strip() for cell in header[1:]]
    if not col_labels:
        raise MatrixFileError(f"{path}: line {header_number}: the header has no column labels")
    if _NUMBER.fullmatch(header[0].strip()):
        raise MatrixFileError(
            f"{path}: line {header_number}: the first cell is the number {header[0].strip()!r}, "
            f"so the file seems to have no label row or column; {_LAYOUT}"
        )
    _check_unique(path, col_labels, "column", header_number)
    if len(lines) == 1:
        raise MatrixFileError(f"{path}: no data rows after the header")
    row_labels, values = [], []
    for number, row in lines[1:]:
        label = row[0].strip()
        if len(row) != len(col_labels) + 1:
            hint = f" (is the label column missing? {_LAYOUT})" if _NUMBER.fullmatch(label) else ""
            raise MatrixFileError(
                f"{path}: line {number} (row {label!r}) has {len(row) - 1} values, "
                f"the header has {len(col_labels)} columns{hint}"
            )
        row_labels.append(label)
        values.append([_number(path, number, label, col, cell.strip()) for col, cell in zip(col_labels, row[1:])])
    _check_unique(path, row_labels, "row", None)
    for kind, labels, others in (("column", col_labels, row_labels), ("row", row_labels, col_labels)):
        if all(_NUMBER.fullmatch(label) for label in labels) and not all(_NUMBER.fullmatch(o) for o in others):
            raise MatrixFileError(
                f"{path}: every {kind} label is a number ({', '.join(labels[:3])}, ...) but the "
                f"{'row' if kind == 'column' else 'column'} labels are not: the {kind} labels seem "
                f"to be missing; {_LAYOUT}"
            )
    return row_labels, col_labels, np.array(values, dtype=float)


def _number(path: Path, line: int, row: str, col: str, text: str) -> float:
    """One payoff cell as a finite float, naming the cell otherwise."""
    where = f"{path}: line {line}, row {row!r}, column {col!r}"
    if not _NUMBER.fullmatch(text):
        try:
            float(text)
        except ValueError:
            raise MatrixFileError(f"{where}: {text!r} is not a number") from None
        if text.strip("+-").lower() in ("nan", "inf", "infinity"):
            raise MatrixFileError(f"{where}: {text!r} is not a finite number")
        raise MatrixFileError(
            f"{where}: {text!r} is not a plain decimal number (digits 0-9, '.', an exponent; "
            "no '_' separators or non-ASCII digits)"
        )
    value = float(text)
    if not math.isfinite(value):  # an exponent beyond the float range
        raise MatrixFileError(f"{where}: {text!r} is not a finite number")
    return value


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
    with atomic_write(path, newline="") as handle:  # pragma: no mutate: "" is csv's rule, only Windows would differ
        writer = csv.writer(handle)
        writer.writerow([""] + list(col_labels))
        for label, row in zip(row_labels, values):
            writer.writerow([label] + [repr(float(v)) for v in row])

"""The flat form of a model: one cost vector, one sparse matrix, bounds and cones, as every backend reads it.

:class:`MatrixForm` is what :meth:`gamelp.model.Model.matrix_form` flattens a
model into and what each backend in :mod:`gamelp.backends` turns into its
solver's own model; :class:`Changes` says which flat rows and columns the
model's value setters changed since a revision, for persistent sessions.  It
sits below both the model and the backends, so neither imports the other at
module level (the model calls a backend only inside ``solve`` and the exports).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from gamelp.display import Raw, Summarised, shape_text


@dataclass(frozen=True, eq=False, repr=False)
class ConeBlock(Summarised):
    """Second-order cone ``u = matrix @ x + constant``, ``u[0] >= ||u[1:]||_2``."""

    name: str
    matrix: sp.csr_matrix
    constant: np.ndarray

    def _summary(self) -> dict:
        return {"name": self.name, "rows": self.matrix.shape[0], "nonzeros": self.matrix.nnz}


@dataclass(frozen=True, repr=False, kw_only=True)
class MatrixForm(Summarised):
    """The flattened model every backend reads.

    ``row_sense`` holds one of ``'<'``, ``'>'``, ``'='`` per row of ``A``;
    ``variable_slices`` / ``row_slices`` give each block's columns / rows.
    ``quadratic``, when not None, is the diagonal ``q >= 0`` of a convex quadratic objective term: the
    objective is ``c^T x + 1/2 sum_j q_j x_j^2 + objective_constant``, minimised.
    """

    c: np.ndarray
    objective_constant: float
    maximize: bool
    A: sp.csr_matrix
    row_sense: np.ndarray
    rhs: np.ndarray
    col_lb: np.ndarray
    col_ub: np.ndarray
    integer: np.ndarray
    binary: np.ndarray
    cones: tuple[ConeBlock, ...]
    name: str = "model"
    variable_slices: dict[str, slice] = field(default_factory=dict)
    row_slices: dict[str, slice] = field(default_factory=dict)
    quadratic: np.ndarray | None = None

    def _summary(self) -> dict:
        return {
            "name": self.name,
            "shape": Raw(shape_text(self.A.shape)),
            "nonzeros": self.A.nnz,
            "cones": len(self.cones) or None,
            "quadratic": None if self.quadratic is None else int(np.count_nonzero(self.quadratic)),
            "integer": int(self.integer.sum()) or None,
            "sense": "max" if self.maximize else "min",
        }

    @property
    def is_mip(self) -> bool:
        """Whether any column is integer."""
        return bool(self.integer.any())

    def objective_at(self, x: np.ndarray) -> float:
        """The objective's value at ``x``: ``c^T x``, the quadratic term if any, and the constant."""
        value = float(self.c @ x) + self.objective_constant
        if self.quadratic is not None:
            value += 0.5 * float(self.quadratic @ (x * x))
        return value

    def split_values(self, x: np.ndarray) -> dict[str, np.ndarray]:
        """Cut a full variable vector into one array per variable block."""
        return {name: np.array(x[s], dtype=float) for name, s in self.variable_slices.items()}

    def split_rows(self, y: np.ndarray) -> dict[str, np.ndarray]:
        """Cut a full row vector (duals) into one array per constraint block."""
        return {name: np.array(y[s], dtype=float) for name, s in self.row_slices.items()}

    def full_vector(self, values: Mapping[str, np.ndarray]) -> np.ndarray:
        """One vector over all variables from per-block values (missing blocks at 0)."""
        x = np.zeros(self.c.size)
        for name, block_values in values.items():
            x[self.variable_slices[name]] = block_values
        return x

    @property
    def row_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Rows as ``lower <= A x <= upper`` (the form HiGHS and SciPy use)."""
        lower = np.where(self.row_sense == "<", -np.inf, self.rhs)
        upper = np.where(self.row_sense == ">", np.inf, self.rhs)
        return lower, upper


@dataclass(frozen=True, repr=False)
class Changes(Summarised):
    """What the value setters changed after some revision, as flat indices of the :class:`MatrixForm`.

    ``rows``: right-hand sides; ``bounds``: column bounds; ``costs``: objective
    coefficients; ``objective``: whether the sense or the constant may have changed.
    """

    rows: np.ndarray
    bounds: np.ndarray
    costs: np.ndarray
    objective: bool

    def _summary(self) -> dict:
        return {
            "rows": self.rows.size,
            "bounds": self.bounds.size,
            "costs": self.costs.size,
            "objective": self.objective,
        }

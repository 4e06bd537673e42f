"""Scaling a flattened model so that its solution does not depend on the units of its data.

A game whose payoffs are all multiplied by 1e-12 (or 1e12) has the same
equilibrium strategies, but its Nash LP mixes payoff coefficients of 1e-12
with the ±1 coefficients of the strategy polytope.  Solvers drop
coefficients that small (HiGHS: below 1e-9) or stop at tolerances meant for
numbers near 1, and return a wrong strategy as optimal.

Before every solve, :func:`scale` balances the coefficient magnitudes by
Curtis and Reid's method (A. R. Curtis and J. K. Reid, "On the automatic
scaling of matrices for Gaussian elimination", J. Inst. Maths Applics 10
(1972) 118-124): row factors ``r_i``, column factors ``d_j`` and an
objective factor ``s`` (powers of two, so scaling itself rounds nothing)
minimise ``sum (log2 |r_i a_ij d_j|)^2`` over the non-zeros, with the
objective as one more row and each cone as one row factor (a cone must be
scaled as a whole).  Integer columns keep ``d_j = 1``.  The scaled model is

    max/min  s c^T D x'  s.t.  R A D x' (sense) R b,   lb / d <= x' <= ub / d,
    cones    k (M D x' + m),

and :meth:`Scaling.unscale` maps its answer back: ``x = D x'``,
``objective = objective' / s``, row duals ``y = R y' / s`` and reduced costs
``z = z' / (s D)``.  A model whose non-zeros all lie within
[``WELL_SCALED_LOW``, ``WELL_SCALED_HIGH``] is passed through unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import lsqr

from gamelp.model import ConeBlock, MatrixForm

WELL_SCALED_LOW, WELL_SCALED_HIGH = 1e-3, 1e3


@dataclass(frozen=True)
class Scaling:
    """The factors of one scaled model: ``row`` (linear rows), ``column``, ``objective``, ``cone``."""

    row: np.ndarray
    column: np.ndarray
    objective: float
    cone: np.ndarray

    @property
    def identity(self) -> bool:
        return self.objective == 1.0 and not (self.row != 1).any() and not (self.column != 1).any() \
            and not (self.cone != 1).any()

    def scaled_start(self, x: np.ndarray) -> np.ndarray:
        """A point of the original model in the scaled model's variables."""
        return x / self.column

    def values(self, x_scaled: np.ndarray) -> np.ndarray:
        return x_scaled * self.column

    def objective_value(self, value: float | None) -> float | None:
        return None if value is None else value / self.objective

    def duals(self, y_scaled: np.ndarray) -> np.ndarray:
        return y_scaled * self.row / self.objective

    def reduced_costs(self, z_scaled: np.ndarray) -> np.ndarray:
        return z_scaled / (self.objective * self.column)


def _nonzero_magnitudes(form: MatrixForm) -> np.ndarray:
    parts = [form.A.data, form.c, *(k.matrix.data for k in form.cones)]
    values = np.abs(np.concatenate(parts)) if parts else np.zeros(0)
    return values[values > 0]


def needs_scaling(form: MatrixForm) -> bool:
    magnitudes = _nonzero_magnitudes(form)
    return magnitudes.size > 0 and (magnitudes.min() < WELL_SCALED_LOW or magnitudes.max() > WELL_SCALED_HIGH)


def _factors(form: MatrixForm) -> Scaling:
    """Curtis-Reid factors: least squares in log2 over every non-zero, rounded to powers of two."""
    m, n = form.A.shape
    pieces = [form.A.tocoo(), sp.coo_matrix(form.c.reshape(1, -1)),
              *(k.matrix.tocoo() for k in form.cones)]
    # Row index of each piece's entries in the stacked system: rows, then the objective, then one per cone.
    row_ids, col_ids, logs = [], [], []
    for index, piece in enumerate(pieces):
        keep = piece.data != 0
        base = piece.row[keep] if index == 0 else np.full(int(keep.sum()), m + index - 1)
        row_ids.append(base)
        col_ids.append(piece.col[keep])
        logs.append(np.log2(np.abs(piece.data[keep])))
    rows, cols, logs = np.concatenate(row_ids), np.concatenate(col_ids), np.concatenate(logs)
    num_rows = m + 1 + len(form.cones)
    free_col = ~form.integer
    col_unknown = np.full(n, -1)
    col_unknown[free_col] = np.arange(int(free_col.sum()))
    entries = np.arange(logs.size)
    # Unknowns: rho (num_rows) then gamma (free columns); equation per non-zero: rho_i + gamma_j = -log2|a_ij|.
    scaled_col = col_unknown[cols] >= 0
    system = sp.csr_matrix(
        (np.ones(logs.size + int(scaled_col.sum())),
         (np.concatenate([entries, entries[scaled_col]]),
          np.concatenate([rows, num_rows + col_unknown[cols[scaled_col]]]))),
        shape=(logs.size, num_rows + int(free_col.sum())))
    solution = lsqr(system, -logs, atol=1e-6, btol=1e-6, iter_lim=200)[0]
    exponents = np.round(solution)
    row_exp, col_exp = exponents[:num_rows], np.zeros(n)
    col_exp[free_col] = exponents[num_rows:]
    return Scaling(row=np.exp2(row_exp[:m]), column=np.exp2(col_exp), objective=float(np.exp2(row_exp[m])),
                   cone=np.exp2(row_exp[m + 1:]))


def scale(form: MatrixForm) -> tuple[MatrixForm, Scaling]:
    """``form`` scaled (or itself, when already well scaled) and the factors to undo it."""
    if not needs_scaling(form):
        m, n = form.A.shape
        return form, Scaling(np.ones(m), np.ones(n), 1.0, np.ones(len(form.cones)))
    factors = _factors(form)
    R, D = sp.diags(factors.row), sp.diags(factors.column)
    cones = tuple(ConeBlock(k.name, (factor * k.matrix @ D).tocsr(), factor * k.constant)
                  for k, factor in zip(form.cones, factors.cone))
    scaled = replace(form, c=factors.objective * factors.column * form.c,
                     objective_constant=factors.objective * form.objective_constant,
                     A=(R @ form.A @ D).tocsr(), rhs=factors.row * form.rhs,
                     col_lb=form.col_lb / factors.column, col_ub=form.col_ub / factors.column, cones=cones)
    return scaled, factors

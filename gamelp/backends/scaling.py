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
    cones    k (M D x' + m),   a quadratic objective term's diagonal  s q d^2,

and :meth:`Scaling.unscale` maps its answer back: ``x = D x'``,
``objective = objective' / s``, row duals ``y = R y' / s`` and reduced costs
``z = z' / (s D)``.  A model that is already well scaled (see
:func:`needs_scaling`) is passed through unchanged.

Scaling must never change an answer, only the arithmetic that finds it.  The
solvers resolve about 1e-9 relative to numbers near 1 (feasibility and
optimality tolerances of 1e-9 to 1e-6, absolute, in the units of the model they
are given; HiGHS drops coefficients below 1e-9 and refuses those above 1e15),
and a double carries 16 digits.  Hence three rules:

* **Factors stay near the data's own units.**  A column's factor keeps each
  of its finite non-zero bounds, and a row's (or cone's) factor its right-hand
  side (constant), within ``2^±FACTOR_REACH`` (about 1e-3..1e3) of 1.  Least
  squares alone spreads an irreducible spread over everything: ``max x + y``
  s.t. ``1e-50 x + y <= 1``, ``0 <= x, y <= 1`` was scaled to ``x' <= 3.6e-15``,
  below every solver's tolerance, and Gurobi answered 1 (the optimum is 2).  A
  solver's absolute tolerance on a scaled bound or row is therefore at most
  ``2^FACTOR_REACH`` times looser relative to the model's own numbers.
* **What no scaling can bring within the solvers' range is refused**, never
  dropped: after scaling, every non-zero coefficient (matrix, objective, cones)
  must lie within ``SOLVER_LIMITS`` (1e-9..1e9: what the solvers keep, with
  their 1e-9 tolerances still resolving the smallest against the largest).  A
  coefficient outside it is a ratio that the model's own cycles of rows and
  columns fix (``1e-50`` next to 1 in a row whose variables' bounds and other
  coefficients are near 1): :func:`scale` raises
  :class:`~gamelp.errors.BackendError`, one line naming the coefficients' span,
  the row and the column (``coefficients span 1e-50..1 in constraint 'c' and
  column 'x'``).  A well-scaled model (all coefficients within 1e-9..1e9, see
  :func:`needs_scaling`) is never scaled and so never refused.
* **The answer is checked in the model's own units.**  :func:`gamelp.backends.base.vouch` measures
  the unscaled point against the unscaled model (each row's violation relative
  to the magnitude of its terms and right-hand side, each bound's to the bound)
  and its objective against ``c x``: an optimum that misses by more than the
  feasibility tolerance is ``optimal_inaccurate``, one that misses by more than
  ``INACCURATE_LIMIT`` keeps no values and has status ``error``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from gamelp.display import Raw, Summarised, finite_range, show_range
from gamelp.errors import BackendError
from gamelp.form import ConeBlock, MatrixForm

WELL_SCALED_LOW, WELL_SCALED_HIGH = 1e-3, 1e3
BULK_PERCENTILES = (10, 90)
SOLVER_LIMITS = (1e-9, 1e9)  # HiGHS drops coefficients below 1e-9 in magnitude
FACTOR_REACH = 9  # scaled bounds and right-hand sides stay within 2^±9 (about 1e-3..1e3) of 1


@dataclass(frozen=True, repr=False)
class Scaling(Summarised):
    """The factors of one scaled model: ``row`` (linear rows), ``column``, ``objective``, ``cone``."""

    row: np.ndarray
    column: np.ndarray
    objective: float
    cone: np.ndarray

    def _summary(self) -> dict:
        ranges = {name: finite_range(getattr(self, name)) for name in ("row", "column", "cone")}
        return {
            **{name: Raw(f"{getattr(self, name).size} in {show_range(r)}") for name, r in ranges.items()},
            "objective": self.objective,
        }

    def scaled_start(self, x: np.ndarray) -> np.ndarray:
        """A point of the original model in the scaled model's variables."""
        return x / self.column

    def values(self, x_scaled: np.ndarray) -> np.ndarray:
        """Unscale a primal solution: the values of the original columns."""
        return x_scaled * self.column

    def objective_value(self, value: float | None) -> float | None:
        """Unscale an objective value (``None`` stays ``None``)."""
        return None if value is None else value / self.objective

    def duals(self, y_scaled: np.ndarray) -> np.ndarray:
        """Unscale row duals: the duals of the original rows."""
        return y_scaled * self.row / self.objective

    def reduced_costs(self, z_scaled: np.ndarray) -> np.ndarray:
        """Unscale reduced costs: those of the original columns."""
        return z_scaled / (self.objective * self.column)


def _nonzero_magnitudes(form: MatrixForm) -> np.ndarray:
    """|non-zeros| of the matrix, the objective and the cones (what decides whether to scale)."""
    parts = [form.A.data, form.c, *(k.matrix.data for k in form.cones)]
    values = np.abs(np.concatenate(parts)) if parts else np.zeros(0)
    return values[values > 0]


def needs_scaling(form: MatrixForm) -> bool:
    """Whether a matrix is badly scaled.

    True when any coefficient is beyond what solvers keep (``SOLVER_LIMITS``), or the bulk of them (the
    ``BULK_PERCENTILES``) lies outside [``WELL_SCALED_LOW``, ``WELL_SCALED_HIGH``].

    A few small entries in a well-scaled matrix (a random payoff near 0) do not trigger scaling: there
    it only changes the path the solver takes (a 500 x 500 random game: 3.7 s unscaled, 10.4 s scaled).
    """
    magnitudes = _nonzero_magnitudes(form)
    if magnitudes.size == 0:
        return False
    low, high = np.percentile(magnitudes, BULK_PERCENTILES)
    return bool(
        magnitudes.min() < SOLVER_LIMITS[0]
        or magnitudes.max() > SOLVER_LIMITS[1]
        or low < WELL_SCALED_LOW
        or high > WELL_SCALED_HIGH
    )


def _log_magnitudes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions and log2 magnitudes of the finite non-zeros of ``values``."""
    keep = np.flatnonzero(np.isfinite(values) & (values != 0))
    return keep, np.log2(np.abs(values[keep]))


def _reach(form: MatrixForm, num_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper limits of the log2 factors: ``FACTOR_REACH`` about the right-hand sides and bounds.

    A row with a finite non-zero right-hand side keeps ``|r_i b_i|`` within ``2^±FACTOR_REACH``, a cone its
    largest constant, a continuous column its largest finite non-zero bound ``|bound / d_j|``.
    """
    m = form.A.shape[0]
    continuous = np.flatnonzero(~form.integer)
    magnitudes = [
        (np.arange(m), -1.0, np.abs(form.rhs)),
        (m + 1 + np.arange(len(form.cones)), -1.0, np.array([np.abs(k.constant).max() for k in form.cones])),
        (
            num_rows + np.arange(continuous.size),
            1.0,  # a column's factor divides its bounds, a row's multiplies its right-hand side
            np.fmax(
                np.abs(np.where(np.isfinite(form.col_lb), form.col_lb, 0.0)),
                np.abs(np.where(np.isfinite(form.col_ub), form.col_ub, 0.0)),
            )[continuous],
        ),
    ]
    low = np.full(num_rows + continuous.size, -np.inf)
    high = np.full(num_rows + continuous.size, np.inf)
    for unknowns, sign, values in magnitudes:
        keep = np.isfinite(values) & (values > 0)
        centre = sign * np.log2(values[keep])
        low[unknowns[keep]], high[unknowns[keep]] = centre - FACTOR_REACH, centre + FACTOR_REACH
    return low, high


def _factors(form: MatrixForm) -> Scaling:
    """Curtis-Reid factors: least squares in log2, rounded to powers of two.

    Unknowns: ``rho`` per linear row, the objective and each cone, ``gamma`` per continuous column.
    One equation per non-zero ``a_ij`` (``rho_i + gamma_j = -log2 |a_ij|``, objective and cone
    rows alike), and, so that the solution's magnitude is pinned too, one per non-zero right-hand
    side or cone constant (``rho_i = -log2 |b_i|``) and per finite non-zero bound
    (``gamma_j = log2 |bound_j|``).
    """
    from scipy.optimize import lsq_linear
    from scipy.sparse.linalg import lsqr

    m, n = form.A.shape
    num_rows = m + 1 + len(form.cones)
    col_unknown = np.full(n, -1)
    col_unknown[~form.integer] = num_rows + np.arange(int((~form.integer).sum()))
    eq_rows: list[np.ndarray] = []
    eq_cols: list[np.ndarray] = []
    eq_signs: list[np.ndarray] = []
    targets: list[np.ndarray] = []

    def add(row_unknowns, col_positions, col_sign: float, target: np.ndarray) -> None:
        """Equations ``rho[row_unknowns] + col_sign * gamma[col_positions] = target`` (either side optional)."""
        first = sum(t.size for t in targets)
        ids = np.arange(first, first + target.size)
        terms = []
        if row_unknowns is not None:
            terms.append((ids, row_unknowns, 1.0))
        if col_positions is not None:
            unknowns = col_unknown[col_positions]
            scaled = unknowns >= 0  # integer columns have no unknown: their factor stays 1
            terms.append((ids[scaled], unknowns[scaled], col_sign))
        for equation, unknown, sign in terms:
            eq_rows.append(equation)
            eq_cols.append(unknown)
            eq_signs.append(np.full(equation.size, sign))
        targets.append(target)

    pieces = [
        (form.A.tocoo(), None),
        (sp.coo_matrix(form.c.reshape(1, -1)), m),
        *((k.matrix.tocoo(), m + 1 + index) for index, k in enumerate(form.cones)),
    ]
    for piece, fixed_row in pieces:
        keep, logs = _log_magnitudes(piece.data)
        rows = piece.row[keep] if fixed_row is None else np.full(keep.size, fixed_row)
        add(rows, piece.col[keep], 1.0, -logs)
    keep, logs = _log_magnitudes(form.rhs)
    add(keep, None, 0.0, -logs)
    for index, k in enumerate(form.cones):
        keep, logs = _log_magnitudes(k.constant)
        add(np.full(keep.size, m + 1 + index), None, 0.0, -logs)
    for bounds in (form.col_lb, form.col_ub):
        keep, logs = _log_magnitudes(np.where(form.integer, 0.0, bounds))
        add(None, keep, -1.0, -logs)
    target = np.concatenate(targets)
    system = sp.csr_matrix(
        (np.concatenate(eq_signs), (np.concatenate(eq_rows), np.concatenate(eq_cols))),
        shape=(target.size, num_rows + int((~form.integer).sum())),
    )
    free = np.asarray(lsqr(system, target, atol=1e-6, btol=1e-6, iter_lim=500)[0], dtype=float)
    low, high = _reach(form, num_rows)
    if np.any(free < low) or np.any(free > high):  # only then the bounded problem: the common case keeps lsqr's
        free = np.asarray(lsq_linear(system, target, bounds=(low, high), lsmr_tol="auto", max_iter=500).x, dtype=float)
    exponents = np.round(np.clip(free, low, high))
    col_exp = np.zeros(n)
    col_exp[~form.integer] = exponents[num_rows:]
    return Scaling(
        row=np.exp2(exponents[:m]),
        column=np.exp2(col_exp),
        objective=float(np.exp2(exponents[m])),
        cone=np.exp2(exponents[m + 1 : num_rows]),
    )


def _identity(form: MatrixForm) -> Scaling:
    m, n = form.A.shape
    return Scaling(np.ones(m), np.ones(n), 1.0, np.ones(len(form.cones)))


def scale(form: MatrixForm) -> tuple[MatrixForm, Scaling]:
    """``form`` scaled (or itself, when already well scaled) and the factors to undo it.

    When the factors (bounded by ``FACTOR_REACH``) would leave a coefficient outside ``SOLVER_LIMITS`` that the
    model itself keeps within them, the model is solved as it is: scaling may only help.
    """
    if not needs_scaling(form):
        return form, _identity(form)
    factors = _factors(form)
    R, D = sp.diags(factors.row), sp.diags(factors.column)
    cones = tuple(
        ConeBlock(k.name, (factor * k.matrix @ D).tocsr(), factor * k.constant)
        for k, factor in zip(form.cones, factors.cone)
    )
    scaled = replace(
        form,
        c=factors.objective * factors.column * form.c,
        objective_constant=factors.objective * form.objective_constant,
        A=(R @ form.A @ D).tocsr(),
        rhs=factors.row * form.rhs,
        col_lb=form.col_lb / factors.column,
        col_ub=form.col_ub / factors.column,
        cones=cones,
        quadratic=None if form.quadratic is None else factors.objective * form.quadratic * factors.column**2,
    )
    if _outside_limits(scaled) is not None and _outside_limits(form) is None:
        return form, _identity(form)
    _refuse_unresolved(form, scaled)
    return scaled, factors


def _coefficients(form: MatrixForm) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row, column and value of every stored coefficient: matrix rows, then the objective (row ``m``), then cones."""
    m = form.A.shape[0]
    pieces = [form.A.tocoo(), sp.coo_matrix(form.c.reshape(1, -1)), *(k.matrix.tocoo() for k in form.cones)]
    offsets = np.cumsum([0, m, 1, *(k.matrix.shape[0] for k in form.cones)])
    return (
        np.concatenate([p.row + offset for p, offset in zip(pieces, offsets)]),
        np.concatenate([p.col for p in pieces]),
        np.concatenate([p.data for p in pieces]),
    )


def _outside_limits(form: MatrixForm) -> int | None:
    """Where the coefficient farthest outside ``SOLVER_LIMITS`` is (:func:`_coefficients`' order); None if none."""
    low, high = SOLVER_LIMITS
    magnitudes = np.abs(_coefficients(form)[2])
    with np.errstate(divide="ignore"):
        off = np.where(magnitudes > 0, np.maximum(low / magnitudes, magnitudes / high), 0.0)
    return int(np.argmax(off)) if np.any(off > 1) else None


def _refuse_unresolved(form: MatrixForm, scaled: MatrixForm) -> None:
    """Raise :class:`BackendError` when a scaled coefficient lies outside ``SOLVER_LIMITS``: one line, named."""
    low, high = SOLVER_LIMITS
    worst = _outside_limits(scaled)
    if worst is None:
        return
    magnitudes = np.abs(_coefficients(scaled)[2])
    in_data = _outside_limits(form)  # named where the data itself is out of range, if scaling left that one out
    if in_data is not None and not low <= magnitudes[in_data] <= high:
        worst = in_data
    rows, cols, original = _coefficients(form)  # the same entries in the same order: scaling keeps the pattern
    i, j = rows[worst], cols[worst]
    span = np.abs(original[((rows == i) | (cols == j)) & (original != 0)])
    raise BackendError(
        f"model {form.name!r}: coefficients span {span.min():.0g}..{span.max():.0g} in {_row_name(form, i)} and "
        f"column {_column_name(form, j)}: beyond what the solvers' tolerances resolve (ratio "
        f"{span.max() / span.min():.0g}; the best scaling leaves {magnitudes[worst]:.0g} there, outside the "
        f"{low:.0g}..{high:.0g} solvers keep); rescale the model"
    )


def _within(slices: dict[str, slice], index: int) -> str | None:
    """``'c'`` for the only member of block ``c``, ``'c'[3]`` for its fourth; None outside every block."""
    for block, members in slices.items():
        if members.start <= index < members.stop:
            return repr(block) + (f"[{index - members.start}]" if members.stop - members.start > 1 else "")
    return None


def _row_name(form: MatrixForm, i: int) -> str:
    """A row of :func:`_coefficients` by name: ``constraint 'c'[2]``, ``the objective``, ``cone 'k'``."""
    m = form.A.shape[0]
    if i < m:
        return f"constraint {_within(form.row_slices, i) or i}"
    if i == m:
        return "the objective"
    starts = np.cumsum([m + 1, *(k.matrix.shape[0] for k in form.cones)])
    return f"cone {form.cones[int(np.searchsorted(starts, i, side='right')) - 1].name!r}"


def _column_name(form: MatrixForm, j: int) -> str:
    """A column by its block: ``'x'`` or ``'x'[3]``."""
    return _within(form.variable_slices, j) or str(j)


def unscaled_violation(form: MatrixForm, factors: Scaling, x: np.ndarray) -> float:
    """Largest violation by ``x`` of ``form`` (the unscaled model), in the model's own units, unit-free.

    A row's violation is relative to the magnitude of its terms and right-hand side (``|A_i| |x| + |b_i|``), a
    cone's to ``|u|``, a bound's to the largest finite bound of its column (its factor ``d_j`` when both are
    0 or infinite).  Integrality is the scaled model's (integer columns are never scaled).
    """
    if x.size != form.c.size or not np.isfinite(x).all():
        return np.inf
    activity, terms = form.A @ x, abs(form.A) @ np.abs(x) + np.abs(form.rhs)
    excess = np.select([form.row_sense == "<", form.row_sense == ">"], [activity - form.rhs, form.rhs - activity])
    excess = np.where(form.row_sense == "=", np.abs(activity - form.rhs), excess)
    size = np.fmax(np.abs(np.nan_to_num(form.col_lb, neginf=0.0)), np.abs(np.nan_to_num(form.col_ub, posinf=0.0)))
    size = np.where(size > 0, size, factors.column)
    worst = [
        np.max(np.where(excess > 0, excess / np.where(terms > 0, terms, 1.0), 0.0), initial=0.0),
        np.max((form.col_lb - x) / size, initial=0.0),
        np.max((x - form.col_ub) / size, initial=0.0),
    ]
    for cone in form.cones:
        u = cone.matrix @ x + cone.constant
        worst.append((np.linalg.norm(u[1:]) - u[0]) / max(float(np.linalg.norm(u)), np.finfo(float).tiny))
    return float(max(worst))

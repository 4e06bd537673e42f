"""Mangasarian's uniqueness test for an optimal LP solution, from its primal and dual values.

O. L. Mangasarian, "Uniqueness of solution in linear programming", Linear
Algebra and its Applications 25 (1979) 151-162; used by Esche (2018,
Sections 2.5 and 3.3) on its deck game.

Any LP :class:`~gamelp.model.Model` is brought to ``min c^T x`` subject to
``G x >= h`` and ``E x = e``: ``>=`` rows as they are, ``<=`` rows negated,
finite variable bounds as rows (``x_j >= lb_j``, ``-x_j >= -ub_j``),
equality rows and fixed variables into ``E``, a maximised objective negated.
The multipliers ``u >= 0`` of the ``G`` rows come from the solution: row duals
are d(objective)/d(rhs) on every backend, and bound multipliers are the
solution's reduced costs ``c - A^T y``.  With ``x-bar`` optimal and ``u`` any optimal
dual, complementary slackness makes the optimal set

    { x :  E x = e,  G_K x = h_K,  G_rest x >= h_rest }

where ``K`` holds the active rows with ``u_i > 0`` and ``L`` the active rows
with ``u_i = 0``.  So ``x-bar`` is the unique optimum iff

    E d = 0,   G_K d = 0,   G_L d >= 0

has only the solution ``d = 0`` (Mangasarian's Theorem 2).  The test checks
that the active system ``[E; G_K; G_L]`` has full column rank (otherwise a
null-space vector is a direction) and then solves the direction LP

    max e^T s   s.t.   s = G_L d,  0 <= s <= e,  G_K d = 0,  E d = 0,  d free

(rows scaled to unit norm): optimum 0 means unique, a positive optimum gives a
direction ``d``.  For a non-unique verdict, ``x-bar + t d`` with the largest
feasible step ``t`` (1 if the face is unbounded that way) is a second optimum;
its objective is reported beside the first.

Units.  The tolerances are absolute numbers, so they are read on the LP as
the backends balance it (:mod:`gamelp.backends.scaling`, Curtis and Reid
1972): a badly scaled model (a game's payoffs in another currency) is taken
in its balanced units ``x = D x'``, rows times ``R``, objective times ``s``
(multipliers ``s u / R``, slacks ``R (G x - h)``); a well-scaled one as it
is.  The test runs on the solution it is given, the one a caller reports,
and gives the objective, the direction, the step and the second optimum in
the model's own units (``x = D x'``), so the same game in other units gets
the same verdict and the same answers, scaled.

Whether a dual is "zero" is a judgement call (the thesis's verdict hung on a
5e-5 dual against zeros of 1e-10), so the result carries the tolerance used,
the smallest dual counted positive and the largest counted zero.

Uniqueness of some variable blocks only (``blocks=("x",)``, e.g. a
sequence-form strategy without the free value variables) asks whether every
direction above has ``d_block = 0``.  That is decided by two LPs over the
box-normalised direction cone, maximising ``+w^T d_block`` and ``-w^T d_block``
for a seeded random ``w`` (a non-zero projection of the cone lies in the
hyperplane ``w^T d = 0`` with probability zero).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from gamelp.backends import DEFAULT_BACKEND
from gamelp.backends.scaling import Scaling, scale
from gamelp.display import Summarised
from gamelp.errors import ModelError, SolveError
from gamelp.game import SequenceFormGame
from gamelp.model import Model
from gamelp.solution import Solution

if TYPE_CHECKING:
    from gamelp.models.nash import NashResult

DEFAULT_TOLERANCE = 1e-7
DEFAULT_ACTIVITY_TOLERANCE = 1e-7
DIRECTION_TOLERANCE = 1e-7


@dataclass(repr=False)
class UniquenessResult(Summarised):
    """The verdict of Mangasarian's test with everything it was based on.

    ``K`` / ``L`` name the active rows with positive / zero multiplier (bound
    rows read like ``"x[0C40L] >= 0"``); ``direction``, ``step`` and
    ``second_point`` (values by variable block) are set when the optimum is
    not unique.  ``objective``, ``second_objective``, ``direction``, ``step``
    and ``second_point`` are in the model's units (``second_point`` is
    ``x + step * direction``); the multipliers and ``second_violation`` are in
    the units the tolerances were read in: the model's own, or, when
    ``balanced``, those of the badly scaled model balanced as the backends
    balance it.
    """

    unique: bool
    tolerance: float
    activity_tolerance: float
    smallest_positive_dual: float | None
    largest_zero_dual: float | None
    K: tuple[str, ...]
    L: tuple[str, ...]
    num_equalities: int
    rank: int
    num_variables: int
    objective: float
    blocks: tuple[str, ...] | None = None
    balanced: bool = False
    direction_lp_value: float | None = None
    direction: dict[str, np.ndarray] | None = None
    step: float | None = None
    second_point: dict[str, np.ndarray] | None = None
    second_objective: float | None = None
    second_violation: float | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def margin(self) -> float | None:
        """How far apart the two dual classes are: smallest positive / largest zero (inf if no zeros)."""
        if self.smallest_positive_dual is None:
            return None
        if not self.largest_zero_dual:
            return np.inf
        return self.smallest_positive_dual / self.largest_zero_dual

    def _summary(self) -> dict:
        return {
            "unique": self.unique,
            "objective": self.objective,
            "K": len(self.K),
            "L": len(self.L),
            "rank": self.rank,
            "variables": self.num_variables,
            "margin": self.margin,
            "step": self.step,
            "second_objective": self.second_objective,
        }

    def to_dict(self) -> dict:
        """A JSON-ready summary (directions and second optimum by block as lists)."""

        def plain(values):
            return None if values is None else {k: v.tolist() for k, v in values.items()}

        return {
            "unique": self.unique,
            "tolerance": self.tolerance,
            "activity_tolerance": self.activity_tolerance,
            "smallest_positive_dual": self.smallest_positive_dual,
            "largest_zero_dual": self.largest_zero_dual,
            "K": len(self.K),
            "L": list(self.L),
            "equalities": self.num_equalities,
            "rank": self.rank,
            "variables": self.num_variables,
            "blocks": list(self.blocks) if self.blocks else None,
            "balanced": self.balanced,
            "direction_lp_value": self.direction_lp_value,
            "objective": self.objective,
            "direction": plain(self.direction),
            "step": self.step,
            "second_point": plain(self.second_point),
            "second_objective": self.second_objective,
        }

    def summary(self) -> str:
        """A few lines in the thesis's terms."""
        balanced = " (on the LP balanced by Curtis-Reid)" if self.balanced else ""
        lines = [
            f"active rows with positive dual (K): {len(self.K)}; with zero dual (L): {len(self.L)}; "
            f"equality rows: {self.num_equalities}",
            f"rank of the active system: {self.rank} of {self.num_variables} variables",
            f"duals <= {self.tolerance:g} count as zero{balanced}; "
            f"smallest counted positive: {_fmt(self.smallest_positive_dual)}, largest counted zero: "
            f"{_fmt(self.largest_zero_dual)}",
        ]
        scope = f" (blocks {', '.join(self.blocks)})" if self.blocks else ""
        if self.unique:
            lines.append(f"verdict: the optimum is unique{scope}")
        else:
            lines.append(
                f"verdict: NOT unique{scope}; second optimum at step {self.step:.6g}, objective "
                f"{self.second_objective:.10g} (first {self.objective:.10g})"
            )
        return "\n".join(lines + self.notes)


def _fmt(value: float | None) -> str:
    return "none" if value is None else f"{value:.3g}"


@dataclass
class _StandardForm:
    """``min c^T x  s.t.  G x >= h,  E x = e`` with names and multipliers of the ``G`` rows."""

    c: np.ndarray
    G: sp.csr_array
    h: np.ndarray
    u: np.ndarray
    names: list[str]
    E: sp.csr_array
    e: np.ndarray


def _block_names(blocks) -> list[str]:
    """``block[label]`` for every row or variable of the given blocks, in model order."""
    names = []
    for block in blocks:
        labels = block.labels or tuple(str(i) for i in range(block.size))
        names += [f"{block.name}[{label}]" for label in labels]
    return names


def _full_vector(parts: dict[str, np.ndarray], order, what: str) -> np.ndarray:
    try:
        blocks = [np.asarray(parts[name], dtype=float).ravel() for name in order]
    except KeyError as exc:
        raise SolveError(f"the solution has no {what} for block {exc.args[0]!r}") from None
    if not blocks:  # a model without rows: no duals
        return np.zeros(0)  # pragma: no mutate: nothing indexes the duals of no rows, whatever their length
    return np.concatenate(blocks)


def _standard_form(model: Model, solution: Solution) -> tuple[_StandardForm, np.ndarray, Scaling]:
    """The standard form of the LP as the backends balance it, the solution in its units, and the balancing.

    A badly scaled LP (:func:`gamelp.backends.scaling.needs_scaling`: a game's payoffs in other units) is
    balanced by the backends' Curtis-Reid factors: ``x = D x'``, rows times ``R``, the objective times ``s``,
    so multipliers become ``s u / R`` and slacks ``R (G x - h)``.  The tolerances are read in those units,
    the same for the same game in any currency; a well-scaled LP is taken as it is (unit factors).
    """
    original = model.matrix_form()
    form, balance = scale(original)
    column, objective_factor = balance.column, balance.objective
    x = _full_vector(solution.values, list(model.variables), "values") / column
    y = _full_vector(solution.duals, list(model.constraints), "duals") * objective_factor / balance.row
    reduced = _full_vector(solution.reduced_costs, list(model.variables), "reduced costs") * objective_factor * column
    sign = -1.0 if form.maximize else 1.0
    c, y, reduced = sign * form.c, sign * y, sign * reduced
    n = x.size
    rows, rhs, mult, names, eq_rows, eq_rhs = [], [], [], [], [], []
    row_names = _block_names(model.constraints.values())
    A = form.A
    ge = np.flatnonzero(form.row_sense == ">")
    le = np.flatnonzero(form.row_sense == "<")
    eq = np.flatnonzero(form.row_sense == "=")
    rows += [A[ge], -A[le]]
    rhs += [form.rhs[ge], -form.rhs[le]]
    mult += [y[ge], -y[le]]
    names += [row_names[i] for i in ge] + [row_names[i] for i in le]
    eq_rows.append(A[eq])
    eq_rhs.append(form.rhs[eq])
    var_names = _block_names(model.variables.values())
    fixed = form.col_lb == form.col_ub
    has_lb = np.isfinite(form.col_lb) & ~fixed
    has_ub = np.isfinite(form.col_ub) & ~fixed
    identity = sp.identity(n, format="csr")
    rows += [identity[has_lb], -identity[has_ub]]
    rhs += [form.col_lb[has_lb], -form.col_ub[has_ub]]
    mult += [np.clip(reduced[has_lb], 0.0, None), np.clip(-reduced[has_ub], 0.0, None)]
    names += [f"{var_names[j]} >= {original.col_lb[j]:g}" for j in np.flatnonzero(has_lb)]
    names += [f"{var_names[j]} <= {original.col_ub[j]:g}" for j in np.flatnonzero(has_ub)]
    eq_rows.append(identity[fixed])
    eq_rhs.append(form.col_lb[fixed])
    standard = _StandardForm(
        c,
        sp.csr_array(sp.vstack(rows, format="csr")),
        np.concatenate(rhs),
        np.concatenate(mult),
        names,
        sp.csr_array(sp.vstack(eq_rows, format="csr")),
        np.concatenate(eq_rhs),
    )
    # Reduced costs of variables strictly between their bounds must vanish: a sign check on the duals.
    free_like = (
        ~(has_lb & np.isclose(x, form.col_lb, atol=1e-6)) & ~(has_ub & np.isclose(x, form.col_ub, atol=1e-6)) & ~fixed
    )
    stray = np.abs(reduced[free_like]).max(initial=0.0)
    negative = -standard.u.min(initial=0.0)  # pragma: no mutate: an inactive row's zero multiplier hides initial
    if max(stray, negative) > 1e-5 * np.abs(c).max(initial=1.0):  # relative to the largest cost, at least 1
        raise SolveError(
            f"{model.name}: the duals are not optimal for this solution (reduced cost {stray:.2e} on "
            f"a variable off its bounds, multiplier {-negative:.2e}); is the solution optimal?"
        )
    return standard, x, balance


def _unit_rows(M: sp.csr_matrix) -> sp.csr_matrix:
    """``M`` with each non-zero row divided by its Euclidean norm; zero rows stay zero."""
    norms = np.sqrt(np.asarray(M.multiply(M).sum(axis=1)).ravel())
    return sp.csr_matrix(M.multiply(np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)[:, None]))


def _direction_lp(
    keep: sp.csr_matrix, loose: sp.csr_matrix, objective: np.ndarray | None, backend: str, box: bool
) -> tuple[float, np.ndarray]:
    """Max ``e^T loose d`` (or ``objective^T d``) s.t. ``keep d = 0``, ``0 <= loose d (<= 1)``; optional box."""
    n = keep.shape[1]
    model = Model("mangasarian_direction")
    d = model.add_variables("d", n, lb=-1.0 if box else -np.inf, ub=1.0 if box else np.inf)
    model.add_constraints("keep", {d: keep}, "==", 0.0)  # a block of no rows constrains nothing
    model.add_constraints("loose_low", {d: loose}, ">=", 0.0)
    if objective is None:
        model.add_constraints("loose_high", {d: loose}, "<=", 1.0)
    coeffs = np.asarray(loose.sum(axis=0)).ravel() if objective is None else objective
    model.set_objective({d: coeffs}, sense="max")
    solution = model.solve(backend)
    if not solution.optimal:
        raise SolveError(f"Mangasarian direction LP on {solution.backend or backend}: {solution.status}")
    return float(solution.objective), solution.values["d"]


def check_uniqueness(
    model: Model,
    solution: Solution,
    *,
    blocks: Sequence[str] | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
    activity_tolerance: float = DEFAULT_ACTIVITY_TOLERANCE,
    backend: str = DEFAULT_BACKEND,
    seed: int = 0,  # pragma: no mutate: any seed draws a valid functional
) -> UniquenessResult:
    """Whether ``solution`` is the unique optimum of the LP ``model`` (of the variable ``blocks`` only, if given).

    ``tolerance``: multipliers at or below it count as zero.  ``activity_tolerance``:
    a row is active when its slack is at most that times ``1 + |rhs|``.
    ``backend`` solves the direction LPs; ``seed`` draws the functional used
    when ``blocks`` restricts the question.

    Parameters
    ----------
    model : Model
        An LP (no integer variables, no cones).
    solution : Solution
        An optimal solution of ``model``, with duals.
    blocks : sequence of str, optional
        Ask only whether these variable blocks are unique.
    tolerance : float
        Multipliers at or below it count as zero.
    activity_tolerance : float
        A row is active when its slack is at most this times ``1 + |rhs|``.
    backend : str
        The backend of the direction LPs.
    seed : int
        Draws the functional used when ``blocks`` is given.

    Returns
    -------
    UniquenessResult
        ``unique``, the active sets K and L, the rank, the tolerance used and how close the decision was (the
        smallest multiplier counted positive, the largest counted zero), and a second optimum when there is one.
    """
    if model.is_mip or model.has_cones:
        raise ModelError(f"{model.name}: Mangasarian's test needs a linear program (no integers, no cones)")
    if not solution.optimal or solution.objective is None:
        raise SolveError(f"{model.name}: the solution is not optimal ({solution.status})")
    objective = solution.objective
    if blocks is not None:
        blocks = tuple(blocks)
        for name in blocks:
            model._block(name)  # raises ModelError for an unknown block
    std, x, balance = _standard_form(model, solution)
    n = x.size
    slack = std.G @ x - std.h
    active = slack <= activity_tolerance * (1.0 + np.abs(std.h))
    positive = std.u > tolerance
    K, L = active & positive, active & ~positive
    keep = _unit_rows(sp.vstack([std.E, std.G[K]], format="csr"))
    loose = _unit_rows(std.G[L])
    system = sp.vstack([keep, loose]).toarray()
    rank = int(np.linalg.matrix_rank(system)) if system.size else 0
    result = UniquenessResult(
        unique=True,
        tolerance=tolerance,
        activity_tolerance=activity_tolerance,
        smallest_positive_dual=float(std.u[K].min()) if K.any() else None,
        largest_zero_dual=float(np.abs(std.u[L]).max()) if L.any() else None,
        K=tuple(std.names[i] for i in np.flatnonzero(K)),
        L=tuple(std.names[i] for i in np.flatnonzero(L)),
        num_equalities=std.E.shape[0],
        rank=rank,
        num_variables=n,
        objective=float(objective),
        blocks=blocks,
        balanced=not (np.all(balance.row == 1.0) and np.all(balance.column == 1.0) and balance.objective == 1.0),
    )
    if inactive_zero := int((~active & (std.u > tolerance)).sum()):
        result.notes.append(
            f"warning: {inactive_zero} inactive rows carry a positive multiplier "
            "(complementary slackness violated beyond the tolerances)"
        )

    if blocks is None and rank < n:
        # The last right singular vector spans the null space when the rank is n - 1 (any row past the rank does).
        no_rows = np.zeros((1, n))  # pragma: no mutate: without active rows every direction is one
        direction = np.linalg.svd(system if system.size else no_rows)[2][-1]
        result.notes.append(f"the active system has rank {rank} < {n}: a null-space direction")
    else:
        if blocks is None:
            if not L.any():  # nothing may move off its row: the vertex is the only optimum
                result.direction_lp_value = 0.0
                return result
            value, direction = _direction_lp(keep, loose, None, backend, box=False)
        else:
            mask = np.zeros(n, dtype=bool)
            for name in blocks:
                mask[model.variables[name].slice] = True
            weights = np.where(mask, np.random.default_rng(seed).uniform(0.5, 1.5, n), 0.0)
            # The blocks may move up or down: the better of the two signs (a tie keeps the first, both valid).
            value, direction = max(
                (_direction_lp(keep, loose, sign * weights, backend, box=True) for sign in (1.0, -1.0)),
                key=lambda answer: answer[0],
            )
        result.direction_lp_value = max(value, 0.0)  # d = 0 is feasible: below 0 is the solver's rounding
        if value <= DIRECTION_TOLERANCE:  # pragma: no mutate: a value exactly at the tolerance has measure zero
            return result
    _second_optimum(result, model, std, x, slack, active, direction, balance.column)
    return result


def _second_optimum(
    result: UniquenessResult,
    model: Model,
    std: _StandardForm,
    x: np.ndarray,
    slack: np.ndarray,
    active: np.ndarray,
    direction: np.ndarray,
    column: np.ndarray,
) -> None:
    """Fill in the non-unique verdict: direction, largest feasible step, second optimum and its objective.

    ``x``, ``slack`` and ``direction`` are in the balanced units of ``std``; ``x = column * x'`` brings
    the direction and the second optimum back to the model's units, in which they are reported (the
    violation stays in the balanced units, where the tolerances are read).
    """
    direction = direction / np.abs(direction).max()
    rate = std.G @ direction  # 0 on K (and on L for a null-space direction), >= 0 on L: no active row shrinks
    shrinking = ~active & (rate < -1e-12)
    step = float(np.min(slack[shrinking] / -rate[shrinking])) if shrinking.any() else 1.0
    second = x + step * direction
    violation = max(
        float(np.max(std.h - std.G @ second, initial=0.0)),
        float(np.abs(std.E @ second - std.e).max(initial=0.0)),
    )
    moved = column * direction  # the direction in the model's units, its largest entry 1 there too
    largest = float(np.abs(moved).max())
    second_point = column * second
    result.unique = False
    result.direction = model.split_values(moved / largest)
    result.step = step * largest
    result.second_point = model.split_values(second_point)
    result.second_objective = float(model.matrix_form().c @ second_point) + model.objective_constant
    result.second_violation = violation


def check_game_uniqueness(
    game: SequenceFormGame,
    player: int,
    backend: str = DEFAULT_BACKEND,
    *,
    result: NashResult | None = None,
    **options,
) -> UniquenessResult:
    """Whether player ``player``'s optimal strategy of ``game`` is unique (Mangasarian's test on its Nash LP).

    The question is about the strategy ``x`` only (the value variables may have other optima).  ``result``
    is the player's solved Nash LP to test (``gamelp solve --unique`` passes the one it prints); without it
    the LP is solved on ``backend``.  The test reads its tolerances on the LP as the backends balance it,
    so the verdict does not depend on the payoffs' units, and reports the objective and the second
    optimum in the game's units.  ``options`` go to :func:`check_uniqueness`.
    """
    from gamelp.models.nash import solve_nash

    if result is None:
        result = solve_nash(game, player, backend)
    elif result.game is not game or result.player != player:
        raise ModelError(f"the Nash result given is player {result.player}'s of {result.game.name}, not the one asked")
    return check_uniqueness(result.model, result.solution, blocks=("x",), backend=backend, **options)

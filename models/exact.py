"""Exact certificates of zero-sum equilibria: rational strategies checked in rational arithmetic.

The LP solver answers in floating point; this module turns its answer into a
proof.  It recovers rational strategies of *both* players and checks, with
:class:`fractions.Fraction` arithmetic only (no tolerance anywhere), that

* each strategy lies in its player's polytope: ``E x = e``, ``F y = f``,
  ``x, y >= 0`` for a sequence-form game (the realisation plans of Koller,
  Megiddo and von Stengel 1994, Section 3; von Stengel 1996, Section 3), or
  on the simplex for a matrix game;
* the value player 1's ``x`` guarantees, ``min_y' x^T A y'`` (a best
  response of player 2, one bottom-up pass through its treeplex, von Stengel
  1996, Section 4), equals the value player 2's ``y`` concedes,
  ``max_x' x'^T A y``.  The first is never above the second, so equality
  proves both strategies optimal and certifies the common number as the
  game's value.

Recovery.  First each float of the solver's strategies is rounded to the
fraction with the smallest denominator within reach
(:meth:`fractions.Fraction.limit_denominator` with the bounds
:data:`ROUNDING_BOUNDS`, smallest first) and the pair is checked; this is
enough when the equilibrium has small denominators (Kuhn poker, most small
matrices).  Otherwise the optimal basis HiGHS ends at (``getBasis``) is solved
exactly: the basic columns on the active rows form a square system ``K z = b``
whose rational solution is the vertex (player 1's LP's primal: its strategy)
and ``K^T w = c`` the row duals (minus player 2's strategy, von Stengel 1996,
Section 4).  Both are solved by numeric iterative refinement (Wan 2006,
"An algorithm to solve integer linear systems exactly using numerical
methods"): a float LU factorisation of ``K`` (SuperLU, :func:`scipy.sparse.linalg.splu`)
gives about 40 bits per step, the residual is recomputed exactly in integers,
and rational reconstruction (``limit_denominator`` again) reads the fractions
once the approximation is fine enough; the pair is then checked as above.
Nothing unchecked is ever returned: a pair that fails raises
:class:`CertificateError` naming the check that failed.

Payoffs.  Game files and payoff CSVs store decimals (OpenSpiel's conversions
fold chance into payoffs such as ``0.03333333333333333``).  Each is read by
one rule, :data:`PAYOFF_RULE`: the fraction with the smallest denominator (at
most :data:`MAX_PAYOFF_DENOMINATOR`) that rounds to the same float
(``0.03333333333333333`` is ``1/30``, ``0.4596`` is ``1149/2500``); a payoff
no such fraction explains is taken as its exact binary value
(``Fraction(x)``), and the certificate counts how many were.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from gamelp.display import Raw, Summarised, shape_text
from gamelp.errors import SolveError
from gamelp.form import MatrixForm
from gamelp.game import SequenceFormGame
from gamelp.matrix import MatrixGame
from gamelp.model import Model
from gamelp.treeplex import Treeplex

if TYPE_CHECKING:
    from scipy.sparse.linalg import SuperLU

MAX_PAYOFF_DENOMINATOR = 10**6
PAYOFF_RULE = (
    "each payoff is the fraction with the smallest denominator (at most 10^6) that rounds to the same float; "
    "a payoff no such fraction explains is its exact binary value"
)
# Denominator bounds tried, in order, when rounding the solver's floats before solving the basis exactly.
ROUNDING_BOUNDS = (10**2, 10**4, 10**6)
# How a certificate's fractions were found when rounding the floats failed.
BASIS_EXACTLY = "HiGHS's optimal basis solved exactly"
SELECTED_EXACTLY = "the selected strategies' active-set systems solved exactly"
# Bits gained per step of the iterative refinement (a float LU solve is good to about 1e-12 on these systems).
REFINEMENT_BITS = 40
# The refinement gives up past this many bits of the common denominator (a basis that needs more is hopeless).
MAX_REFINEMENT_BITS = 200_000


class CertificateError(SolveError):
    """No exact certificate: the recovered strategies failed a check (the message names it)."""


# ----------------------------------------------------------------------------- payoffs as rationals
def rational_payoff(value: float, max_denominator: int = MAX_PAYOFF_DENOMINATOR, tolerance: float = 0.0) -> Fraction:
    """The rational a float payoff stands for by :data:`PAYOFF_RULE`.

    The smallest denominator ``q <= max_denominator`` whose closest fraction
    (:meth:`~fractions.Fraction.limit_denominator`) rounds back to ``value``
    is found by bisection: once one fraction of denominator at most ``q``
    rounds to the float, the closest one with that bound does too.  A float
    no such fraction explains is returned as its exact binary value, whose
    denominator exceeds ``max_denominator``.

    With a ``tolerance``, a fraction within ``tolerance`` of the float
    explains it too (the rule of strategies printed to a number of decimals,
    :data:`gamelp.models.evaluate.PROBABILITY_RULE`): the closest fraction of
    bounded denominator gets no farther as the bound grows, so the bisection
    holds.
    """
    binary = Fraction(value)

    def explains(fraction: Fraction) -> bool:
        return float(fraction) == value or abs(fraction - binary) <= tolerance

    if not explains(binary.limit_denominator(max_denominator)):
        return binary
    low, high = 1, max_denominator
    while low < high:
        middle = (low + high) // 2
        if explains(binary.limit_denominator(middle)):
            high = middle
        else:
            low = middle + 1
    return binary.limit_denominator(low)


def rational_payoffs(values: np.ndarray, tolerance: float = 0.0) -> tuple[np.ndarray, int]:
    """Each float of ``values`` as its rational (:func:`rational_payoff`), and how many were taken as binary."""
    values = np.asarray(values, dtype=float)
    unique, inverse = np.unique(values, return_inverse=True)
    rationals = np.array([rational_payoff(float(v), tolerance=tolerance) for v in unique] + [None], dtype=object)[:-1]
    binary = np.array([q.denominator > MAX_PAYOFF_DENOMINATOR for q in rationals], dtype=bool)
    return rationals[inverse.reshape(values.shape)], int(binary[inverse].sum())


def _fractions(values) -> np.ndarray:
    """A one-dimensional object array of Fractions (the ``[None]`` keeps numpy from making a 2-d array)."""
    return np.array([Fraction(v) for v in values] + [None], dtype=object)[:-1]


def _common(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Integer numerators of rationals over their least common denominator, and that denominator."""
    denominator = math.lcm(*(Fraction(q).denominator for q in values)) if len(values) else 1
    numerators = [Fraction(q).numerator * (denominator // Fraction(q).denominator) for q in values]
    return np.array(numerators + [None], dtype=object)[:-1], denominator


@dataclass(frozen=True, repr=False)
class ExactMatrix(Summarised):
    """A sparse matrix of rationals: CSR structure, integer numerators over one common denominator.

    ``floats`` is the float matrix of the same structure (the LU of the
    refinement reads it); ``binary`` counts the entries taken as binary values.
    """

    floats: sp.csr_array
    numerators: np.ndarray  # object array of Python ints, aligned with floats.data
    denominator: int
    binary: int = 0

    @classmethod
    def from_floats(cls, matrix) -> ExactMatrix:
        """The matrix's floats read as rationals by :data:`PAYOFF_RULE` (explicit zeros dropped)."""
        floats = sp.csr_array(matrix, dtype=float, copy=True)  # a copy: dropping zeros in place would edit the caller's
        floats.eliminate_zeros()
        floats.sort_indices()
        rationals, binary = rational_payoffs(floats.data)
        return cls.from_rationals(floats, rationals, binary)

    @classmethod
    def from_rationals(cls, structure: sp.csr_array, rationals: np.ndarray, binary: int = 0) -> ExactMatrix:
        """The matrix with ``structure``'s sparsity and the rationals ``rationals`` (aligned with its data)."""
        numerators, denominator = _common(rationals)
        floats = sp.csr_array(
            (np.array([float(q) for q in rationals], dtype=float), structure.indices, structure.indptr),
            shape=structure.shape,
        )
        return cls(floats, numerators, denominator, binary)

    def _summary(self) -> dict:
        return {
            "shape": Raw(shape_text(self.shape)),
            "nonzeros": self.nnz,
            "denominator": self.denominator if self.denominator < 10**30 else None,
            "binary": self.binary,
        }

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, columns)."""
        return self.floats.shape

    @property
    def nnz(self) -> int:
        """Stored entries."""
        return int(self.floats.nnz)

    def rationals(self) -> np.ndarray:
        """The stored entries as Fractions, aligned with ``floats.data``."""
        return np.array([Fraction(n, self.denominator) for n in self.numerators] + [None], dtype=object)[:-1]

    def integer_matvec(self, v: np.ndarray) -> np.ndarray:
        """``numerators @ v`` for integer ``v``, exactly (the matrix times ``v`` is this over ``denominator``)."""
        products = self.numerators * v[self.floats.indices]
        sums = np.zeros(self.shape[0], dtype=object)
        rows = np.flatnonzero(np.diff(self.floats.indptr))
        if rows.size:
            sums[rows] = np.add.reduceat(products, self.floats.indptr[rows])
        return sums

    def matvec(self, v: np.ndarray) -> np.ndarray:
        """The product with a vector of rationals, as Fractions."""
        numerators, denominator = _common(v)
        scale = self.denominator * denominator
        return np.array([Fraction(s, scale) for s in self.integer_matvec(numerators)] + [None], dtype=object)[:-1]

    @property
    def T(self) -> ExactMatrix:
        """The transpose (its structure found by scipy, the numerators carried along)."""
        order = sp.csr_array(
            (np.arange(1, self.nnz + 1, dtype=float), self.floats.indices, self.floats.indptr), shape=self.shape
        ).T.tocsr()
        order.sort_indices()
        moved = order.data.astype(np.int64) - 1
        floats = sp.csr_array((self.floats.data[moved], order.indices, order.indptr), shape=order.shape)
        return ExactMatrix(floats, self.numerators[moved], self.denominator, self.binary)


# ----------------------------------------------------------------------------- exact linear systems
def _to_floats(residual: np.ndarray, denominator: int) -> tuple[np.ndarray, int]:
    """``residual / denominator`` as floats scaled by ``2^-shift`` into a safe range, and ``shift``."""
    largest = max(abs(int(r)) for r in residual)
    shift = largest.bit_length() - denominator.bit_length() - 60
    scaled = [(int(r) >> shift) if shift >= 0 else (int(r) << -shift) for r in residual]
    return np.array([s / denominator for s in scaled], dtype=float), shift


def _rounded_scaled(t: np.ndarray, exponent: int) -> np.ndarray:
    """``round(t * 2^exponent)`` for floats ``t``, exactly, as Python ints."""
    mantissas, exponents = np.frexp(t)
    integers = np.ldexp(mantissas, 53).astype(np.int64)  # exact: t = integer * 2^(exponent - 53)
    out = []
    for m, e in zip(integers.tolist(), (exponents - 53 + exponent).tolist()):
        out.append(m << e if e >= 0 else (m + (1 << (-e - 1))) >> -e)
    return np.array(out + [None], dtype=object)[:-1]


def _solve_rational(
    matrix: ExactMatrix, solve_float: Callable[[np.ndarray], np.ndarray], rhs: np.ndarray, what: str
) -> np.ndarray:
    """The exact solution of ``matrix z = rhs`` (rationals) by numeric iterative refinement (Wan 2006).

    ``solve_float`` solves with ``matrix.floats`` in floating point (an LU
    factorisation).  With ``K`` the integer numerators (``matrix = K / L``) and
    ``u = z * Lr`` (``rhs = R / Lr``), ``K u = L R``.  The loop keeps integers
    ``N``, ``D`` (a power of two) and the exact residual ``E = D L R - K N``;
    each step solves ``K w = E`` in floats, adds ``c = round(2^k w)`` to
    ``2^k N`` and ``D`` gains ``k`` bits.  Rational reconstruction of ``N / D``
    is tried as the bits double, and kept once it solves the system exactly.
    """
    right, rhs_denominator = _common(rhs)
    target = right * matrix.denominator
    n = target.size
    numerators, denominator = np.zeros(n, dtype=object), 1
    residual = target.copy()
    next_try = 64
    while denominator.bit_length() <= MAX_REFINEMENT_BITS:
        if not any(residual):
            return _fractions(numerators) / denominator / rhs_denominator
        floats, shift = _to_floats(residual, matrix.denominator)
        t = solve_float(floats)
        if not np.isfinite(t).all():
            raise CertificateError(f"{what}: the float solve of the optimal basis failed (singular basis)")
        largest = float(np.abs(t).max())
        bits = max(0, REFINEMENT_BITS - shift - math.ceil(math.log2(largest)) if largest > 0 else 0)
        correction = _rounded_scaled(t, shift + bits)
        if bits == 0 and not any(correction):
            raise CertificateError(f"{what}: the optimal basis is too ill-conditioned for float refinement")
        numerators = numerators * (1 << bits) + correction
        residual = residual * (1 << bits) - matrix.integer_matvec(correction)
        denominator <<= bits
        if denominator.bit_length() >= next_try:
            next_try *= 2
            solution = _reconstructed(matrix, numerators, denominator, target)
            if solution is not None:
                return solution / rhs_denominator
    raise CertificateError(f"{what}: no exact solution within {MAX_REFINEMENT_BITS} bits of refinement")


def _reconstructed(matrix: ExactMatrix, numerators: np.ndarray, denominator: int, target: np.ndarray):
    """Fractions of small denominator near ``numerators / denominator`` if they solve ``K u = target`` exactly."""
    bound = math.isqrt(denominator >> 16) or 1
    guess = _fractions(Fraction(int(m), denominator).limit_denominator(bound) for m in numerators)
    integers, scale = _common(guess)
    if all(matrix.integer_matvec(integers) == target * scale):
        return guess
    return None


_BASIC, _LOWER, _UPPER = "kBasic", "kLower", "kUpper"


@dataclass(frozen=True, repr=False)
class OptimalBasis(Summarised):
    """HiGHS's optimal basis of a model, its square basic system ``K`` and solvers of ``K z = b``, ``K^T w = c``.

    ``columns`` and ``rows`` are HiGHS's status names (``kBasic``, ``kLower``, ``kUpper``, ``kZero``) of every
    column and row of ``form``; ``basic`` indexes the basic columns and ``active`` the nonbasic rows (those at a
    bound), which ``K`` (the constraint matrix's entries read by :data:`PAYOFF_RULE`) joins.
    """

    form: MatrixForm
    columns: np.ndarray
    rows: np.ndarray
    basic: np.ndarray
    active: np.ndarray
    K: ExactMatrix
    lu: SuperLU

    @classmethod
    def of(cls, model: Model) -> OptimalBasis:
        """The basis of ``model``'s persistent HiGHS session, or of a new solve on HiGHS that keeps one."""
        session = model.sessions.get("highs")
        if session is None or session.revision != model.revision:
            solution = model.solve("highs", persistent=True)
            if not solution.optimal:
                raise CertificateError(f"{model.name}: HiGHS found no optimum to take the basis of ({solution.status})")
            session = model.sessions["highs"]
        basis = session.solver.getBasis()
        if not basis.valid:
            raise CertificateError(f"{model.name}: HiGHS returned no optimal basis")
        columns = np.array([s.name for s in basis.col_status])
        rows = np.array([s.name for s in basis.row_status])
        return cls.from_status(model.matrix_form(), columns, rows)

    @classmethod
    def from_status(cls, form: MatrixForm, columns: np.ndarray, rows: np.ndarray) -> OptimalBasis:
        """The basis with these statuses of ``form``'s columns and rows (HiGHS's names), factorised."""
        from scipy.sparse.linalg import splu

        basic, active = np.flatnonzero(columns == _BASIC), np.flatnonzero(rows != _BASIC)
        if basic.size != active.size:
            raise CertificateError(f"{form.name}: the basis is not square ({basic.size} x {active.size})")
        K = ExactMatrix.from_floats(sp.csr_array(form.A)[active][:, basic])
        return cls(form, columns, rows, basic, active, K, splu(sp.csc_array(K.floats)))

    def _summary(self) -> dict:
        return {"shape": Raw(shape_text(self.K.shape)), "nonzeros": self.K.nnz, "rows": self.rows.size}

    def solve(self, rhs: np.ndarray, what: str) -> np.ndarray:
        """The exact solution of ``K z = rhs`` (rationals over the active rows; ``z`` over the basic columns)."""
        return _solve_rational(self.K, self.lu.solve, rhs, f"{self.form.name} {what}")

    def solve_transposed(self, costs: np.ndarray, what: str) -> np.ndarray:
        """The exact solution of ``K^T w = costs`` (rationals over the basic columns; ``w`` over the active rows)."""

        def transposed(b: np.ndarray) -> np.ndarray:
            """Solve with ``K^T`` by the same factors (scipy-stubs 1.17 leaves out SuperLU.solve's ``trans``)."""
            return self.lu.solve(b, trans="T")  # type: ignore[call-overload]

        return _solve_rational(self.K.T, transposed, costs, f"{self.form.name} {what}")


def exact_basic_solution(model: Model) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The optimal vertex of ``model`` in rational arithmetic: values by variable block, row duals by constraint block.

    The basis is HiGHS's (:meth:`OptimalBasis.of`).  Nonbasic columns sit at their bounds,
    nonbasic rows at their right-hand sides; the basic columns on those rows
    form the square system ``K z = b``, and the duals of the nonbasic rows solve
    ``K^T w = c_basic`` (derivatives of the objective, as the solution's duals).
    """
    basis = OptimalBasis.of(model)
    form, columns, basic, active = basis.form, basis.columns, basis.basic, basis.active
    at_upper = columns == _UPPER
    bounds = np.where(at_upper, form.col_ub, np.where(columns == _BASIC, 0.0, form.col_lb))
    bounds = np.where(np.isfinite(bounds), bounds, 0.0)  # a free nonbasic column (HiGHS's kZero) is 0
    fixed = _fractions(rational_payoffs(bounds)[0])
    fixed[basic] = Fraction(0)
    rhs = _fractions(rational_payoffs(form.rhs[active])[0])
    if any(fixed):
        rhs = rhs - ExactMatrix.from_floats(sp.csr_array(form.A)[active]).matvec(fixed)
    values = fixed.copy()
    values[basic] = basis.solve(rhs, "primal")
    duals = _fractions(np.zeros(form.A.shape[0]))
    duals[active] = basis.solve_transposed(_fractions(rational_payoffs(form.c[basic])[0]), "duals")
    return (
        {name: values[s] for name, s in form.variable_slices.items()},
        {name: duals[s] for name, s in form.row_slices.items()},
    )


def solve_exactly(matrix, rhs: np.ndarray, what: str) -> np.ndarray:
    """The exact solution (fractions) of the square, nonsingular system ``matrix z = rhs``.

    ``matrix``'s float entries and ``rhs``'s are read as rationals by :data:`PAYOFF_RULE`, as the game's payoffs
    are; the solve is :func:`_solve_rational`'s numeric iterative refinement.  A singular ``matrix``: a
    :class:`CertificateError` naming ``what``.
    """
    from scipy.sparse.linalg import splu

    exact = ExactMatrix.from_floats(matrix)
    try:
        lu = splu(sp.csc_array(exact.floats))
    except RuntimeError:  # SuperLU: "Factor is exactly singular"
        raise CertificateError(f"{what}: the system is singular") from None
    return _solve_rational(exact, lu.solve, _fractions(rational_payoffs(np.asarray(rhs, dtype=float))[0]), what)


# ----------------------------------------------------------------------------- the checks
def _rounded(values: np.ndarray, bound: int) -> np.ndarray:
    """Each float as the closest fraction of denominator at most ``bound``."""
    return _fractions(Fraction(float(v)).limit_denominator(bound) for v in values)


def _negative(strategy: np.ndarray, labels) -> str | None:
    below = [label for label, weight in zip(labels, strategy) if weight < 0]
    return f"gives {below[0]} the negative weight {strategy[labels.index(below[0])]}" if below else None


def _polytope_fault(treeplex: Treeplex, x: np.ndarray) -> str | None:
    """Why ``x`` is not in the sequence-form polytope ``F x = f, x >= 0`` exactly, or None if it is."""
    if x[0] != 1:
        return f"gives the empty sequence the weight {x[0]}, not 1"
    negative = _negative(x, list(treeplex.labels))
    if negative:
        return negative
    for j, point in enumerate(treeplex.decision_points):
        total = sum(x[treeplex.starts[j] : treeplex.ends[j]], Fraction(0))
        parent = x[treeplex.parents[j]]
        if total != parent:
            return f"gives the actions of {point!r} the weights {total} in all, but its parent sequence {parent}"
    return None


def _simplex_fault(p: np.ndarray, labels) -> str | None:
    """Why ``p`` is not a mixed strategy exactly, or None."""
    total = sum(p, Fraction(0))
    return _negative(p, list(labels)) or (f"has weights summing to {total}, not 1" if total != 1 else None)


def verify_equilibrium(game: SequenceFormGame, payoffs: ExactMatrix, x: np.ndarray, y: np.ndarray) -> Fraction:
    """Player 1's value if ``(x, y)`` is an equilibrium in exact arithmetic; else :class:`CertificateError`.

    ``payoffs`` is player 1's payoff matrix ``A`` as rationals, ``x`` and ``y``
    object arrays of Fractions over the players' sequences.
    """
    for player, strategy in ((1, x), (2, y)):
        fault = _polytope_fault(game.player(player), strategy)
        if fault:
            raise CertificateError(f"{game.name}: player {player}'s strategy {fault}")
    secured = -game.pl2.exact_best_response_value(-payoffs.T.matvec(x))
    conceded = game.pl1.exact_best_response_value(payoffs.matvec(y))
    return _equal_values(game.name, "player 1", secured, "player 2", conceded)


def verify_matrix_equilibrium(game: MatrixGame, payoffs: ExactMatrix, p: np.ndarray, q: np.ndarray) -> Fraction:
    """The row player's value if ``(p, q)`` is an equilibrium in exact arithmetic; else :class:`CertificateError`."""
    for player, strategy, labels in (("row", p, game.row_labels), ("column", q, game.col_labels)):
        fault = _simplex_fault(strategy, labels)
        if fault:
            raise CertificateError(f"matrix game: the {player} strategy {fault}")
    secured = min(payoffs.T.matvec(p))
    conceded = max(payoffs.matvec(q))
    return _equal_values("matrix game", "the row player", secured, "the column player", conceded)


def _equal_values(name: str, first: str, secured: Fraction, second: str, conceded: Fraction) -> Fraction:
    if secured != conceded:
        raise CertificateError(
            f"{name}: {first}'s strategy guarantees {secured} but {second}'s concedes {conceded} "
            f"(a difference of {float(conceded - secured):.3g}): not an equilibrium in exact arithmetic"
        )
    return secured


# ----------------------------------------------------------------------------- certificates
@dataclass(frozen=True, repr=False)
class Certificate(Summarised):
    """An equilibrium checked in rational arithmetic: the value, both strategies, and how they were found.

    ``value`` is the first player's (player 1, or the row player); ``first``
    and ``second`` are the two strategies (object arrays of Fractions) and
    ``labels`` their labels.
    """

    value: Fraction
    first: np.ndarray
    second: np.ndarray
    labels: tuple[tuple[str, ...], tuple[str, ...]]
    recovery: str  # how the fractions were found
    payoffs: int  # payoff entries read as rationals
    binary_payoffs: int  # of them, taken as their binary values

    def _summary(self) -> dict:
        return {
            "value": self.value,
            "entries": Raw(f"{self.first.size} + {self.second.size}"),
            "recovery": self.recovery,
            "payoffs": self.payoffs,
            "binary_payoffs": self.binary_payoffs,
        }

    def _entries(self):
        return "the first player's exact strategy", ((label, float(q)) for label, q in self.strategy_dict(0).items())

    def strategy_dict(self, which: int) -> dict[str, Fraction]:
        """Label -> probability of the first (0) or second (1) player's strategy."""
        return dict(zip(self.labels[which], (self.first, self.second)[which]))

    def to_dict(self, own: int = 0, *, own_value: bool = True) -> dict:
        """JSON-ready: fractions as ``"p/q"`` strings; ``strategy`` is player ``own``'s (0 first, 1 second).

        ``value`` is player ``own``'s with ``own_value`` (a sequence-form
        game: the second player's is minus the first's), else the first's (a
        matrix game's value is the row player's payoff whoever solved).
        """
        value = -self.value if own == 1 and own_value else self.value
        return {
            "value": str(value),
            "certified": True,
            "recovery": self.recovery,
            "payoff_rule": PAYOFF_RULE,
            "payoffs": self.payoffs,
            "binary_payoffs": self.binary_payoffs,
            "strategy": {label: str(q) for label, q in self.strategy_dict(own).items()},
            "opponent_strategy": {label: str(q) for label, q in self.strategy_dict(1 - own).items()},
        }


def _certified(
    verify: Callable[[np.ndarray, np.ndarray], Fraction],
    floats: tuple[np.ndarray, np.ndarray],
    refined: Callable[[], tuple[np.ndarray, np.ndarray]],
    how: str,
) -> tuple[Fraction, np.ndarray, np.ndarray, str]:
    """Round the floats (bounds :data:`ROUNDING_BOUNDS`) and verify; failing that, solve exactly and verify.

    ``refined`` gives the pair in rationals (the LP's basis, or the selected points' systems); ``how`` says which.
    """
    for bound in ROUNDING_BOUNDS:
        first, second = (_rounded(f, bound) for f in floats)
        try:
            return verify(first, second), first, second, f"the solver's floats rounded to denominators <= {bound}"
        except CertificateError:
            continue
    first, second = refined()
    return verify(first, second), first, second, how


def certify_equilibrium(
    game: SequenceFormGame,
    x: np.ndarray,
    y: np.ndarray,
    *,
    model: Model | None = None,
    player: int = 1,
    exact_pair: Callable[[], tuple[np.ndarray, np.ndarray]] | None = None,
) -> Certificate:
    """An exact certificate of the float equilibrium ``(x, y)`` of ``game``, or :class:`CertificateError`.

    ``model`` is the solved Nash LP of ``player`` (:func:`~gamelp.models.nash.sequence_form_lp`) whose basis
    refines the answer when rounding fails; without it player 1's LP is built and solved on HiGHS.
    ``exact_pair`` replaces the basis when the pair is not the LP's vertex (a selected pair): it gives the
    pair in rationals.
    """
    from gamelp.models.nash import sequence_form_lp

    payoffs = ExactMatrix.from_floats(game.A)

    def refined() -> tuple[np.ndarray, np.ndarray]:
        lp = model if model is not None else sequence_form_lp(game, player)
        values, duals = exact_basic_solution(lp)
        own, other = values["x"], -duals["best_response"]
        return (own, other) if player == 1 else (other, own)

    value, first, second, how = _certified(
        lambda a, b: verify_equilibrium(game, payoffs, a, b),
        (np.asarray(x), np.asarray(y)),
        exact_pair or refined,
        SELECTED_EXACTLY if exact_pair else BASIS_EXACTLY,
    )
    return Certificate(value, first, second, (game.pl1.labels, game.pl2.labels), how, payoffs.nnz, payoffs.binary)


def certify_matrix_equilibrium(
    game: MatrixGame,
    p: np.ndarray,
    q: np.ndarray,
    *,
    model: Model | None = None,
    player: str = "row",
    exact_pair: Callable[[], tuple[np.ndarray, np.ndarray]] | None = None,
) -> Certificate:
    """An exact certificate of the float equilibrium ``(p, q)`` of a matrix game, or :class:`CertificateError`.

    ``model`` is the solved general-form Nash LP of ``player`` (:func:`~gamelp.models.nash.matrix_nash_lp`);
    without it (or for the thesis form) the row player's general LP is solved on HiGHS.  ``exact_pair``: as
    :func:`certify_equilibrium`'s.
    """
    from gamelp.models.nash import STRATEGY_BLOCK, matrix_nash_lp

    payoffs = ExactMatrix.from_floats(game.payoffs)

    def refined() -> tuple[np.ndarray, np.ndarray]:
        lp = model if model is not None else matrix_nash_lp(game, player, "general")
        values, duals = exact_basic_solution(lp)
        own, other = values[STRATEGY_BLOCK], -duals["payoff"]
        return (own, other) if player == "row" else (other, own)

    value, first, second, how = _certified(
        lambda a, b: verify_matrix_equilibrium(game, payoffs, a, b),
        (np.asarray(p), np.asarray(q)),
        exact_pair or refined,
        SELECTED_EXACTLY if exact_pair else BASIS_EXACTLY,
    )
    return Certificate(value, first, second, (game.row_labels, game.col_labels), how, payoffs.nnz, payoffs.binary)

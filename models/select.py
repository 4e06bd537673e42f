"""Selecting one equilibrium strategy: the same point of the optimal face on every backend.

A player's optimal strategies in a zero-sum game form a face of its strategy
polytope, often more than a point (Kuhn: player 1's is a one-parameter
family).  Which point an LP solver returns depends on its algorithm (a simplex
vertex, an interior-point near-centre), so HiGHS, Gurobi, Clarabel and SCS
return four different optimal strategies of Kuhn.  ``select="min-norm"``
returns instead the one point that a strictly convex rule picks.

The rule ``min-norm``.  For player ``p`` with the Nash LP of
:func:`gamelp.models.nash.sequence_form_lp` (``max f_o^T v`` s.t.
``M^T x - F_o^T v >= 0``, ``F_p x = f_p``, ``x >= 0``) and its value ``v*``::

    1.  v* = the LP's optimum (one solve, on the chosen backend);
    2.  min  1/2 ||x||_2^2
        s.t. M^T x - F_o^T v >= 0,   F_p x = f_p,   x >= 0,   v free
             f_o^T v >= v* - eps                    (the optimal face, relaxed by eps)

on the same backend (with ``auto``: HiGHS the LP, Clarabel the QP), with
``eps = 1e-9 (1 + |v*|)``.  The objective's Hessian is the identity on ``x``, so it is strictly convex in
``x`` and the minimiser ``x`` is unique (``v`` need not be: only ``x`` is
reported).  A matrix game's row player is the same with the simplex:
``min 1/2 ||p||^2`` s.t. ``C^T p >= (v* - eps) e``, ``e^T p = 1``, ``p >= 0``
(the column player's: ``C q <= (v* + eps) e``); on the simplex
``||p - e/n||^2 = ||p||^2 - 1/n``, so the selected mix is the optimal mix
nearest the uniform one.  In the sequence form, for a fixed weight ``x_s``
of the sequence leading to an information set, ``sum_a x_sa^2`` is least when
that weight is spread as evenly over the actions as the face allows: the
rule prefers mixing evenly among equally good actions, at every information
set, weighting each set by how often the player's own choices reach it.

Why a relaxed face, and why so little.  ``v*`` is known only to the solver's
tolerance: with ``eps = 0`` the face may be empty in floating point.  With
``eps > 0`` the selected strategy guarantees at least ``v* - eps`` (it is
optimal to ``eps``, and to the QP solver's feasibility tolerance), and it lies
within ``L eps`` of the exact selection (the projection of 0 onto a polyhedron
moves Lipschitz-continuously with its right-hand side, Hoffman's bound).  On
Kuhn ``L`` is about 18 (``eps = 1e-5`` moves the selection by 1.8e-4), so
``eps`` is not the solvers' tolerance (1e-7, which would move it by 2e-6) but
1e-9, and a ``v*`` over-estimated by more than ``eps`` only costs the QP
solver a violation within its tolerance.  Measured: on Kuhn and the deck game
every QP backend selects the same strategies to 2e-8 (SCS to 1e-4).  Leduc's
``L`` is about 2e4: Clarabel's own LP value, 2.5e-9 from HiGHS's simplex,
moves its selection by 5e-5, so there the value should come from a simplex
(``auto``: HiGHS).  On Leduc 13x4 (6,007 sequences a player) Clarabel fails on
the QP (numerical error), whatever ``eps``.  The face cannot be written without
``v*`` (a lexicographic formulation through the LP's duals would not help:
being a best response to one equilibrium strategy of the opponent is
necessary for optimality, not sufficient).

Cost: one LP and one QP per player selected (:func:`solve_equilibrium
<gamelp.models.nash.solve_equilibrium>` with a rule: one LP and two QPs).
Backends that take the QP are those with the ``QP`` capability
(``gamelp backends``); the others are refused before any work, with the names
of those that can.
"""

from __future__ import annotations

import copy

import numpy as np

from gamelp.errors import ModelError, SolveError, did_you_mean
from gamelp.model import Model
from gamelp.solution import Solution

SELECT_RULES = ("min-norm",)
# The optimal face is relaxed by this much, relative to 1 + |v*| (see the module docstring).
FACE_TOLERANCE = 1e-9


def check_rule(select: str | None) -> str | None:
    """``select`` if it names a rule (None: no selection), else a ``ModelError`` with a did-you-mean."""
    if select is None or select in SELECT_RULES:
        return select
    hint = did_you_mean(str(select), SELECT_RULES)
    raise ModelError(f"unknown selection rule {select!r}" + (hint or f"; use one of {', '.join(SELECT_RULES)}"))


def face_tolerance(value: float) -> float:
    """``eps``: how far below the value ``v*`` the optimal face is relaxed (see the module)."""
    return FACE_TOLERANCE * (1.0 + abs(value))


def check_backend(model: Model, backend: str) -> None:
    """Refuse, before any solve, a backend that cannot take the selection's QP of the Nash LP ``model``.

    The refusal names the backends that can (``model`` itself is not changed).
    """
    from gamelp.backends import check

    check(face_qp(copy.deepcopy(model), 0.0, 0.0), backend)


def face_qp(model: Model, value: float, tolerance: float, strategy: str = "x") -> Model:
    """``model`` (a Nash LP, changed in place) as the min-norm QP over its optimal face relaxed by ``tolerance``.

    The LP's objective (in its value variables) becomes the row ``objective >= value - tolerance`` (``<=
    value + tolerance`` when it was minimised) and the objective ``1/2 ||strategy||^2``.
    """
    if not model.objective:
        raise ModelError(f"model {model.name!r} has no objective: its optimal face is not defined")
    maximised = model.sense == "max"
    rows = {block: np.asarray(coefficients)[None, :] for block, coefficients in model.objective.items()}
    bound = value - model.objective_constant + (-tolerance if maximised else tolerance)
    model.add_constraints("optimal_value", rows, ">=" if maximised else "<=", bound, labels=("value",))
    model.set_objective({}, sense="min", quadratic={strategy: 1.0})
    model.name = f"{model.name}_min_norm"
    return model


def select_on_face(model: Model, value: float, backend: str, rule: str, **options) -> Solution:
    """Solve ``rule``'s QP over the optimal face of the Nash LP ``model`` (changed in place), of value ``value``.

    Parameters
    ----------
    model : Model
        A freshly built Nash LP whose strategy block is ``x``; it becomes the selection's QP.
    value : float
        The LP's optimum ``v*``, solved on ``backend``.
    backend : str
        The backend asked for: the one that solved the LP, or ``"auto"`` (Clarabel takes the QP).
    rule : str
        One of :data:`SELECT_RULES`.
    **options
        Solver options.

    Returns
    -------
    Solution
        The QP's optimum; ``values["x"]`` is the selected strategy.
    """
    check_rule(rule)
    face_qp(model, value, face_tolerance(value))
    solution = model.solve(backend, **options)
    if "x" not in solution.values:
        raise SolveError(f"{model.name} on {backend}: the selection's QP has no optimum ({solution.status})")
    return solution

"""Issue 45, item 4: the model scaling never changes an answer; it is right on every backend, or refused.

Random LPs whose optimum is known exactly by construction (a fractional knapsack: ``max c x`` s.t.
``a x <= b``, one always-slack row ``g x <= 2 g u``, ``0 <= x <= u``, all data positive, coefficients
drawn log-uniformly in 1e-100..1e100 and boxes in 1e-6..1e6; the greedy fill by ``c / a`` is the optimum)
are solved on every installed LP backend.  Each answer is the optimum within the solver's tolerance, an
honest ``error`` with no values, or a one-line refusal: gamelp's naming the coefficients' span
(:mod:`gamelp.backends.scaling`), or a solver's failure naming the backend.  The probes of the issue are
regression tests: each returned a wrong ``optimal`` (or ``unbounded``) before.
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gamelp
from gamelp.backends import solve
from gamelp.errors import BackendError
from gamelp.matrix import MatrixGame
from gamelp.model import Model
from gamelp.models.nash import solve_matrix_nash
from gamelp.solution import Status

LP_BACKENDS = [b.name for b in gamelp.available_backends() if b.capabilities.lp]
FIRST_ORDER = {"cvxpy:SCS"}  # a first-order method: about 1e-4 relative, not 1e-9
REFUSAL = "coefficients span"


def knapsack(a, c, u, b, g) -> Model:
    """``max c x`` s.t. ``a x <= b``, ``g x <= 2 g u`` (never binding), ``0 <= x <= u``."""
    model = Model("knapsack")
    model.add_variables("x", len(a), lb=0.0, ub=np.asarray(u))
    model.add_constraints("dominant", {"x": np.asarray([a])}, "<=", b)
    model.add_constraints("slack", {"x": np.asarray([g])}, "<=", 2.0 * float(np.dot(g, u)))
    model.set_objective({"x": np.asarray(c)}, "max")
    return model


def greedy(a, c, u, b) -> float:
    """The exact optimum of the fractional knapsack: fill by ``c / a``, best first."""
    value, room = 0.0, b
    for j in sorted(range(len(a)), key=lambda j: -c[j] / a[j]):
        take = min(u[j], room / a[j])
        value, room = value + c[j] * take, room - a[j] * take
        if room <= 0:
            break
    return value


def judge(model: Model, backend: str, optimum: float, scale: float) -> str:
    """Solve and check: ``"right"``, ``"refused"`` or ``"error"``; anything else fails the test."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = solve(model, backend)
    except BackendError as refusal:
        message = str(refusal)
        assert "\n" not in message  # gamelp's refusal names the span; a solver's own failure names the backend
        assert REFUSAL in message or backend in message or "HiGHS refused" in message, message
        return "refused"
    if result.status == Status.ERROR or not result.values:  # an honest non-answer: no point vouched for
        assert result.status not in (Status.OPTIMAL, Status.INFEASIBLE, Status.UNBOUNDED), (backend, result.status)
        return "error"
    assert result.status in (Status.OPTIMAL, Status.OPTIMAL_INACCURATE), (backend, result.status)
    rtol = 1e-3 if backend in FIRST_ORDER or result.status == Status.OPTIMAL_INACCURATE else 1e-5
    assert result.objective == pytest.approx(optimum, rel=rtol, abs=1e-9 * scale), (backend, result.status)
    return "right"


magnitude = st.floats(-100.0, 100.0).map(lambda e: float(10.0**e))
box = st.floats(-6.0, 6.0).map(lambda e: float(10.0**e))  # the rule is about coefficients: boxes near the units
vectors = st.integers(2, 4).flatmap(
    lambda n: st.tuples(*(st.lists(draw, min_size=n, max_size=n) for draw in (magnitude, magnitude, box, magnitude)))
)


def check_case(data, capacity: float) -> None:
    a, c, u, g = data
    b = capacity * float(np.dot(a, u))  # the dominant row binds (capacity < 1) or not
    model = knapsack(a, c, u, b, g)
    optimum = greedy(a, c, u, b)
    for backend in LP_BACKENDS:
        judge(model, backend, optimum, float(np.dot(c, u)))


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(vectors, st.sampled_from([0.3, 2.0]))
def test_random_knapsacks_are_right_or_refused(data, capacity):
    check_case(data, capacity)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(vectors, st.floats(0.01, 3.0))
def test_random_knapsacks_are_right_or_refused_at_length(data, capacity):
    check_case(data, capacity)


def probe(coefficient: float) -> Model:
    """The issue's probe: ``max x + y`` s.t. ``coefficient x + y <= 1``, ``0 <= x, y <= 1``."""
    model = Model("probe")
    model.add_variables("x", 1, lb=0.0, ub=1.0)
    model.add_variables("y", 1, lb=0.0, ub=1.0)
    model.add_constraints("c", {"x": [[coefficient]], "y": [[1.0]]}, "<=", 1.0)
    model.set_objective({"x": [1.0], "y": [1.0]}, "max")
    return model


@pytest.mark.parametrize("backend", LP_BACKENDS)
@pytest.mark.parametrize("coefficient", [1e-50, 1e-100, 1e300])
def test_the_probes_are_refused_in_one_line_naming_the_span(backend, coefficient):
    """Before: Gurobi optimal 1.0, Clarabel 1.49997, SCS 0.369 (the optimum is 2), Clarabel unbounded at 1e-100,
    SCS optimal_inaccurate 0.59 at 1e300 (the optimum is 1)."""
    with pytest.raises(BackendError, match=REFUSAL) as refusal:
        solve(probe(coefficient), backend)
    message = str(refusal.value)
    low, high = sorted([coefficient, 1.0])
    assert f"{low:.0g}..{high:.0g} in constraint 'c' and column 'x'" in message
    assert "rescale the model" in message and "\n" not in message


@pytest.mark.parametrize("backend", LP_BACKENDS)
def test_a_game_with_cells_1e300_and_1e_300_is_refused_not_unbounded(backend):
    """Before: pyomo:highs reported the game (it has a finite value) unbounded."""
    game = MatrixGame(np.array([[1e300, -1.0], [1e-300, 1.0]]))
    with pytest.raises(BackendError, match=REFUSAL):
        solve_matrix_nash(game, "row", backend)


@pytest.mark.parametrize("backend", ["highs", "cvxpy:CLARABEL"])
def test_a_reducible_spread_is_scaled_and_solved(backend):
    """1e-12 everywhere in a row (a payoff in another currency) is scaled away, not refused."""
    a, c, u = [1e-12, 2e-12, 3e-12], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]
    model = knapsack(a, c, u, 2e-12, [1.0, 1.0, 1.0])
    assert judge(model, backend, greedy(a, c, u, 2e-12), 3.0) == "right"


def test_factors_that_would_push_a_model_within_the_limits_out_of_them_are_not_used(monkeypatch):
    """Scaling may only help: a model whose coefficients the solvers keep (1e-4 here: scaled, being outside the
    well-scaled bulk) is solved as it is when the factors would leave one outside 1e-9..1e9."""
    from gamelp.backends import scaling

    model = Model("kept")
    model.add_variables("x", 2, lb=0, ub=1)
    model.add_constraints("c", {"x": np.array([[1e-4, 1e-4]])}, "<=", 1e-4)
    model.set_objective({"x": np.array([1.0, 1.0])}, sense="max")
    form = model.matrix_form()
    assert scaling.needs_scaling(form)
    honest = scaling._factors(form)
    ruinous = scaling.Scaling(honest.row * 2.0**-40, honest.column, honest.objective, honest.cone)
    monkeypatch.setattr(scaling, "_factors", lambda form: ruinous)
    scaled, factors = scaling.scale(form)
    assert scaled is form and np.all(factors.row == 1) and np.all(factors.column == 1)
    assert solve(model, "highs").objective == pytest.approx(1.0)

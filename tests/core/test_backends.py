"""Cross-backend checks: every backend that can take a model finds the same optimum and duals.

The models are small with closed-form answers: a production LP (optimum 41 at
x = (2, 6); every row sense active), a fixed-charge knapsack MILP (unique
optimum 16 at (4, 1, 0), y = 0), and a linear objective over a Euclidean ball
(optimum c.centre +- r ||c||).  Duals are checked against finite differences of
the optimum in each right-hand side, for both objective senses.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gamelp.backends import available_backends, check, solve
from gamelp.backends import gurobi as gurobi_backend
from gamelp.errors import BackendError
from gamelp.game import load_game
from gamelp.model import Model
from gamelp.solution import INFEASIBLE, OPTIMAL, UNBOUNDED

cp = pytest.importorskip("cvxpy")
pyo = pytest.importorskip("pyomo.environ")

AVAILABLE = {b.name: b for b in available_backends()}
LP_BACKENDS = [name for name, b in AVAILABLE.items() if b.capabilities.lp]
MIP_BACKENDS = [name for name, b in AVAILABLE.items() if b.capabilities.mip]
CONE_BACKENDS = [name for name, b in AVAILABLE.items() if b.capabilities.soc]
# Backends that report duals for the linear rows of a cone model (Pyomo imports no duals there).
CONE_DUAL_BACKENDS = [name for name in CONE_BACKENDS if not name.startswith("pyomo:")]


def tolerance(backend: str) -> float:
    """First-order methods (SCS) get a looser tolerance than the interior-point / simplex solvers."""
    return 2e-3 if AVAILABLE[backend].capabilities.accuracy > 1e-6 else 1e-5


def production_lp(sense: str = "max", delta: dict | None = None) -> Model:
    """max 3 x0 + 5 x1 + 0.5 w + 1 with x0 <= 4, 2 x1 <= 12, -3 x0 - 2 x1 >= -18, w = x0 + x1.

    Optimum 41 at x = (2, 6), w = 8; d(opt)/d(rhs): caps (0, 19/12), mix -7/6, link 0.5, floor 0.
    ``sense="min"`` minimises the negated objective (optimum -41, duals negated).
    ``delta`` shifts right-hand sides by block name.
    """
    delta = delta or {}
    sign = 1.0 if sense == "max" else -1.0
    m = Model(f"production_{sense}")
    x = m.add_variables("x", 2, lb=0, labels=["a", "b"])
    w = m.add_variables("w", 1, lb=-np.inf)
    m.add_constraints("caps", {x: [[1, 0], [0, 2]]}, "<=", np.array([4.0, 12.0]) + delta.get("caps", 0))
    m.add_constraints("mix", {x: [[-3, -2]]}, ">=", -18.0 + delta.get("mix", 0))
    m.add_constraints("link", {w: [[1]], x: [[-1, -1]]}, "==", 0.0 + delta.get("link", 0))
    m.add_constraints("floor", {x: [[1, 1]]}, ">=", 1.0 + delta.get("floor", 0))
    m.set_objective({x: sign * np.array([3.0, 5.0]), w: [sign * 0.5]}, sense=sense, constant=sign * 1.0)
    return m


PRODUCTION_DUALS = {"caps": [0.0, 19 / 12], "mix": [-7 / 6], "link": [0.5], "floor": [0.0]}


def knapsack_milp() -> Model:
    """max 3 x0 + 4 x1 + 6 x2 - 1.5 y, 2 x0 + 3 x1 + 4 x2 <= 11.5, x2 <= 3 y, x integer in [0, 10], y binary."""
    m = Model("knapsack")
    x = m.add_variables("x", 3, kind="integer", ub=10)
    y = m.add_variables("y", 1, kind="binary")
    m.add_constraints("weight", {x: [[2, 3, 4]]}, "<=", 11.5)
    m.add_constraints("charge", {x: [[0, 0, 1]], y: [[-3]]}, "<=", 0)
    m.set_objective({x: [3, 4, 6], y: [-1.5]}, sense="max")
    return m


CENTRE, RADIUS, DIRECTION = np.array([1.0, -1.0, 0.5]), 2.0, np.array([1.0, 2.0, 2.0])


def ball_model(sense: str = "max", cap: float | None = None) -> Model:
    """Optimise DIRECTION . x over ||x - CENTRE|| <= RADIUS (optionally with x0 <= cap, or >= cap for min)."""
    m = Model(f"ball_{sense}")
    x = m.add_variables("x", 3, lb=-np.inf)
    m.add_cone("ball", {x: np.vstack([np.zeros(3), np.eye(3)])}, constant=np.r_[RADIUS, -CENTRE])
    if cap is not None:
        m.add_constraints("cap", {x: [[1, 0, 0]]}, "<=" if sense == "max" else ">=", cap)
    m.set_objective({x: DIRECTION}, sense=sense)
    return m


def single_row(sense: str, rhs: float, objective: str) -> Model:
    m = Model(f"x {sense} {rhs}")
    x = m.add_variables("x", 1, lb=0)
    m.add_constraints("row", {x: [[1]]}, sense, rhs)
    m.set_objective({x: [1]}, sense=objective)
    return m


# ----------------------------------------------------------------------------- same optimum everywhere
@pytest.mark.parametrize("backend", LP_BACKENDS)
@pytest.mark.parametrize("sense", ["max", "min"])
def test_lp_optimum_and_duals_match_closed_form(backend, sense):
    sol = solve(production_lp(sense), backend)
    tol = tolerance(backend)
    sign = 1.0 if sense == "max" else -1.0
    assert sol.status == OPTIMAL and sol.backend == backend
    assert sol.objective == pytest.approx(sign * 41.0, abs=tol * 41)
    np.testing.assert_allclose(sol.values["x"], [2.0, 6.0], atol=tol * 10)
    np.testing.assert_allclose(sol.values["w"], [8.0], atol=tol * 10)
    assert sol.mip_gap == 0.0
    for block, expected in PRODUCTION_DUALS.items():
        np.testing.assert_allclose(sol.duals[block], sign * np.array(expected), atol=tol * 10, err_msg=block)


@pytest.mark.parametrize("backend", LP_BACKENDS)
@pytest.mark.parametrize("sense", ["max", "min"])
def test_lp_duals_are_finite_difference_derivatives(backend, sense):
    """d(optimum)/d(rhs) by forward differences equals the reported dual, row by row."""
    h = 1e-3
    base = solve(production_lp(sense), backend)
    tol = tolerance(backend)
    for block, duals in base.duals.items():
        for row in range(len(duals)):
            shift = np.zeros(len(duals))
            shift[row] = h
            moved = solve(production_lp(sense, {block: shift}), backend)
            derivative = (moved.objective - base.objective) / h
            assert derivative == pytest.approx(duals[row], abs=max(tol * 50, 1e-4)), (block, row)


@pytest.mark.parametrize("backend", MIP_BACKENDS)
def test_milp_optimum_and_gap(backend):
    sol = solve(knapsack_milp(), backend, mip_gap=1e-6)
    assert sol.status == OPTIMAL
    assert sol.objective == pytest.approx(16.0, abs=1e-6)
    np.testing.assert_allclose(sol.values["x"], [4, 1, 0], atol=1e-6)
    np.testing.assert_allclose(sol.values["y"], [0], atol=1e-6)
    assert sol.mip_gap is not None and 0.0 <= sol.mip_gap <= 1e-6
    assert sol.duals == {}


@pytest.mark.parametrize("backend", CONE_BACKENDS)
@pytest.mark.parametrize("sense", ["max", "min"])
def test_soc_optimum_matches_closed_form(backend, sense):
    sol = solve(ball_model(sense), backend)
    sign = 1.0 if sense == "max" else -1.0
    tol = max(tolerance(backend), 1e-6) * 10
    assert sol.status == OPTIMAL
    assert sol.objective == pytest.approx(DIRECTION @ CENTRE + sign * RADIUS * np.linalg.norm(DIRECTION), abs=tol)
    expected_x = CENTRE + sign * RADIUS * DIRECTION / np.linalg.norm(DIRECTION)
    np.testing.assert_allclose(sol.values["x"], expected_x, atol=tol * 10)


@pytest.mark.parametrize("backend", CONE_DUAL_BACKENDS)
@pytest.mark.parametrize("sense", ["max", "min"])
def test_soc_row_duals_are_finite_difference_derivatives(backend, sense):
    """The cap x0 <= 1.5 (>= 0.5 when minimising) cuts the ball's optimum: its dual is d(opt)/d(cap)."""
    cap, h = (1.5, 1e-3) if sense == "max" else (0.5, 1e-3)
    base, moved = solve(ball_model(sense, cap), backend), solve(ball_model(sense, cap + h), backend)
    # Closed form: the optimum with x0 fixed at the cap, the rest on the circle left in the ball.
    sign = 1.0 if sense == "max" else -1.0
    rest = np.sqrt(RADIUS**2 - (cap - CENTRE[0]) ** 2)
    expected = DIRECTION[0] * cap + DIRECTION[1:] @ CENTRE[1:] + sign * rest * np.linalg.norm(DIRECTION[1:])
    tol = tolerance(backend) * 10
    assert base.objective == pytest.approx(expected, abs=tol)
    assert base.duals["cap"][0] == pytest.approx((moved.objective - base.objective) / h, abs=max(tol, 2e-3))
    assert abs(base.duals["cap"][0]) > 0.1  # the cap is active, so the test has teeth


@pytest.mark.parametrize("backend", LP_BACKENDS)
def test_infeasible_and_unbounded_statuses(backend):
    infeasible = solve(single_row("<=", -1.0, "min"), backend)
    unbounded = solve(single_row(">=", 1.0, "max"), backend)
    assert infeasible.status == INFEASIBLE and infeasible.objective is None
    assert unbounded.status == UNBOUNDED


@pytest.mark.parametrize("backend", LP_BACKENDS)
def test_feasibility_model_with_an_unused_block_added_late(backend):
    """No objective; block ``y`` is added after the constraints and appears nowhere: it sits at a bound."""
    m = Model("feasibility")
    x = m.add_variables("x", 2, lb=0)
    m.add_constraints("sum", {x: [[1, 1]]}, "==", 1)
    m.add_variables("y", 2, lb=[1, -np.inf], ub=[3, -2])
    sol = solve(m, backend)
    assert sol.status == OPTIMAL and sol.objective == pytest.approx(0.0, abs=1e-6)
    assert sol.values["x"].sum() == pytest.approx(1.0, abs=1e-4) and (sol.values["x"] >= -1e-4).all()
    np.testing.assert_allclose(sol.values["y"], [1, -2])


# ----------------------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    "backend, alternative", [("highs", "CLARABEL"), ("pyomo:appsi_highs", "gurobi_direct"), ("cvxpy:HIGHS", "CLARABEL")]
)
def test_cone_refused_by_solvers_without_cones(backend, alternative):
    with pytest.raises(BackendError, match="cone") as info:
        solve(ball_model(), backend)
    assert alternative in str(info.value)


@pytest.mark.parametrize("backend", ["cvxpy:CLARABEL", "cvxpy:SCS"])
def test_mip_refused_by_continuous_solvers(backend):
    with pytest.raises(BackendError, match="integer") as info:
        check(knapsack_milp(), backend)
    assert "cvxpy:HIGHS" in str(info.value) and "highs" in str(info.value)


def big_model(n: int = 2500) -> Model:
    m = Model("big")
    x = m.add_variables("x", n, lb=0, ub=1)
    m.set_objective({x: np.ones(n)}, sense="max")
    return m


@pytest.fixture
def restricted_licence():
    if not gurobi_backend.licence_is_restricted():
        pytest.skip("a full Gurobi licence is installed: there is no size limit to refuse")


@pytest.mark.parametrize("backend", ["gurobi", "pyomo:gurobi_direct"])
def test_gurobi_size_limit_refused_up_front(backend, restricted_licence):
    with pytest.raises(BackendError) as info:
        check(big_model(), backend)
    message = str(info.value)
    assert "2500 variables" in message and "highs" in message and backend in message


def test_gurobi_size_count_includes_cone_auxiliaries(restricted_licence):
    m = ball_model()
    m.add_variables("pad", 1995)  # 1998 columns + 4 cone auxiliaries = 2002 > 2000
    assert gurobi_backend.model_size(m.matrix_form()) == (2002, 4)
    with pytest.raises(BackendError, match="2002 variables.*cvxpy:CLARABEL"):
        check(m, "gurobi")
    check(m, "cvxpy:CLARABEL")


def test_unrestricted_override_defers_to_the_solver(monkeypatch):
    restricted = gurobi_backend.licence_is_restricted()
    monkeypatch.setenv(gurobi_backend.UNRESTRICTED_ENV_VAR, "1")
    gurobi_backend.licence_is_restricted.cache_clear()
    try:
        check(big_model(), "gurobi")  # no up-front refusal any more
        if restricted:  # Gurobi itself refuses at solve time: same message, same error type
            with pytest.raises(BackendError, match="2500 variables.*highs"):
                solve(big_model(), "gurobi")
        else:
            assert solve(big_model(), "gurobi").objective == pytest.approx(2500)
    finally:
        gurobi_backend.licence_is_restricted.cache_clear()


def test_the_unrestricted_variable_is_read_when_the_licence_is_asked_about(monkeypatch):
    """Set after the licence was probed (and the answer remembered), it still counts: no cache to clear."""
    pytest.importorskip("gurobipy")
    gurobi_backend.licence_is_restricted()
    monkeypatch.setenv(gurobi_backend.UNRESTRICTED_ENV_VAR, "1")
    assert not gurobi_backend.licence_is_restricted()
    monkeypatch.setenv(gurobi_backend.UNRESTRICTED_ENV_VAR, "0")
    from gamelp.backends.gurobi_licence import _probe_restricted

    assert gurobi_backend.licence_is_restricted() == _probe_restricted()


@pytest.mark.parametrize(
    "backend", ["simplex", "cvxpy:NO_SUCH_SOLVER", "pyomo:no_such_solver", "cvxpy", "pyomo", "gurobi:foo"]
)
def test_unknown_backend_or_solver_refused(backend):
    with pytest.raises(BackendError):
        solve(production_lp(), backend)


@pytest.mark.parametrize(
    "backend, option",
    [
        ("gurobi", "NoSuchParam"),
        ("cvxpy:CLARABEL", "no_such_setting"),
        ("cvxpy:HIGHS", "no_such_option"),
        ("pyomo:appsi_highs", "no_such_option"),
        ("pyomo:gurobi_direct", "NoSuchParam"),
        ("scip", "no/such/parameter"),
    ],
)
def test_bad_solver_option_refused(backend, option):
    with pytest.raises(BackendError, match=option):
        solve(production_lp(), backend, **{option: 1})


@pytest.mark.parametrize("backend", MIP_BACKENDS)
def test_time_limit_gap_and_threads_options_are_accepted(backend):
    sol = solve(knapsack_milp(), backend, time_limit=30, mip_gap=1e-4, mip_abs_gap=1e-6, threads=1)
    assert sol.status == OPTIMAL and sol.objective == pytest.approx(16.0)


def test_absolute_mip_gap_reaches_the_solver_in_its_scaled_units(monkeypatch):
    """``mip_abs_gap`` is in the model's objective units; the backend solves the scaled model, so it gets it scaled."""
    from gamelp.backends.highs import HighsBackend
    from gamelp.backends.scaling import scale

    given = []
    real = HighsBackend.solve

    def spy(self, form, options):
        given.append(options.mip_abs_gap)
        return real(self, form, options)

    monkeypatch.setattr(HighsBackend, "solve", spy)
    model = knapsack_milp()
    model.set_objective({model.variables["x"]: [3e4, 4e4, 6e4], model.variables["y"]: [-1.5e4]}, sense="max")
    factor = scale(model.matrix_form())[1].objective
    assert factor != pytest.approx(1.0)  # the objective is rescaled, so the conversion shows
    sol = solve(model, "highs", mip_abs_gap=0.5)
    assert given == [pytest.approx(0.5 * factor, rel=1e-12)]
    assert sol.status == OPTIMAL and sol.objective == pytest.approx(16e4)
    solve(model, "highs")
    assert given[-1] is None  # not given: the solver's own default


# ----------------------------------------------------------------------------- native objects
def test_to_pyomo_can_be_extended_natively():
    pm = production_lp().to_pyomo()
    x = pm.gamelp_variables["x"]
    assert x is pm.x and pm.gamelp_constraints["caps"] is pm.caps
    pm.extra = pyo.Constraint(expr=x[1] <= 5)  # the user's own constraint
    result = pyo.SolverFactory("appsi_highs").solve(pm)
    assert str(result.solver.termination_condition) == "optimal"
    # With x1 <= 5 the optimum moves to x = (8/3, 5): 3.5 * 8/3 + 5.5 * 5 + 1 = 37.8333...
    assert pyo.value(pm.objective) == pytest.approx(3.5 * 8 / 3 + 5.5 * 5 + 1)
    assert pyo.value(x[0]) == pytest.approx(8 / 3)
    assert pm.dual[pm.extra] == pytest.approx(5.5 - 3.5 * 2 / 3)


def test_to_pyomo_names_clashing_blocks_apart():
    m = Model("clash")
    x = m.add_variables("x", 1, ub=1)
    m.add_constraints("x", {x: [[1]]}, "<=", 0.5)
    m.set_objective({x: [1]}, sense="max")
    pm = m.to_pyomo()
    assert pm.gamelp_variables["x"] is pm.x and pm.gamelp_constraints["x"] is pm.x_con
    assert solve(m, "pyomo:appsi_highs").objective == pytest.approx(0.5)


def test_to_cvxpy_can_be_extended_natively():
    problem = production_lp().to_cvxpy()
    x = problem.var_blocks["x"]
    assert set(problem.constraint_blocks) == {"caps", "mix", "link", "floor"}
    extended = cp.Problem(problem.objective, problem.constraints + [x[1] <= 5])
    extended.solve(solver="CLARABEL")
    assert extended.value == pytest.approx(3.5 * 8 / 3 + 5.5 * 5 + 1, abs=1e-6)
    np.testing.assert_allclose(x.value, [8 / 3, 5], atol=1e-6)


def test_to_cvxpy_keeps_cones():
    problem = ball_model().to_cvxpy()
    assert set(problem.cone_blocks) == {"ball"}
    problem.solve(solver="CLARABEL")
    assert problem.value == pytest.approx(DIRECTION @ CENTRE + RADIUS * 3, abs=1e-6)


# ----------------------------------------------------------------------------- logs
ALL_BACKENDS = LP_BACKENDS


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_quiet_by_default_but_log_kept(backend, capfd):
    sol = solve(production_lp(), backend, verbose=False)
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    assert sol.status == OPTIMAL and len(sol.log) > 100


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["highs", "gurobi", "pyomo:appsi_highs", "cvxpy:CLARABEL"])
def test_verbose_shows_the_solver_log_on_stderr(backend):
    """The log is shown live on stderr, however the solver writes it (C or Python), and kept in the result."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.path[:0] = [sys.argv[1]]; from test_backends import production_lp; "
            f"from gamelp.backends import solve; s = solve(production_lp(), {backend!r}, verbose=True); "
            "print(len(s.log), s.objective)",
            str(Path(__file__).parent),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    log_size, objective = done.stdout.split()  # the solver wrote nothing else to stdout
    assert int(log_size) > 100 and len(done.stderr) > 100
    assert float(objective) == pytest.approx(production_lp().solve("highs").objective)


@pytest.mark.parametrize("backend", ["cvxpy:CLARABEL", "pyomo:appsi_highs"])
def test_quiet_by_default_outside_pytest_too(backend):
    """A solve that was not asked to be verbose writes nothing to stderr in a plain interpreter either (cvxpy's
    logger is bound to the stderr of its import, which pytest's capture replaces: capfd above cannot see it)."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.path[:0] = [sys.argv[1]]; from test_backends import production_lp; "
            f"from gamelp.backends import solve; s = solve(production_lp(), {backend!r}); print(len(s.log))",
            str(Path(__file__).parent),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stderr == ""
    assert int(done.stdout) > 100  # the log is kept in the result


def test_gurobi_refuses_a_cone_model_over_the_licence_cone_limit():
    """The pip licence takes at most 200 variables once a model has cones (2000 without)."""
    if not gurobi_backend.licence_is_restricted():
        pytest.skip("a full Gurobi licence is installed")
    m = Model("big_ball")
    x = m.add_variables("x", 250, lb=-np.inf)
    m.add_cone("ball", {x: np.vstack([np.zeros(250), np.eye(250)])}, constant=np.r_[1.0, np.zeros(250)])
    m.set_objective({x: np.ones(250)}, sense="max")
    with pytest.raises(BackendError, match=r"200 variables a cone model or QP may have.*cvxpy:CLARABEL"):
        m.solve("gurobi")
    assert m.solve("cvxpy:CLARABEL").objective == pytest.approx(np.sqrt(250), rel=1e-6)


def test_highs_sends_a_large_dense_lp_to_the_interior_point_method():
    """Same vertex, strategies and duals as simplex; only the method differs."""
    from gamelp.matrix import MatrixGame
    from gamelp.models.nash import solve_matrix_nash

    game = MatrixGame(np.random.default_rng(1).uniform(size=(500, 500)))
    default = solve_matrix_nash(game)
    simplex = solve_matrix_nash(game, solver="simplex")
    assert "Ipx: Crossover optimal" in default.solution.log
    assert "IPX" not in simplex.solution.log
    assert default.value == pytest.approx(simplex.value, abs=1e-12)
    assert np.allclose(default.row_strategy, simplex.row_strategy, atol=1e-9)
    assert np.allclose(default.col_strategy, simplex.col_strategy, atol=1e-9)


def test_the_lp_method_rule_switches_to_the_interior_point_method_at_its_size(monkeypatch):
    """At LARGE_LP_NONZEROS non-zeros and above the IPM with crossover, below it HiGHS's choice; a MIP and a
    warm re-solve never."""
    from gamelp.backends import highs as highs_backend
    from gamelp.models.determinism import deterministic_ilp
    from gamelp.models.nash import sequence_form_lp

    game = load_game("leduc")
    form = sequence_form_lp(game, 1).matrix_form()
    ipm = {"solver": "ipm", "run_crossover": "on"}
    for threshold, expected in ((form.A.nnz, ipm), (form.A.nnz + 1, {})):
        monkeypatch.setattr(highs_backend, "LARGE_LP_NONZEROS", threshold)
        assert highs_backend.lp_method(form) == expected
        assert highs_backend.lp_method(form, warm=True) == {}
        assert highs_backend.lp_method(deterministic_ilp(game, 1).matrix_form()) == {}


def test_a_large_sparse_lp_ends_at_the_simplex_vertex_by_the_interior_point_method(monkeypatch):
    """Leduc's Nash LP, made "large" here: the IPM and its crossover give the simplex's value, player 2's
    strategy from the duals at gap 0, and a basis the exact certificate reads; a persistent re-solve after a
    change starts from that basis on the simplex."""
    from gamelp.backends import highs as highs_backend
    from gamelp.models.nash import sequence_form_lp, solve_equilibrium

    game = load_game("leduc")
    monkeypatch.setattr(highs_backend, "LARGE_LP_NONZEROS", sequence_form_lp(game, 1).matrix_form().A.nnz)
    default, simplex = solve_equilibrium(game), solve_equilibrium(game, solver="simplex")
    assert "Ipx: Crossover optimal" in default.solution.log
    assert "IPX" not in simplex.solution.log
    assert default.value == pytest.approx(simplex.value, abs=1e-12)
    assert default.gap < 1e-12
    certified = solve_equilibrium(game, exact=True)
    assert "Ipx: Crossover optimal" in certified.solution.log
    assert float(certified.certificate.value) == pytest.approx(simplex.value, abs=1e-12)
    model = sequence_form_lp(game, 1)
    first = model.solve("highs", persistent=True)
    model.set_bounds("x", ub=np.ones(game.pl1.num_sequences))  # implied already: the same optimum
    again = model.solve("highs", persistent=True)
    assert "Ipx: Crossover optimal" in first.log
    assert "IPX" not in again.log
    assert again.objective == pytest.approx(first.objective, abs=1e-12)


# ----------------------------------------------------------------------------- reduced costs
def capped_lp(cap: float) -> Model:
    """max 3 x0 + x1, x0 + x1 <= 4, 0 <= x0 <= cap (cap < 4): x = (cap, 4 - cap), reduced cost of x0 is 2."""
    m = Model("capped")
    x = m.add_variables("x", 2, lb=0, ub=[cap, np.inf])
    m.add_constraints("total", {x: [[1, 1]]}, "<=", 4)
    m.set_objective({x: [3, 1]}, sense="max")
    return m


@pytest.mark.parametrize("backend", LP_BACKENDS)
def test_reduced_costs_are_derivatives_in_the_bounds(backend):
    h, tol = 1e-3, tolerance(backend)
    base, moved = solve(capped_lp(3.0), backend), solve(capped_lp(3.0 + h), backend)
    assert base.reduced_costs["x"][0] == pytest.approx(2.0, abs=tol * 10)
    assert base.reduced_costs["x"][0] == pytest.approx((moved.objective - base.objective) / h, abs=max(tol * 50, 1e-4))
    assert base.reduced_costs["x"][1] == pytest.approx(0.0, abs=tol * 10)
    assert base.objective_bound == pytest.approx(base.objective)


@pytest.mark.parametrize("backend", MIP_BACKENDS)
def test_a_mip_start_is_taken_or_ignored_but_never_breaks_the_solve(backend):
    """A feasible start (x = (1, 1, 1), y = 1: weight 9, value 11.5) is offered; the optimum is still 16."""
    sol = solve(knapsack_milp(), backend, start={"x": [1, 1, 1], "y": [1]})
    assert sol.status == OPTIMAL and sol.objective == pytest.approx(16.0, abs=1e-6)

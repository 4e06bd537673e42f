"""The solver layer tells the truth: results that do not depend on the data's units, statuses that say
what happened, no values where there is no solution, and Ctrl-C that stops a solve.

Every backend test takes its backends from the registry (:func:`gamelp.available_backends`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import faulthandler
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import error_lines

from gamelp import available_backends, load_game
from gamelp.backends import solve
from gamelp.backends.base import RawResult, finish
from gamelp.backends.scaling import needs_scaling, scale
from gamelp.errors import SolveInterrupted
from gamelp.model import Model
from gamelp.models.determinism import deterministic_choices, kdet_mip
from gamelp.models.kdet_search import KdetSearch
from gamelp.models.nash import sequence_form_lp, solve_nash
from gamelp.solution import Status
from gamelp.units import normalised

AVAILABLE = {b.name: b for b in available_backends()}
LP_BACKENDS = [name for name, b in AVAILABLE.items() if b.capabilities.lp]
MIP_BACKENDS = [name for name, b in AVAILABLE.items() if b.capabilities.mip and b.capabilities.time_limit]
KUHN_VALUE = -1 / 18


@pytest.fixture(scope="module")
def kuhn():
    return load_game("kuhn")


def scaled(game, factor: float):
    return dataclasses.replace(game, A=game.A * factor)


# ----------------------------------------------------------------------------- units do not matter
@pytest.mark.parametrize("backend", LP_BACKENDS)
@pytest.mark.parametrize("factor", [1e-12, 1e12])
def test_kuhn_in_any_currency_has_the_same_value_and_strategy(kuhn, backend, factor):
    """Kuhn poker with every payoff times 1e-12 or 1e12: value -1/18 times the factor, and a strategy
    that guarantees it (before scaling HiGHS returned 0 and 'always bet', guaranteeing -1/3)."""
    result = solve_nash(scaled(kuhn, factor), 1, backend)
    tol = 1e-4 if AVAILABLE[backend].capabilities.accuracy > 1e-6 else 1e-7
    assert result.solution.status == Status.OPTIMAL
    assert result.value / factor == pytest.approx(KUHN_VALUE, abs=tol)
    assert result.guaranteed_value / factor == pytest.approx(KUHN_VALUE, abs=tol)
    # The same strategy guarantees the value in the original units too.
    assert kuhn.guaranteed_value(1, result.strategy) == pytest.approx(KUHN_VALUE, abs=tol)


@pytest.mark.parametrize("backend", [name for name in LP_BACKENDS if AVAILABLE[name].capabilities.accuracy < 1e-6])
def test_duals_and_reduced_costs_unscale_consistently(kuhn, backend):
    """Duals are d(objective)/d(rhs) in the model's own units: times the factor when payoffs are scaled."""
    plain = solve(sequence_form_lp(kuhn, 1), backend)
    tiny = solve(sequence_form_lp(scaled(kuhn, 1e-12), 1), backend)
    assert tiny.objective_bound == pytest.approx(tiny.objective, rel=1e-9)
    # The polytope rows' right-hand side is f = (1, 0, ...): its dual is the value's derivative, so it scales.
    np.testing.assert_allclose(tiny.duals["polytope"][0] / 1e-12, plain.duals["polytope"][0], rtol=1e-6)
    model = sequence_form_lp(scaled(kuhn, 1e-12), 1)
    form = model.matrix_form()
    y = np.concatenate([tiny.duals[name] for name in model.constraints])
    z = np.concatenate([tiny.reduced_costs[name] for name in model.variables])
    magnitude = np.abs(form.c) + abs(form.A).T @ np.abs(y)  # per column, the size of the terms in c - A^T y
    assert (np.abs(z - (form.c - form.A.T @ y)) <= 1e-9 * magnitude).all()
    assert np.abs(z[model.variables["x"].slice]).max() > 1e-14  # payoff-sized reduced costs, not all zero


def test_scaling_balances_coefficients_and_pins_the_solution_magnitude(kuhn):
    form = sequence_form_lp(scaled(kuhn, 1e-12), 1).matrix_form()
    assert needs_scaling(form)
    balanced, factors = scale(form)
    magnitudes = np.abs(balanced.A.data)
    assert magnitudes.max() / magnitudes.min() < 4  # from 1e12 before scaling
    assert np.abs(balanced.rhs).max() == 1.0  # the strategy stays at magnitude 1: no tiny solution values
    assert all(np.log2(v).is_integer() for v in (*factors.row, *factors.column, factors.objective))
    assert not needs_scaling(sequence_form_lp(kuhn, 1).matrix_form())  # unscaled games go through untouched


def test_integer_columns_are_never_scaled(kuhn):
    form = kdet_mip(scaled(kuhn, 1e12), 1, 3).matrix_form()
    _, factors = scale(form)
    assert (factors.column[form.integer] == 1).all() and (factors.column[~form.integer] != 1).any()


@pytest.mark.parametrize("backend", MIP_BACKENDS)
def test_scaled_deterministic_ilp(kuhn, backend):
    from gamelp.models.determinism import solve_deterministic

    plain = solve_deterministic(kuhn, 1, backend)
    tiny = solve_deterministic(scaled(kuhn, 1e-12), 1, backend)
    assert tiny.value / 1e-12 == pytest.approx(plain.value, abs=1e-7)
    assert plain.value == pytest.approx(-1 / 6, abs=1e-9)  # the best pure strategy's value in Kuhn poker


# ----------------------------------------------------------------------------- honest statuses
@pytest.fixture(scope="module")
def leduc():
    return load_game("leduc")


@pytest.mark.parametrize(
    "backend", [name for name in LP_BACKENDS if AVAILABLE[name].capabilities.time_limit and name != "cvxpy:SCS"]
)  # SCS reads a 0 s limit as none
def test_lp_stopped_by_its_time_limit_presents_no_values(leduc, backend):
    sol = solve(sequence_form_lp(leduc, 1), backend, time_limit=0.0)
    assert sol.status == Status.TIME_LIMIT
    assert sol.values == {} and sol.objective is None and sol.duals == {}


@pytest.mark.parametrize("backend", MIP_BACKENDS)
def test_mip_stopped_by_its_time_limit_keeps_a_feasible_incumbent_and_its_gap(leduc, backend):
    model = kdet_mip(leduc, 1, 140)
    sol = solve(model, backend, time_limit=0.5)
    assert sol.status in (Status.TIME_LIMIT, Status.OPTIMAL)
    if sol.values:  # an incumbent: feasible, with a bound on the other side and the gap between them
        assert sol.violation <= 1e-6
        assert sol.objective_bound >= sol.objective - 1e-9
        assert sol.mip_gap == pytest.approx(abs(sol.objective_bound - sol.objective) / abs(sol.objective))
        own = leduc.player(1)
        assert own.infeasibility(sol.values["x"]) < 1e-6


def unbounded_mip() -> Model:
    m = Model("unbounded_mip")
    x = m.add_variables("x", 2, kind="integer", lb=0)
    m.add_constraints("row", {x: [[1, -1]]}, "<=", 1.5)
    m.set_objective({x: [1, 1]}, sense="max")
    return m


@pytest.mark.parametrize("backend", MIP_BACKENDS)
def test_unbounded_mip_is_reported_not_raised(backend):
    """Gurobi used to raise AttributeError: MIPGap here."""
    sol = solve(unbounded_mip(), backend)
    assert sol.status in (Status.UNBOUNDED, Status.INFEASIBLE_OR_UNBOUNDED)
    assert sol.values == {} and sol.objective is None and sol.mip_gap is None


@pytest.mark.skipif("cvxpy:SCS" not in AVAILABLE, reason="SCS is not installed")
def test_an_inaccurate_optimum_is_not_called_optimal(leduc):
    """SCS stopped after 20 iterations says 'optimal_inaccurate' (cvxpy) for a point 0.14 off the
    constraints: it is kept as such a status and its point is not presented (it used to be 'optimal',
    value 0.12 for a -0.086 game)."""
    sol = solve(sequence_form_lp(leduc, 1), "cvxpy:SCS", max_iters=20)
    assert sol.status == Status.OPTIMAL_INACCURATE and sol.status != "optimal"
    assert sol.values == {} and sol.objective is None and sol.violation > 1e-3


def test_an_objective_that_is_not_the_points_is_not_called_optimal():
    """A solver that reports an objective other than its point's c x + constant: the point's stands, unproved."""
    model = Model("small")
    x = model.add_variables("x", 2, lb=0.0, ub=1.0)
    model.add_constraints("row", {x: [[1.0, 1.0]]}, "<=", 1.5)
    model.set_objective({x: [1.0, 2.0]}, sense="max", constant=0.25)
    form = model.matrix_form()
    point = np.array([0.5, 1.0])
    status, fields = finish(form, RawResult(Status.OPTIMAL, x=point, objective=2.75, bound=2.75))
    assert status == Status.OPTIMAL and fields["objective"] == 2.75  # 0.5 + 2 + 0.25: its own
    status, fields = finish(form, RawResult(Status.OPTIMAL, x=point, objective=3.0, bound=3.0))
    assert status == Status.OPTIMAL_INACCURATE and fields["objective"] == 2.75 == fields["bound"]  # an LP: its own
    assert finish(form, RawResult(Status.OPTIMAL, x=point, objective=2.75 + 2e-6, bound=3.0))[0] == Status.OPTIMAL


def test_a_highs_mip_start_that_makes_highs_misreport_is_solved_again(leduc):
    """HiGHS 1.16, started from a feasible LP-vertex strategy of Leduc's k-determinism MIP (k = 120), stops at once
    as "optimal" with an objective above the Nash value (0.224 against -0.0988): gamelp solves again without it."""
    game, _ = normalised(leduc)
    search = KdetSearch(game, 1)
    nash_value = search.solve_root()
    x = search.strategy[120]
    fixed = sequence_form_lp(game, 1)
    fixed.set_bounds("x", lb=x, ub=x)
    start = {"x": x, "v": fixed.solve("highs").values["v"], "z": deterministic_choices(game.pl1, x)}
    model = kdet_mip(game, 1, 120)
    sol = model.solve("highs", start=start, time_limit=2.0)
    assert sol.status in (Status.OPTIMAL, Status.TIME_LIMIT)  # a real solve, not the misreport caught by finish
    assert sol.objective <= nash_value + 1e-9  # the Nash value bounds every k
    form = model.matrix_form()
    assert sol.objective == pytest.approx(form.c @ model.full_vector(sol.values), abs=1e-9)


def test_statuses_are_a_str_enum_and_the_repr_is_short(kuhn):
    sol = solve_nash(load_game("leduc"), 1).solution
    assert isinstance(sol.status, Status) and sol.status == "optimal" and str(sol.status) == "optimal"
    assert sol.backend == "highs"  # "auto" names the backend that ran
    text = repr(sol)
    assert len(text) < 300 and "optimal" in text and "HiGHS" not in text and len(sol.log) > 300


# ----------------------------------------------------------------------------- Ctrl-C
@pytest.mark.parametrize("backend", [name for name in ("highs", "scip") if name in AVAILABLE])
def test_sigint_stops_a_highs_solve_and_returns_what_it_had(leduc, backend):
    """The interrupt reaches HiGHS through its callbacks (SCIP through its own signal handler): the solve raises
    SolveInterrupted at once, carrying the incumbent with status 'interrupted'."""
    model = kdet_mip(leduc, 1, 140)
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    began = time.perf_counter()
    timer.start()
    with pytest.raises(SolveInterrupted) as info:
        solve(model, backend)
    assert time.perf_counter() - began < 10
    sol = info.value.solution
    assert sol.status == Status.INTERRUPTED and sol.backend == backend
    if sol.values:
        assert sol.violation <= 1e-6 and sol.objective_bound >= sol.objective - 1e-9


@pytest.mark.parametrize(
    "backend",
    ["highs", pytest.param("cvxpy:HIGHS", marks=pytest.mark.slow)],
)
def test_ctrl_c_stops_kdet_in_the_cli_with_exit_130(backend):
    """`gamelp kdet leduc --player 1 --k 140` ran 522 s after SIGINT before the interrupt callback (on cvxpy:HIGHS,
    still running 60 s after it before cvxpy's HiGHS checked gamelp's flag)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "gamelp.cli", "--log-level", "INFO", "kdet", "leduc", "--player", "1", "--k", "140"]
        + ["--backend", backend],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    started = ""
    while "solving leduc_kdet140_pl1" not in started and process.poll() is None:
        started = process.stderr.readline()  # the solve path logs before it hands the model to the solver
    assert f"on {backend}" in started, started
    time.sleep(1.0)
    assert process.poll() is None, process.communicate()
    process.send_signal(signal.SIGINT)
    began = time.perf_counter()
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert time.perf_counter() - began < 5
    assert "interrupted" in err and "Traceback" not in err
    assert len([line for line in err.splitlines() if "interrupted" in line]) == 1, err


@contextlib.contextmanager
def sigint_once_solving(delay: float):
    """SIGINT to this process ``delay`` s after the solve path logs that it hands the model to the solver.

    Yields the list the time of the signal is appended to.  A solve still running 60 s later is a hang: the
    process is stopped with its tracebacks (``faulthandler``), never left to run on.
    """
    logger = logging.getLogger("gamelp.backends")
    sent: list[float] = []

    def fire() -> None:
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    class Starter(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.getMessage().startswith("solving") and not timers:
                timers.append(threading.Timer(delay, fire))
                timers[0].start()

    timers: list[threading.Timer] = []
    handler, level = Starter(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    faulthandler.dump_traceback_later(60 + delay, exit=True)
    try:
        yield sent
    finally:
        faulthandler.cancel_dump_traceback_later()
        logger.removeHandler(handler)
        logger.setLevel(level)
        for timer in timers:
            timer.cancel()


def interrupted_soon(model: Model, backend: str, delay: float = 0.5, **options):
    """The solution SolveInterrupted carries when Ctrl-C comes ``delay`` s into a solve, once it came within 15 s."""
    with sigint_once_solving(delay) as sent, pytest.raises(SolveInterrupted) as info:
        solve(model, backend, **options)
    assert sent and time.perf_counter() - sent[0] < 15  # a hang ran on past 40 s; a loaded machine is slower
    sol = info.value.solution
    assert sol.status == Status.INTERRUPTED and sol.backend == backend
    return sol


# The MIP backends beyond highs and scip (tested above), each stopped its own way (docs/guide/backends.md).
OTHER_MIP_BACKENDS = [name for name in MIP_BACKENDS if name not in ("highs", "scip")]


@pytest.mark.parametrize(
    "backend",
    [pytest.param(name, marks=() if name == "cvxpy:HIGHS" else pytest.mark.slow) for name in OTHER_MIP_BACKENDS],
)
def test_sigint_stops_a_mip_on_every_backend_with_its_incumbent_and_bound(leduc, backend):
    """Ctrl-C on pyomo:highs was 'no solution (error)'; on cvxpy:HIGHS it still ran 60 s later."""
    sol = interrupted_soon(kdet_mip(leduc, 1, 120), backend)
    if sol.values:  # the incumbent, where the interface hands it on (not Pyomo's appsi_highs)
        assert sol.violation <= 1e-6 and sol.objective_bound >= sol.objective - 1e-9
    if backend != "pyomo:appsi_highs":
        assert sol.values and sol.objective_bound is not None


@pytest.mark.parametrize(
    "backend", [name for name in LP_BACKENDS if not AVAILABLE[name].capabilities.mip and name.startswith("cvxpy:")]
)
def test_sigint_stops_an_lp_on_every_lp_only_backend(backend):
    """Ctrl-C on cvxpy:CLARABEL, SCS and ECOS was a failure ('error', 'optimal_inaccurate') or no stop at all."""
    # SCS reaches its default accuracy on this LP in about a second: asked for more, it is still running at 0.3 s.
    options = {"eps_abs": 1e-14, "eps_rel": 1e-14, "max_iters": 10**7} if backend == "cvxpy:SCS" else {}
    sol = interrupted_soon(sequence_form_lp(load_game("leduc:13x4"), 1), backend, delay=0.3, **options)
    assert sol.values == {} and sol.objective is None  # an LP stopped early vouches for no point


def test_scs_stopped_by_its_time_limit_says_so():
    """SCS at its time limit says 'solved (inaccurate - reached time_limit_secs)': cvxpy's optimal_inaccurate."""
    if "cvxpy:SCS" not in AVAILABLE:
        pytest.skip("cvxpy:SCS is not installed")
    sol = solve(sequence_form_lp(load_game("leduc:13x4"), 1), "cvxpy:SCS", time_limit=0.2)
    assert sol.status == Status.TIME_LIMIT and sol.values == {}


# ----------------------------------------------------------------------------- auto and the registry
def test_auto_picks_highs_for_lps_and_clarabel_for_cones():
    lp = Model("lp")
    x = lp.add_variables("x", 2, lb=0, ub=1)
    lp.set_objective({x: [1, 2]}, sense="max")
    assert lp.solve().backend == "highs"
    ball = Model("ball")
    y = ball.add_variables("y", 2, lb=-np.inf)
    ball.add_cone("unit", {y: np.vstack([np.zeros(2), np.eye(2)])}, constant=[1.0, 0.0, 0.0])
    ball.set_objective({y: [3, 4]}, sense="max")
    sol = ball.solve()
    assert sol.backend == "cvxpy:CLARABEL" and sol.objective == pytest.approx(5.0, abs=1e-7)


def test_backends_command_lists_installed_and_missing_backends_with_capabilities():
    out = subprocess.run(
        [sys.executable, "-m", "gamelp.cli", "backends", "--json"], capture_output=True, text=True, check=True
    ).stdout
    rows = {row["name"]: row for row in json.loads(out)}
    assert rows["highs"]["installed"] and "MIP" in rows["highs"]["capabilities"]
    assert "SOC" not in rows["highs"]["capabilities"] and "SOC" in rows["cvxpy:CLARABEL"]["capabilities"]
    assert set(AVAILABLE) == {name for name, row in rows.items() if row["installed"]}


# ----------------------------------------------------------------------------- mutation through methods
def test_set_rhs_and_set_bounds_change_the_cached_form():
    m = Model("toy")
    x = m.add_variables("x", 2, lb=0)
    m.add_constraints("budget", {x: [[1, 1]]}, "<=", 1)
    m.set_objective({x: [1, 2]}, sense="max")
    first = m.matrix_form()
    assert m.matrix_form() is first  # cached
    assert m.solve("highs").objective == pytest.approx(2.0)
    m.set_rhs("budget", 3)
    assert m.matrix_form() is not first and m.solve("highs").objective == pytest.approx(6.0)
    m.set_bounds("x", ub=[np.inf, 1])
    assert m.solve("highs").objective == pytest.approx(4.0)
    with pytest.raises(ValueError):
        m.constraints["budget"].rhs[:] = 5  # blocks are read-only: the cache cannot go stale behind our back


# ----------------------------------------------------------------------------- the command line
def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gamelp.cli", *args], capture_output=True, text=True, timeout=120)


def test_mwu_with_an_overflowing_step_is_refused_not_printed_as_nan():
    """`--method mwu --eta 1e308` printed `value NaN` with exit 0."""
    done = run_cli("solve", "kuhn", "--method", "mwu", "--eta", "3e307")
    assert done.returncode == 2 and done.stdout == ""
    assert error_lines(done.stderr) == [
        "gamelp: error: mwu diverged: the strategies became non-finite by iteration 10 "
        "(overflow); try a smaller step size eta"
    ]  # found at the first gap check (every 10 iterations)
    # Kuhn's sequence-form payoffs (chance-weighted) range up to 1/3: a step of 1e308 relative to it overflows.
    done = run_cli("solve", "kuhn", "--method", "mwu", "--eta", "1e308")
    assert done.returncode == 2 and done.stdout == ""
    assert error_lines(done.stderr) == [
        "gamelp: error: the step size eta = 1e+308 overflows on this game's payoff range 0.333333"
    ]


def test_time_limited_lp_in_the_cli_is_an_error_not_a_value():
    done = run_cli("solve", "leduc", "--time-limit", "1e-9")
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "time_limit" in done.stderr


def test_time_limited_kdet_in_the_cli_reports_its_incumbent_and_gap():
    done = run_cli("kdet", "leduc", "--player", "1", "--k", "140", "--time-limit", "2", "--json")
    assert done.returncode == 0, done.stderr
    [row] = json.loads(done.stdout)
    assert row["k"] == 140 and row["mip_gap"] > 1e-3 and row["value"] < -0.0856  # below the LP value: a real gap


@pytest.mark.slow
def test_robust_ellipsoidal_needs_no_backend_and_names_the_one_that_ran():
    """It used to refuse with "HiGHS cannot take cones"."""
    csv = str(Path(__file__).resolve().parents[2] / "games" / "data" / "esche_8c_payoffs.csv")
    done = run_cli("matrix", "solve", csv, "--robust", "ellipsoidal", "--radius", "1", "--std", csv, "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["backend"] == "cvxpy:CLARABEL" and out["status"] == "optimal"
    nominal = json.loads(run_cli("matrix", "solve", csv, "--json").stdout)
    assert nominal["backend"] == "highs" and out["value"] < nominal["value"]  # robustness costs value

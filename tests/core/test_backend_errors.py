"""The cvxpy and Pyomo backends turn the errors their libraries raise into one-line BackendErrors, and only those:
an error of gamelp's own code still surfaces as itself."""

from __future__ import annotations

import pytest

from gamelp.backends import solve
from gamelp.errors import BackendError
from gamelp.model import Model

pytest.importorskip("cvxpy")
pytest.importorskip("pyomo.environ")

from gamelp.backends import cvxpy as cvxpy_backend
from gamelp.backends import pyomo as pyomo_backend


def small_lp() -> Model:
    model = Model("small")
    model.add_variables("x", 2, ub=1.0)
    model.set_objective({"x": [1.0, 2.0]}, sense="max")
    return model


def test_a_pyomo_failure_is_one_line_naming_the_model(monkeypatch):
    from pyomo.common.errors import ApplicationError

    def fail(*args, **kwargs):
        raise ApplicationError("Solver (highs) did not exit normally")

    monkeypatch.setattr(pyomo_backend.PyomoBackend, "_contrib", fail)
    with pytest.raises(
        BackendError,
        match=r"^backend pyomo:highs failed on model 'small': ApplicationError: Solver \(highs\) did not exit",
    ):
        solve(small_lp(), "pyomo:highs")


def test_a_bug_under_pyomo_is_not_reported_as_a_failed_solve(monkeypatch):
    def bug(*args, **kwargs):
        raise ZeroDivisionError("a bug in gamelp")

    monkeypatch.setattr(pyomo_backend.PyomoBackend, "_contrib", bug)
    with pytest.raises(ZeroDivisionError):
        solve(small_lp(), "pyomo:highs")


def test_cvxpy_status_falls_back_when_the_solver_object_has_no_status():
    class NoStatus:  # what cvxpy's extra_stats is for most solvers: no Gurobi Status attribute
        pass

    class Stats:
        extra_stats = NoStatus()

    class Problem:
        solver_stats = Stats()
        status = "optimal"

    assert cvxpy_backend._status(Problem(), cvxpy_backend.Options()) == cvxpy_backend.Status.OPTIMAL
    assert cvxpy_backend._bound(Problem(), maximize=True) is None

"""Issue 45, items 1 and 6: hostile numbers are refused by the model and the options, before any backend.

One regression test per probe bullet: each solved (or crashed) differently on
each backend before; now each is one ModelError or OptionError line naming
the block or option and the entry, raised when the block is added or the
solve asked.  Further: a solver's "optimal" without an answer is an error with
a reason, and an exception from a solver library becomes one BackendError
line naming the backend, while a bug in gamelp's own code still surfaces as
itself.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import scipy.sparse as sp

from gamelp import available_backends
from gamelp.backends import solve
from gamelp.backends.base import Options, RawResult, finish
from gamelp.errors import BackendError, GamelpError, ModelError, OptionError
from gamelp.model import Model
from gamelp.solution import Status

AVAILABLE = [b.name for b in available_backends()]
NAN, INF = np.nan, np.inf


def small(lb=0.0, ub=1.0, coefficients=((1.0, 1.0),), rhs=1.5, costs=(1.0, 2.0), size=2, kind="continuous") -> Model:
    """max x0 + 2 x1 subject to x0 + x1 <= 1.5, 0 <= x <= 1: optimum 2.5 (2 for integers)."""
    model = Model("small")
    x = model.add_variables("x", size, lb=lb, ub=ub, kind=kind)
    model.add_constraints("row", {x: coefficients}, "<=", rhs)
    model.set_objective({x: np.asarray(costs)}, sense="max")
    return model


def refused(error: type[GamelpError], pattern: str, build) -> str:
    """The one-line message of the ``error`` that ``build()`` raises, checked against ``pattern``."""
    with pytest.raises(error, match=pattern) as caught:
        build()
    message = str(caught.value)
    assert "\n" not in message
    return message


# ---------------------------------------------------------------- bullet 1: a NaN in the objective
def test_a_nan_objective_is_refused_when_set():
    """It was solved on highs and pyomo:appsi_highs as 'optimal' with objective None and no values."""
    refused(ModelError, r"^objective coefficients of 'x': entry 1 is nan", lambda: small(costs=(1.0, NAN)))
    model = small()
    refused(ModelError, r"constant: entry 0 is nan", lambda: model.set_objective({"x": [1, 2]}, constant=NAN))


def test_an_optimal_status_without_an_answer_is_an_error_with_a_reason():
    form = small().matrix_form()
    status, fields = finish(form, RawResult(Status.OPTIMAL, x=None, objective=None))
    assert status == Status.ERROR and fields["reason"] == "the solver said optimal but returned no point"
    status, fields = finish(form, RawResult(Status.OPTIMAL_INACCURATE, x=None, objective=None))
    assert status == Status.OPTIMAL_INACCURATE and fields["reason"] == ""  # no optimum claimed: as before
    status, fields = finish(form, RawResult(Status.OPTIMAL, x=np.array([0.5, 1.0]), objective=NAN))
    assert status == Status.ERROR and "no finite objective" in fields["reason"] and fields["x"] is None
    status, fields = finish(form, RawResult(Status.OPTIMAL, x=np.array([0.5, 1.0]), objective=2.5))
    assert status == Status.OPTIMAL and fields["reason"] == ""


# ---------------------------------------------------------------- bullet 2: NaN or inf coefficients, bounds, rhs
@pytest.mark.parametrize(
    ("build", "pattern"),
    [
        (lambda: small(coefficients=((1.0, NAN),)), r"^constraint block 'row': .*block 'x': entry \[0, 1\] is nan"),
        (lambda: small(coefficients=((INF, 1.0),)), r"^constraint block 'row': .*block 'x': entry \[0, 0\] is inf"),
        (lambda: small(coefficients=sp.csr_matrix([[1.0, -INF]])), r"'row'.*'x': entry \[0, 1\] is -inf"),
        (lambda: small(rhs=NAN), r"^constraint block 'row' rhs: entry 0 is nan"),
        (
            lambda: small(rhs=-INF),
            r"^constraint block 'row' rhs: entry 0 is -inf, not a finite number \(\+inf for none\)",
        ),
        (lambda: small(lb=[0.0, NAN]), r"^variable block 'x' lower bounds: entry 1 is nan"),
        (lambda: small(ub=[NAN, 1.0]), r"^variable block 'x' upper bounds: entry 0 is nan"),
    ],
)
def test_nan_and_inf_entries_are_refused_naming_block_and_entry(build, pattern):
    """Before: a ValueError (cvxpy), a GurobiError, an IndexError (pyomo:appsi_highs), HiGHS's refusal, or a NaN
    lower bound read as 'unbounded' (pyomo:appsi_highs)."""
    refused(ModelError, pattern, build)


def test_changed_rhs_and_bounds_are_checked_too():
    model = small()
    refused(ModelError, r"^constraint block 'row' rhs: entry 0 is nan", lambda: model.set_rhs("row", [NAN]))
    refused(ModelError, r"^variable block 'x' upper bounds: entry 1 is nan", lambda: model.set_bounds("x", ub=[1, NAN]))
    refused(ModelError, r"^variable block 'x': entry 0 has lower bound 2.0 above", lambda: model.set_bounds("x", lb=2))
    assert model.variables["x"].lb.tolist() == [0.0, 0.0]  # a refused change leaves the block as it was


# ---------------------------------------------------------------- bullet 3: infinite bounds the wrong way, lb > ub
def test_an_infinite_lower_bound_above_or_upper_bound_below_is_refused():
    """A lower bound of +inf was 'unbounded' on cvxpy and Pyomo, refused by HiGHS."""
    refused(ModelError, r"lower bounds: entry 0 is inf, not a finite number \(-inf for none\)", lambda: small(lb=INF))
    refused(
        ModelError,
        r"upper bounds: entry 1 is -inf, not a finite number \(\+inf for none\)",
        lambda: small(ub=[1, -INF]),
    )


def test_a_lower_bound_above_the_upper_is_refused():
    """It was a traceback on cvxpy and 'infeasible' on highs."""
    refused(
        ModelError, r"^variable block 'x': entry 1 has lower bound 3.0 above upper bound 1.0", lambda: small(lb=[0, 3])
    )
    refused(
        ModelError, r"entry 0 has lower bound 2.0 above upper bound 1.0 \(a binary", lambda: small(lb=2, kind="binary")
    )


def test_the_infinities_a_bound_may_take_are_still_taken():
    free = small(lb=-INF, ub=[1.0, INF])
    assert free.variables["x"].lb.tolist() == [-INF, -INF] and free.variables["x"].ub.tolist() == [1.0, INF]
    assert free.solve("highs").status == Status.UNBOUNDED
    assert small(lb=-INF).solve("highs").objective == pytest.approx(2.5)


# ---------------------------------------------------------------- bullet 4: complex numbers, sizes, dimensions
@pytest.mark.parametrize(
    ("build", "pattern"),
    [
        (lambda: small(costs=(1 + 2j, 2.0)), r"^objective coefficients of 'x': entry 0 is a complex number"),
        (lambda: small(coefficients=((1.0, 1j),)), r"^constraint block 'row': .*entry \[0, 1\] is a complex number"),
        (lambda: small(coefficients=sp.csr_matrix([[1.0, 2j]])), r"'row'.*entry \[0, 1\] is a complex number"),
        (lambda: small(rhs=[1.5 + 0.5j]), r"^constraint block 'row' rhs: entry 0 is a complex number"),
        (lambda: small(lb=-1j), r"^variable block 'x' lower bounds: entry 0 is a complex number"),
        (lambda: small(ub=[1, 1 - 1j]), r"^variable block 'x' upper bounds: entry 1 is a complex number"),
    ],
)
def test_complex_numbers_are_refused(build, pattern):
    """They were accepted and solved, the imaginary part dropped silently."""
    refused(ModelError, pattern, build)


@pytest.mark.parametrize("size", [2.7, -1, "2", True, np.nan])
def test_a_block_size_that_is_not_a_whole_number_is_refused(size):
    """2.7 was read as 2."""
    refused(ModelError, r"^variable block 'x': size must be a whole number >= 0, got ", lambda: small(size=size))


def test_whole_sizes_of_any_numeric_type_are_taken():
    for size in (2, 2.0, np.int64(2)):
        assert small(size=size).variables["x"].size == 2


@pytest.mark.parametrize(
    ("build", "pattern"),
    [
        (
            lambda: small(coefficients=np.ones((1, 2, 1))),
            r"^constraint block 'row': .*expected a matrix, got .*\(1, 2, 1\)",
        ),
        (lambda: small(costs=np.ones((1, 1, 2))), r"^objective coefficients of 'x': expected a vector of 2 values"),
        (lambda: small(size=4, costs=np.ones((2, 2)), coefficients=np.ones((1, 4))), r"shape \(2, 2\)"),
    ],
)
def test_arrays_of_the_wrong_dimension_are_refused(build, pattern):
    """A 3-D coefficient array was a scipy traceback."""
    refused(ModelError, pattern, build)


def test_complex_numbers_with_no_imaginary_part_are_read_as_real():
    model = small(costs=np.array([1.0, 2.0], dtype=complex), coefficients=sp.csr_matrix([[1.0 + 0j, 1.0]]))
    assert model.solve("highs").objective == pytest.approx(2.5)


def test_rows_columns_and_nested_tuples_are_still_read():
    a = small(coefficients=((1.0, 1.0),), rhs=np.array([[1.5]]), costs=np.array([[1.0], [2.0]]))
    b = small(coefficients=sp.csr_matrix([[1.0, 1.0]]))
    for model in (a, b):
        assert model.solve("highs").objective == pytest.approx(2.5)


@pytest.mark.parametrize("backend", AVAILABLE)
@pytest.mark.parametrize(
    ("start", "pattern"),
    [
        ({"x": [1, 0, 0]}, r"^option start\['x'\]: expected 2 values, got 3$"),
        ({"y": [1, 0]}, r"^option start: model 'small' has no variable block 'y'; the blocks: x$"),
        ({"x": [NAN, 0]}, r"^option start\['x'\]: entry 0 is nan"),
        ([1, 0], r"^option start must map variable block names to values"),
    ],
)
def test_a_bad_start_is_refused_on_every_backend(backend, start, pattern):
    """A start of the wrong length was a numpy broadcast traceback."""
    refused(OptionError, pattern, lambda: solve(small(), backend, start=start))


@pytest.mark.parametrize("backend", AVAILABLE)
@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("time_limit", NAN),
        ("time_limit", -1.0),
        ("time_limit", INF),
        ("mip_gap", NAN),
        ("mip_gap", -0.1),
        ("mip_abs_gap", INF),
        ("threads", 1.5),
        ("threads", 0),
        ("threads", True),
        ("time_limit", "10"),
    ],
)
def test_bad_shared_options_are_refused_on_every_backend(backend, option, value):
    """time_limit=nan and mip_gap=nan were accepted and ignored (on gurobi mip_gap=nan stopped a MIP at 1, not 2)."""
    refused(
        OptionError,
        rf"^option {option} must be a (finite|whole) number >= \d, got ",
        lambda: solve(small(), backend, **{option: value}),
    )


def test_options_in_range_are_taken():
    options = Options(time_limit=0.0, mip_gap=0, mip_abs_gap=1e-9, threads=np.int64(2), start=np.zeros(2))
    assert options.threads == 2
    assert solve(small(kind="integer", ub=3), "highs", time_limit=10, mip_gap=0.0, start={"x": [1, 0]}).objective == 2.0


@pytest.mark.parametrize("backend", AVAILABLE)
def test_an_empty_model_is_refused_with_a_reason(backend):
    """It was status 'error' with no reason (highs, pyomo), or 'optimal' with objective 0 (gurobi, scip)."""
    refused(
        ModelError,
        r"^model 'empty' has no variables: there is nothing to solve$",
        lambda: solve(Model("empty"), backend),
    )


# ---------------------------------------------------------------- past the checks: the solvers' own answers
def nan_cost_past_the_checks() -> Model:
    """A model whose cached flat form has a NaN cost, as if one had slipped past the model's checks."""
    model = small()
    form = model.matrix_form()
    costs = form.c.copy()
    costs[0] = NAN
    model._form = dataclasses.replace(form, c=costs)
    return model


@pytest.mark.parametrize("backend", [b for b in ("highs", "pyomo:appsi_highs", "scip") if b in AVAILABLE])
def test_a_solvers_optimal_without_an_objective_is_an_error_with_a_reason(backend):
    """These solvers call the NaN-cost model 'optimal' and give no objective: it used to be shown as optimal."""
    sol = solve(nan_cost_past_the_checks(), backend)
    assert sol.status == Status.ERROR and sol.objective is None and sol.values == {}
    assert sol.reason == "the solver said optimal but returned no finite objective (it said nan)"


@pytest.mark.parametrize(
    ("backend", "pattern"),
    [
        # cvxpy 1.7 passes the NaN on (SCS: "ScsWork allocation error!"); later releases refuse it themselves.
        ("cvxpy:SCS", r"^backend cvxpy:SCS failed on model 'small': ValueError: "),
        ("cvxpy:HIGHS", r"^backend cvxpy:HIGHS failed on model 'small': ValueError: "),
        ("gurobi", r"^backend gurobi failed on model 'small': GurobiError: Linear coefficients include NaN"),
    ],
)
def test_an_exception_from_a_solver_library_is_one_backend_error_naming_the_backend(backend, pattern):
    """cvxpy's ValueError and gurobipy's GurobiError were tracebacks."""
    if backend not in AVAILABLE:
        pytest.skip(f"{backend} is not installed")
    try:
        sol = solve(nan_cost_past_the_checks(), backend)
    except BackendError:
        refused(BackendError, pattern, lambda: solve(nan_cost_past_the_checks(), backend))
    else:  # cvxpy 1.7 hands HiGHS the NaN, which answers: never an optimum then
        assert backend == "cvxpy:HIGHS" and sol.status not in (Status.OPTIMAL, Status.OPTIMAL_INACCURATE), sol


def in_module(module: str, source: str):
    """The function ``source`` defines, compiled as if it were code of ``module`` (a library's, here)."""
    namespace: dict = {"__name__": module}
    exec(source, namespace)
    return next(value for key, value in namespace.items() if callable(value) and not key.startswith("__"))


@pytest.mark.skipif("pyomo:appsi_highs" not in AVAILABLE, reason="pyomo:appsi_highs is not installed")
def test_an_index_error_inside_pyomo_is_a_backend_error(monkeypatch):
    """pyomo:appsi_highs raised an IndexError from inside Pyomo for an infinite coefficient."""
    from pyomo.contrib.appsi.solvers import highs as appsi_highs

    fails = in_module(
        appsi_highs.__name__, "def solve(*args, **kwargs):\n    raise IndexError('list index out of range')"
    )
    monkeypatch.setattr(appsi_highs.Highs, "solve", fails)
    refused(
        BackendError,
        r"^backend pyomo:appsi_highs failed on model 'small': IndexError: list index out of range$",
        lambda: solve(small(), "pyomo:appsi_highs"),
    )


@pytest.mark.skipif("cvxpy:CLARABEL" not in AVAILABLE, reason="cvxpy:CLARABEL is not installed")
def test_a_bug_in_gamelp_during_a_solve_is_not_masked(monkeypatch):
    """A ValueError raised by gamelp's own code after the library returned (reading its status) is gamelp's."""
    from gamelp.backends import cvxpy as cvxpy_backend

    def bug(*args, **kwargs):
        raise ValueError("a bug in gamelp")

    monkeypatch.setattr(cvxpy_backend, "_status", bug)
    with pytest.raises(ValueError, match="a bug in gamelp"):
        solve(small(), "cvxpy:CLARABEL")


def test_a_bug_in_a_call_gamelp_makes_into_numpy_is_not_masked(monkeypatch):
    from gamelp.backends import highs as highs_backend

    def misuse(*args, **kwargs):
        return np.zeros(2).reshape(3)  # numpy raises: gamelp asked for the impossible

    monkeypatch.setattr(highs_backend, "_highs_lp", misuse)
    with pytest.raises(ValueError, match="cannot reshape"):
        solve(small(), "highs")

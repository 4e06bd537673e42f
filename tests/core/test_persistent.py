"""The model's change log and the persistent HiGHS session: every re-solve equals a fresh solve."""

import copy

import numpy as np
import pytest

from gamelp.backends import available_backends
from gamelp.model import Model
from gamelp.solution import INFEASIBLE, OPTIMAL, TIME_LIMIT

# Another backend solves the same model between persistent HiGHS solves: the first one from the
# registry (not HiGHS) that takes MIPs and gives duals.
OTHERS = [b.name for b in available_backends() if b.name != "highs" and b.capabilities.mip and b.capabilities.duals]


def random_model(seed: int, *, integer: bool = False, magnitude: float = 1.0) -> Model:
    """max c.x over A x <= b, sum x >= floor, 0 <= x <= u: generic data, so primal and dual optima are unique.

    ``magnitude`` multiplies the matrix (1e-7 makes the model one that the solve path rescales).
    """
    rng = np.random.default_rng(seed)
    m = Model(f"random{seed}")
    x = m.add_variables("x", 12, lb=0, ub=rng.uniform(1, 3, 12), kind="integer" if integer else "continuous")
    m.add_constraints("capacity", {x: magnitude * rng.uniform(0.1, 1, (8, 12))}, "<=", magnitude * rng.uniform(3, 6, 8))
    m.add_constraints("floor", {x: np.ones((1, 12))}, ">=", 1.0)
    m.set_objective({x: rng.uniform(1, 2, 12)}, sense="max")
    return m


def modifications(seed: int) -> list:
    """Steps applied to a model in turn; step 4 makes it infeasible, step 5 feasible again."""
    rng = np.random.default_rng(seed + 100)
    return [
        lambda m: m.set_rhs("capacity", m.constraints["capacity"].rhs * rng.uniform(0.6, 1.2, 8)),
        lambda m: m.set_bounds("x", ub=np.where(rng.random(12) < 0.3, 0.0, m.variables["x"].ub)),
        lambda m: m.set_objective({"x": rng.uniform(0.5, 3, 12)}, sense="max", constant=2.0),
        lambda m: m.set_rhs("floor", 1e3),
        lambda m: m.set_rhs("floor", 2.0),
        lambda m: m.set_bounds("x", lb=np.where(rng.random(12) < 0.2, np.minimum(m.variables["x"].ub, 0.5), 0.0)),
        lambda m: m.set_objective({"x": -m.objective["x"]}, sense="min", constant=-2.0),
    ]


def assert_same(got, fresh, exact: bool) -> None:
    """Same status and objective; with ``exact`` (an LP with unique optima) the same values and duals."""
    assert got.status == fresh.status
    if fresh.objective is None:
        assert got.objective is None and not got.values
        return
    assert got.objective == pytest.approx(fresh.objective, rel=1e-7, abs=1e-7)
    if exact:
        for block in fresh.values:
            np.testing.assert_allclose(got.values[block], fresh.values[block], atol=1e-7)
        for kind in ("duals", "reduced_costs"):
            for block, expected in getattr(fresh, kind).items():
                np.testing.assert_allclose(getattr(got, kind)[block], expected, atol=1e-7)


@pytest.mark.parametrize(
    "integer, magnitude", [(False, 1.0), (True, 1.0), (False, 1e-7)], ids=["lp", "mip", "lp-rescaled"]
)
def test_persistent_resolves_equal_fresh_models(integer, magnitude):
    persistent = random_model(3, integer=integer, magnitude=magnitude)
    statuses = []
    for step, (change, replay) in enumerate(zip(modifications(3), modifications(3))):
        change(persistent)
        got = persistent.solve("highs", persistent=True)
        fresh_model = random_model(3, integer=integer, magnitude=magnitude)
        for earlier in modifications(3)[:step]:
            earlier(fresh_model)
        replay(fresh_model)
        assert_same(got, fresh_model.solve("highs"), exact=not integer)
        statuses.append(got.status)
    assert statuses[3] == INFEASIBLE and statuses.count(OPTIMAL) == len(statuses) - 1


def test_the_session_is_kept_through_value_changes_and_rebuilt_after_structural_ones():
    m = random_model(5)
    first = m.solve("highs", persistent=True)
    solver = m.sessions["highs"].solver
    again = m.solve("highs", persistent=True)
    assert again.iterations == 0 and again.objective == first.objective  # warm: the optimal basis is kept
    m.set_rhs("capacity", m.constraints["capacity"].rhs * 0.9)
    changed = m.solve("highs", persistent=True)
    assert m.sessions["highs"].solver is solver
    assert 0 < changed.iterations < first.iterations
    y = m.add_variables("y", 1, lb=0, ub=1)
    m.set_objective({"x": m.objective["x"], y: [5.0]}, sense="max")
    rebuilt = m.solve("highs", persistent=True)
    assert m.sessions["highs"].solver is not solver
    assert rebuilt.objective == pytest.approx(changed.objective + 5.0)
    m.sessions.clear()
    assert m.solve("highs").objective == pytest.approx(rebuilt.objective)


def test_options_apply_to_one_solve_only():
    m = random_model(7)
    m.solve("highs", persistent=True)
    m.set_objective({"x": m.objective["x"][::-1]}, sense="max")  # the old basis is no longer optimal
    assert m.solve("highs", persistent=True, time_limit=0.0).status == TIME_LIMIT
    resumed = m.solve("highs", persistent=True)
    assert resumed.status == OPTIMAL and resumed.iterations > 0
    assert resumed.objective == pytest.approx(m.solve("highs").objective)


@pytest.mark.skipif(not OTHERS, reason="no other MIP backend with duals installed")
@pytest.mark.parametrize("integer", [False, True], ids=["lp", "mip"])
def test_another_backend_in_between_leaves_the_session_right(integer):
    m = random_model(11, integer=integer)
    m.solve("highs", persistent=True)
    for step, change in enumerate(modifications(11)):
        change(m)
        if step % 2 == 0:  # this change reaches HiGHS only with the next one
            other = m.solve(OTHERS[0])
            assert other.status == m.solve("highs").status
            continue
        fresh = random_model(11, integer=integer)
        for earlier in modifications(11)[: step + 1]:  # the same draws as the steps above
            earlier(fresh)
        assert_same(m.solve("highs", persistent=True), fresh.solve("highs"), exact=not integer)


def test_change_log_names_flat_rows_and_columns_and_patches_the_cached_form():
    m = random_model(1)
    form = m.matrix_form()
    start = m.revision
    m.set_rhs("floor", 3.0)
    m.set_bounds("x", ub=5.0)
    changes = m.changes_since(start)
    assert changes.rows.tolist() == [8] and changes.bounds.tolist() == list(range(12))
    assert changes.costs.size == 0 and not changes.objective
    assert m.changes_since(m.revision).rows.size == 0
    m.set_objective({"x": np.ones(12)}, sense="min")
    assert m.changes_since(start).costs.tolist() == list(range(12)) and m.changes_since(start).objective
    patched = m.matrix_form()
    assert patched.A is form.A  # the matrix is not rebuilt for a value change
    assert not any(getattr(patched, name).flags.writeable for name in ("c", "rhs", "col_lb", "col_ub"))
    rebuilt = m._flatten()
    for name in ("c", "rhs", "col_lb", "col_ub", "row_sense"):
        np.testing.assert_array_equal(getattr(patched, name), getattr(rebuilt, name))
    assert patched.maximize == rebuilt.maximize and patched.objective_constant == rebuilt.objective_constant
    m.add_constraints("extra", {"x": np.ones((1, 12))}, "<=", 4.0)
    assert m.changes_since(start) is None and m.changes_since(m.revision) is not None


def test_a_copy_starts_without_the_session_and_leaves_the_original_alone():
    m = random_model(13)
    m.solve("highs", persistent=True)
    twin = copy.deepcopy(m)
    assert twin.sessions == {} and "highs" in m.sessions
    twin.set_rhs("floor", 1e3)
    assert twin.solve("highs", persistent=True).status == INFEASIBLE
    assert m.solve("highs", persistent=True).status == OPTIMAL
    assert m.solve("highs", persistent=True).objective == pytest.approx(m.solve("highs").objective)

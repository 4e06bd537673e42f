"""Mangasarian's test on small LPs whose optimal faces are known, with badly scaled rows and every verdict's
second optimum and direction checked apart from the module (feasibility, objective and face by plain numpy)."""

import re
import warnings
from dataclasses import replace

import numpy as np
import pytest
import scipy.sparse as sp

from gamelp.backends.scaling import scale
from gamelp.errors import ModelError, SolveError
from gamelp.game import SequenceFormGame
from gamelp.matrix import MatrixGame
from gamelp.model import Model
from gamelp.models.nash import solve_matrix_nash
from gamelp.models.uniqueness import (
    UniquenessResult,
    _second_optimum,
    _StandardForm,
    _unit_rows,
    check_game_uniqueness,
    check_uniqueness,
)

SCALES = [(1.0, 1.0), (1e-6, 1e6), (1e6, 1e-6), (1e-6, 1e-6)]


def lp(rows, rhs, c, scales=(1.0, 1.0), lb=0.0, ub=np.inf, sense="min"):
    """min / max c^T x s.t. rows x >= rhs, lb <= x <= ub, with the first two rows multiplied by ``scales``."""
    rows, rhs = np.array(rows, float), np.array(rhs, float)
    for i, s in enumerate(scales):
        rows[i] *= s
        rhs[i] *= s
    model = Model("small")
    x = model.add_variables("x", len(c), lb=lb, ub=ub)
    model.add_constraints("r", {x: rows}, ">=", rhs)
    model.set_objective({x: c}, sense=sense)
    solution = model.solve("highs")
    assert solution.optimal
    return model, solution, rows, rhs


def feasible(point, rows, rhs, lb, ub, tol=1e-9):
    scale = np.abs(rows).max(axis=1)
    return bool(
        np.all(rows @ point >= rhs - tol * scale) and np.all(point >= np.asarray(lb) - tol)
        if np.isinf(ub).all()
        else np.all(rows @ point >= rhs - tol * scale) and np.all(point >= lb - tol) and np.all(point <= ub + tol)
    )


def check_second_optimum(verdict, solution, rows, rhs, c, lb, ub):
    """The second point is feasible, optimal and different; the direction lies in the optimal face."""
    x = solution.values["x"]
    second, d = verdict.second_point["x"], verdict.direction["x"]
    assert np.abs(d).max() == pytest.approx(1.0)  # normalised to a unit largest entry
    assert feasible(second, rows, rhs, lb, ub)
    assert c @ second == pytest.approx(c @ x, abs=1e-9) == pytest.approx(verdict.second_objective, abs=1e-9)
    assert verdict.second_violation < 1e-9
    assert verdict.notes == [] or verdict.notes[0].startswith("the active system has rank")
    assert second == pytest.approx(x + verdict.step * d, abs=1e-12)
    assert c @ d == pytest.approx(0.0, abs=1e-9)  # the objective does not change along d
    for t in np.linspace(0.0, verdict.step, 5):  # the whole segment is optimal and feasible
        assert feasible(x + t * d, rows, rhs, lb, ub)
    return second, d


@pytest.mark.parametrize("scales", SCALES)
def test_unique_vertex_with_scaled_rows(scales):
    # min x1 + x2, x1 + 2 x2 >= 2, 2 x1 + x2 >= 2, x1 >= 0.6 (slack 1/15): the unique optimum (2/3, 2/3).
    model, solution, *_ = lp([[1, 2], [2, 1], [1, 0]], [2, 2, 0.6], [1.0, 1.0], scales)
    verdict = check_uniqueness(model, solution)
    assert solution.values["x"] == pytest.approx([2 / 3, 2 / 3], abs=1e-9)
    assert verdict.unique and verdict.second_point is None
    assert verdict.K == ("r[0]", "r[1]") and verdict.L == ()
    assert verdict.rank == 2 == verdict.num_variables
    # Both duals are 1/3 per unit row: divided by the row's scale.  Rows 1e6 apart are badly scaled: the test
    # then reads the multipliers of the LP balanced as the backends balance it, s * u_i / r_i.
    _, balance = scale(model.matrix_form())
    assert verdict.balanced is (scales != (1.0, 1.0))
    expected = [balance.objective * (1 / 3 / s) / r for s, r in zip(scales, balance.row)]
    assert verdict.smallest_positive_dual == pytest.approx(min(expected), rel=1e-6)
    assert verdict.largest_zero_dual is None and verdict.margin == np.inf
    assert verdict.objective == pytest.approx(4 / 3, abs=1e-9)


@pytest.mark.parametrize("scales", SCALES)
def test_segment_of_optima_through_a_bound_with_scaled_rows(scales):
    # min x1 + x2, x1 + x2 >= 1, x2 - x1 >= -5 (inactive), x >= 0: the optimal face is the segment from (1, 0)
    # to (0, 1); the only zero-multiplier active row is a variable bound, and the step ends at the other bound.
    c = np.array([1.0, 1.0])
    model, solution, rows, rhs = lp([[1, 1], [-1, 1]], [1, -5], c, scales)
    verdict = check_uniqueness(model, solution)
    assert not verdict.unique
    assert verdict.K == ("r[0]",)
    assert len(verdict.L) == 1 and verdict.L[0] in ("x[0] >= 0", "x[1] >= 0")
    assert verdict.largest_zero_dual == pytest.approx(0.0, abs=1e-9)
    assert verdict.direction_lp_value > 1e-3
    second, d = check_second_optimum(verdict, solution, rows, rhs, c, [0, 0], np.array([np.inf, np.inf]))
    x = solution.values["x"]
    # From one end of the segment to the other: step 1 along (1, -1) or (-1, 1).
    assert sorted([tuple(np.round(x, 9)), tuple(np.round(second, 9))]) == [(0.0, 1.0), (1.0, 0.0)]
    assert verdict.step == pytest.approx(1.0, abs=1e-9)
    assert abs(d[0]) == pytest.approx(1.0) and d[0] == pytest.approx(-d[1])


def test_segment_ending_at_an_upper_bound():
    # max x1 s.t. x1 + x2 <= 3 (as -x1 - x2 >= -3), 0 <= x1 <= 1, 0 <= x2 <= 0.5: x2 is free on [0, 0.5].
    c = np.array([1.0, 0.0])
    model, solution, rows, rhs = lp([[-1, -1], [0, 0]], [-3, -1], c, lb=0.0, ub=[1.0, 0.5], sense="max")
    verdict = check_uniqueness(model, solution)
    assert not verdict.unique
    x = solution.values["x"]
    assert x[0] == pytest.approx(1.0)
    second, d = check_second_optimum(verdict, solution, rows, rhs, c, np.zeros(2), np.array([1.0, 0.5]))
    assert d[0] == pytest.approx(0.0, abs=1e-12) and abs(d[1]) == pytest.approx(1.0)
    assert verdict.step == pytest.approx(0.5, abs=1e-9)  # the largest step: one bound to the other
    assert {round(x[1], 9), round(second[1], 9)} == {0.0, 0.5}
    beyond = x + (verdict.step + 1e-3) * d
    assert not feasible(beyond, rows, rhs, np.zeros(2), np.array([1.0, 0.5]))
    assert verdict.second_objective == pytest.approx(1.0, abs=1e-12)
    assert any("<= 0.5" in name or ">= 0" in name for name in verdict.L)


def test_rank_deficient_direction_is_the_null_space_of_the_active_rows():
    # min x1 + 2 x2 + 3 x3 s.t. x1 + 2 x2 + 3 x3 >= 6, free: a plane of optima; rank 1 of 3.
    c = np.array([1.0, 2.0, 3.0])
    model = Model("plane")
    x = model.add_variables("x", 3, lb=-np.inf)
    model.add_constraints("cover", {x: c[None, :]}, ">=", 6.0)
    model.set_objective({x: c})
    solution = model.solve("highs")
    verdict = check_uniqueness(model, solution)
    assert verdict.rank == 1 and not verdict.unique
    d = verdict.direction["x"]
    assert c @ d == pytest.approx(0.0, abs=1e-12)  # in the null space of the active row, so on the face
    assert np.abs(d).max() == pytest.approx(1.0)
    assert verdict.step == 1.0
    assert c @ verdict.second_point["x"] == pytest.approx(6.0, abs=1e-9)
    assert verdict.second_objective == pytest.approx(6.0, abs=1e-9)


def test_dual_sign_and_tolerances_decide_k_and_l():
    # min x1 + 1e-5 x2, x1 + x2 >= 1, x >= 0: the optimum (0, 1) is unique, the bound x1 >= 0 has multiplier
    # 1 - 1e-5 and the row 1e-5.
    c = np.array([1.0, 1e-5])
    model, solution, *_ = lp([[1, 1], [0, 0]], [1, -1], c)
    assert solution.values["x"] == pytest.approx([0.0, 1.0], abs=1e-9)
    default = check_uniqueness(model, solution)
    assert default.unique and set(default.K) == {"r[0]", "x[0] >= 0"}
    assert default.smallest_positive_dual == pytest.approx(1e-5, rel=1e-6)
    # With tolerance 1e-4 the row's multiplier counts as zero: x2 may then grow along the row, which costs 1e-5
    # per unit; the verdict turns, and its second point's objective shows the misjudged multiplier.
    loose = check_uniqueness(model, solution, tolerance=1e-4)
    assert loose.K == ("x[0] >= 0",) and loose.L == ("r[0]",)
    assert loose.largest_zero_dual == pytest.approx(1e-5, rel=1e-6)
    assert loose.margin == pytest.approx((1 - 1e-5) / 1e-5, rel=1e-6)
    assert not loose.unique and loose.direction["x"] == pytest.approx([0.0, 1.0], abs=1e-12)
    assert loose.second_objective == pytest.approx(1e-5 + 1e-5 * loose.step, rel=1e-6)
    zero = check_uniqueness(model, solution, tolerance=2.0)
    assert zero.K == () and set(zero.L) == {"r[0]", "x[0] >= 0"}
    assert zero.smallest_positive_dual is None and zero.margin is None
    assert not zero.unique


def test_activity_tolerance_decides_what_is_active():
    # min x1 + x2, x1 + 2 x2 >= 2, 2 x1 + x2 >= 2, x1 >= 0.6 has slack 1/15 at the optimum.
    model, solution, *_ = lp([[1, 2], [2, 1], [1, 0]], [2, 2, 0.6], [1.0, 1.0])
    assert "r[2]" not in check_uniqueness(model, solution).L
    wide = check_uniqueness(model, solution, activity_tolerance=0.1)  # 1/15 <= 0.1 * 1.6
    assert "r[2]" in wide.L and wide.activity_tolerance == 0.1
    narrow = check_uniqueness(model, solution, activity_tolerance=0.04)  # 1/15 > 0.04 * 1.6
    assert "r[2]" not in narrow.L


@pytest.mark.parametrize("player", ["row", "col"])
def test_blocks_question_ignores_the_value_variable(player):
    # Matching pennies with a weakly dominated third row: the row player's optimum is a segment in x, the
    # column player's is unique; with blocks=("x",) the verdict is about the mix only.
    game = MatrixGame([[1.0, -1.0], [-1.0, 1.0], [0.0, 0.0]])
    result = solve_matrix_nash(game, player)
    verdict = check_uniqueness(result.model, result.solution, blocks=("x",))
    assert verdict.blocks == ("x",)
    if player == "col":
        assert verdict.unique and verdict.direction_lp_value <= 1e-7
        return
    assert not verdict.unique
    x, second, d = result.solution.values["x"], verdict.second_point["x"], verdict.direction["x"]
    assert second.sum() == pytest.approx(1.0) and second.min() >= -1e-12
    assert (game.payoffs.T @ second).min() >= -1e-9  # still guarantees the value 0
    assert np.abs(second - x).max() > 1e-3
    assert d.sum() == pytest.approx(0.0, abs=1e-9)
    # Weight moves between the mix of the first two rows and the third: d is along (1, 1, -2) up to sign.
    assert d[0] == pytest.approx(d[1], abs=1e-9) and d[2] == pytest.approx(-2 * d[0], abs=1e-9)


def test_margin_is_the_ratio_of_the_two_classes():
    result = UniquenessResult(True, 1e-7, 1e-7, 3e-3, 2e-6, (), (), 0, 0, 0, 0.0)
    assert result.margin == pytest.approx(1500.0)
    assert UniquenessResult(True, 1e-7, 1e-7, 3e-3, 0.0, (), (), 0, 0, 0, 0.0).margin == np.inf
    assert UniquenessResult(True, 1e-7, 1e-7, None, 1e-9, (), (), 0, 0, 0, 0.0).margin is None


def test_a_less_or_equal_row_with_zero_multiplier_lets_the_optimum_move():
    # max x1 s.t. x1 <= 1, x2 <= 0 (rows), -1 <= x2: x2 can fall to its bound; the row x2 <= 0 is active with
    # multiplier 0, so its sign decides which way the optimum may move.
    model = Model("le_rows")
    x = model.add_variables("x", 2, lb=[-np.inf, -1.0])
    model.add_constraints("cap", {x: [[1.0, 0.0], [0.0, 1.0]]}, "<=", [1.0, 0.0])
    model.set_objective({x: [1.0, 0.0]}, sense="max")
    solution = model.solve("highs")
    assert solution.values["x"] == pytest.approx([1.0, 0.0], abs=1e-9)
    verdict = check_uniqueness(model, solution)
    assert not verdict.unique and verdict.K == ("cap[0]",) and verdict.L == ("cap[1]",)
    assert verdict.direction["x"] == pytest.approx([0.0, -1.0], abs=1e-12)
    assert verdict.step == pytest.approx(1.0) and verdict.second_point["x"] == pytest.approx([1.0, -1.0])
    assert verdict.second_violation == 0.0 and verdict.second_objective == pytest.approx(1.0)
    assert verdict.notes == []


def test_objective_constant_is_part_of_both_objectives():
    model = Model("constant")
    x = model.add_variables("x", 2, lb=0.0)
    model.add_constraints("cover", {x: [[1.0, 1.0]]}, ">=", 1.0)
    model.set_objective({x: [1.0, 1.0]}, constant=5.0)
    solution = model.solve("highs")
    verdict = check_uniqueness(model, solution)
    assert verdict.objective == pytest.approx(6.0) and verdict.second_objective == pytest.approx(6.0, abs=1e-9)
    assert "second optimum at step 1, objective 6 (first 6)" in verdict.summary()
    assert "verdict: NOT unique" in verdict.summary() and "(blocks" not in verdict.summary()


def test_a_block_that_is_unique_while_another_is_not():
    # min x s.t. x >= 1, with y in [0, 1] absent from everything: x is unique, y is anywhere in [0, 1].
    model = Model("two_blocks")
    x = model.add_variables("x", 1, lb=-np.inf)
    y = model.add_variables("y", 1, lb=0.0, ub=1.0)
    model.add_constraints("floor", {x: [[1.0]]}, ">=", 1.0)
    model.set_objective({x: [1.0], y: [0.0]})
    solution = model.solve("highs")
    assert check_uniqueness(model, solution, blocks=("x",)).unique
    assert check_uniqueness(model, solution, blocks=("x",)).direction_lp_value == 0.0
    whole = check_uniqueness(model, solution)
    assert not whole.unique and whole.direction["x"] == pytest.approx([0.0]) and abs(whole.direction["y"][0]) == 1
    on_y = check_uniqueness(model, solution, blocks=("y",), seed=3)
    assert not on_y.unique
    # The direction LP over the box |d| <= 1 maximises w_y |d_y| with the seeded weight w_y of variable 1.
    w_y = np.random.default_rng(3).uniform(0.5, 1.5, 2)[1]
    assert on_y.direction_lp_value == pytest.approx(w_y, rel=1e-9)
    assert on_y.second_point["y"][0] == pytest.approx(1.0 - solution.values["y"][0])
    assert "verdict: NOT unique (blocks y)" in on_y.summary()
    text = check_uniqueness(model, solution, blocks=("x",)).summary()
    assert "verdict: the optimum is unique (blocks x)" in text
    assert "smallest counted positive: 1, largest counted zero: 0" in text
    with pytest.raises(ModelError, match="z"):
        check_uniqueness(model, solution, blocks=("z",))


def test_unique_vertex_reports_a_zero_direction_value_and_no_notes():
    model, solution, *_ = lp([[1, 2], [2, 1]], [2, 2], [1.0, 1.0])
    verdict = check_uniqueness(model, solution)
    assert verdict.unique and verdict.L == () and verdict.direction_lp_value == 0.0 and verdict.notes == []
    summary = verdict.to_dict()
    assert summary["K"] == 2 and summary["L"] == [] and summary["rank"] == 2 and summary["variables"] == 2
    assert summary["direction"] is None and summary["blocks"] is None
    assert "smallest counted positive: 0.333, largest counted zero: none" in verdict.summary()


def test_a_solution_whose_duals_are_not_optimal_is_refused():
    model, solution, *_ = lp([[1, 1], [0, 0]], [1, -1], [1.0, 2.0])  # optimum (1, 0): x1 strictly inside
    assert solution.values["x"] == pytest.approx([1.0, 0.0], abs=1e-9)
    check_uniqueness(model, solution)
    stray = replace(solution, reduced_costs={"x": solution.reduced_costs["x"] + [1e-3, 0.0]})
    with pytest.raises(SolveError, match=r"reduced cost 1\.00e-03 on a variable off its bounds"):
        check_uniqueness(model, stray)
    negative = replace(solution, duals={"r": solution.duals["r"] * [-1.0, 1.0]})
    with pytest.raises(SolveError, match=r"multiplier -1\.00e\+00\)"):
        check_uniqueness(model, negative)
    slight = replace(solution, reduced_costs={"x": solution.reduced_costs["x"] + [1e-7, 0.0]})
    assert check_uniqueness(model, slight).unique  # within the sign check's tolerance
    # The tolerance is 1e-5 of the largest cost (2 here): a stray reduced cost of exactly 2e-5 passes, above fails.
    at_bound = solution.reduced_costs["x"][1]
    boundary = replace(solution, reduced_costs={"x": np.array([2e-5, at_bound])})
    assert check_uniqueness(model, boundary).unique
    above = replace(solution, reduced_costs={"x": np.array([np.nextafter(2e-5, 1.0), at_bound])})
    with pytest.raises(SolveError, match=r"reduced cost 2\.00e-05"):
        check_uniqueness(model, above)


def test_the_dual_check_near_bounds_and_for_small_costs():
    """min (x1 + x2) / 2 s.t. x1 + 2 x2 >= 3, 2 x1 + x2 >= 3 on [0, 2]^2: the vertex (1, 1), 1 away from every bound
    (off its bounds: its reduced costs must vanish), multipliers 1/6 and 1/6. With costs below 1 the tolerance is
    1e-5 itself (its floor); the message gives the most negative multiplier, 0 when none is negative."""
    model, solution, *_ = lp([[1, 2], [2, 1]], [3, 3], [0.5, 0.5], ub=2.0)
    assert solution.values["x"] == pytest.approx([1.0, 1.0], abs=1e-9)
    assert solution.duals["r"] == pytest.approx([1 / 6, 1 / 6], abs=1e-9)
    assert check_uniqueness(model, replace(solution, reduced_costs={"x": np.array([1e-5, 0.0])})).unique
    above = replace(solution, reduced_costs={"x": np.array([1.5e-5, 0.0])})
    message = "reduced cost 1.50e-05 on a variable off its bounds, multiplier 0.00e+00)"
    with pytest.raises(SolveError, match=re.escape(message)):
        check_uniqueness(model, above)


def test_unit_rows_divides_each_nonzero_row_by_its_norm():
    rows = sp.csr_matrix([[3.0, 4.0], [0.0, 0.0], [0.0, -0.5]])
    with np.errstate(all="raise"):  # a zero row is left alone, not divided by zero
        unit = _unit_rows(rows).toarray()
    assert unit == pytest.approx(np.array([[0.6, 0.8], [0.0, 0.0], [0.0, -1.0]]), abs=1e-15)


@pytest.mark.parametrize("scale", [1e-6, 1.0, 1e6])
def test_game_uniqueness_does_not_depend_on_the_payoffs_units(kuhn, scale):
    scaled = SequenceFormGame(kuhn.pl1, kuhn.pl2, kuhn.A * scale, "kuhn_scaled")
    first = check_game_uniqueness(scaled, 1)
    assert not first.unique and first.blocks == ("x",)
    x2 = first.second_point["x"]
    assert kuhn.pl1.infeasibility(x2) < 1e-9
    assert kuhn.guaranteed_value(1, x2) == pytest.approx(-1 / 18, abs=1e-9)  # another equilibrium strategy
    assert check_game_uniqueness(scaled, 2).unique


def test_game_uniqueness_tests_the_result_it_is_given(kuhn):
    """``result=``: the printed solve is tested, not a new one; another player's result is refused."""
    from gamelp.models.nash import solve_nash

    nash = solve_nash(kuhn, 1)
    verdict = check_game_uniqueness(kuhn, 1, result=nash)
    assert verdict.objective == nash.solution.objective and not verdict.unique
    assert verdict.second_point["x"] == pytest.approx(nash.strategy + verdict.step * verdict.direction["x"], abs=1e-9)
    with pytest.raises(ModelError, match="player 1's"):
        check_game_uniqueness(kuhn, 2, result=nash)


def test_an_active_zero_row_is_harmless():
    # 0 x >= 0 is active everywhere; its unit-norm scaling must leave it alone (no division by zero).
    model = Model("zero_row")
    x = model.add_variables("x", 2, lb=0.0)
    model.add_constraints("rows", {x: [[1.0, 2.0], [2.0, 1.0], [0.0, 0.0]]}, ">=", [2.0, 2.0, 0.0])
    model.set_objective({x: [1.0, 1.0]})
    solution = model.solve("highs")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        verdict = check_uniqueness(model, solution)
    assert verdict.unique and "rows[2]" in verdict.L + verdict.K


def test_block_direction_lp_is_boxed_both_ways():
    # y is free and in no row: the block question on y must bound the direction LP in both signs (|d| <= 1).
    model = Model("free_block")
    x = model.add_variables("x", 1, lb=0.0)
    y = model.add_variables("y", 1, lb=-np.inf)
    model.add_constraints("floor", {x: [[1.0]]}, ">=", 1.0)
    model.set_objective({x: [1.0], y: [0.0]})
    solution = model.solve("highs")
    verdict = check_uniqueness(model, solution, blocks=("y",), seed=2)
    assert not verdict.unique
    assert verdict.direction_lp_value == pytest.approx(np.random.default_rng(2).uniform(0.5, 1.5, 2)[1], rel=1e-9)
    assert abs(verdict.direction["y"][0]) == pytest.approx(1.0) and verdict.direction["x"][0] == 0.0


def test_zero_tolerance_counts_only_positive_multipliers():
    c = np.array([1.0, 1.0])
    model, solution, rows, rhs = lp([[1, 1], [-1, 1]], [1, -5], c)
    verdict = check_uniqueness(model, solution, tolerance=0.0, activity_tolerance=0.0)
    assert not verdict.unique and verdict.K == ("r[0]",) and verdict.notes == []
    check_second_optimum(verdict, solution, rows, rhs, c, [0, 0], np.array([np.inf, np.inf]))


def test_direction_lp_value_is_the_loose_rows_largest_total_move():
    """min x2, x >= 0: x1 may rise along x1 >= 0 (zero multiplier), each loose row moving at most 1: the value is 1."""
    model = Model("one_loose_bound")
    x = model.add_variables("x", 2, lb=0.0)
    model.add_constraints("slack", {x: [[1.0, 1.0]]}, ">=", -1.0)  # never active
    model.set_objective({x: [0.0, 1.0]})
    solution = model.solve("highs")
    assert solution.values["x"] == pytest.approx([0.0, 0.0], abs=0)
    verdict = check_uniqueness(model, solution)
    assert not verdict.unique and verdict.direction_lp_value == pytest.approx(1.0, abs=1e-9)
    assert verdict.direction["x"] == pytest.approx([1.0, 0.0], abs=1e-9)


def test_a_block_that_can_only_move_down():
    """y <= 1 with no cost sits at its upper bound: the block question finds the move down (the negative sign)."""
    model = Model("down_only")
    x = model.add_variables("x", 1, lb=0.0)
    y = model.add_variables("y", 1, lb=-np.inf, ub=1.0)
    model.add_constraints("floor", {x: [[1.0]], y: [[0.0]]}, ">=", 1.0)
    model.set_objective({x: [1.0], y: [0.0]})
    solution = model.solve("highs")
    assert solution.values["y"] == pytest.approx([1.0], abs=0)
    verdict = check_uniqueness(model, solution, blocks=("y",))
    assert not verdict.unique and verdict.direction["y"][0] == pytest.approx(-1.0)
    assert verdict.second_point["y"][0] < 1.0 and verdict.second_point["x"] == pytest.approx([1.0], abs=1e-12)


def test_an_lp_with_bounds_only_and_its_json_document():
    """min x1 over the unit box: every x2 in [0, 1] is optimal; there are no rows (no duals) at all."""
    model = Model("box")
    x = model.add_variables("x", 2, lb=0.0, ub=1.0)
    model.set_objective({x: [1.0, 0.0]}, sense="min")
    solution = model.solve("highs")
    verdict = check_uniqueness(model, solution)
    assert not verdict.unique
    second, d = verdict.second_point["x"], verdict.direction["x"]
    assert d[0] == 0.0 and abs(d[1]) == pytest.approx(1.0) and second[0] == pytest.approx(0.0, abs=1e-12)
    assert 0.0 <= second[1] <= 1.0 and second[1] != pytest.approx(solution.values["x"][1], abs=1e-6)
    document = verdict.to_dict()
    assert document["direction"] == {"x": d.tolist()} and document["second_point"] == {"x": second.tolist()}


def test_a_solution_without_a_block_is_refused_naming_it():
    model, solution, *_ = lp([[1.0, 1.0], [1.0, 0.0]], [1.0, 0.0], [1.0, 2.0])
    with pytest.raises(SolveError, match="the solution has no values for block 'x'"):
        check_uniqueness(model, replace(solution, values={}))
    with pytest.raises(SolveError, match="the solution has no duals for block 'r'"):
        check_uniqueness(model, replace(solution, duals={}))


def test_rank_n_minus_1_direction_is_the_one_null_space_direction():
    """min x1 + x2 + x3 s.t. x1 + x2 + x3 >= 3, x1 = x2, all free: the optima form a line (rank 2 of 3), along
    +-(1, 1, -2) / 2, orthogonal to both active rows; no other right singular vector is."""
    model = Model("line")
    x = model.add_variables("x", 3, lb=-np.inf)
    model.add_constraints("cover", {x: np.ones((1, 3))}, ">=", 3.0)
    model.add_constraints("tie", {x: np.array([[1.0, -1.0, 0.0]])}, "==", 0.0)
    model.set_objective({x: np.ones(3)})
    verdict = check_uniqueness(model, model.solve("highs"))
    assert verdict.rank == 2 and verdict.num_equalities == 1 and verdict.num_variables == 3 and not verdict.unique
    d = verdict.direction["x"]
    assert np.abs(d) == pytest.approx([0.5, 0.5, 1.0], abs=1e-12) and d[0] == pytest.approx(d[1], abs=1e-12)
    assert d @ np.ones(3) == pytest.approx(0.0, abs=1e-12)


def test_no_active_row_rank_0():
    """min 0 over free x: nothing is active, every point is optimal."""
    model = Model("flat")
    x = model.add_variables("x", 2, lb=-np.inf)
    model.set_objective({x: np.zeros(2)})
    verdict = check_uniqueness(model, model.solve("highs"))
    assert verdict.rank == 0 and verdict.K == () and verdict.L == () and not verdict.unique


def test_a_solution_that_is_not_optimal_is_refused():
    model, solution, *_ = lp([[1.0, 1.0], [1.0, 0.0]], [1.0, 0.0], [1.0, 2.0])
    with pytest.raises(SolveError, match="the solution is not optimal"):
        check_uniqueness(model, replace(solution, status="time_limit"))


def test_the_direction_lp_is_unboxed_without_blocks():
    """min x3 s.t. x1 = 3 x2, x2 >= 0, x3 >= 0, x1 free: x2 may rise (its bound has a zero multiplier) only with
    x1 three times as fast; the direction LP reaches loose d = 1 (d = (3, 1, 0)), which a box |d| <= 1 would not."""
    model = Model("steep")
    x = model.add_variables("x", 3, lb=[-np.inf, 0.0, 0.0])
    model.add_constraints("tie", {x: np.array([[1.0, -3.0, 0.0]])}, "==", 0.0)
    model.set_objective({x: [0.0, 0.0, 1.0]})
    verdict = check_uniqueness(model, model.solve("highs"))
    assert not verdict.unique and verdict.direction_lp_value == pytest.approx(1.0, abs=1e-9)
    assert verdict.direction["x"] == pytest.approx([1.0, 1 / 3, 0.0], abs=1e-9)


def _slow_model() -> Model:
    """min x1 s.t. x1 >= 0 and x3 - 1e-12 x2 >= -5 (inactive), x2 >= 0, x3 = 0: x2 moves along the face."""
    model = Model("slow")
    x = model.add_variables("x", 3, lb=[0.0, 0.0, 0.0], ub=[np.inf, np.inf, 0.0])
    model.add_constraints("far", {x: np.array([[0.0, -1e-12, 1.0]])}, ">=", -5.0)
    model.set_objective({x: [1.0, 0.0, 0.0]})
    return model


def test_a_row_whose_rate_is_exactly_the_shrink_tolerance_does_not_limit_the_step():
    """The inactive row's rate along d = (0, 1, 0) is exactly -1e-12, not below it, so the step stays 1."""
    model = _slow_model()
    std = _StandardForm(
        c=np.array([1.0, 0.0, 0.0]),
        G=sp.csr_array(np.array([[1.0, 0.0, 0.0], [0.0, -1e-12, 1.0], [0.0, 1.0, 0.0]])),
        h=np.array([0.0, -5.0, 0.0]),
        u=np.array([1.0, 0.0, 0.0]),
        names=["x[0] >= 0", "far[0]", "x[1] >= 0"],
        E=sp.csr_array(np.array([[0.0, 0.0, 1.0]])),
        e=np.zeros(1),
    )
    x = np.zeros(3)
    slack = std.G @ x - std.h
    verdict = UniquenessResult(True, 1e-7, 1e-7, 1.0, 0.0, (), (), 1, 2, 3, 0.0)
    _second_optimum(verdict, model, std, x, slack, slack <= 0, np.array([0.0, 1.0, 0.0]), np.ones(3))
    assert not verdict.unique and verdict.direction["x"] == pytest.approx([0.0, 1.0, 0.0], abs=0)
    assert verdict.step == 1.0


def test_a_tiny_coefficient_limits_the_step_once_the_lp_is_balanced():
    """The same LP through check_uniqueness: the coefficient 1e-12 makes it badly scaled, so the test balances
    it (Curtis-Reid), where the far row's rate is of order 1: the step runs to where that row becomes active,
    x2 = 5e12, reported in the model's units."""
    model = _slow_model()
    solution = model.solve("highs")
    assert solution.values["x"][1] == 0.0
    verdict = check_uniqueness(model, solution)
    assert verdict.balanced and not verdict.unique
    assert verdict.direction["x"] == pytest.approx([0.0, 1.0, 0.0], abs=0)
    assert verdict.step == pytest.approx(5e12, rel=1e-9)
    second = verdict.second_point["x"]
    assert second == pytest.approx(solution.values["x"] + verdict.step * verdict.direction["x"], rel=1e-12)
    assert second[2] - 1e-12 * second[1] == pytest.approx(-5.0, rel=1e-9)  # the far row, now active
    assert verdict.second_objective == verdict.objective == 0.0

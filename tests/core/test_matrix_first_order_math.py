"""First-order results on C = [[3, -1], [-2, 1]] (value 1/7, p = (3/7, 4/7), q = (2/7, 5/7)) by hand."""

from dataclasses import replace

import numpy as np
import pytest

from gamelp.errors import SolveError
from gamelp.matrix import MatrixGame
from gamelp.models.matrix_first_order import saddle_point_gap, solve_matrix_first_order, support_lp

C = np.array([[3.0, -1.0], [-2.0, 1.0]])
P, Q, VALUE = np.array([3 / 7, 4 / 7]), np.array([2 / 7, 5 / 7]), 1 / 7


def test_saddle_point_gap_by_hand():
    # (a, c): C y = (3, -2), x C = (3, -1): the gap is 3 - (-1).
    assert saddle_point_gap(C, np.array([1.0, 0.0]), np.array([1.0, 0.0])) == 4.0
    assert saddle_point_gap(C, P, Q) == pytest.approx(0.0, abs=1e-15)
    # p against column c alone: C y = (3, -2), x C = (1/7, 1/7).
    assert saddle_point_gap(C, P, np.array([1.0, 0.0])) == pytest.approx(3 - 1 / 7, abs=1e-15)


def test_first_order_result_from_both_sides():
    game = MatrixGame(C)
    result = solve_matrix_first_order(game, target_gap=1e-9)
    assert result.converged and result.lp_rounds == 0 and result.lp_backend is None
    assert result.gap <= 1e-9 * 3  # relative to the payoff range, the largest payoff magnitude
    assert result.value == pytest.approx(VALUE, abs=1e-8)
    assert result.strategy is result.row_strategy
    assert result.row_strategy == pytest.approx(P, abs=1e-7) and result.col_strategy == pytest.approx(Q, abs=1e-7)
    row, col = result.to_dict(), result.to_dict("col")
    assert row["player"] == "row" and col["player"] == "col"
    assert row["status"] == "converged" and row["backend"] == "pcfr+"
    assert row["guaranteed_value"] == pytest.approx(result.value - result.gap, abs=1e-15)
    assert repr(result) == (
        f"FirstOrderResult(game=2x2, method='pcfr+', value={result.value:.10g}, gap={result.gap:.2e}, "
        f"status='converged', iterations={result.iterations})"
    )
    assert list(row["strategy"].values()) == pytest.approx(P, abs=1e-7)
    assert list(col["strategy"].values()) == pytest.approx(Q, abs=1e-7)
    assert list(col["opponent_strategy"].values()) == pytest.approx(P, abs=1e-7)
    assert list(col["strategy"]) == list(game.col_labels)
    assert list(row["opponent_strategy"].values()) == pytest.approx(Q, abs=1e-7)
    assert list(row["opponent_strategy"]) == list(game.col_labels)
    assert set(row) == {
        "value", "status", "backend", "lp_backend", "solver_version", "player", "gap", "iterations",
        "guaranteed_value", "lp_rounds", "strategy", "opponent_strategy",
    }  # fmt: skip
    assert row["lp_backend"] is row["solver_version"] is None and row["lp_rounds"] == 0
    # The run stops at the first iteration within the target: one iteration fewer does not reach it.
    shorter = solve_matrix_first_order(game, target_gap=1e-9, iterations=result.iterations - 1)
    assert not shorter.converged and shorter.gap > 1e-9 * 3
    assert shorter.to_dict()["status"] == "iteration_limit"


def test_support_lp_on_the_support_rule():
    # 3 x 3: rows a, b as in C, row c dominated (earns less than both against every column); column f likewise
    # useless to the column player. A seed weighting c at 0.01 (>= 1e-2 of the largest weight 0.5) puts c into
    # the first LP; the equilibrium is found in one round on 3 x 2.
    M = np.array([[3.0, -1.0, 9.0], [-2.0, 1.0, 9.0], [-3.0, -3.0, 8.0]])
    game = MatrixGame(M)
    start = solve_matrix_first_order(game, target_gap=0.5)
    seeded = replace(start, row_strategy=np.array([0.5, 0.49, 0.01]), col_strategy=np.array([0.5, 0.5, 0.0]))
    exact = support_lp(seeded)
    assert exact.lp_rounds == 1 and exact.lp_shape == (3, 2)
    assert exact.gap <= 1e-9 and exact.value == pytest.approx(VALUE, abs=1e-12)
    assert exact.row_strategy == pytest.approx([*P, 0.0], abs=1e-12)
    assert exact.col_strategy == pytest.approx([*Q, 0.0], abs=1e-12)
    assert exact.lp_backend == "highs" and exact.solver_version
    # Below the fraction, c is left out (and never needed).
    lean = support_lp(replace(seeded, row_strategy=np.array([0.5, 0.496, 0.004])))
    assert lean.lp_rounds == 1 and lean.lp_shape == (2, 2)


def test_support_lp_round_limit():
    # A seed on the wrong rows and columns needs more than one round: one round is refused, naming the gap.
    M = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -2.0], [-1.0, 2.0, 0.0]])
    game = MatrixGame(M)
    start = solve_matrix_first_order(game, target_gap=0.5)
    wrong = replace(start, row_strategy=np.array([1.0, 0, 0]), col_strategy=np.array([1.0, 0, 0]))
    with pytest.raises(SolveError, match=r"still a gap of .* after 1 rounds"):
        support_lp(wrong, max_rounds=1)
    rounds = support_lp(wrong).lp_rounds
    # Round 1 takes the seed's row and column with their best responses (2 x 2), round 2 the rest: 3 x 3.
    assert rounds == 2 and support_lp(wrong).lp_shape == (3, 3)
    assert support_lp(wrong, max_rounds=rounds).lp_rounds == rounds  # exactly enough rounds suffice
    with pytest.raises(SolveError):
        support_lp(wrong, max_rounds=rounds - 1)


@pytest.mark.parametrize("scale", [1e-10, 1e6])
def test_support_lp_rounds_do_not_depend_on_the_payoffs_units(scale):
    """The exactness tolerance is relative to the payoff range: a game in other units takes the same rounds."""
    M = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -2.0], [-1.0, 2.0, 0.0]])
    results = []
    for game in (MatrixGame(M), MatrixGame(M * scale)):
        start = solve_matrix_first_order(game, target_gap=0.5)
        results.append(support_lp(replace(start, row_strategy=np.eye(3)[0], col_strategy=np.eye(3)[0])))
    plain, scaled = results
    assert scaled.lp_rounds == plain.lp_rounds > 1
    assert scaled.value == pytest.approx(plain.value * scale, abs=1e-9 * scale)
    assert scaled.row_strategy == pytest.approx(plain.row_strategy, abs=1e-9)


def test_support_fraction_boundary_and_columns():
    M = np.array([[3.0, -1.0, 9.0], [-2.0, 1.0, 9.0], [-3.0, -3.0, 8.0]])
    game = MatrixGame(M)
    start = solve_matrix_first_order(game, target_gap=0.5)
    at = replace(start, row_strategy=np.array([0.5, 0.495, 0.005]), col_strategy=np.array([0.5, 0.5, 0.0]))
    assert support_lp(at).lp_shape == (2, 2)  # exactly 1e-2 of the largest weight: not above it, left out
    cols = replace(start, row_strategy=np.array([0.5, 0.5, 0.0]), col_strategy=np.array([0.5, 0.49, 0.01]))
    assert support_lp(cols).lp_shape == (2, 3)
    # Rows right, columns wrong: the columns grow until the gap closes, though the rows never do.
    one_side = replace(start, row_strategy=np.array([3 / 7, 4 / 7, 0.0]), col_strategy=np.array([0.0, 0.0, 1.0]))
    exact = support_lp(one_side)
    assert exact.gap <= 1e-9 and exact.col_strategy == pytest.approx([*Q, 0.0], abs=1e-12)


def test_support_lp_column_fraction_boundary_and_rows_that_grow_alone():
    M = np.array([[3.0, -1.0, 9.0], [-2.0, 1.0, 9.0], [-3.0, -3.0, 8.0]])
    start = solve_matrix_first_order(MatrixGame(M), target_gap=0.5)
    at = replace(start, row_strategy=np.array([0.5, 0.5, 0.0]), col_strategy=np.array([0.5, 0.495, 0.005]))
    assert support_lp(at).lp_shape == (2, 2)  # exactly 1e-2 of the largest weight: not above it, left out
    # Columns right, rows wrong (the dominated row c and its best response a): round 1 adds row b and no column,
    # and the rounds go on until the gap closes.
    rows_wrong = replace(start, row_strategy=np.array([0.0, 0.0, 1.0]), col_strategy=np.array([*Q, 0.0]))
    exact = support_lp(rows_wrong)
    assert exact.lp_rounds == 2 and exact.gap <= 1e-9
    assert exact.row_strategy == pytest.approx([*P, 0.0], abs=1e-12)


@pytest.mark.parametrize("transposed", [False, True])
def test_support_lp_adds_only_rows_and_columns_that_beat_the_restricted_value(transposed):
    """Row a2 copies row a: once the LP plays a, a2 ties the restricted value and is never added, while the
    columns e and e2 beat it and both are; the last LP is 2 x 4.  The column player's side is the same game
    transposed and negated."""
    M = np.array([[3.0, -1.0, 9.0, -1.0], [-2.0, 1.0, 9.0, 1.0], [3.0, -1.0, 9.0, -1.0]])
    seed = (np.array([3 / 7, 4 / 7, 0.0]), np.array([0.0, 0.0, 1.0, 0.0]))
    if transposed:
        M, seed = -M.T, seed[::-1]
    start = solve_matrix_first_order(MatrixGame(M), target_gap=0.5)
    exact = support_lp(replace(start, row_strategy=seed[0], col_strategy=seed[1]))
    assert exact.gap <= 1e-9 and exact.value == pytest.approx(-VALUE if transposed else VALUE, abs=1e-12)
    assert exact.lp_rounds == 2 and exact.lp_shape == ((4, 2) if transposed else (2, 4))


@pytest.mark.parametrize("target", [1e-7, 1e-8, 3e-9])
def test_first_order_stops_at_the_first_iteration_within_the_target(target):
    game = MatrixGame(C)
    done = solve_matrix_first_order(game, target_gap=target)
    assert done.converged and done.gap <= target * 3
    shorter = solve_matrix_first_order(game, target_gap=target, iterations=done.iterations - 1)
    assert not shorter.converged and shorter.gap > target * 3


def test_progress_reports_the_run_every_hundred_iterations_and_at_its_end():
    """``progress(t, gap)`` at t = 100, 200, ... and at the last iteration, whose gap is the result's."""
    seen = []
    result = solve_matrix_first_order(
        MatrixGame(C), "rm", target_gap=1e-12, iterations=450, progress=lambda t, gap: seen.append((t, gap))
    )
    assert result.iterations == 450 and not result.converged
    assert [t for t, _ in seen] == [100, 200, 300, 400, 450]
    assert seen[-1][1] == result.gap > 0


@pytest.mark.parametrize(("shape", "float32"), [((1000, 1000), True), ((999, 1001), False)])
def test_products_turn_to_float32_from_a_million_entries(shape, float32, monkeypatch):
    import gamelp.models.matrix_first_order as first_order

    asked = []

    def spy(*args, **options):
        asked.append(options["float32"])
        raise StopIteration

    monkeypatch.setattr(first_order, "solve_regret", spy)
    with pytest.raises(StopIteration):
        solve_matrix_first_order(MatrixGame(np.zeros(shape)))
    assert asked == [float32]


def test_the_defaults_run_to_a_relative_gap_of_1e_6_or_100000_iterations():
    game = MatrixGame(C)
    default = solve_matrix_first_order(game)
    told = solve_matrix_first_order(game, target_gap=1e-6, iterations=100_000)
    assert default.iterations == told.iterations and default.converged and default.gap <= 1e-6 * 3
    capped = solve_matrix_first_order(game, target_gap=0.0)  # never exactly 0: the iteration cap stops it
    assert capped.iterations == 100_000 and not capped.converged

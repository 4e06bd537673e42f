"""First-order path for matrix games (gamelp.models.matrix_first_order): target gap, LP agreement, support-seeded LP."""

import numpy as np
import pytest

from gamelp.cli import main
from gamelp.matrix import MatrixGame
from gamelp.models.matrix_first_order import saddle_point_gap, solve_matrix_first_order, support_lp
from gamelp.models.nash import solve_matrix_nash


@pytest.fixture(scope="module")
def game():
    return MatrixGame(np.random.default_rng(21).uniform(size=(30, 40)))


@pytest.mark.parametrize(
    "method, target", [("pcfr+", 1e-6), ("cfr+", 1e-5), ("dcfr", 1e-5), ("dcfr+", 1e-5), ("pdcfr+", 1e-6)]
)
def test_first_order_reaches_the_target_and_agrees_with_the_lp(game, method, target):
    result = solve_matrix_first_order(game, method, target_gap=target, iterations=20000)
    assert result.converged and result.gap <= target and result.lp_rounds == 0
    assert np.isclose(result.gap, saddle_point_gap(game.payoffs, result.row_strategy, result.col_strategy))
    assert abs(result.value - solve_matrix_nash(game).value) <= result.gap


@pytest.mark.slow
@pytest.mark.parametrize("offset", [0.0, 1000.0])
def test_float32_products_stop_on_a_gap_measured_in_float64(game, offset):
    # Offset by 1000, float32 rounds the payoffs by about 6e-5, above the target (1e-8 of the range 1001): the
    # float32 measurement cannot be trusted there, and the float64 one decides.
    shifted = MatrixGame(game.payoffs + offset)
    target = 1e-6 if offset == 0 else 1e-8
    fast = solve_matrix_first_order(shifted, "dcfr+", target_gap=target, iterations=200000, float32=True)
    assert fast.converged and fast.gap <= target * np.abs(shifted.payoffs).max()
    # The reported gap is float64's, recomputed here from scratch.
    exact = saddle_point_gap(shifted.payoffs, fast.row_strategy, fast.col_strategy)
    assert fast.gap == pytest.approx(exact, rel=1e-6)  # float64 running averages of the utilities
    assert abs(fast.value - solve_matrix_nash(shifted).value) <= fast.gap
    plain = solve_matrix_first_order(shifted, "dcfr+", target_gap=target, iterations=200000, float32=False)
    assert plain.converged and not np.array_equal(plain.row_strategy, fast.row_strategy)  # float32 did run


def test_float32_is_refused_on_a_sequence_form_game(kuhn):
    from gamelp.errors import RegretError
    from gamelp.regret import solve_regret

    with pytest.raises(RegretError, match="float32 products are for payoff matrices"):
        solve_regret(kuhn, "cfr+", 10, float32=True)


def test_support_lp_polishes_a_rough_answer_to_an_exact_vertex(game):
    rough = solve_matrix_first_order(game, target_gap=1e-2)
    assert rough.gap > 1e-3
    exact = support_lp(rough)
    lp = solve_matrix_nash(game)
    assert exact.gap <= 1e-9 and abs(exact.value - lp.value) <= 1e-9
    assert exact.lp_shape[0] < game.shape[0] and exact.lp_shape[1] < game.shape[1]
    assert np.isclose(exact.row_strategy.sum(), 1) and exact.row_strategy.min() >= 0


def test_support_lp_adds_what_the_seed_misses():
    # A seed on the wrong rows and columns: the double oracle must bring in the equilibrium's support.
    M = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -2.0], [-1.0, 2.0, 0.0]])
    game = MatrixGame(M)
    start = solve_matrix_first_order(game, target_gap=0.5)
    start.row_strategy, start.col_strategy = np.array([1.0, 0, 0]), np.array([1.0, 0, 0])
    exact = support_lp(start)
    assert exact.lp_rounds > 1 and exact.gap <= 1e-9
    assert np.allclose(exact.row_strategy, [0.5, 0.25, 0.25])


def test_cli_first_order_path(tmp_path, game, capsys):
    path = tmp_path / "random.csv"
    game.to_csv(path)
    assert main(["matrix", "solve", str(path), "--method", "pcfr+", "--exact", "--iterations", "50"]) == 0
    out = capsys.readouterr().out
    assert "exact by" in out and "stopped at the iteration limit (50 iterations)" in out
    assert main(["matrix", "solve", str(path), "--method", "pcfr+", "--unique"]) == 2
    assert "need the LP" in capsys.readouterr().err

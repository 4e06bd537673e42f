"""The committed exact 33-deck matrix (Esche 2018, Appendix B's decks, perfect play to the end at 20 life).

The matrix is package data, so these tests check that it is what it claims:
the thesis's 33 decks, a constant-sum game of 200 games a cell, and cells that
the simulator replays game for game.  The deck LP on it is solved on every LP
backend and must agree.
"""

from importlib import resources

import numpy as np
import pytest

from gamelp import available_backends
from gamelp.games.mtg.sweep import GameSettings, run_sweep
from gamelp.matrix import MatrixGame
from gamelp.models.nash import solve_matrix_nash

DATA = resources.files("gamelp.games").joinpath("data")
GAMES_PER_CELL = 200
LP_BACKENDS = [b.name for b in available_backends() if b.capabilities.lp and b.capabilities.accuracy <= 1e-7]


@pytest.fixture(scope="module")
def exact():
    return MatrixGame.from_csv(DATA / "mtg_exact_33_payoffs.csv", DATA / "mtg_exact_33_std.csv")


def test_the_exact_matrix_holds_appendix_b_decks_in_appendix_b_order(exact):
    thesis = MatrixGame.from_csv(DATA / "esche_8c_payoffs.csv")
    assert exact.row_labels == thesis.row_labels == exact.col_labels
    assert len(exact.row_labels) == 33


def test_the_exact_matrix_is_a_constant_sum_game_of_200_games_a_cell(exact):
    C = exact.payoffs
    off = ~np.eye(33, dtype=bool)
    np.testing.assert_allclose((C + C.T)[off], 1.0, atol=1e-12)
    np.testing.assert_allclose(np.diag(C), 0.5)
    wins = C * GAMES_PER_CELL
    np.testing.assert_allclose(wins, np.round(wins), atol=1e-9)  # whole games: no draws were left out
    binomial = np.sqrt(C * (1 - C) / GAMES_PER_CELL)
    np.testing.assert_allclose(exact.std[off], binomial[off], rtol=1e-6)


def test_three_cells_replay_game_for_game():
    """Seeds are keyed by the decks' card counts, so a sub-grid replays the committed games."""
    committed = MatrixGame.from_csv(DATA / "mtg_exact_33_payoffs.csv")
    result = run_sweep([0], [48, 52, 56], games=GAMES_PER_CELL, seed=3,
                       settings=GameSettings(evaluation="life", life_threshold=0))
    labels = ("0C48L", "0C52L", "0C56L")
    rows = [committed.row_labels.index(label) for label in labels]
    assert result.matrix.row_labels == labels
    np.testing.assert_allclose(result.matrix.payoffs, committed.payoffs[np.ix_(rows, rows)], atol=1e-12)


@pytest.mark.parametrize("backend", LP_BACKENDS)
def test_the_exact_deck_game_has_value_one_half_on_every_backend(exact, backend):
    """A symmetric constant-sum game has value 1/2; the returned mix must guarantee it against every deck."""
    result = solve_matrix_nash(exact, "row", backend)
    assert result.value == pytest.approx(0.5, abs=1e-7)
    mix = np.array([result.strategy_dict("row")[label] for label in exact.row_labels])
    assert mix.sum() == pytest.approx(1.0, abs=1e-7)
    assert (mix @ exact.payoffs).min() >= 0.5 - 1e-7
    # Appendix B's optimum (0C40L, 8C28L, 8C32L) is not one here: 0C40L loses to 0C44L in the exact game.
    thesis_mix = np.zeros(33)
    for label, p in {"0C40L": 0.2, "8C28L": 0.4, "8C32L": 0.4}.items():
        thesis_mix[exact.row_labels.index(label)] = p
    assert (thesis_mix @ exact.payoffs).min() < 0.45

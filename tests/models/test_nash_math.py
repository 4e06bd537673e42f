"""Nash results on a game with a non-zero value, every number computed by hand.

C = [[3, -1], [-2, 1]] (row player's payoffs). Row mix p = (3/7, 4/7) earns 5p1 - 2 = 1 - 2p1 = 1/7 against
either column; column mix q = (2/7, 5/7) concedes 4q1 - 1 = 1 - 3q1 = 1/7 against either row: the value is 1/7.
"""

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from gamelp.errors import ModelError, SolveError
from gamelp.game import SequenceFormGame
from gamelp.matrix import MatrixGame
from gamelp.models.determinism import solve_deterministic
from gamelp.models.nash import (
    matrix_nash_lp,
    sequence_form_lp,
    solve_equilibrium,
    solve_matrix_nash,
    solve_model,
    solve_nash,
)

C = [[3.0, -1.0], [-2.0, 1.0]]
P, Q, VALUE = np.array([3 / 7, 4 / 7]), np.array([2 / 7, 5 / 7]), 1 / 7


def one_shot(payoffs) -> SequenceFormGame:
    """The matrix game as a sequence-form game: one decision point per player."""
    rows, cols = ["a", "b"], ["c", "d"]
    return SequenceFormGame.from_dict(
        {
            "decision_problem_pl1": [
                {"id": "r", "type": "decision", "actions": rows, "parent_edge": None, "parent_sequence": None}
            ],
            "decision_problem_pl2": [
                {"id": "k", "type": "decision", "actions": cols, "parent_edge": None, "parent_sequence": None}
            ],
            "utility_pl1": [
                {"sequence_pl1": ["r", a], "sequence_pl2": ["k", b], "value": payoffs[i][j]}
                for i, a in enumerate(rows)
                for j, b in enumerate(cols)
            ],
        },
        "one_shot",
    )


@pytest.fixture(scope="module")
def game():
    return one_shot(C)


def test_sequence_form_values_and_default_player(game):
    assert sequence_form_lp(game).name == "one_shot_nash_pl1"
    first = solve_nash(game)
    assert first.player == 1
    assert first.value == pytest.approx(VALUE, abs=1e-9)
    assert first.strategy == pytest.approx([1.0, *P], abs=1e-9)
    second = solve_nash(game, 2)
    assert second.value == pytest.approx(-VALUE, abs=1e-9)
    assert second.strategy == pytest.approx([1.0, *Q], abs=1e-9)
    for result in (first, second):
        assert result.exploitability == pytest.approx(0.0, abs=1e-9)
        assert result.gap == pytest.approx(0.0, abs=1e-9)
    # The opponent's strategy from the duals of the best-response rows.
    assert first.opponent_strategy == pytest.approx([1.0, *Q], abs=1e-9)
    assert second.opponent_strategy == pytest.approx([1.0, *P], abs=1e-9)


def test_exploitability_of_a_known_non_equilibrium_strategy_sequence_form(game):
    first = solve_nash(game, 1)
    # Row plays a: the column answers d, the row earns -1. Exploitability 1/7 - (-1) = 8/7.
    pure_a = replace(first, strategy=np.array([1.0, 1.0, 0.0]))
    assert pure_a.guaranteed_value == pytest.approx(-1.0, abs=1e-12)
    assert pure_a.exploitability == pytest.approx(8 / 7, abs=1e-12)
    # Its saddle gap against the duals' q: max(3q1 - q2, -2q1 + q2) - (-1) = 1/7 + 1.
    assert pure_a.gap == pytest.approx(8 / 7, abs=1e-9)
    second = solve_nash(game, 2)
    # Column plays c: the row answers a and earns 3, so the column secures -3. Exploitability -1/7 + 3 = 20/7.
    pure_c = replace(second, strategy=np.array([1.0, 1.0, 0.0]))
    assert pure_c.guaranteed_value == pytest.approx(-3.0, abs=1e-12)
    assert pure_c.exploitability == pytest.approx(20 / 7, abs=1e-12)
    # Saddle gap: the row's best answer to c earns 3; the duals' p concedes 1/7 at best: 3 - 1/7.
    assert pure_c.gap == pytest.approx(20 / 7, abs=1e-9)
    summary = pure_c.to_dict()
    assert summary["player"] == 2 and summary["guaranteed_value"] == pytest.approx(-3.0)
    assert summary["gap"] == pytest.approx(20 / 7, abs=1e-9) and summary["deterministic"] is False


def test_a_mip_result_gap_is_value_minus_guarantee(game):
    # Pure rows secure min(3, -1) = -1 and min(-2, 1) = -2: the deterministic ILP's value is -1.
    pure = solve_deterministic(game, 1)
    assert pure.value == pytest.approx(-1.0, abs=1e-9)
    assert pure.opponent_strategy is None
    assert pure.gap == pytest.approx(0.0, abs=1e-9)
    worse = replace(pure, strategy=np.array([1.0, 0.0, 1.0]))
    assert worse.gap == pytest.approx(1.0, abs=1e-12)
    assert worse.exploitability == pytest.approx(1.0, abs=1e-12)
    assert pure.to_dict()["deterministic"] is True


@pytest.mark.parametrize("form", ["general", "thesis"])
@pytest.mark.parametrize("player", ["row", "col"])
def test_matrix_nash_values_strategies_and_exploitability(player, form):
    matrix = MatrixGame(C)
    result = solve_matrix_nash(matrix, player, form=form)
    assert result.player == player and result.form == form
    assert result.value == pytest.approx(VALUE, abs=1e-9)
    assert result.row_strategy == pytest.approx(P, abs=1e-9)
    assert result.col_strategy == pytest.approx(Q, abs=1e-9)
    own, other = (P, Q) if player == "row" else (Q, P)
    assert result.strategy == pytest.approx(own, abs=1e-9)
    assert result.opponent_strategy == pytest.approx(other, abs=1e-9)
    assert result.guaranteed_value == pytest.approx(VALUE, abs=1e-9)
    assert result.saddle_gap == pytest.approx(0.0, abs=1e-9)
    assert list(result.strategy_dict().values()) == pytest.approx(own.tolist(), abs=1e-9)
    assert list(result.strategy_dict("row").values()) == pytest.approx(P.tolist(), abs=1e-9)
    # Known non-equilibrium strategies: row a secures min(3, -1) = -1; column c concedes max(3, -2) = 3.
    if player == "row":
        off = replace(result, row_strategy=np.array([1.0, 0.0]))
        assert off.guaranteed_value == pytest.approx(-1.0, abs=1e-12)
        # Against q: the row's best answer earns 1/7; a earns -1 against d: gap 1/7 + 1.
        assert off.saddle_gap == pytest.approx(8 / 7, abs=1e-9)
    else:
        off = replace(result, col_strategy=np.array([1.0, 0.0]))
        assert off.guaranteed_value == pytest.approx(3.0, abs=1e-12)
        assert off.saddle_gap == pytest.approx(3.0 - VALUE, abs=1e-9)
    both = replace(result, row_strategy=np.array([1.0, 0.0]), col_strategy=np.array([1.0, 0.0]))
    assert both.saddle_gap == pytest.approx(3.0 - (-1.0), abs=1e-12)
    summary = off.to_dict()
    assert summary["guaranteed_value"] == pytest.approx(off.guaranteed_value, abs=1e-12)
    assert summary["gap"] == pytest.approx(off.saddle_gap, abs=1e-12)
    labels, weights = (off.game.col_labels, off.col_strategy) if player == "row" else (off.game.row_labels, P)
    assert summary["opponent_strategy"] == pytest.approx(dict(zip(labels, weights)), abs=1e-9)


def test_a_negative_value_game_on_both_sides():
    # Swapping the sign: value -1/7, the same mixes.
    matrix = MatrixGame(-np.array(C).T)  # the column player's game, seen as the row player
    for player in ("row", "col"):
        result = solve_matrix_nash(matrix, player)
        assert result.value == pytest.approx(-VALUE, abs=1e-9)
        assert result.row_strategy == pytest.approx(Q, abs=1e-9)
        assert result.col_strategy == pytest.approx(P, abs=1e-9)


@pytest.mark.parametrize("player", ["row", "col"])
def test_general_lp_shape(player):
    # 3 x 2: the row player's LP has a row per column, one simplex row, 3 weights and the value.
    matrix = MatrixGame([[3.0, -1.0], [-2.0, 1.0], [0.0, -3.0]])
    model = matrix_nash_lp(matrix, player)
    mine, theirs = (3, 2) if player == "row" else (2, 3)
    assert model.constraints["payoff"].size == theirs and model.constraints["simplex"].size == 1
    assert model.variables["x"].size == mine and model.variables["v"].size == 1
    assert solve_matrix_nash(matrix, player).value == pytest.approx(VALUE, abs=1e-9)  # the third row is dominated


def test_thesis_form_names_the_first_column_without_a_positive_payoff():
    matrix = MatrixGame([[1.0, -1.0, 0.0], [2.0, 0.0, -1.0]], col_labels=["c", "d", "e"])
    with pytest.raises(ModelError, match="column 'd' pays the row player nothing positive"):
        matrix_nash_lp(matrix, "row", "thesis")
    with pytest.raises(ModelError, match="form must be one of"):
        matrix_nash_lp(matrix, "row", "dual")
    with pytest.raises(ModelError, match="player must be one of"):
        matrix_nash_lp(matrix, "column")


def test_one_lp_equilibrium_reads_both_strategies_on_a_game_of_value_one_seventh():
    game = one_shot(C)
    eq = solve_equilibrium(game)
    assert eq.game is game and eq.solution is eq.result.solution and eq.strategy is eq.x is eq.strategy_of(1)
    assert eq.strategy_of(2) is eq.y
    assert eq.value == pytest.approx(VALUE, abs=1e-12)
    assert eq.x == pytest.approx([1.0, *P], abs=1e-9) and eq.y == pytest.approx([1.0, *Q], abs=1e-9)
    assert eq.gap == pytest.approx(0.0, abs=1e-12)
    row = eq.to_dict()
    assert row["player"] == "both" and row["value"] == eq.value and row["gap"] == eq.gap
    assert row["strategy"] == {"∅": 1.0, "r:a": round(3 / 7, 12), "r:b": round(4 / 7, 12)}
    assert row["opponent_strategy"] == {"∅": 1.0, "k:c": round(2 / 7, 12), "k:d": round(5 / 7, 12)}
    assert repr(eq) == (
        f"Equilibrium(game='one_shot', player='both', sequences=3 + 3, value={eq.value:.10g}, gap={eq.gap:.2e}, "
        f"status='optimal', backend='highs', solver_version={eq.solution.solver_version!r})"
    )


def test_one_lp_equilibrium_refuses_duals_that_are_not_a_strategy(monkeypatch):
    """Player 2's strategy from the duals must satisfy its sequence-form rows to 1e-6."""
    import gamelp.models.nash as nash

    game = one_shot(C)
    solved = solve_nash(game, 1)

    def answer_with(y):
        monkeypatch.setattr(
            nash, "solve_nash", lambda *a, **k: SimpleNamespace(opponent_strategy=y, model=solved.model)
        )
        return solve_equilibrium(game)

    y = solved.opponent_strategy
    slightly_off = y + np.array([2.0**-20, 0.0, 0.0])  # violation 9.5e-7: accepted
    assert answer_with(slightly_off).y is slightly_off
    with pytest.raises(SolveError, match=r"not a sequence-form strategy of player 2 \(violation 1\.91e-06\)"):
        answer_with(y + np.array([2.0**-19, 0.0, 0.0]))
    with pytest.raises(SolveError, match="returned no duals"):
        answer_with(None)
    # Exactly at the tolerance: a weight of -1e-6 (the rows hold to rounding) is accepted, as "more than" says.
    at_tolerance = np.array([1.0, -1e-6, 1.0 + 1e-6])
    assert game.pl2.infeasibility(at_tolerance) == 1e-6
    assert answer_with(at_tolerance).y is at_tolerance


@pytest.mark.parametrize("form", ["general", "thesis"])
def test_matrix_nash_refuses_payoff_duals_that_are_all_zero(monkeypatch, form):
    """The column strategy is read from the duals: a backend answering zeros for them is refused, not divided by."""
    from gamelp.model import Model

    solve = Model.solve

    def zero_duals(self, *args, **options):
        solution = solve(self, *args, **options)
        return replace(solution, duals={**solution.duals, "payoff": np.zeros_like(solution.duals["payoff"])})

    monkeypatch.setattr(Model, "solve", zero_duals)
    with pytest.raises(SolveError, match="payoff duals: all weights are zero"):
        solve_matrix_nash(MatrixGame(np.array(C) + 2.0), form=form)


@pytest.mark.parametrize("player", ["row", "col"])
def test_thesis_form_with_a_dominated_column(player):
    """A third column paying 5 either way is never played: the thesis LP's column variables may sit at 0."""
    game = MatrixGame(np.array([[3.0, -1.0, 5.0], [-2.0, 1.0, 5.0]]))
    result = solve_matrix_nash(game, player, form="thesis")
    assert result.value == pytest.approx(VALUE, abs=1e-12)
    assert result.row_strategy == pytest.approx(P, abs=1e-9)
    assert result.col_strategy == pytest.approx([*Q, 0.0], abs=1e-9)
    assert result.labels == (game.row_labels if player == "row" else game.col_labels)
    assert repr(result) == (
        f"MatrixNashResult(game=2x3, player={player!r}, form='thesis', value={result.value:.10g}, "
        f"gap={result.saddle_gap:.2e}, status='optimal', backend='highs', "
        f"solver_version={result.solution.solver_version!r})"
    )


def test_a_nash_result_as_data(kuhn):
    result = solve_nash(kuhn, 1)
    labels = kuhn.pl1.labels
    assert result.labels == labels and result.strategy_dict() == dict(zip(labels, result.strategy.tolist()))
    assert result.to_dict()["strategy"] == dict(zip(labels, np.round(result.strategy, 12).tolist()))
    assert any(round(p, 12) != round(p, 13) for p in result.strategy)  # so the rounding is seen
    assert repr(result) == (
        f"NashResult(game='kuhn', player=1, sequences=13, value={result.value:.10g}, gap={result.gap:.2e}, "
        f"status='optimal', backend='highs', solver_version={result.solution.solver_version!r})"
    )


def test_solve_model_accepts_a_strategy_off_the_polytope_by_at_most_1e_6(kuhn):
    """A strategy that breaks a sequence-form row by exactly 1e-6 is accepted; by 2e-6, refused."""
    own = kuhn.pl1
    pure = own.best_response(-np.ones(own.num_sequences))[1]  # the fewest sequences: bets, leaving lines unplayed
    # A sequence below an unplayed one: its weight alone is the violation of its decision point's row.
    below_unplayed = next(s for s in range(1, own.num_sequences) if pure[own.parents[own.decision_point_of[s]]] == 0)
    model = sequence_form_lp(kuhn, 1)

    def returned(weight):
        x = pure.copy()
        x[below_unplayed] = weight
        stub = SimpleNamespace(name=model.name, variables=model.variables)
        stub.solve = lambda backend, **options: SimpleNamespace(values={"x": x}, objective=0.0, status="optimal")
        return solve_model(kuhn, 1, stub, "highs")

    assert own.infeasibility(returned(1e-6).strategy) == 1e-6
    with pytest.raises(SolveError, match=r"not a sequence-form strategy \(violation 2\.00e-06\)"):
        returned(2e-6)


def test_the_thesis_form_on_a_game_of_negative_value_and_a_stopped_solve():
    """[[1, -2], [-2, 1]]: every column has a positive payoff, but the value is -1/2: the thesis LP is infeasible,
    which says the value is not positive; a solve stopped by its time limit says only that it stopped."""
    game = MatrixGame(np.array([[1.0, -2.0], [-2.0, 1.0]]))
    assert solve_matrix_nash(game).value == pytest.approx(-0.5, abs=1e-12)
    with pytest.raises(
        SolveError,
        match=r"the LP is infeasible, so the game's value is not positive .* the thesis "
        r"form needs V > 0: use form='general'$",
    ):
        solve_matrix_nash(game, form="thesis")
    for form in ("general", "thesis"):
        with pytest.raises(SolveError, match=r"no optimum \(time_limit\)"):
            solve_matrix_nash(game, form=form, time_limit=0.0)


def test_the_matrix_lps_read_as_their_algebra_for_both_players_and_forms():
    """A 2 x 3 game: each payoff row is named by the opponent's action, the value variable by ``value``."""
    game = MatrixGame([[1.0, -1.0, 0.0], [2.0, 0.0, -1.0]], row_labels=["U", "D"], col_labels=["c", "d", "e"])
    head = "matrix_general_{}: LP, {} variables, {} constraints, 9 nonzeros\n{}  v[value]\nsubject to\n"
    tail = "bounds\n  x >= 0 ({})\n  v free (1)"
    assert str(matrix_nash_lp(game, "row")) == (
        head.format("row", 3, 4, "maximise")
        + "  payoff (3 rows):\n"
        + "    [c]  x[U] + 2 x[D] - v[value] >= 0\n"
        + "    [d]  -x[U] - v[value] >= 0\n"
        + "    [e]  -x[D] - v[value] >= 0\n"
        + "  simplex (1 row):\n    [0]  x[U] + x[D] = 1\n"
        + tail.format(2)
    )
    assert str(matrix_nash_lp(game, "col")) == (
        head.format("col", 4, 3, "minimise")
        + "  payoff (2 rows):\n"
        + "    [U]  x[c] - x[d] - v[value] <= 0\n"
        + "    [D]  2 x[c] - x[e] - v[value] <= 0\n"
        + "  simplex (1 row):\n    [0]  x[c] + x[d] + x[e] = 1\n"
        + tail.format(3)
    )
    shifted = MatrixGame(game.payoffs + 2.0, row_labels=["U", "D"], col_labels=["c", "d", "e"])
    assert str(matrix_nash_lp(shifted, "row", "thesis")).splitlines()[1:6] == [
        "minimise  x[U] + x[D]",
        "subject to",
        "  payoff (3 rows):",
        "    [c]  3 x[U] + 4 x[D] >= 1",
        "    [d]  x[U] + 2 x[D] >= 1",
    ]


def test_solve_nash_passes_its_options_to_the_solver(kuhn):
    with pytest.raises(SolveError, match=r"^kuhn_nash_pl1 on auto: no solution \(time_limit\)$"):
        solve_nash(kuhn, 1, time_limit=0.0)

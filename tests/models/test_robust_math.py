"""Robust LPs on a non-square game, both players, every set and form, against numbers worked out by hand.

C (3 x 2) and its deviations Delta:

    C = [[0.6, 0.2],     Delta = [[0.1, 0.0],
         [0.3, 0.7],              [0.0, 0.2],
         [0.5, 0.4]]              [0.3, 0.3]]
"""

import numpy as np
import pytest
import scipy.sparse as sp

from gamelp.errors import ModelError, SolveError
from gamelp.matrix import MatrixGame
from gamelp.models.nash import solve_matrix_nash
from gamelp.models.robust import (
    ConicUncertainty,
    UncertaintyBlock,
    conic_set,
    ellipsoidal_set,
    interval_set,
    robust_lp,
    solve_robust,
    worst_case_value,
)

C = np.array([[0.6, 0.2], [0.3, 0.7], [0.5, 0.4]])
DELTA = np.array([[0.1, 0.0], [0.0, 0.2], [0.3, 0.3]])
GAME = MatrixGame(C, ["a", "b", "c"], ["x", "y"], std=DELTA)
CONE = "cvxpy:CLARABEL"
P_ROW = np.array([0.2, 0.3, 0.5])
Q_COL = np.array([0.5, 0.5])


def test_worst_cases_by_hand_row_player():
    # Column x: C p = 0.12 + 0.09 + 0.25 = 0.46, Delta p = 0.02 + 0 + 0.15; column y: 0.04 + 0.21 + 0.2 = 0.45,
    # Delta p = 0 + 0.06 + 0.15.
    assert worst_case_value(GAME, P_ROW, "interval", 0.0) == pytest.approx(0.45, abs=1e-12)
    assert worst_case_value(GAME, P_ROW, "interval", 1.0) == pytest.approx(min(0.46 - 0.17, 0.45 - 0.21), abs=1e-12)
    assert worst_case_value(GAME, P_ROW, "interval", 0.5) == pytest.approx(min(0.46 - 0.085, 0.45 - 0.105), abs=1e-12)
    ball = min(0.46 - np.hypot(0.02, 0.15), 0.45 - np.hypot(0.06, 0.15))
    assert worst_case_value(GAME, P_ROW, "ellipsoidal", 1.0) == pytest.approx(ball, abs=1e-12)
    for scope in ("column", "matrix", "row"):  # the box is the same set whatever its grouping
        box = interval_set(GAME.shape, 1.0, scope)
        assert worst_case_value(GAME, P_ROW, "conic", uncertainty=box, backend=CONE) == pytest.approx(0.24, abs=1e-6)
    per_column = ellipsoidal_set(GAME.shape, 1.0, "column")
    assert worst_case_value(GAME, P_ROW, "conic", uncertainty=per_column, backend=CONE) == pytest.approx(ball, abs=1e-6)


def test_worst_cases_by_hand_column_player():
    # Rows (q = 1/2, 1/2): C q = 0.4, 0.5, 0.45; Delta q = 0.05, 0.1, 0.3.
    assert worst_case_value(GAME, Q_COL, "interval", 0.0, player="col") == pytest.approx(0.5, abs=1e-12)
    assert worst_case_value(GAME, Q_COL, "interval", 1.0, player="col") == pytest.approx(0.75, abs=1e-12)
    assert worst_case_value(GAME, Q_COL, "interval", 0.5, player="col") == pytest.approx(0.6, abs=1e-12)
    ball = max(0.4 + 0.05, 0.5 + 0.1, 0.45 + np.hypot(0.15, 0.15))
    assert worst_case_value(GAME, Q_COL, "ellipsoidal", 1.0, player="col") == pytest.approx(ball, abs=1e-12)
    box = interval_set(GAME.shape, 1.0, "row")
    assert worst_case_value(GAME, Q_COL, "conic", player="col", uncertainty=box, backend=CONE) == pytest.approx(
        0.75, abs=1e-6
    )
    per_row = ellipsoidal_set(GAME.shape, 1.0, "row")
    assert worst_case_value(GAME, Q_COL, "conic", player="col", uncertainty=per_row, backend=CONE) == pytest.approx(
        ball, abs=1e-6
    )


@pytest.mark.parametrize("player", ["row", "col"])
@pytest.mark.parametrize("radius", [0.5, 1.5])
def test_interval_is_the_nominal_game_of_the_shifted_matrix(player, radius):
    # The box's worst case is C - R Delta for the row player and C + R Delta for the column player.
    shifted = MatrixGame(C - radius * DELTA if player == "row" else C + radius * DELTA)
    expected = solve_matrix_nash(shifted, player)
    for form in ("general", "thesis"):
        result = solve_robust(GAME, "interval", radius, player=player, form=form)
        assert result.value == pytest.approx(expected.value, abs=1e-8)
        assert result.guaranteed_value == pytest.approx(expected.value, abs=1e-8)
        assert result.strategy.sum() == pytest.approx(1.0) and result.strategy.min() >= 0
        assert result.strategy.size == (3 if player == "row" else 2)
        assert result.nominal_value == pytest.approx(
            worst_case_value(GAME, result.strategy, "interval", 0.0, player=player), abs=1e-12
        )
        assert result.model.name == f"robust_interval_{form}_{player}"
        summary = result.to_dict()
        assert summary["robust"] == "interval" and summary["radius"] == radius and summary["player"] == player
        assert summary["form"] == form and list(summary["strategy"]) == list(result.labels)


@pytest.mark.parametrize("player", ["row", "col"])
@pytest.mark.parametrize("radius", [0.5, 1.5])
def test_closed_forms_equal_the_conic_form(player, radius):
    scope = "column" if player == "row" else "row"
    for kind, make, backend in (("interval", interval_set, "highs"), ("ellipsoidal", ellipsoidal_set, CONE)):
        closed = solve_robust(GAME, kind, radius, player=player, backend=backend)
        conic = solve_robust(GAME, "conic", player=player, backend=CONE, uncertainty=make(GAME.shape, radius, scope))
        assert conic.value == pytest.approx(closed.value, abs=1e-6)
        assert closed.guaranteed_value == pytest.approx(closed.value, abs=1e-6)
        assert conic.guaranteed_value == pytest.approx(conic.value, abs=1e-6)
        # Each strategy secures the common value on the closed form's set.
        assert worst_case_value(GAME, conic.strategy, kind, radius, player=player) == pytest.approx(
            closed.value, abs=1e-6
        )
        thesis = solve_robust(GAME, kind, radius, player=player, form="thesis", backend=backend)
        assert thesis.value == pytest.approx(closed.value, abs=1e-6)
    # A larger set never helps: the row player's value falls, the column player's concession rises.
    sign = 1.0 if player == "row" else -1.0
    nominal = solve_matrix_nash(GAME, player).value
    ball = solve_robust(GAME, "ellipsoidal", radius, player=player, backend=CONE).value
    box = solve_robust(GAME, "interval", radius, player=player).value
    assert sign * box <= sign * ball + 1e-7 <= sign * nominal + 2e-7
    assert sign * box < sign * nominal - 1e-3


def test_certain_entries_and_a_partial_set():
    # Only entry (2, 1) (vec index 1 * 3 + 2 = 5) is uncertain, |zeta| <= 1: the row player's column y loses
    # Delta[2, 1] p_c at worst; every other row of the counterpart is nominal.
    P = sp.csr_matrix(np.array([[1.0], [-1.0]]))
    partial = ConicUncertainty(GAME.shape, (UncertaintyBlock(np.array([5]), P, np.ones(2), (("orthant", 2),)),))
    worst = worst_case_value(GAME, P_ROW, "conic", uncertainty=partial, backend=CONE)
    assert worst == pytest.approx(min(0.46, 0.45 - 0.3 * 0.5), abs=1e-6)
    result = solve_robust(GAME, "conic", uncertainty=partial, backend="highs")
    shifted = C.copy()
    shifted[2, 1] -= 0.3
    assert result.value == pytest.approx(solve_matrix_nash(MatrixGame(shifted)).value, abs=1e-8)
    # A set over entries no row sees (all of Delta's zeros): the nominal game.
    zeros = np.array([0 * 3 + 1, 1 * 3 + 0])  # Delta[1, 0] and Delta[0, 1]
    P2 = sp.vstack([sp.identity(2), -sp.identity(2)], format="csr")
    idle = ConicUncertainty(GAME.shape, (UncertaintyBlock(zeros, P2, np.ones(4), (("orthant", 4),)),))
    nominal = robust_lp(GAME, "conic", uncertainty=idle)
    assert "eta" not in nominal.variables and nominal.constraints["robust"].size == 2  # one row per column
    assert solve_robust(GAME, "conic", uncertainty=idle).value == pytest.approx(solve_matrix_nash(GAME).value)


def test_thesis_form_refuses_a_non_positive_robust_value():
    game = MatrixGame([[0.1, -0.5], [-0.5, 0.1]], std=[[0.1, 0.1], [0.1, 0.1]])
    with pytest.raises(SolveError, match="robust value is not positive"):
        solve_robust(game, "interval", 1.0, form="thesis")
    assert solve_robust(game, "interval", 1.0).value == pytest.approx(-0.2 - 0.1, abs=1e-9)


def test_refusals():
    with pytest.raises(ModelError, match="robust kind must be one of"):
        robust_lp(GAME, "box", 1.0)
    with pytest.raises(ModelError, match="robust kind must be one of"):
        worst_case_value(GAME, P_ROW, "box", 1.0)
    with pytest.raises(ModelError, match="radius must be non-negative"):
        robust_lp(GAME, "interval", -0.1)
    with pytest.raises(ModelError, match="radius must be non-negative"):
        robust_lp(GAME, "ellipsoidal", float("nan"))
    robust_lp(GAME, "interval", 0.0)  # zero is allowed
    with pytest.raises(ModelError, match="needs an uncertainty set"):
        robust_lp(GAME, "conic")
    with pytest.raises(ModelError, match="needs an uncertainty set"):
        worst_case_value(GAME, P_ROW, "conic")
    with pytest.raises(ModelError, match="standard deviations"):
        robust_lp(MatrixGame(C), "interval", 1.0)
    with pytest.raises(ModelError, match="player must be one of"):
        robust_lp(GAME, "interval", 1.0, player="column")
    with pytest.raises(ModelError, match="form must be one of"):
        robust_lp(GAME, "interval", 1.0, form="dual")
    with pytest.raises(ModelError, match="scope must be one of"):
        interval_set(GAME.shape, 1.0, "diagonal")
    with pytest.raises(ModelError, match=r"for a \(2, 3\) matrix, the game is \(3, 2\)"):
        robust_lp(GAME, "conic", uncertainty=interval_set((2, 3), 1.0))


def one_block(entries, P, r, cones):
    return ConicUncertainty((3, 2), (UncertaintyBlock(np.asarray(entries), sp.csr_matrix(P), np.asarray(r), cones),))


def test_uncertainty_set_validation_at_its_edges():
    ok = one_block([5], [[1.0], [-1.0]], [1.0, 1.0], (("orthant", 2),))
    assert ok.shape == (3, 2)
    one_block([0], [[1.0], [-1.0]], [1.0, 1.0], (("orthant", 2),))  # the first entry is inside
    with pytest.raises(ModelError, match="outside vec"):
        one_block([6], [[1.0], [-1.0]], [1.0, 1.0], (("orthant", 2),))  # size 6: index 6 is one past the end
    with pytest.raises(ModelError, match="outside vec"):
        one_block([-1], [[1.0], [-1.0]], [1.0, 1.0], (("orthant", 2),))
    with pytest.raises(ModelError, match="overlap"):
        ConicUncertainty(
            (3, 2),
            tuple(
                UncertaintyBlock(np.array(e), sp.csr_matrix([[1.0], [-1.0]]), np.ones(2), (("orthant", 2),))
                for e in ([1], [1])
            ),
        )
    with pytest.raises(ModelError, match=r"P has shape \(2, 1\), expected \(3, 1\)"):
        one_block([1], [[1.0], [-1.0]], [1.0, 1.0, 1.0], (("orthant", 3),))
    with pytest.raises(ModelError, match="the cones cover 1 rows, P has 2"):
        one_block([1], [[1.0], [-1.0]], [1.0, 1.0], (("orthant", 1),))
    with pytest.raises(ModelError, match="bad cone"):
        one_block([1], [[1.0], [-1.0]], [1.0, 1.0], (("psd", 2),))
    with pytest.raises(ModelError, match="bad cone"):
        one_block([1], [[1.0], [-1.0]], [1.0, 1.0], (("orthant", 0), ("orthant", 2)))
    whole = conic_set((3, 2), sp.vstack([sp.identity(6), -sp.identity(6)]), np.ones(12), [("orthant", 12)])
    assert whole.blocks[0].entries.tolist() == list(range(6)) and whole.description == "conic"
    integral = conic_set((3, 2), [[1] * 6, [-1] * 6], [[3], [3]], [("orthant", 2)])  # |sum zeta| <= 3, in ints
    assert integral.blocks[0].r.dtype == float and integral.blocks[0].r.tolist() == [3.0, 3.0]
    assert interval_set((3, 2), 0.5).description == "interval R=0.5 (column)"
    assert len(interval_set((3, 2), 0.5, "row").blocks) == 3 and len(interval_set((3, 2), 0.5).blocks) == 2
    assert ellipsoidal_set((3, 2), 2.0).blocks[0].r.tolist() == [2.0] + [0.0] * 6


def test_one_row_cones_and_the_default_radius():
    one = one_block([5], [[1.0]], [0.5], (("orthant", 1),))  # zeta_(2,1) >= -0.5: a one-sided box
    worst = worst_case_value(GAME, P_ROW, "conic", uncertainty=one, backend=CONE)
    assert worst == pytest.approx(min(0.46, 0.45 - 0.3 * 0.5 * 0.5), abs=1e-6)
    nominal = solve_matrix_nash(GAME).value
    assert solve_robust(GAME, "interval").value == pytest.approx(nominal, abs=1e-9)
    assert robust_lp(GAME, "interval").solve("highs").objective == pytest.approx(nominal, abs=1e-9)
    assert robust_lp(GAME, "ellipsoidal").solve(CONE).objective == pytest.approx(nominal, abs=1e-6)


@pytest.mark.parametrize("player", ["row", "col"])
def test_a_one_sided_set_hurts_only_the_player_it_is_against(player):
    """Entry (2, 1) (vec index 5) may only rise, by up to Delta[2, 1] = 0.3: 0 <= zeta <= 1, as two orthant rows.

    A rise is good for the row player (robust value = the nominal game's) and bad for the column player (its
    robust concession = the game with C[2, 1] + 0.3): only the sign of each player's rows tells them apart.
    """
    rise = ConicUncertainty(
        GAME.shape,
        (UncertaintyBlock(np.array([5]), sp.csr_matrix([[1.0], [-1.0]]), np.array([0.0, 1.0]), (("orthant", 2),)),),
    )
    worse = C.copy()
    if player == "col":
        worse[2, 1] += 0.3
    expected = solve_matrix_nash(MatrixGame(worse), player).value
    result = solve_robust(GAME, "conic", player=player, uncertainty=rise, backend="highs")
    assert result.value == pytest.approx(expected, abs=1e-8)
    assert worst_case_value(GAME, result.strategy, "conic", player=player, uncertainty=rise, backend=CONE) == (
        pytest.approx(expected, abs=1e-6)
    )
    counterpart = robust_lp(GAME, "conic", player=player, uncertainty=rise).constraints["counterpart"]
    assert counterpart.size == 1  # one row per uncertain entry of each robust row that sees it (one row here)


def test_the_general_form_has_one_simplex_row_and_the_default_radius_is_nominal():
    model = robust_lp(GAME, "interval", 0.5, player="row", form="general")
    assert model.constraints["simplex"].size == 1
    assert worst_case_value(GAME, P_ROW, "interval", player="row") == pytest.approx(
        worst_case_value(GAME, P_ROW, "interval", 0.0, player="row"), abs=1e-12
    )
    assert worst_case_value(GAME, P_ROW, "interval", player="row") == pytest.approx(min(P_ROW @ C), abs=1e-12)


def test_uncertainty_sets_are_values_that_cannot_be_changed():
    box = interval_set(GAME.shape, 1.0, "column")
    with pytest.raises(AttributeError):
        box.blocks = ()
    with pytest.raises(AttributeError):
        box.blocks[0].r = np.zeros(1)


@pytest.mark.parametrize("form", ["general", "thesis"])
def test_a_solve_stopped_by_its_time_limit_says_so_in_either_form(form):
    """Only an infeasible or unbounded thesis LP means a non-positive robust value; a stopped one is just stopped."""
    with pytest.raises(SolveError, match=r"no optimum \(time_limit\)"):
        solve_robust(GAME, "interval", 0.5, form=form, time_limit=0.0)


def test_a_robust_strategy_as_a_table():
    result = solve_robust(GAME, "interval", 0.5, player="col")
    table = result.to_frame()
    assert list(table["action"]) == ["x", "y"]
    assert table["probability"].to_numpy() == pytest.approx(result.strategy, abs=1e-15)


def test_the_interval_lps_read_as_their_algebra_with_a_row_per_opponent_action():
    """The robust LPs of a 3 x 2 game at radius 0.5, both players: nominal payoffs less R times the deviations,
    each row named by the opponent's action it guards against."""
    assert str(robust_lp(GAME, "interval", 0.5, player="row")) == "\n".join(
        [
            "robust_interval_general_row: LP, 4 variables, 3 constraints, 11 nonzeros",
            "maximise  v[value]",
            "subject to",
            "  simplex (1 row):",
            "    [0]  x[a] + x[b] + x[c] = 1",
            "  robust (2 rows):",
            "    [x]  0.55 x[a] + 0.3 x[b] + 0.35 x[c] - v[value] >= 0",
            "    [y]  0.2 x[a] + 0.6 x[b] + 0.25 x[c] - v[value] >= 0",
            "bounds",
            "  x >= 0 (3)",
            "  v free (1)",
        ]
    )
    assert str(robust_lp(GAME, "interval", 0.5, player="col")) == "\n".join(
        [
            "robust_interval_general_col: LP, 3 variables, 4 constraints, 11 nonzeros",
            "minimise  v[value]",
            "subject to",
            "  simplex (1 row):",
            "    [0]  x[x] + x[y] = 1",
            "  robust (3 rows):",
            "    [a]  -0.65 x[x] - 0.2 x[y] + v[value] >= 0",
            "    [b]  -0.3 x[x] - 0.8 x[y] + v[value] >= 0",
            "    [c]  -0.65 x[x] - 0.55 x[y] + v[value] >= 0",
            "bounds",
            "  x >= 0 (2)",
            "  v free (1)",
        ]
    )


def test_a_robust_result_reads_as_its_game_player_set_and_values():
    shown = repr(solve_robust(GAME, "interval", 0.5))
    assert shown.startswith("RobustResult(game=3x2, player='row', robust='interval', radius=0.5, value=0.41538")

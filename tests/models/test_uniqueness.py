"""Mangasarian's uniqueness test: unique and non-unique optima of matrix and sequence-form LPs.

Every verdict is checked apart from the test: a "unique" optimum must be the
only point of the optimal face (two LPs over that face with scipy, for a
random objective and its negative, land on it); a "not unique" verdict must
come with a second feasible point with the same objective, different from the
first.
"""

from importlib import resources

import numpy as np
import pytest
from scipy.optimize import linprog

from gamelp.errors import ModelError
from gamelp.game import SequenceFormGame
from gamelp.matrix import MatrixGame
from gamelp.model import Model
from gamelp.models.nash import sequence_form_lp, solve_matrix_nash, solve_nash
from gamelp.models.uniqueness import check_uniqueness

ESCHE = resources.files("gamelp.games").joinpath("data", "esche_8c_payoffs.csv")


def face_extremes(model: Model, objective: float, block_slice=None, seed=0):
    """Points of the optimal face of ``model`` extreme for +w and -w (scipy's HiGHS, independent of gamelp)."""
    form = model.matrix_form()
    lower, upper = form.row_bounds
    sign = -1.0 if form.maximize else 1.0
    A = form.A.toarray()
    # Optimal face: the constraints plus  sign * c^T x <= sign * objective (+ slack).
    A_ub = np.vstack([A[np.isfinite(upper)], -A[np.isfinite(lower)], sign * form.c[None, :]])
    b_ub = np.concatenate(
        [upper[np.isfinite(upper)], -lower[np.isfinite(lower)], [sign * (objective - form.objective_constant) + 1e-10]]
    )
    w = np.random.default_rng(seed).normal(size=form.c.size)
    if block_slice is not None:
        mask = np.zeros(form.c.size, bool)
        mask[block_slice] = True
        w = np.where(mask, w, 0.0)
    points = []
    for direction in (w, -w):
        res = linprog(direction, A_ub=A_ub, b_ub=b_ub, bounds=list(zip(form.col_lb, form.col_ub)), method="highs")
        assert res.status == 0
        points.append(res.x)
    return points


def assert_unique_independently(model, solution, block="x"):
    x = solution.values[block]
    sl = model.variables[block].slice
    for point in face_extremes(model, solution.objective, sl):
        assert np.abs(point[sl] - x).max() < 1e-5


def assert_second_optimum(verdict, model, solution, block):
    assert not verdict.unique
    assert np.abs(verdict.direction[block]).max() > 1e-6
    assert verdict.second_objective == pytest.approx(solution.objective, abs=1e-8)
    assert verdict.second_violation < 1e-8
    assert np.abs(verdict.second_point[block] - solution.values[block]).max() > 1e-3


# ----------------------------------------------------------------------------- matrix games
@pytest.fixture(scope="module")
def esche():
    return MatrixGame.from_csv(ESCHE)


@pytest.mark.parametrize("backend", ["highs", "gurobi", "cvxpy:CLARABEL"])
def test_appendix_b_is_unique_as_in_section_3_3(esche, backend):
    result = solve_matrix_nash(esche, "row", backend, form="thesis")
    verdict = check_uniqueness(result.model, result.solution)
    assert verdict.unique
    # The thesis: C^T x = 1 in three columns, x_i = 0 in the other 30, all duals positive: C_K is 33 x 33, rank 33.
    assert len(verdict.K) == 33 and verdict.L == () and verdict.rank == 33
    assert sum(name.startswith("payoff[") for name in verdict.K) == 3
    assert verdict.smallest_positive_dual == pytest.approx(0.00196, abs=1e-6)
    assert verdict.largest_zero_dual is None and verdict.margin == np.inf
    assert verdict.second_point is None
    assert_unique_independently(result.model, result.solution)


def test_general_form_on_appendix_b_is_unique(esche):
    result = solve_matrix_nash(esche, "col")
    verdict = check_uniqueness(result.model, result.solution)
    assert verdict.unique and verdict.rank == verdict.num_variables == 34
    assert_unique_independently(result.model, result.solution)


def test_duplicated_deck_makes_the_mix_non_unique(esche):
    C = esche.payoffs
    i = esche.row_labels.index("8C28L")
    game = MatrixGame(np.vstack([C, C[i]]), esche.row_labels + ("8C28L copy",), esche.col_labels)
    result = solve_matrix_nash(game, "row", form="thesis")
    verdict = check_uniqueness(result.model, result.solution)
    assert_second_optimum(verdict, result.model, result.solution, "x")
    x2 = verdict.second_point["x"]
    assert x2.min() >= -1e-12 and (game.payoffs.T @ x2).min() >= 1 - 1e-9
    # The weight moves between the deck and its copy only.
    moved = np.flatnonzero(np.abs(verdict.direction["x"]) > 1e-9)
    assert set(moved) == {i, 33}


def test_weakly_dominated_row_gives_a_segment_of_optima():
    # Row 'safe' earns 0 against both columns, like the mix of 'left'/'right': value 0, many optima.
    game = MatrixGame([[1.0, -1.0], [-1.0, 1.0], [0.0, 0.0]], ["left", "right", "safe"], ["l", "r"])
    result = solve_matrix_nash(game)
    verdict = check_uniqueness(result.model, result.solution)
    assert_second_optimum(verdict, result.model, result.solution, "x")
    p2 = verdict.second_point["x"]
    assert p2.sum() == pytest.approx(1.0) and (game.payoffs.T @ p2).min() >= -1e-9
    # The column player's optimum (1/2, 1/2) is unique.
    col = solve_matrix_nash(game, "col")
    assert check_uniqueness(col.model, col.solution).unique
    assert_unique_independently(col.model, col.solution)


def test_rank_deficient_active_system_is_not_unique():
    # min x1 + x2 s.t. x1 + x2 >= 1 with free variables: the active system has rank 1 < 2.
    model = Model("line")
    x = model.add_variables("x", 2, lb=-np.inf)
    model.add_constraints("cover", {x: [[1.0, 1.0]]}, ">=", 1.0)
    model.set_objective({x: [1.0, 1.0]})
    solution = model.solve("highs")
    verdict = check_uniqueness(model, solution)
    assert verdict.rank == 1
    assert_second_optimum(verdict, model, solution, "x")
    assert verdict.step == 1.0  # the face is unbounded along the direction: a fixed step


def test_tolerance_and_margin_are_reported(esche):
    result = solve_matrix_nash(esche, "row", form="thesis")
    strict = check_uniqueness(result.model, result.solution, tolerance=1e-2)
    assert strict.tolerance == 1e-2
    assert strict.largest_zero_dual <= 1e-2 < strict.smallest_positive_dual
    assert len(strict.K) + len(strict.L) == 33
    payload = strict.to_dict()
    assert {"unique", "tolerance", "smallest_positive_dual", "largest_zero_dual"} <= payload.keys()


def test_refuses_models_that_are_not_lps(kuhn):
    model = sequence_form_lp(kuhn, 1, deterministic=True)
    solution = model.solve("highs")
    with pytest.raises(ModelError, match="linear program"):
        check_uniqueness(model, solution)


# ----------------------------------------------------------------------------- sequence-form games
def test_kuhn_player1_is_not_unique_player2_is(kuhn):
    p1 = solve_nash(kuhn, 1)
    verdict = check_uniqueness(p1.model, p1.solution, blocks=("x",))
    assert_second_optimum(verdict, p1.model, p1.solution, "x")
    x2 = verdict.second_point["x"]
    own = kuhn.player(1)
    assert own.infeasibility(x2) < 1e-9
    assert kuhn.guaranteed_value(1, x2) == pytest.approx(-1 / 18, abs=1e-9)  # another equilibrium strategy

    p2 = solve_nash(kuhn, 2)
    verdict = check_uniqueness(p2.model, p2.solution, blocks=("x",))
    assert verdict.unique
    assert_unique_independently(p2.model, p2.solution)


def two_subgame_game(shift: float) -> SequenceFormGame:
    """Player 1 picks subgame L or R, then H or T; player 2 picks h or t without seeing it.

    Both subgames are matching pennies; R's payoffs are lowered by ``shift``
    (0: L and R are interchangeable, so player 1's equilibrium is not unique).
    """

    def node(node_id, actions, parent=None):
        return {"id": node_id, "type": "decision", "actions": actions, "parent_edge": parent, "parent_sequence": parent}

    utility = []
    for side, offset in (("L", 0.0), ("R", -shift)):
        for mine, theirs, value in (("H", "h", 1), ("H", "t", -1), ("T", "h", -1), ("T", "t", 1)):
            utility.append(
                {"sequence_pl1": [f"d_{side}", mine], "sequence_pl2": ["d2", theirs], "value": value + offset}
            )
    data = {
        "decision_problem_pl1": [
            node("d1", ["L", "R"]),
            node("d_L", ["H", "T"], ["d1", "L"]),
            node("d_R", ["H", "T"], ["d1", "R"]),
        ],
        "decision_problem_pl2": [node("d2", ["h", "t"])],
        "utility_pl1": utility,
    }
    return SequenceFormGame.from_dict(data, "two_subgames")


def test_hand_built_sequence_form_game():
    twin = two_subgame_game(0.0)
    result = solve_nash(twin, 1)
    assert result.value == pytest.approx(0.0, abs=1e-12)
    verdict = check_uniqueness(result.model, result.solution, blocks=("x",))
    assert_second_optimum(verdict, result.model, result.solution, "x")
    assert twin.player(1).infeasibility(verdict.second_point["x"]) < 1e-9
    assert twin.guaranteed_value(1, verdict.second_point["x"]) == pytest.approx(0.0, abs=1e-9)

    skewed = two_subgame_game(0.5)
    result = solve_nash(skewed, 1)
    verdict = check_uniqueness(result.model, result.solution, blocks=("x",))
    assert verdict.unique
    assert_unique_independently(result.model, result.solution)
    strategy = result.strategy_dict()
    assert strategy["d1:L"] == pytest.approx(1.0) and strategy["d1:R"] == pytest.approx(0.0, abs=1e-12)
    assert strategy["d_L:H"] == pytest.approx(0.5)


def test_rps_is_unique_in_the_whole_vector(rps):
    result = solve_nash(rps, 1)
    verdict = check_uniqueness(result.model, result.solution)
    assert verdict.unique and verdict.rank == verdict.num_variables
    assert_unique_independently(result.model, result.solution)

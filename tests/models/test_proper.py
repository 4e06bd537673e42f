"""Normal-form proper equilibria (gamelp.models.proper), checked against Dresher's procedure on the normal form.

The independent check enumerates each player's pure strategies (the vertices of its sequence-form polytope),
builds the normal form and runs Dresher's procedure there with scipy's LP solver (van Damme 1991, Section 3.5:
in a zero-sum game the proper strategies are Dresher's).  Its outcome is the lexicographically greatest sorted
vector of payoffs against the opponent's pure strategies; a strategy is proper exactly when its own sorted
payoffs equal it.  Neither the sequence-form LPs nor the module's code are used.
"""

from fractions import Fraction

import numpy as np
import pytest
from scipy.optimize import linprog
from test_refine import (
    LEDUC_VALUE,
    faults_against_uniform_trembles,
    off_path_game,
    sequentially_rational_faults,
    uniform_trembles,
)

from gamelp.errors import ModelError
from gamelp.game import SequenceFormGame
from gamelp.model import Model
from gamelp.models.exact import CertificateError, OptimalBasis, rational_payoff
from gamelp.models.refine import ExactLP, solve_refined, symbolic_solution


def pure_strategies(treeplex) -> list[list[int]]:
    """Every pure (reduced) strategy of the player as 0/1 sequence weights, by choosing top-down."""
    out, x = [], [1] + [0] * (treeplex.num_sequences - 1)

    def choose(j: int) -> None:
        if j == treeplex.num_decision_points:
            out.append(list(x))
        elif not x[treeplex.parents[j]]:
            choose(j + 1)
        else:
            for s in range(treeplex.starts[j], treeplex.ends[j]):
                x[s] = 1
                choose(j + 1)
                x[s] = 0

    choose(0)
    return out


def exact_payoffs(game, player: int) -> np.ndarray:
    """The player's payoff matrix (own sequences by the opponent's) as fractions."""
    A = np.array([[rational_payoff(float(v)) for v in row] for row in game.A.toarray()], dtype=object)
    return A if player == 1 else -A.T


def normal_form(game, player: int) -> np.ndarray:
    """The player's payoffs, own pure strategies by the opponent's, as fractions."""
    own, theirs = (np.array(pure_strategies(game.player(k)), dtype=object) for k in (player, 3 - player))
    return own @ exact_payoffs(game, player) @ theirs.T


def dresher_leximin(U: np.ndarray) -> list[float]:
    """Dresher's procedure on the matrix game ``U`` (rows maximise): the sorted levels of the columns."""
    U = U.astype(float)
    m, n = U.shape
    levels: list[float | None] = [None] * n
    while None in levels:
        opened = np.array([level is None for level in levels], dtype=float)
        bound = np.array([0.0 if level is None else level - 1e-9 for level in levels])
        result = linprog(
            np.r_[np.zeros(m), -1.0],
            A_ub=np.c_[-U.T, opened],
            b_ub=-bound,
            A_eq=np.r_[np.ones(m), 0.0][None, :],
            b_eq=[1.0],
            bounds=[(0, None)] * m + [(None, None)],
            method="highs",
        )
        assert result.status == 0
        closing = [j for j in range(n) if levels[j] is None and abs(result.ineqlin.marginals[j]) > 1e-9]
        assert closing
        for j in closing:
            levels[j] = -result.fun
    return sorted(levels)


def sorted_payoffs(game, player: int, strategy) -> list[Fraction]:
    """The strategy's payoffs against each of the opponent's pure strategies, sorted."""
    theirs = np.array(pure_strategies(game.player(3 - player)), dtype=object)
    return sorted(np.array(list(strategy), dtype=object) @ exact_payoffs(game, player) @ theirs.T)


def assert_dresher_optimal(game, refined) -> None:
    for player, strategy in ((1, refined.certificate.first), (2, refined.certificate.second)):
        expected = dresher_leximin(normal_form(game, player))
        assert [float(q) for q in sorted_payoffs(game, player, strategy)] == pytest.approx(expected, abs=1e-7)


def mistakes_game() -> SequenceFormGame:
    """Player 1 enters ``L`` or ``R``; either way player 2 can hold it to 0, but may err.

    After ``L`` player 2's mistake ``b`` pays player 1 2; after ``R`` its mistake ``d`` pays 1 and ``e`` 10.  A
    quasi-perfect equilibrium weighs the mistakes at one depth alike (``R`` collects 11 per tremble, ``L`` 2) and
    enters ``R``; a proper one takes the cheaper mistake as infinitely likelier than the costlier one, so it
    balances the cheapest mistakes, ``2 x_L = x_R``: ``L`` with probability 1/3.
    """
    root = {"id": "r", "type": "decision", "actions": ["L", "R"], "parent_edge": None, "parent_sequence": None}
    seen = {"id": "o", "type": "observation", "signals": ["L", "R"], "parent_edge": None, "parent_sequence": None}
    points = [
        {"id": h, "type": "decision", "actions": acts, "parent_edge": ["o", s], "parent_sequence": None}
        for h, s, acts in (("hL", "L", ["a", "b"]), ("hR", "R", ["c", "d", "e"]))
    ]
    payoffs = [("L", "hL", "b", 2), ("R", "hR", "d", 1), ("R", "hR", "e", 10)]
    return SequenceFormGame.from_dict(
        {
            "decision_problem_pl1": [root],
            "decision_problem_pl2": [seen, *points],
            "utility_pl1": [{"sequence_pl1": ["r", a], "sequence_pl2": [h, b], "value": v} for a, h, b, v in payoffs],
        },
        "mistakes",
    )


def test_proper_weighs_mistakes_by_their_cost_where_quasi_perfect_weighs_them_alike():
    game = mistakes_game()
    proper, quasi = solve_refined(game, "proper"), solve_refined(game, "quasi-perfect")
    assert proper.exact_value == quasi.exact_value == 0
    assert proper.behaviour[0]["r"] == {"L": Fraction(1, 3), "R": Fraction(2, 3)}
    assert quasi.behaviour[0]["r"] == {"L": 0, "R": 1}
    assert_dresher_optimal(game, proper)
    # Against player 2's cheapest mistakes (d after R, b after L) the quasi-perfect strategy gets 0 from b.
    expected = dresher_leximin(normal_form(game, 1))
    assert sorted_payoffs(game, 1, quasi.certificate.first)[:2] == [0, 0] and expected[1] == pytest.approx(2 / 3)


def test_kuhn_proper_is_dresher_optimal_on_the_normal_form_and_worth_minus_one_eighteenth(kuhn):
    refined = solve_refined(kuhn, "proper")
    assert refined.exact_value == Fraction(-1, 18) and refined.gap == pytest.approx(0.0, abs=1e-12)
    assert_dresher_optimal(kuhn, refined)
    # Player 1 bets the jack 1/6 of the time (inside the family alpha in [0, 1/3]) and the king 3 alpha = 1/2.
    assert refined.behaviour[0]["dJ_pl1"] == {"k": Fraction(5, 6), "b": Fraction(1, 6)}
    assert refined.behaviour[0]["dK_pl1"] == {"k": Fraction(1, 2), "b": Fraction(1, 2)}
    assert_sequentially_rational(kuhn, refined)
    # The quasi-perfect strategy (alpha = 1/3) is optimal but not proper: its sorted payoffs fall behind Dresher's.
    quasi = [float(q) for q in sorted_payoffs(kuhn, 1, solve_refined(kuhn).certificate.first)]
    assert quasi < dresher_leximin(normal_form(kuhn, 1))


def test_off_the_path_proper_play_punishes_the_opponents_mistakes():
    game = off_path_game()
    refined = solve_refined(game, "proper")
    assert refined.exact_value == 1 and refined.behaviour[0]["r"] == {"out": 1, "in1": 0, "in2": 0}
    assert refined.behaviour[1]["h1"] == {"l": 1, "r": 0} and refined.behaviour[1]["h2"] == {"l": 0, "r": 1}
    assert_dresher_optimal(game, refined)
    assert_sequentially_rational(game, refined)


def assert_sequentially_rational(game, refined) -> None:
    """Sequentially rational against uniform trembles in the limit, with behaviour at every decision point."""
    uniform = uniform_trembles(game, refined.behaviour)
    assert sequentially_rational_faults(game, refined.behaviour, uniform, in_the_limit=True) == []
    for player in (1, 2):
        behaviour = refined.behaviour[player - 1]
        assert list(behaviour) == list(game.player(player).decision_points)
        assert all(sum(local.values()) == 1 and min(local.values()) >= 0 for local in behaviour.values())


@pytest.mark.slow
def test_leduc_proper_is_exact_and_defined_everywhere(leduc):
    refined = solve_refined(leduc, "proper")  # 330 LPs, about 35 s on 2 loaded cores
    assert refined.exact_value == LEDUC_VALUE
    for player in (1, 2):
        behaviour = refined.behaviour[player - 1]
        assert list(behaviour) == list(leduc.player(player).decision_points)
        assert all(sum(local.values()) == 1 and min(local.values()) >= 0 for local in behaviour.values())
    # Against uniform trembles (not the cost-ranked ones a proper equilibrium answers) 14 of its actions are not
    # best, 10 of them where its own play arrives; the plain LP's arbitrary off-path play fails over ten times more.
    plain_faults, proper_faults = faults_against_uniform_trembles(leduc, refined)
    assert len(plain_faults) > 10 * len(proper_faults)


def test_refusals(kuhn):
    with pytest.raises(ModelError, match="did you mean 'proper'"):
        solve_refined(kuhn, "propper")
    with pytest.raises(ModelError, match="HiGHS"):
        solve_refined(kuhn, "proper", backend="cvxpy:CLARABEL")


@pytest.mark.parametrize(
    ("costs", "columns", "rows", "fault"),
    [
        ((-3, -1), ["kBasic", "kBasic"], ["kLower", "kLower"], "basic column 1 falls below its lower bound"),
        ((-1, -3), ["kBasic", "kLower"], ["kLower", "kBasic"], "row 1 is violated"),
    ],
)
def test_a_dual_feasible_basis_below_a_bound_is_repaired_by_exact_dual_steps(costs, columns, rows, fault):
    """``max c^T x`` s.t. ``x1 + x2 >= 1``, ``x1 - x2 >= 3``, ``x >= 0``, optimal at ``x = (3, 0)``.

    Both bases are dual feasible; the first puts ``x2`` at -1, the second leaves the second row 2 short.  One
    exact dual step each reaches the optimum; without dual steps each is refused.
    """
    model = Model("dual_step")
    x = model.add_variables("x", 2)
    model.add_constraints("rows", {x: np.array([[1.0, 1.0], [1.0, -1.0]])}, ">=", [1.0, 3.0])
    model.set_objective({x: [float(c) for c in costs]}, sense="max")
    exact = [np.array([Fraction(c) for c in costs], dtype=object)]
    zero = [np.array([Fraction(0), Fraction(0)], dtype=object)]
    lp = ExactLP(model, zero, np.array([True, True]), exact, np.array([Fraction(1), Fraction(3)], dtype=object))
    basis = OptimalBasis.from_status(model.matrix_form(), np.array(columns), np.array(rows))
    with pytest.raises(CertificateError, match=fault):
        symbolic_solution(lp, basis, 5)
    solved = symbolic_solution(lp, basis, 5, dual_steps=True)
    assert solved.pivots == 1 and list(solved.values[0]) == [3, 0]

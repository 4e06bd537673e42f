"""Quasi-perfect equilibria (gamelp.models.refine), checked for sequential rationality by an independent tree walk.

The check (:func:`sequentially_rational_faults`) uses neither the LP nor the module's code.  Each player faces
the opponent's strategy with trembles, given as sequence weights that are polynomials in ``eps``; the player's
payoff per own sequence is then a polynomial, and one bottom-up walk of the player's decision points gives the
best continuation value of every action.  An action played with positive probability must be a best one:

* against the perturbed equilibria the module returns (``RefinedEquilibrium.perturbed``, completely mixed for
  ``eps > 0`` and tending to the limit), for every small ``eps`` (polynomials compared lexicographically, as
  coefficient tuples).  This is van Damme's (1984) definition of a quasi-perfect equilibrium, with the LP's
  perturbed strategies as the witness trembles: passing it proves the refinement, whatever the LP did.
* against the opponent's limit behaviour with uniform trembles ``(1 - eps) b(a|h) + eps / |A(h)|``, in the limit
  (the beliefs at each set from the lowest order at which it is reached, as in a sequential equilibrium): a
  plain check that the Nash LP's off-path play fails.  A quasi-perfect equilibrium need not pass it where a set
  is reached only by trembles, whose beliefs then depend on how the opponent trembles: on Kuhn and the small
  game below it passes; on Leduc 12 off-path actions (of the plain LP's 164) are not best against uniform
  trembles, while all are against the perturbed strategies.
"""

from fractions import Fraction

import numpy as np
import pytest

from gamelp.errors import ModelError, SolveError
from gamelp.game import SequenceFormGame
from gamelp.models.exact import ExactMatrix, rational_payoff, verify_equilibrium
from gamelp.models.nash import solve_equilibrium
from gamelp.models.refine import (
    lexicographic_sign,
    perturbed_lp,
    sequence_depths,
    solve_refined,
)

# Leduc's value under the payoff rule (tests/models/test_exact.py finds it from the Nash LP's basis).
LEDUC_VALUE = Fraction(-1454920850547486749701863871533, 16995463438839962469905132501930)


# ----------------------------------------------------------------------------- the independent check
def _add(p: tuple, q: tuple) -> tuple:
    n = max(len(p), len(q))
    p, q = p + (Fraction(0),) * (n - len(p)), q + (Fraction(0),) * (n - len(q))
    return tuple(a + b for a, b in zip(p, q))


def _times(p: tuple, q: tuple) -> tuple:
    out = [Fraction(0)] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        for j, b in enumerate(q):
            out[i + j] += a * b
    return tuple(out)


def _padded(polynomials: list[tuple]) -> list[tuple]:
    """The polynomials with zeros appended to one length: tuple comparison is then their order for small eps."""
    n = max(len(p) for p in polynomials)
    return [p + (Fraction(0),) * (n - len(p)) for p in polynomials]


def trembled(treeplex, behaviour: dict) -> list[tuple]:
    """Sequence weights of ``behaviour`` with the trembles ``(1 - eps) b + eps / n``, as polynomials in eps."""
    weights = [(Fraction(1),)] + [()] * (treeplex.num_sequences - 1)
    for j, point in enumerate(treeplex.decision_points):
        actions = treeplex.actions[point]
        for offset, action in enumerate(actions):
            b = Fraction(behaviour[point][action])
            local = (b, Fraction(1, len(actions)) - b)
            weights[treeplex.starts[j] + offset] = _times(weights[treeplex.parents[j]], local)
    return weights


def uniform_trembles(game, behaviours) -> tuple[list[tuple], list[tuple]]:
    """Both players' behaviour with uniform trembles (:func:`trembled`)."""
    return trembled(game.pl1, behaviours[0]), trembled(game.pl2, behaviours[1])


def perturbed_trembles(refined) -> tuple[list[tuple], list[tuple]]:
    """The refined equilibrium's perturbed strategies ``x(eps)``, ``y(eps)`` as one polynomial per sequence."""
    return tuple([tuple(c[i] for c in poly) for i in range(len(poly[0]))] for poly in refined.perturbed)


def sequentially_rational_faults(game, behaviours, trembles, *, in_the_limit: bool = False) -> list[str]:
    """Each (player, decision point, action) played with positive probability that is not a best response there
    to the opponent's ``trembles`` for every small eps, or ``in_the_limit`` (an empty list: sequentially rational).
    """
    faults = []
    A = game.A.tocoo()
    payoffs = [rational_payoff(float(v)) for v in A.data]
    for player in (1, 2):
        own, opponent_weights = game.player(player), trembles[2 - player]
        utility: list[tuple] = [()] * own.num_sequences
        for i, j, value in zip(A.row.tolist(), A.col.tolist(), payoffs):
            mine, theirs, sign = (i, j, 1) if player == 1 else (j, i, -1)
            utility[mine] = _add(utility[mine], _times((sign * value,), opponent_weights[theirs]))
        best = list(utility)  # each sequence's value with the best continuation below it, filled bottom-up
        for j in range(own.num_decision_points - 1, -1, -1):
            point = own.decision_points[j]
            local = _padded([best[s] for s in range(own.starts[j], own.ends[j])])
            top = max(local)
            # In the limit only the lowest order at which the set is reached counts (the beliefs live there).
            order = next((k for k in range(len(top)) if any(q[k] for q in local)), 0)
            shown = slice(order, order + 1) if in_the_limit else slice(None)
            for action, value in zip(own.actions[point], local):
                if behaviours[player - 1][point][action] > 0 and value[shown] != top[shown]:
                    faults.append(f"player {player} at {point!r} plays {action!r}, not a best response")
            best[own.parents[j]] = _add(best[own.parents[j]], top)
    return faults


def assert_quasi_perfect(game, refined) -> None:
    """Quasi-perfect against its perturbed strategies, with a behavioural strategy at every decision point."""
    assert sequentially_rational_faults(game, refined.behaviour, perturbed_trembles(refined)) == []
    for player in (1, 2):
        behaviour = refined.behaviour[player - 1]
        assert list(behaviour) == list(game.player(player).decision_points)
        assert all(sum(local.values()) == 1 and min(local.values()) >= 0 for local in behaviour.values())


# ----------------------------------------------------------------------------- games
def off_path_game() -> SequenceFormGame:
    """Player 1 takes 1 by ``out``; ``in1`` and ``in2`` lead to player 2's sets ``h1`` and ``h2``.

    At ``h1`` player 2's ``l`` gives player 1 0 and ``r`` 3; at ``h2`` the other way round.  Player 1 stays out
    if player 2 plays ``l`` at ``h1`` (and ``r`` at ``h2``) at least 2/3 of the time: any such mix is a Nash
    equilibrium, but once there player 2 should play ``l`` (and ``r``) outright.
    """
    root = {"id": "r", "type": "decision", "actions": ["out", "in1", "in2"], "parent_edge": None}
    seen = {"id": "o", "type": "observation", "signals": ["out", "in1", "in2"], "parent_edge": None}
    points = [
        {"id": h, "type": "decision", "actions": acts, "parent_edge": ["o", s], "parent_sequence": None}
        for h, s, acts in (("h0", "out", ["pass"]), ("h1", "in1", ["l", "r"]), ("h2", "in2", ["l", "r"]))
    ]
    payoffs = [("out", "h0", "pass", 1), ("in1", "h1", "l", 0), ("in1", "h1", "r", 3)]
    payoffs += [("in2", "h2", "l", 3), ("in2", "h2", "r", 0)]
    return SequenceFormGame.from_dict(
        {
            "decision_problem_pl1": [{**root, "parent_sequence": None}],
            "decision_problem_pl2": [seen, *points],
            "utility_pl1": [{"sequence_pl1": ["r", a], "sequence_pl2": [h, b], "value": v} for a, h, b, v in payoffs],
        },
        "off_path",
    )


def _sequence_form(treeplex, behaviour: dict) -> np.ndarray:
    """The exact sequence-form weights of a behavioural strategy of fractions."""
    x = np.array([Fraction(1)] * treeplex.num_sequences, dtype=object)
    for j, point in enumerate(treeplex.decision_points):
        for offset, action in enumerate(treeplex.actions[point]):
            x[treeplex.starts[j] + offset] = x[treeplex.parents[j]] * Fraction(behaviour[point][action])
    return x


def _behaviours(game, x, y) -> tuple[dict, dict]:
    """Both behavioural strategies of float sequence-form strategies, as exact fractions of small denominator."""
    return tuple(
        {
            point: {a: Fraction(p).limit_denominator(10**6) for a, p in local.items()}
            for point, local in game.player(k).to_behavioural(s).items()
        }
        for k, s in ((1, x), (2, y))
    )


def faults_against_uniform_trembles(game, refined) -> tuple[list[str], list[str]]:
    """The faults of HiGHS's plain Nash equilibrium and of ``refined`` against uniform trembles, in the limit."""
    plain = solve_equilibrium(game, "highs")
    behaviours = _behaviours(game, plain.x, plain.y)
    plain_faults = sequentially_rational_faults(game, behaviours, uniform_trembles(game, behaviours), in_the_limit=True)
    uniform = uniform_trembles(game, refined.behaviour)
    return plain_faults, sequentially_rational_faults(game, refined.behaviour, uniform, in_the_limit=True)


# ----------------------------------------------------------------------------- tests
def test_the_nash_lp_on_kuhn_folds_a_king_off_its_path_and_the_quasi_perfect_equilibrium_calls(kuhn):
    plain = solve_equilibrium(kuhn, "highs")  # HiGHS's vertex: player 1 never checks a king, and folds it if it did
    assert plain.gap == pytest.approx(0.0, abs=1e-12)
    behaviours = _behaviours(kuhn, plain.x, plain.y)
    assert sequentially_rational_faults(kuhn, behaviours, uniform_trembles(kuhn, behaviours), in_the_limit=True) == [
        "player 1 at 'dK/kb_pl1' plays 'f', not a best response"
    ]
    refined = solve_refined(kuhn)
    assert refined.behaviour[0]["dK/kb_pl1"] == {"f": 0, "c": 1}
    assert_quasi_perfect(kuhn, refined)
    uniform = uniform_trembles(kuhn, refined.behaviour)
    assert sequentially_rational_faults(kuhn, refined.behaviour, uniform, in_the_limit=True) == []
    # Folding the king there instead fails against the perturbed strategies too.
    folding = ({**refined.behaviour[0], "dK/kb_pl1": {"f": 1, "c": 0}}, refined.behaviour[1])
    assert sequentially_rational_faults(kuhn, folding, perturbed_trembles(refined)) == [
        "player 1 at 'dK/kb_pl1' plays 'f', not a best response"
    ]


def test_a_nash_equilibrium_that_mixes_off_the_path_fails_the_check_and_the_refined_one_passes():
    game = off_path_game()
    payoffs = ExactMatrix.from_floats(game.A)
    mixed = ({"r": {"out": 1, "in1": 0, "in2": 0}}, {"h0": {"pass": 1}})
    mixed[1].update(h1={"l": Fraction(2, 3), "r": Fraction(1, 3)}, h2={"l": Fraction(1, 3), "r": Fraction(2, 3)})
    x, y = (_sequence_form(game.player(k), mixed[k - 1]) for k in (1, 2))
    assert verify_equilibrium(game, payoffs, x, y) == 1  # a Nash equilibrium, exactly
    assert sequentially_rational_faults(game, mixed, uniform_trembles(game, mixed), in_the_limit=True) == [
        "player 2 at 'h2' plays 'l', not a best response",
        "player 2 at 'h1' plays 'r', not a best response",
    ]
    refined = solve_refined(game)
    assert_quasi_perfect(game, refined)
    uniform = uniform_trembles(game, refined.behaviour)
    assert sequentially_rational_faults(game, refined.behaviour, uniform, in_the_limit=True) == []
    assert refined.behaviour[1]["h1"] == {"l": 1, "r": 0} and refined.behaviour[1]["h2"] == {"l": 0, "r": 1}
    assert refined.exact_value == 1 and refined.behaviour[0]["r"] == {"out": 1, "in1": 0, "in2": 0}
    going_in = ({"r": {"out": 0, "in1": 1, "in2": 0}}, refined.behaviour[1])
    assert sequentially_rational_faults(game, going_in, perturbed_trembles(refined)) == [
        "player 1 at 'r' plays 'in1', not a best response"
    ]


def test_kuhn_quasi_perfect_is_a_nash_equilibrium_worth_minus_one_eighteenth(kuhn):
    refined = solve_refined(kuhn)
    assert refined.exact_value == Fraction(-1, 18) and refined.value == pytest.approx(-1 / 18, abs=1e-15)
    assert refined.gap == pytest.approx(0.0, abs=1e-12)
    assert kuhn.guaranteed_value(1, refined.x) == pytest.approx(-1 / 18, abs=1e-12)
    assert kuhn.guaranteed_value(2, refined.y) == pytest.approx(1 / 18, abs=1e-12)
    # Player 1 bets the jack a third of the time (the end of the family alpha in [0, 1/3]) and always bets the king.
    assert refined.behaviour[0]["dJ_pl1"] == {"k": Fraction(2, 3), "b": Fraction(1, 3)}
    assert refined.behaviour[0]["dK_pl1"] == {"k": 0, "b": 1}
    # The perturbed strategies tend to the limit and keep every sequence above eps^|s|.
    x_poly, _ = refined.perturbed
    assert list(x_poly[0]) == list(refined.certificate.first)
    assert all(lexicographic_sign([c[s] for c in x_poly]) > 0 for s in range(1, kuhn.pl1.num_sequences))


@pytest.mark.slow
def test_leduc_quasi_perfect_passes_the_check_where_the_nash_lp_fails(leduc):
    refined = solve_refined(leduc)  # about 25 s on 2 loaded cores: HiGHS's basis at eps = 1/48, then 24 exact pivots
    assert refined.exact_value == LEDUC_VALUE and refined.pivots > 0
    assert_quasi_perfect(leduc, refined)
    plain_faults, refined_faults = faults_against_uniform_trembles(leduc, refined)
    assert len(plain_faults) > 10 * len(refined_faults)


def test_the_sequence_depths_and_the_perturbed_bounds(kuhn):
    depth = sequence_depths(kuhn.pl1)
    assert depth[0] == 0 and set(depth[1:].tolist()) == {1, 2}
    lp = perturbed_lp(kuhn, Fraction(1, 10))
    lower = lp.model.variables["x"].lb
    assert lower[0] == 0 and np.allclose(lower[1:], 0.1 ** depth[1:])
    assert lexicographic_sign([0, 0, Fraction(-1, 9), 5]) == -1 and lexicographic_sign([0, 0]) == 0


def test_a_basis_needing_pivots_is_refused_without_them_and_found_with_them(kuhn):
    with pytest.raises(SolveError, match="no basis optimal for every small eps in 1 tries; the last: .* improves"):
        solve_refined(kuhn, epsilon=Fraction(1, 8), max_tries=1, max_pivots=0)
    refined = solve_refined(kuhn, epsilon=Fraction(1, 8), max_tries=1)
    assert refined.pivots >= 1 and refined.exact_value == Fraction(-1, 18)


def test_refusals(kuhn):
    with pytest.raises(ModelError, match="did you mean 'quasi-perfect'"):
        solve_refined(kuhn, "quasi-perfct")
    with pytest.raises(ModelError, match="HiGHS"):
        solve_refined(kuhn, backend="cvxpy:CLARABEL")
    with pytest.raises(ModelError, match="epsilon"):
        solve_refined(kuhn, epsilon=Fraction(1, 2))

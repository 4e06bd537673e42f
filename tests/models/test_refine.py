"""Quasi-perfect equilibria (gamelp.models.refine), checked for sequential rationality by an independent tree walk.

The check (:func:`sequentially_rational_faults`) uses neither the LP nor the module: the opponent plays its
behavioural strategy with trembles, ``(1 - eps) b(a|h) + eps / |A(h)|`` at every information set, so every
sequence weight is a polynomial in ``eps``; each player's payoff per own sequence is then a polynomial, and one
bottom-up walk of the player's decision points gives the best continuation value of every action.  An action
played with positive probability must be a best one for every small ``eps > 0``: polynomials compared
lexicographically (coefficient tuples, lowest power first).
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


def sequentially_rational_faults(game: SequenceFormGame, behaviours: tuple[dict, dict]) -> list[str]:
    """Each (player, decision point, action) played with positive probability that is not a best response there
    to the trembling opponent for every small eps (an empty list: the pair is sequentially rational)."""
    faults = []
    A = game.A.tocoo()
    payoffs = [rational_payoff(float(v)) for v in A.data]
    for player in (1, 2):
        own, opponent = game.player(player), game.player(3 - player)
        opponent_weights = trembled(opponent, behaviours[2 - player])
        utility: list[tuple] = [()] * own.num_sequences
        for i, j, value in zip(A.row.tolist(), A.col.tolist(), payoffs):
            mine, theirs, sign = (i, j, 1) if player == 1 else (j, i, -1)
            utility[mine] = _add(utility[mine], _times((sign * value,), opponent_weights[theirs]))
        best = list(utility)  # each sequence's value with the best continuation below it, filled bottom-up
        for j in range(own.num_decision_points - 1, -1, -1):
            point = own.decision_points[j]
            local = _padded([best[s] for s in range(own.starts[j], own.ends[j])])
            top = max(local)
            # The order at which the opponent (and chance) reach the set: the limit beliefs live there.
            order = next((k for k in range(len(top)) if any(q[k] for q in local)), 0)
            for action, value in zip(own.actions[point], local):
                if behaviours[player - 1][point][action] > 0 and value[order : order + 1] != top[order : order + 1]:
                    faults.append(f"player {player} at {point!r} plays {action!r}, not a best response")
            best[own.parents[j]] = _add(best[own.parents[j]], top)
    return faults


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


# ----------------------------------------------------------------------------- tests
def test_the_nash_lp_on_kuhn_folds_a_king_off_its_path_and_the_quasi_perfect_equilibrium_calls(kuhn):
    plain = solve_equilibrium(kuhn, "highs")  # HiGHS's vertex: player 1 never checks a king, and folds it if it did
    assert plain.gap == pytest.approx(0.0, abs=1e-12)
    assert sequentially_rational_faults(kuhn, _behaviours(kuhn, plain.x, plain.y)) == [
        "player 1 at 'dK/kb_pl1' plays 'f', not a best response"
    ]
    refined = solve_refined(kuhn)
    assert refined.behaviour[0]["dK/kb_pl1"] == {"f": 0, "c": 1}
    assert sequentially_rational_faults(kuhn, refined.behaviour) == []


def test_a_nash_equilibrium_that_mixes_off_the_path_fails_the_check_and_the_refined_one_passes():
    game = off_path_game()
    payoffs = ExactMatrix.from_floats(game.A)
    mixed = ({"r": {"out": 1, "in1": 0, "in2": 0}}, {"h0": {"pass": 1}})
    mixed[1].update(h1={"l": Fraction(2, 3), "r": Fraction(1, 3)}, h2={"l": Fraction(1, 3), "r": Fraction(2, 3)})
    x, y = (_sequence_form(game.player(k), mixed[k - 1]) for k in (1, 2))
    assert verify_equilibrium(game, payoffs, x, y) == 1  # a Nash equilibrium, exactly
    assert sequentially_rational_faults(game, mixed) == [
        "player 2 at 'h2' plays 'l', not a best response",
        "player 2 at 'h1' plays 'r', not a best response",
    ]
    refined = solve_refined(game)
    assert sequentially_rational_faults(game, refined.behaviour) == []
    assert refined.behaviour[1]["h1"] == {"l": 1, "r": 0} and refined.behaviour[1]["h2"] == {"l": 0, "r": 1}
    assert refined.exact_value == 1 and refined.behaviour[0]["r"] == {"out": 1, "in1": 0, "in2": 0}
    worse = ({"r": {"out": 0, "in1": 1, "in2": 0}}, refined.behaviour[1])
    assert sequentially_rational_faults(game, worse) == ["player 1 at 'r' plays 'in1', not a best response"]


def test_kuhn_quasi_perfect_is_a_nash_equilibrium_worth_minus_one_eighteenth_and_sequentially_rational(kuhn):
    refined = solve_refined(kuhn)
    assert refined.exact_value == Fraction(-1, 18)
    assert refined.gap == pytest.approx(0.0, abs=1e-12)
    assert kuhn.guaranteed_value(1, refined.x) == pytest.approx(-1 / 18, abs=1e-12)
    assert kuhn.guaranteed_value(2, refined.y) == pytest.approx(1 / 18, abs=1e-12)
    assert sequentially_rational_faults(kuhn, refined.behaviour) == []
    # Every decision point has a behavioural strategy, the unreached ones included.
    for player in (1, 2):
        behaviour = refined.behaviour[player - 1]
        assert set(behaviour) == set(kuhn.player(player).decision_points)
        assert all(sum(local.values()) == 1 for local in behaviour.values())


def test_the_sequence_depths_and_the_perturbed_bounds(kuhn):
    depth = sequence_depths(kuhn.pl1)
    assert depth[0] == 0 and set(depth[1:].tolist()) == {1, 2}
    lp = perturbed_lp(kuhn, Fraction(1, 10))
    lower = lp.model.variables["x"].lb
    assert lower[0] == 0 and np.allclose(lower[1:], 0.1 ** depth[1:])
    assert lexicographic_sign([0, 0, Fraction(-1, 9), 5]) == -1 and lexicographic_sign([0, 0]) == 0


def test_refusals(kuhn):
    with pytest.raises(ModelError, match="did you mean 'quasi-perfect'"):
        solve_refined(kuhn, "quasi-perfct")
    with pytest.raises(ModelError, match="HiGHS"):
        solve_refined(kuhn, backend="cvxpy:CLARABEL")
    with pytest.raises(ModelError, match="epsilon"):
        solve_refined(kuhn, epsilon=Fraction(1, 2))
    with pytest.raises(SolveError, match="no basis optimal for every small eps in 1 tries"):
        solve_refined(kuhn, epsilon=Fraction(1, 8), max_tries=1)

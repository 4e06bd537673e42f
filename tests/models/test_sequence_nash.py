"""Sequence-form Nash LPs on every backend, checked against the homework's values and without a solver."""

import json

import numpy as np
import pytest

from gamelp.backends import REGISTERED, available_backends, check
from gamelp.errors import BackendError
from gamelp.game import SequenceFormGame
from gamelp.games import poker
from gamelp.models.determinism import solve_deterministic
from gamelp.models.nash import sequence_form_lp, solve_equilibrium, solve_nash

# These, and every registered backend of a family that drives one solver of its own (highs, gurobi, scip, ...).
LP_BACKENDS = list(
    dict.fromkeys(
        ["highs", "gurobi", "pyomo:appsi_highs", "pyomo:gurobi_direct", "cvxpy:HIGHS", "cvxpy:CLARABEL"]
        + [name for name in REGISTERED if ":" not in name]
    )
)
PUBLISHED = {"rps": (0.0, 1e-9), "kuhn": (-1 / 18, 1e-9), "leduc": (-0.0856, 1e-4)}


def _tolerance(backend):
    """Interior-point solvers stop at their own tolerance; simplex ones are exact."""
    return 1e-6 if "CLARABEL" in backend else 1e-9


@pytest.mark.parametrize("backend", LP_BACKENDS)
@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_nash_values_on_every_backend(name, backend, request):
    game = request.getfixturevalue(name)
    published, digits = PUBLISHED[name]
    try:
        check(sequence_form_lp(game, 1), backend)
    except BackendError as exc:
        pytest.skip(f"{backend} cannot take {name}: {exc}")
    results = [solve_nash(game, p, backend) for p in (1, 2)]
    assert results[0].value == pytest.approx(published, abs=digits)
    assert results[0].value + results[1].value == pytest.approx(0.0, abs=_tolerance(backend))
    for r in results:
        own = game.player(r.player)
        assert own.infeasibility(r.strategy) < 1e-7
        # The strategy really secures the value (checked by a best response, no solver involved).
        assert r.guaranteed_value == pytest.approx(r.value, abs=_tolerance(backend) * 10)
    gap = game.saddle_point_gap(results[0].strategy, results[1].strategy)
    assert gap + 1e-12 >= 0.0 and gap < max(1e-6, 20 * _tolerance(backend))


def test_leduc_fits_the_size_limited_gurobi_licence(leduc):
    model = sequence_form_lp(leduc, 1)
    assert model.num_variables < 2000 and model.num_constraints < 2000
    check(model, "gurobi")


def test_duals_of_the_best_response_rows_are_the_opponent_equilibrium(kuhn):
    for player in (1, 2):
        result = solve_nash(kuhn, player, "highs")
        opponent = result.opponent_strategy
        opp = kuhn.player(3 - player)
        assert opp.infeasibility(opponent) < 1e-9
        assert kuhn.guaranteed_value(3 - player, opponent) == pytest.approx(-result.value, abs=1e-9)
        x, y = (result.strategy, opponent) if player == 1 else (opponent, result.strategy)
        assert result.gap == pytest.approx(kuhn.saddle_point_gap(x, y), abs=1e-15) and result.gap < 1e-9


# Every installed backend that returns duals, but SCS: its solutions (accuracy 1e-4) leave the polytope by more
# than the 1e-6 solve_nash accepts, one LP or two.  The interior-point solvers (Clarabel, ECOS) stop at their own
# tolerance, the simplex ones end at an exact vertex.
DUAL_BACKENDS = [
    b for b in available_backends() if b.capabilities.lp and b.capabilities.duals and b.capabilities.accuracy <= 1e-6
]
INEXACT = ("CLARABEL", "ECOS")


@pytest.mark.slow
@pytest.mark.parametrize("backend", DUAL_BACKENDS, ids=lambda b: b.name)
@pytest.mark.parametrize("name", ["kuhn", "leduc", "leduc_4x2"])
def test_one_lp_gives_both_strategies_worth_the_two_lps(name, backend, request):
    game = (
        SequenceFormGame.from_dict(poker.leduc(ranks=4, suits=2), "leduc_4x2")
        if name == "leduc_4x2"
        else request.getfixturevalue(name)
    )
    try:
        check(sequence_form_lp(game, 1), backend.name)
    except BackendError as exc:
        pytest.skip(f"{backend.name} cannot take {name}: {exc}")
    tolerance = 10 * backend.capabilities.accuracy if backend.name.endswith(INEXACT) else 1e-8
    one = solve_equilibrium(game, backend.name)
    two = [solve_nash(game, player, backend.name) for player in (1, 2)]
    assert game.pl1.infeasibility(one.x) < 1e-7 and game.pl2.infeasibility(one.y) < 1e-7
    # What each strategy secures against a best response (no solver involved): the one-LP strategy of each
    # player is worth what that player's own LP's strategy is worth, and the pair is a saddle point.
    for player, alone in zip((1, 2), two):
        assert game.guaranteed_value(player, one.strategy_of(player)) == pytest.approx(
            game.guaranteed_value(player, alone.strategy), abs=tolerance
        )
    assert one.value == pytest.approx(two[0].value, abs=tolerance)
    assert -tolerance < one.gap < tolerance
    assert one.gap == pytest.approx(game.saddle_point_gap(one.x, one.y), abs=1e-15)


def test_one_lp_summary_has_both_strategies(kuhn):
    summary = json.loads(json.dumps(solve_equilibrium(kuhn, "highs").to_dict()))
    assert summary["player"] == "both" and summary["value"] == pytest.approx(-1 / 18, abs=1e-12)
    assert list(summary["strategy"]) == list(kuhn.pl1.labels)
    assert list(summary["opponent_strategy"]) == list(kuhn.pl2.labels)
    y = np.array(list(summary["opponent_strategy"].values()))
    assert kuhn.guaranteed_value(2, y) == pytest.approx(1 / 18, abs=1e-9)


def test_to_dict_is_json_ready_with_the_solved_strategy(kuhn):
    result = solve_nash(kuhn, 2, "highs")
    summary = json.loads(json.dumps(result.to_dict()))
    assert summary["player"] == 2 and summary["status"] == "optimal" and summary["backend"] == "highs"
    assert summary["value"] == pytest.approx(1 / 18, abs=1e-12) and not summary["deterministic"]
    assert list(summary["strategy"]) == list(kuhn.pl2.labels)
    assert kuhn.guaranteed_value(2, np.array(list(summary["strategy"].values()))) == pytest.approx(1 / 18, abs=1e-9)


def test_a_mip_has_no_duals_so_its_gap_is_value_against_best_response(kuhn):
    result = solve_deterministic(kuhn, 1, "highs")
    assert result.opponent_strategy is None and result.to_dict()["deterministic"]
    assert result.gap == pytest.approx(abs(result.value - kuhn.guaranteed_value(1, result.strategy)), abs=1e-15)


def kuhn_family(alpha):
    """Player 1's equilibrium of Kuhn poker for a jack bluff rate ``alpha`` (Kuhn 1950)."""
    return {
        "dJ_pl1": {"k": 1 - alpha, "b": alpha},
        "dJ/kb_pl1": {"f": 1.0, "c": 0.0},
        "dQ_pl1": {"k": 1.0, "b": 0.0},
        "dQ/kb_pl1": {"f": 2 / 3 - alpha, "c": alpha + 1 / 3},
        "dK_pl1": {"k": 1 - 3 * alpha, "b": 3 * alpha},
        "dK/kb_pl1": {"f": 0.0, "c": 1.0},
    }


@pytest.mark.parametrize("backend", ["highs", "gurobi", "cvxpy:CLARABEL", "pyomo:appsi_highs"])
def test_kuhn_equilibrium_is_the_known_family(kuhn, backend):
    """Player 1 in Kuhn: with a jack it bets with some alpha in [0, 1/3]; with a king it bets 3 alpha;
    with a queen it never bets and calls a bet with alpha + 1/3; it folds a jack and calls with a king.

    Any point of the optimal face may come back (highspy 1.16 returns alpha = 1/3, where the king never
    checks), so the family is checked only where the strategy reaches: an information set whose
    actions' realisation weights sum to zero may hold any behaviour.
    """
    result = solve_nash(kuhn, 1, backend)
    assert result.value == pytest.approx(-1 / 18, abs=1e-7)
    assert kuhn.guaranteed_value(1, result.strategy) == pytest.approx(-1 / 18, abs=1e-7)
    behaviour = kuhn.pl1.to_behavioural(result.strategy)
    alpha = behaviour["dJ_pl1"]["b"]
    assert -1e-7 <= alpha <= 1 / 3 + 1e-7
    weight = dict(zip(kuhn.pl1.labels, result.strategy))
    checked = set()
    for point, probs in kuhn_family(alpha).items():
        reach = sum(weight[f"{point}:{action}"] for action in probs)
        if reach < 1e-6:
            continue
        checked.add(point)
        for action, p in probs.items():
            assert behaviour[point][action] == pytest.approx(p, abs=1e-6), (point, action)
    assert {"dJ_pl1", "dQ_pl1", "dK_pl1", "dJ/kb_pl1", "dQ/kb_pl1"} <= checked  # reached whatever alpha is
    # every member of the family secures the value, and leaving it does not
    for a in (0.0, 0.1, 1 / 3):
        assert kuhn.guaranteed_value(1, kuhn.pl1.from_behavioural(kuhn_family(a))) == pytest.approx(-1 / 18, abs=1e-12)
    off_family = kuhn_family(0.1)
    off_family["dK_pl1"] = {"k": 0.9, "b": 0.1}  # king bets alpha, not 3 alpha
    assert kuhn.guaranteed_value(1, kuhn.pl1.from_behavioural(off_family)) < -1 / 18 - 1e-4


def test_an_exact_certificate_of_player_2s_lp_keeps_each_strategy_with_its_player(kuhn):
    """solve_nash(player 2, exact=True): the certificate's second strategy is player 2's, its value player 1's."""
    from fractions import Fraction

    result = solve_nash(kuhn, 2, exact=True)
    assert result.certificate.value == Fraction(-1, 18)
    assert np.allclose(result.certificate.second.astype(float), result.strategy, atol=1e-9)
    # The floats themselves certify (each in its own polytope), no basis needed: Kuhn's fractions are small.
    assert result.certificate.recovery.startswith("the solver's floats rounded")

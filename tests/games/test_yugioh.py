"""Tests of the simplified Yu-Gi-Oh engine, the Table 1 logit, the ADP strategy and Table 2."""

import itertools

import numpy as np
import pandas as pd
import pytest

from gamelp import GamelpError
from gamelp.games import yugioh as ygo
from gamelp.games.yugioh import ALWAYS, Game, Player, Policy, Rules

NEVER = Policy.constant(0.0)


def rng():
    return np.random.default_rng(0)


# ------------------------------------------------------------------------------------------ rules
def test_trap_destroys_the_attacking_monster():
    me = Player(monsters=2)
    foe = Player(monsters=1, traps=1, life=3)
    ygo.battle_phase(me, foe, ALWAYS, rng())
    assert (me.monsters, foe.monsters, foe.traps, foe.life) == (1, 1, 0, 3)


def test_trap_stops_a_direct_attack():
    me = Player(monsters=3)
    foe = Player(traps=1, spells=1, life=8)
    ygo.battle_phase(me, foe, ALWAYS, rng())
    assert (me.monsters, foe.traps, foe.spells, foe.life) == (2, 0, 1, 8)


def test_face_down_spell_is_only_a_bluff():
    me = Player(monsters=3)
    foe = Player(spells=2, life=8)
    ygo.battle_phase(me, foe, ALWAYS, rng())
    assert (me.monsters, foe.spells, foe.life) == (3, 2, 5)


def test_equal_monsters_destroy_each_other_without_damage():
    me = Player(monsters=2)
    foe = Player(monsters=1, life=8)
    ygo.battle_phase(me, foe, ALWAYS, rng())
    assert (me.monsters, foe.monsters, foe.life) == (1, 0, 8)


def test_attack_weights_pick_the_decision_point():
    # Only PrAwM is 1: attacks a bare monster, never into a face-down card.
    only_m = Policy(0.0, 1.0, 0.0)
    me, foe = Player(monsters=1), Player(monsters=1, traps=1)
    ygo.battle_phase(me, foe, only_m, rng())
    assert (me.monsters, foe.traps) == (1, 1)
    me, foe = Player(monsters=1), Player(monsters=1)
    ygo.battle_phase(me, foe, only_m, rng())
    assert (me.monsters, foe.monsters) == (0, 0)
    # An empty field is always attacked, whatever the weights.
    me, foe = Player(monsters=1), Player(life=1)
    ygo.battle_phase(me, foe, NEVER, rng())
    assert foe.life == 0


def test_spell_from_hand_destroys_a_face_down_card():
    me = Player(hand=[0, 1, 0])
    foe = Player(traps=1)
    ygo.main_phase(me, foe, ALWAYS, rng())
    assert (me.hand, me.face_down, foe.traps) == ([0, 0, 0], 0, 0)


def test_set_spell_is_used_from_the_field():
    me = Player(spells=2)
    foe = Player(spells=1, traps=1)
    ygo.main_phase(me, foe, ALWAYS, rng())
    assert me.spells == 1 and foe.face_down == 1  # one field spell per main phase


def test_spell_without_target_is_set():
    me = Player(hand=[0, 2, 1])
    ygo.main_phase(me, Player(), ALWAYS, rng())
    assert (me.hand, me.spells, me.traps) == ([0, 0, 0], 2, 1)


def test_one_summon_per_turn():
    me = Player(hand=[3, 0, 0])
    ygo.main_phase(me, Player(), ALWAYS, rng())
    assert (me.hand[ygo.MONSTER], me.monsters) == (2, 1)


def test_monster_zone_limit():
    me = Player(hand=[2, 0, 0], monsters=5)
    ygo.main_phase(me, Player(), ALWAYS, rng())
    assert (me.hand[ygo.MONSTER], me.monsters) == (2, 5)


def test_spell_trap_zone_limit():
    me = Player(hand=[0, 2, 2], traps=3)
    ygo.main_phase(me, Player(), ALWAYS, rng())
    assert me.face_down == 5 and sum(me.hand) == 2


def _position(turn, my_deck, my_monsters=3):
    me = Player(deck=my_deck, monsters=my_monsters)
    return Game((me, Player(deck=[ygo.MONSTER] * 5, life=1)), turn=turn)


def test_no_attack_on_the_first_turn():
    game = _position(0, [ygo.MONSTER] * 5)
    ygo.play_turn(game, (ALWAYS, ALWAYS), rng())
    assert game.winner is None and game.players[1].life == 1
    assert (game.turn, game.active) == (1, 1)
    later = _position(2, [ygo.MONSTER] * 5)
    ygo.play_turn(later, (ALWAYS, ALWAYS), rng())
    assert later.winner == 0 and later.players[1].life == 1 - 4  # three monsters + the summoned one


def test_first_player_skips_the_first_draw_only_when_the_rules_say_so():
    game = _position(0, [ygo.TRAP])
    ygo.play_turn(game, (ALWAYS, ALWAYS), rng())
    assert game.players[0].deck == [ygo.TRAP]
    game = _position(0, [ygo.TRAP])
    game.rules = Rules(first_turn_draw=True)
    ygo.play_turn(game, (ALWAYS, ALWAYS), rng())
    assert game.players[0].deck == [] and game.players[0].traps == 1


def test_decking_out_loses():
    game = _position(4, [], my_monsters=5)
    ygo.play_turn(game, (ALWAYS, ALWAYS), rng())
    assert game.winner == 1 and game.decked_out
    assert game.players[1].life == 1  # the player lost before it could attack
    with pytest.raises(ygo.YugiohError):
        ygo.play_turn(game, (ALWAYS, ALWAYS), rng())


def test_whole_game_ends_and_conserves_cards():
    r = np.random.default_rng(3)
    rules = Rules(life=8)
    a, b = ygo.deal(r, rules), ygo.deal(r, rules)
    assert sum(a.hand) == 5 and len(a.deck) == 35
    game = Game((a, b), rules)
    winner = ygo.play_game(game, (ygo.HALF, ALWAYS), r)
    assert winner in (0, 1) and game.winner == winner
    for p in game.players:
        on_table = len(p.deck) + sum(p.hand) + p.monsters + p.face_down
        assert on_table <= 40 and p.monsters <= 5 and p.face_down <= 5
    loser = game.players[1 - winner]
    assert loser.life <= 0 or (game.decked_out and not loser.deck)


def test_bad_policy_and_rules_are_refused():
    with pytest.raises(GamelpError, match="attack_m"):
        Policy(0.5, 1.5, 0.5)
    with pytest.raises(GamelpError, match="deck"):
        Rules(deck=(2, 1, 1))
    with pytest.raises(GamelpError, match="n_games"):
        ygo.simulate_table1(0)


# --------------------------------------------------------------------------------- the data sets
def test_records_follow_the_paper_design_and_do_not_depend_on_workers():
    serial = ygo.simulate_table1(700, seed=11)
    pooled = ygo.simulate_table1(700, seed=11, workers=2)
    pd.testing.assert_frame_equal(serial, pooled)
    dealt = serial[["DealtMon", "DealtSpell", "DealtTrap"]].to_numpy()
    held = serial[list(ygo.HAND_NAMES)].to_numpy()
    first = serial["FirstA"].to_numpy() == 1
    assert (dealt.sum(axis=1) == 5).all()
    np.testing.assert_array_equal(held[~first], dealt[~first])
    np.testing.assert_array_equal(held[first, 0], np.maximum(dealt[first, 0] - 1, 0))
    assert (held[first, 1:] == 0).all()
    combos = list(itertools.product(ygo.TABLE1_GRID, repeat=3))
    np.testing.assert_allclose(serial.loc[345, list(ygo.WEIGHT_NAMES)], combos[345 % 343])
    assert 0.4 < serial["FirstA"].mean() < 0.6 and 0.4 < serial["BsAlways"].mean() < 0.6


@pytest.fixture(scope="module")
def table1_data():
    # 40 games per weight triple (half the paper's N): z(FirstA) ~ 9, z(PrAwMST) ~ -6 over seeds 0-5.
    return ygo.simulate_table1(13720, seed=2020)


@pytest.fixture(scope="module")
def table1_model(table1_data):
    return ygo.fit_table1(table1_data)


def test_table1_signs_match_the_paper(table1_model):
    t = table1_model.table
    assert t.loc["FirstA", "coef"] > 0 and t.loc["FirstA", "z"] > 5
    assert t["coef"].drop("const").idxmax() == "FirstA"
    weights = t.loc[list(ygo.WEIGHT_NAMES), "coef"]
    assert weights["PrAwMST"] < 0 and t.loc["PrAwMST", "z"] < -3
    assert weights.abs().idxmax() == "PrAwMST"
    # Hands: monsters hurt, traps help (paper: -0.284 and 0.806).
    assert t.loc["HAMon", "z"] < -5 and t.loc["HATrap", "z"] > 5
    # Standard errors at half the paper's N are about sqrt(2) times the paper's.
    np.testing.assert_allclose(t.loc["PrAwMST", "se"], 0.064 * np.sqrt(2), rtol=0.1)


def test_adp_weights_maximise_the_fitted_win_probability(table1_model):
    policy, prob = ygo.adp_weights(table1_model, first=False, hand=[2, 1, 2])
    coefs = table1_model.params[list(ygo.WEIGHT_NAMES)]
    expected = np.where(coefs > 0, 0.8, 0.4)  # additive model: a corner, the same for every hand
    np.testing.assert_allclose([policy.attack_mst, policy.attack_m, policy.attack_st], expected)
    grid = np.array(list(itertools.product(ygo.ADP_GRID, repeat=3)))
    brute = ygo.win_probability(table1_model, False, [2, 1, 2], grid)
    assert prob == pytest.approx(brute.max()) and brute.shape == (125,)
    beta = table1_model.params
    eta = beta["const"] + 2 * beta["HAMon"] + beta["HASpell"] + 2 * beta["HATrap"] + expected @ coefs
    assert prob == pytest.approx(1 / (1 + np.exp(-eta)))
    assert ygo.adp_weights(table1_model, first=True, hand=[4, 0, 0])[0] == policy


def test_interaction_model_makes_adp_depend_on_the_hand(table1_data):
    model = ygo.fit_table1(table1_data, interactions=True)
    assert len(model.regressors) == 8 + 12
    choices = {
        ygo.adp_weights(model, first, ygo.recorded_hand(hand, first))[0]
        for first in (False, True)
        for hand in ([5, 0, 0], [1, 2, 2], [0, 0, 5], [3, 1, 1])
    }
    assert len(choices) > 1


def test_table2_min_norm_fit_matches_the_identified_model(table1_model):
    import statsmodels.api as sm

    data = ygo.simulate_table2(table1_model, games_per_cell=60, seed=7)
    assert len(data) == 360
    assert (data[["AsADP", "AsHalf", "AsAlways"]].sum(axis=1) == 1).all()
    adp = data[data["AsADP"] == 1]
    assert (adp[["PrAwMST", "PrAwM", "PrAwST"]].isin(ygo.ADP_GRID)).all().all()
    table = ygo.fit_table2(data)
    # The first player wins most games (paper: FirstA = 2.691).
    assert table.loc["FirstA", "coef"] > 1.5 and table.loc["FirstA", "z"] > 5
    groups = sm.Logit(data["win"], data[["FirstA", "AsHalf", "AsAlways", "AsADP"]].astype(float)).fit(disp=0)
    g = groups.params[["AsHalf", "AsAlways", "AsADP"]].to_numpy()
    assert table.loc["const", "coef"] == pytest.approx(g.sum() / 4)
    np.testing.assert_allclose(table.loc[["AsHalf", "AsAlways", "AsADP"], "coef"] + table.loc["const", "coef"], g)


@pytest.mark.parametrize("n_games", [1, 3])
def test_a_logit_on_too_few_games_is_refused_in_one_line(n_games):
    """One game made the design matrix singular (numpy's LinAlgError reached the user)."""
    records = ygo.simulate_table1(n_games, seed=0, workers=1, progress=False)
    with pytest.raises(ygo.YugiohError, match=f"cannot be fitted on {n_games} games"):
        ygo.fit_table1(records)

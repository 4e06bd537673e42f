"""Rules of the mini Magic engine on hand-built positions with known outcomes."""

import numpy as np
import pytest

from gamelp.errors import GamelpError
from gamelp.games.errors import MtgError
from gamelp.games.mtg.deck import BOLT, DEVIL, MOUNTAIN, Deck, DeckError, thesis_decks
from gamelp.games.mtg.engine import (
    ACTIVE,
    ATTACK,
    BLOCK,
    DISCARD,
    HAND_C,
    HAND_L,
    HAND_M,
    LANDS,
    LIB,
    LIFE,
    MANA,
    PAY,
    PHASE,
    PLAYER_BASE,
    READY,
    RESPOND,
    SICK,
    TAPPED,
    TURN,
    Game,
    Rules,
    decider,
    hand_size,
    is_over,
    winner,
)

B0, B1 = PLAYER_BASE


def mountains_game(n=20, rules=Rules()):
    return Game(([MOUNTAIN] * n, [MOUNTAIN] * n), rules)


def devils_game(n=20):
    """Libraries of devils: a drawn card is never playable without mana, so no new choices appear."""
    return Game(([DEVIL] * n, [DEVIL] * n))


# ---- decks ------------------------------------------------------------------
def test_deck_names_round_trip():
    deck = Deck.parse("8C28L")
    assert (deck.creatures, deck.bolts, deck.mountains) == (8, 28, 24)
    assert str(deck) == "8C28L" and Deck(creatures=8, bolts=28) == deck
    assert deck.counts == (24, 28, 8) and len(deck.cards()) == 60
    assert len(thesis_decks()) == 45


@pytest.mark.parametrize("name", ["8X28L", "C28L", "", "8C28", "-4C8L"])
def test_bad_deck_names(name):
    with pytest.raises(DeckError, match="deck name"):
        Deck.parse(name)


def test_too_many_cards():
    with pytest.raises(GamelpError, match="more than the 60"):
        Deck(creatures=30, bolts=31)


# ---- opening and drawing ---------------------------------------------------
def test_opening_hands_and_no_draw_for_first_player():
    game, state = Game.deal("8C28L", "4C20L", np.random.default_rng(3), first=1)
    assert state[ACTIVE] == 1 and state[TURN] == 1
    assert hand_size(state, 1) == 7 and hand_size(state, 0) == 7
    assert state[B1 + LIB] == 7
    drawing = Game(game.libraries, Rules(first_player_draws=True)).opening_state(first=1)
    assert hand_size(drawing, 1) == 8 and drawing[B1 + LIB] == 8


def test_second_player_draws_on_its_first_turn():
    game = mountains_game()
    state = game.opening_state(first=0)
    while state[ACTIVE] == 0:
        state = game.step(state, game.legal_moves(state)[-1])  # "N" ends each window
    assert state[TURN] == 2 and hand_size(state, 1) == 8


def test_drawing_from_an_empty_library_loses():
    game = mountains_game(5)
    state = game.position(active=0, players=({"lib": 0}, {"lib": 5}))
    assert game.legal_moves(state) == ("N",)
    end = game.step(state, "N")
    assert is_over(end) and winner(end) == 0 and end[TURN] == 3


# ---- lands, creatures, bolts -------------------------------------------------
def test_one_land_per_turn():
    game = mountains_game()
    state = game.position(players=({"hand_m": 3, "hand_l": 1}, {}))
    assert game.legal_moves(state) == ("M", "N")
    after = game.step(state, "M")
    assert after[B0 + LANDS] == 1 and after[B0 + MANA] == 1 and after[B0 + HAND_M] == 2
    assert game.legal_moves(after) == ("L", "N")


def test_bolt_kills_a_devil():
    game = mountains_game()
    state = game.position(players=({"hand_l": 1, "lands": 1, "mana": 1}, {"ready": 1}))
    assert set(game.legal_moves(state)) == {"D", "L", "N"}
    after = game.step(state, "D")
    assert after[B1 + READY] == 0 and after[B0 + HAND_L] == 0 and after[B0 + MANA] == 0


def test_bolt_to_the_face_and_lethal_bolt():
    game = mountains_game()
    state = game.position(players=({"hand_l": 2, "lands": 2, "mana": 2}, {"life": 5}))
    once = game.step(state, "L")
    assert once[B1 + LIFE] == 2 and not is_over(once)
    twice = game.step(once, "L")
    assert is_over(twice) and winner(twice) == 0


def test_devil_cast_this_turn_cannot_attack():
    game = mountains_game()
    state = game.position(players=({"hand_c": 1, "lands": 1, "mana": 1}, {}))
    cast = game.step(state, "S")
    assert cast[PHASE] == PAY and decider(cast) == 1
    # no attack is offered: the turn passes without another decision, life untouched
    passed = game.step(cast, "N")
    assert passed[ACTIVE] == 1 and passed[B1 + LIFE] == 20
    assert passed[B0 + READY] == 1 and passed[B0 + SICK] == 0
    # on its controller's next turn it attacks
    state = game.position(players=({"ready": 1}, {}))
    assert game.legal_moves(state) == ("N",)
    attack = game.step(state, "N")
    assert attack[PHASE] == ATTACK and game.legal_moves(attack) == ("A", "N")
    hit = game.step(attack, "A")
    assert hit[B1 + LIFE] == 16 and hit[ACTIVE] == 1 and hit[B0 + TAPPED] == 1


def test_pay_four_life_sends_the_devil_to_the_graveyard():
    game = mountains_game()
    state = game.position(players=({"hand_c": 1, "lands": 1, "mana": 1}, {"life": 9}))
    cast = game.step(state, "S")
    assert game.legal_moves(cast) == ("N", "P")
    paid = game.step(cast, "P")
    assert paid[B1 + LIFE] == 5 and paid[B0 + SICK] == 0 and paid[B0 + HAND_C] == 0
    # at 4 life paying would be fatal and is not offered: the devil resolves
    low = game.position(players=({"hand_c": 1, "lands": 1, "mana": 1}, {"life": 4}))
    resolved = game.step(low, "S")
    assert resolved[ACTIVE] == 1 and resolved[B0 + READY] == 1 and resolved[B1 + LIFE] == 4


def test_block_four_three_against_four_three_both_die():
    game = mountains_game()
    state = game.position(phase=ATTACK, players=({"ready": 2}, {"ready": 1}))
    one = game.step(state, "A")
    two = game.step(one, "A")  # both attack; RESPOND is skipped (no bolts): blocks
    assert two[PHASE] == BLOCK and game.legal_moves(two) == ("B", "N")
    blocked = game.step(two, "B")
    # the blocker and one attacker died; the other attacker dealt 4
    assert blocked[B1 + READY] == 0 and blocked[B1 + LIFE] == 16
    assert blocked[B0 + READY] + blocked[B0 + TAPPED] == 1


def test_defender_bolts_an_attacker_before_damage():
    game = mountains_game()
    state = game.position(phase=ATTACK, players=({"ready": 1}, {"hand_l": 1, "lands": 1, "mana": 1}))
    attacking = game.step(state, "A")
    assert attacking[PHASE] == RESPOND and decider(attacking) == 1
    assert game.legal_moves(attacking) == ("T", "L", "N")
    after = game.step(attacking, "T")
    assert after[B1 + LIFE] == 20 and after[B0 + READY] + after[B0 + TAPPED] == 0


def test_sorcery_speed_bolts_skip_the_respond_window():
    game = mountains_game(rules=Rules(instant_bolts=False))
    state = game.position(phase=ATTACK, players=({"ready": 1}, {"hand_l": 1, "lands": 1, "mana": 1}))
    attacking = game.step(state, "A")
    assert attacking[PHASE] != RESPOND and attacking[B1 + LIFE] == 16  # no bolt, no blocker: 4 damage
    assert attacking[ACTIVE] == 1 and game.legal_moves(attacking) == ("M", "T", "L", "N")  # its own turn: bolts


def test_defender_bolts_a_just_summoned_devil():
    game = mountains_game()
    state = game.position(players=({"hand_c": 1, "lands": 1, "mana": 1}, {"hand_l": 1, "lands": 1, "mana": 1}))
    window = game.step(game.step(state, "S"), "N")
    assert window[PHASE] == RESPOND and game.legal_moves(window) == ("J", "L", "N")
    after = game.step(window, "J")
    assert after[B0 + SICK] + after[B0 + READY] == 0


def test_attackers_stay_tapped_through_the_opponent_turn():
    game = devils_game()
    state = game.position(phase=ATTACK, players=({"ready": 1}, {"ready": 1}))
    blocks = game.step(state, "A")
    assert blocks[PHASE] == BLOCK
    passed = game.step(blocks, "N")  # no block; player 1's turn, straight to its attack
    assert passed[ACTIVE] == 1 and passed[PHASE] == ATTACK and passed[B0 + TAPPED] == 1
    # player 1 attacks back: player 0 has no untapped creature to block with
    hit = game.step(passed, "A")
    assert hit[B0 + LIFE] == 16 and hit[ACTIVE] == 0 and hit[B0 + READY] == 1


def test_damage_wears_off_no_creature_carries_damage():
    """Every damage dealt to a 4/3 devil is lethal, so a creature that survives a turn
    is undamaged: one bolt is needed, and suffices, to kill it next turn."""
    game = Game(([DEVIL] * 20, [BOLT] * 20))
    state = game.position(phase=ATTACK, players=({"ready": 1}, {"hand_l": 1, "lands": 1}))
    survived = game.step(state, "A")  # unblocked, no bolt (no mana); player 1's turn
    assert survived[B0 + TAPPED] == 1 and survived[B1 + LIFE] == 16
    assert survived[ACTIVE] == 1 and game.legal_moves(survived) == ("T", "L", "N")
    killed = game.step(survived, "T")
    assert killed[B0 + TAPPED] + killed[B0 + READY] == 0


def test_hand_limit_discard_is_the_players_choice():
    game = mountains_game()
    state = game.position(players=({"hand_l": 5, "hand_c": 4}, {}))
    end = game.step(state, "N")
    assert end[PHASE] == DISCARD and game.legal_moves(end) == ("XL", "XC")
    once = game.step(end, "XL")
    assert once[PHASE] == DISCARD and hand_size(once, 0) == 8
    done = game.step(once, "XC")
    assert done[ACTIVE] == 1 and (done[B0 + HAND_L], done[B0 + HAND_C]) == (4, 3)


def test_random_playouts_keep_the_invariants():
    rng = np.random.default_rng(7)
    letters = set("NMSPDJTLAB") | {"XM", "XL", "XC"}
    for g in range(40):
        game, state = Game.deal("8C28L", "4C12L", rng, first=g % 2)
        while not is_over(state):
            moves = game.legal_moves(state)
            assert moves and set(moves) <= letters
            state = game.step(state, moves[rng.integers(len(moves))])
            for b, deck in ((B0, Deck(8, 28)), (B1, Deck(4, 12))):
                assert 0 <= state[b + MANA] <= state[b + LANDS]
                assert min(state[b + HAND_M], state[b + HAND_L], state[b + HAND_C]) >= 0
                assert state[b + HAND_C] <= deck.creatures and state[b + LIFE] <= 20
        assert winner(state) in (0, 1)


@pytest.mark.parametrize(
    "rule, value",
    [
        ("life_payment", -4),
        ("bolt_damage", -1),
        ("starting_life", 0),
        ("opening_hand", 61),
        ("devil_power", 2.5),
        ("max_hand", True),
        ("instant_bolts", 1),
        ("first_player_draws", "yes"),
    ],
)
def test_a_rule_out_of_its_range_is_refused_naming_it(rule, value):
    with pytest.raises(MtgError, match=f"rule {rule} must be"):
        Rules(**{rule: value})

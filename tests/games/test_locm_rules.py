"""LOCM 1.2 rules on hand-built positions: each ability, item colour, runes, deck-out, turn limit, limits.

Expected values follow the official referee's ``GameState``/``Gamer`` code
(Vieira (2020), Section 4.3 describes the rules).
"""

import pytest

from gamelp.games.locm.engine import ATTACK, PASS_ACTION, SUMMON, USE, State

FILLER = 3  # Beavrat, a vanilla 2/2 creature costing 1


def position(hand=(), mine=(), theirs=(), mana=12, ready=True):
    """Player 0 to move with ``hand`` (card ids) and creatures ``mine``/``theirs`` ((card id, lane) pairs).

    Returns the state and the instance ids of the hand, of player 0's and of player 1's creatures.
    """
    deck0 = list(hand) + [card for card, _ in mine]
    deck1 = [card for card, _ in theirs]
    state = State.new(deck0 + [FILLER] * (30 - len(deck0)), deck1 + [FILLER] * (30 - len(deck1)))
    state.turn, state.current = 10, 0
    state.mana = [mana, mana]
    state.max_mana = [mana, mana]
    ids0 = [2 * i + 1 for i in range(30)]
    ids1 = [2 * i + 2 for i in range(30)]
    hand_ids, mine_ids, theirs_ids = ids0[: len(hand)], ids0[len(hand) : len(deck0)], ids1[: len(deck1)]
    state.hand = [list(hand_ids), []]
    state.board = [list(mine_ids), list(theirs_ids)]
    for instance, (_, lane) in zip(mine_ids + theirs_ids, list(mine) + list(theirs), strict=True):
        state.lane[instance] = lane
    for instance in mine_ids:
        state.can_attack[instance] = ready
    state.deck = [list(reversed(ids0[len(deck0) :])), list(reversed(ids1[len(deck1) :]))]
    return state, hand_ids, mine_ids, theirs_ids


def stats(state, instance):
    return state.attack[instance], state.defense[instance]


# ---------------------------------------------------------------- abilities


def test_breakthrough_carries_the_excess_damage_to_the_opponent():
    state, _, (boar,), (beavrat,) = position(mine=[(69, 0)], theirs=[(FILLER, 0)])  # 4/4 B vs 2/2
    assert state.play((ATTACK, boar, beavrat))
    assert state.health == [30, 28] and beavrat not in state.board[1] and stats(state, boar) == (4, 2)


def test_without_breakthrough_excess_damage_is_lost():
    state, _, (giant,), (beavrat,) = position(mine=[(19, 0)], theirs=[(FILLER, 0)])  # 5/6 vanilla vs 2/2
    assert state.play((ATTACK, giant, beavrat))
    assert state.health == [30, 30] and beavrat not in state.board[1]


def test_breakthrough_into_ward_deals_nothing():
    state, _, (boar,), (steel,) = position(mine=[(69, 0)], theirs=[(65, 0)])  # 4/4 B vs 2/2 W
    assert state.play((ATTACK, boar, steel))
    assert state.health == [30, 30] and stats(state, steel) == (2, 2) and state.abilities[steel] == 0


def test_charge_attacks_on_the_turn_it_is_summoned():
    state, (owl, beavrat), _, _ = position(hand=[83, FILLER])  # Restless Owl 1/1 C
    assert state.play((SUMMON, owl, 0)) and state.play((SUMMON, beavrat, 1))
    assert state.is_legal((ATTACK, owl, -1)) and not state.is_legal((ATTACK, beavrat, -1))
    assert state.play((ATTACK, owl, -1)) and state.health[1] == 29
    assert not state.play((ATTACK, owl, -1)), "a creature attacks once a turn"


def test_green_charge_readies_a_fresh_creature_but_not_one_that_attacked():
    state, (beavrat, wings), _, _ = position(hand=[FILLER, 140])
    state.play((SUMMON, beavrat, 1))
    assert state.play((USE, wings, beavrat)) and state.is_legal((ATTACK, beavrat, -1))
    state2, (wings2,), (veteran2,), _ = position(hand=[140], mine=[(FILLER, 0)])
    assert state2.play((ATTACK, veteran2, -1)) and state2.play((USE, wings2, veteran2))
    assert not state2.is_legal((ATTACK, veteran2, -1))


def test_drain_heals_by_the_attack_when_damage_is_dealt():
    state, _, (imp,), _ = position(mine=[(38, 0)])  # Imp 1/3 D
    state.health = [20, 30]
    assert state.play((ATTACK, imp, -1)) and state.health == [21, 29]
    state, _, (imp,), (steel,) = position(mine=[(38, 0)], theirs=[(65, 0)])
    state.health = [20, 30]
    assert state.play((ATTACK, imp, steel)) and state.health == [20, 30], "no drain into a ward"


def test_guard_must_be_attacked_first_in_its_lane_only():
    state, _, (left, right), (slime, beavrat) = position(
        mine=[(FILLER, 0), (FILLER, 1)], theirs=[(55, 0), (FILLER, 0)]
    )  # Hermit Slime 0/5 G
    assert not state.is_legal((ATTACK, left, -1)) and not state.is_legal((ATTACK, left, beavrat))
    assert state.is_legal((ATTACK, left, slime)) and state.is_legal((ATTACK, right, -1))
    assert not state.is_legal((ATTACK, right, slime)), "creatures attack only in their own lane"
    assert {a for a in state.legal_actions() if a[0] == ATTACK} == {(ATTACK, left, slime), (ATTACK, right, -1)}


def test_lethal_kills_on_any_damage_both_ways():
    state, _, (hedgehog,), (troll,) = position(mine=[(48, 0)], theirs=[(62, 0)])  # 1/1 L vs Mutant Troll 12/12
    assert state.play((ATTACK, hedgehog, troll))
    assert state.board == [[], []]
    state, _, (giant,), (spitter,) = position(mine=[(77, 0)], theirs=[(51, 0)])  # 7/7 B vs 3/5 L
    assert state.play((ATTACK, giant, spitter))
    assert state.board == [[], []] and state.health[1] == 28, "lethal defender kills; breakthrough 7-5"


def test_ward_absorbs_the_first_damage_and_survives_zero_power_hits():
    state, _, (beavrat,), (steel,) = position(mine=[(FILLER, 0)], theirs=[(65, 0)])
    assert state.play((ATTACK, beavrat, steel))
    assert beavrat not in state.board[0] and stats(state, steel) == (2, 2) and state.abilities[steel] == 0
    state, _, (slime,), (steel,) = position(mine=[(55, 0)], theirs=[(65, 0)])  # 0-power attacker
    assert state.play((ATTACK, slime, steel)) and state.abilities[steel] != 0 and stats(state, slime) == (0, 3)


# ---------------------------------------------------------------- items


def test_green_item_buffs_a_friendly_creature_and_adds_abilities_and_draws():
    state, (shield, bread, hat), (beavrat,), (enemy,) = position(
        hand=[126, 122, 121], mine=[(FILLER, 0)], theirs=[(FILLER, 0)]
    )
    assert not state.is_legal((USE, shield, enemy)) and not state.is_legal((USE, shield, -1))
    assert state.play((USE, shield, beavrat)) and stats(state, beavrat) == (4, 5)
    assert state.play((USE, bread, beavrat)) and state.abilities[beavrat] & 8  # Guard
    assert state.play((USE, hat, beavrat)) and state.next_draw[0] == 2 and state.mana[0] == 12 - 3 - 2 - 2


def test_red_item_debuffs_an_enemy_creature_and_removes_abilities():
    state, (sword, scimitar, staff), _, (turta, spitter) = position(
        hand=[145, 146, 142], theirs=[(97, 0), (51, 1)]
    )  # 3/3 G, 3/5 L
    assert state.play((USE, sword, turta)) and stats(state, turta) == (1, 1)
    assert state.play((USE, staff, spitter)) and state.abilities[spitter] == 0
    assert state.play((USE, scimitar, spitter)) and stats(state, spitter) == (1, 3) and state.health[1] == 28
    state.play((USE, sword, turta))  # already used: skipped
    assert stats(state, turta) == (1, 1)


def test_red_damage_on_a_ward_removes_the_ward_only_unless_the_item_strips_it():
    state, (axe, crusher), _, (steel, rootkin) = position(hand=[144, 148], theirs=[(65, 0), (7, 1)])
    assert state.play((USE, axe, steel)) and stats(state, steel) == (2, 2) and state.abilities[steel] == 0
    assert state.play((USE, crusher, rootkin)) and rootkin not in state.board[1]  # keywords gone, then -2


def test_blue_item_hits_an_enemy_creature_or_the_opponent_never_a_friend():
    state, (firebolt, potion, poison, firebolt2), (mine,), (enemy,) = position(
        hand=[155, 153, 154, 155], mine=[(FILLER, 0)], theirs=[(99, 0)]
    )  # Cave Crab 2/5
    assert not state.is_legal((USE, firebolt, mine))
    assert state.play((USE, firebolt, -1)) and state.health == [30, 26]
    assert state.play((USE, firebolt2, enemy)) and stats(state, enemy) == (2, 2) and state.health[1] == 25
    state.health[0] = 20
    assert state.play((USE, potion, -1)) and state.health[0] == 25
    assert state.play((USE, poison, -1)) and state.health[1] == 23 and state.next_draw[0] == 2


def test_targeted_creatures_lose_their_summon_effects_in_the_referee_text():
    state, (crab_item,), (bog,), _ = position(hand=[136], mine=[(73, 0)])  # Bog Bounder: summon +4 health
    assert " 4 0 0 0 \n" in state.render()
    state.play((USE, crab_item, bog))
    assert " 4 0 0 0 \n" not in state.render() and " 0 0 0 0 \n" in state.render()


# ---------------------------------------------------------------- runes, draws, limits


def test_damage_crossing_runes_adds_draws_and_healing_does_not_restore_them():
    state, _, (giant,), _ = position(mine=[(19, 0)])
    state.health[1] = 29
    state.play((ATTACK, giant, -1))  # 29 -> 24: crosses 25
    assert state.next_rune[1] == 20 and state.next_draw[1] == 2
    state.health[1] = 30
    state._modify_health(1, -16)  # 30 -> 14: crosses 20 and 15
    assert state.next_rune[1] == 10 and state.next_draw[1] == 4


def test_deck_out_costs_the_next_rune_then_the_game():
    state, _, _, _ = position()
    state.deck[1] = []
    state.next_draw[1] = 2
    state.start_turn()
    assert state.current == 1 and state.health[1] == 20 and state.next_rune[1] == 15
    state.next_rune[1] = 0
    state.health[1] = 3
    state.current = 0
    state.start_turn()
    assert state.health[1] == 0 and state.winner == 0


def test_turn_limit_every_draw_from_the_51st_turn_costs_a_rune():
    state, _, _, _ = position()
    deck_before = len(state.deck[1])
    state.turn = 100  # the next turn is player 1's 51st (turn // 2 == 50)
    state.start_turn()
    assert state.current == 1 and len(state.deck[1]) == deck_before and state.health[1] == 25


def test_a_full_hand_wastes_the_draw():
    state, _, _, _ = position()
    state.hand[1] = state.deck[1][-8:]
    state.deck[1] = state.deck[1][:-8]
    deck_before = list(state.deck[1])
    state.start_turn()
    assert len(state.hand[1]) == 8 and state.deck[1] == deck_before


def test_three_creatures_per_lane():
    state, (fourth,), _, _ = position(hand=[FILLER], mine=[(FILLER, 0)] * 3)
    before = state.clone()
    assert not state.play((SUMMON, fourth, 0))
    assert state.hand == before.hand and state.mana == before.mana, "an illegal action changes nothing"
    assert state.play((SUMMON, fourth, 1))


def test_mana_growth_and_the_second_players_one_off_bonus():
    state = State.new([FILLER] * 30, [FILLER] * 30)
    assert [len(h) for h in state.hand] == [4, 5]
    state.start_turn()
    assert (state.current, state.max_mana[0], len(state.hand[0])) == (0, 1, 5)
    state.start_turn()
    assert (state.current, state.max_mana[1], state.mana[1]) == (1, 2, 2)
    state.play((SUMMON, state.hand[1][0], 0))
    state.play((SUMMON, state.hand[1][0], 0))  # spends all the mana
    state.start_turn(), state.start_turn()
    assert state.max_mana[1] == 2, "starting a turn with no mana left ends the bonus"


def test_unaffordable_and_unknown_actions_are_skipped():
    state, (troll,), _, _ = position(hand=[62], mana=5)
    before = state.render()
    assert not state.play((SUMMON, troll, 0)) and not state.play((ATTACK, 59, -1)) and not state.play((USE, 7, -1))
    assert not state.play(PASS_ACTION) and state.render() == before


@pytest.mark.parametrize("seed", [0, 1])
def test_legal_actions_are_exactly_the_legal_ones(seed):
    import random

    from gamelp.games.locm.battlers import RandomBattler
    from gamelp.games.locm.match import play_battle

    rng = random.Random(seed)
    deck = [rng.randrange(1, 161) for _ in range(30)]
    state = State.new(deck, list(reversed(deck)))
    checked = 0

    class Checking(RandomBattler):
        def act(self, state, rng):
            nonlocal checked
            legal = set(state.legal_actions())
            present = [c for p in (0, 1) for c in state.hand[p] + state.board[p]]
            for kind in (SUMMON, ATTACK, USE):
                for origin in present:
                    for target in (-1, 0, 1, *present):
                        assert state.is_legal((kind, origin, target)) == ((kind, origin, target) in legal)
            checked += 1
            return super().act(state, rng)

    play_battle(state, (Checking(), Checking()), rng)
    assert checked > 20 and state.winner in (0, 1)

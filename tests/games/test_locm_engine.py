"""LOCM 1.2 building blocks: the card table, Java's generator, the draft, matches and battlers."""

import json
import random
from importlib import resources

import numpy as np
import pytest
from test_locm_rules import FILLER, position  # tests/games is on sys.path (pytest prepend mode)

from gamelp.cli import main
from gamelp.games.errors import LocmError
from gamelp.games.locm.battlers import GreedyBattler, MaxAttackBattler, RandomBattler, make_battler
from gamelp.games.locm.cards import CREATURE, GUARD, WARD, load_cards, locm12_cards
from gamelp.games.locm.draft import RefereeSeeds, draft_offers, run_draft, shuffled_deck
from gamelp.games.locm.engine import ATTACK, PASS_ACTION, SUMMON, USE, State
from gamelp.games.locm.javarandom import JavaRandom
from gamelp.games.locm.match import play_match
from gamelp.games.locm.replay import read_consistency_file

# ---------------------------------------------------------------- cards


def test_the_card_table_holds_the_160_cards_read_only():
    cards = locm12_cards()
    assert len(cards) == 160 and list(cards.ids) == list(range(1, 161))
    i = cards.index(64)
    assert (cards.names[i], cards.type[i], cards.cost[i], cards.attack[i], cards.defense[i]) == (
        "Coppershell Tortoise",
        CREATURE,
        2,
        1,
        1,
    )
    assert cards.abilities[i] == GUARD | WARD and list(cards.ability_flags[i]) == [False] * 3 + [True, False, True]
    assert np.bincount(cards.type).tolist() == [116, 24, 12, 8]
    with pytest.raises(ValueError):
        cards.cost[0] = 5


@pytest.mark.parametrize(
    "line, fault",
    [
        ("1 ; Slimer ; creature ; 1 ; 2 ; 1 ; ------ ; 1 ; 0 ; 0", "expected 11"),
        ("1 ; Slimer ; beast ; 1 ; 2 ; 1 ; ------ ; 1 ; 0 ; 0 ; text", "unknown card type"),
        ("1 ; Slimer ; creature ; one ; 2 ; 1 ; ------ ; 1 ; 0 ; 0 ; text", "invalid literal"),
        ("1 ; Slimer ; creature ; 1 ; 2 ; 1 ; --X--- ; 1 ; 0 ; 0 ; text", "position 3"),
        ("2 ; Slimer ; creature ; 1 ; 2 ; 1 ; ------ ; 1 ; 0 ; 0 ; text", "out of order"),
        # Issue 45: 20-digit numbers overflowed the int64 card arrays (an OverflowError traceback).
        ("1 ; Slimer ; creature ; 12345678901234567890 ; 2 ; 1 ; ------ ; 1 ; 0 ; 0 ; text", "cost 1234567890"),
        ("1 ; Slimer ; creature ; 1 ; 2 ; -12345678901234567890 ; ------ ; 1 ; 0 ; 0 ; text", "defense -1234"),
        ("1 ; Slimer ; creature ; 1 ; 2 ; 1 ; ------ ; 1 ; 0 ; 99999999999999999999 ; text", "card draw 9999"),
        ("1 ; Slimer ; creature ; 1 ; 2147483648 ; 1 ; ------ ; 1 ; 0 ; 0 ; text", "attack 2147483648 is out"),
    ],
)
def test_a_malformed_card_list_is_refused_naming_file_and_line(tmp_path, line, fault):
    path = tmp_path / "cards.txt"
    path.write_text("\n" + line + "\n")
    with pytest.raises(LocmError, match=rf"cards.txt, line 2: .*{fault}"):
        load_cards(path)


# ---------------------------------------------------------------- Java's generator and the draft


def test_java_random_matches_the_jdk():
    # Printed by OpenJDK's java.util.Random for the same calls.
    rng = JavaRandom(12345)
    assert [rng.next_int(160), rng.next_int(60), rng.next_int(16)] == [11, 40, 14]
    assert [rng.next_long(), rng.next_long()] == [-1528963862231680626, 694943615613659775]
    items = list(range(30))
    JavaRandom(-7).shuffle(items)
    assert items[:8] == [23, 5, 11, 28, 21, 14, 29, 3]
    assert RefereeSeeds.from_seed(3) == RefereeSeeds(-4961115986754665064, 1309571695633557482, 1238145679872042884)


def test_draft_offers_equal_the_referees_for_every_recorded_draft_seed():
    seen = set()
    for match in read_consistency_file():
        if match.draft_seed in seen:
            continue
        seen.add(match.draft_seed)
        shown = [text.splitlines()[4:7] for player, text, _ in match.turns if player == 0][:30]
        recorded = [[int(line.split()[0]) for line in lines] for lines in shown]
        assert draft_offers(match.draft_seed).tolist() == recorded
        assert all(len(set(offer)) == 3 for offer in recorded)
    assert len(seen) == 6


def test_shuffle_is_a_permutation_fixed_by_the_seed():
    deck = list(range(1, 31))
    assert shuffled_deck(deck, 5) == shuffled_deck(deck, 5) != shuffled_deck(deck, 6)
    assert sorted(shuffled_deck(deck, 5)) == deck


class FirstCard:
    def pick(self, offer, chosen, seat, rng):
        return 0


class Uniform:
    def pick(self, offer, chosen, seat, rng):
        return rng.randrange(3)


def test_run_draft_gives_each_seat_its_picks_and_refuses_a_bad_pick():
    offers = draft_offers(1)
    decks = run_draft(offers, (FirstCard(), Uniform()), random.Random(0))
    assert decks[0] == offers[:, 0].tolist() and len(decks[1]) == 30

    class Bad:
        def pick(self, offer, chosen, seat, rng):
            return 3

    with pytest.raises(LocmError, match="picked 3"):
        run_draft(offers, (FirstCard(), Bad()), random.Random(0))


# ---------------------------------------------------------------- matches


def test_same_seed_same_match_and_seats_keep_their_offers_and_shuffles():
    greedy, max_attack = make_battler("greedy"), make_battler("max-attack")
    first = play_match(Uniform(), FirstCard(), greedy, max_attack, seed=11)
    assert first == play_match(Uniform(), FirstCard(), greedy, max_attack, seed=11)
    assert first.winner in (0, 1) and first.turns > 0
    swapped = play_match(FirstCard(), Uniform(), max_attack, greedy, seed=11)
    assert swapped.decks[0] == first.decks[1], "the offers depend on the seed only"
    assert play_match(Uniform(), FirstCard(), greedy, max_attack, seed=12).decks != first.decks


def test_pass_against_max_attack_loses_and_pass_against_pass_ends_by_the_turn_limit():
    passer, attacker = make_battler("pass"), make_battler("max-attack")
    assert all(play_match(Uniform(), Uniform(), passer, attacker, seed=s).winner == 1 for s in range(5))
    both_pass = play_match(Uniform(), Uniform(), passer, passer, seed=0)
    assert both_pass.winner == 1 and both_pass.turns > 100, "player 0 reaches its 51st turn first"


def test_unknown_battler_is_refused():
    with pytest.raises(LocmError, match="unknown LOCM battler 'nope'; expected one of pass, random"):
        make_battler("nope")


def test_cli_play_refuses_an_unknown_battler_in_one_line(capsys):
    assert main(["locm", "play", "--battlers", "greedy,nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert "unknown LOCM battler 'nope'" in err and len(err.splitlines()) == 1


# ---------------------------------------------------------------- battlers


def test_max_attack_attacks_with_its_strongest_creature_guard_first_then_summons_the_strongest():
    state, (small, big, _item), (weak, strong, right), (_guard, other) = position(
        hand=[FILLER, 19, 126], mine=[(FILLER, 0), (77, 0), (69, 1)], theirs=[(FILLER, 0), (55, 0)]
    )
    battler, rng = MaxAttackBattler(), random.Random(0)
    assert battler.act(state, rng) == (ATTACK, strong, other)  # 7/7 before 2/2; Hermit Slime (#55) guards
    state.apply((ATTACK, strong, other))
    state.apply((ATTACK, weak, other))
    assert battler.act(state, rng) == (ATTACK, right, -1)
    state.apply((ATTACK, right, -1))
    assert battler.act(state, rng) == (SUMMON, big, 0)  # 5/6 before the 2/2; never the item
    state.apply((SUMMON, big, 0))
    assert battler.act(state, rng) == (SUMMON, small, 1), "left lane full"


def test_greedy_takes_the_best_one_step_score_and_sees_lethal():
    state, _, (giant,), (_beavrat,) = position(mine=[(77, 0)], theirs=[(FILLER, 0)])
    state.health[1] = 7
    assert GreedyBattler().act(state, random.Random(0)) == (ATTACK, giant, -1)
    state.health[1] = 30
    # Into the 2/2: 2*5 (breakthrough) + 7+5 = 22; the face: 2*7 + 7+7 - 2-2 = 24.
    assert GreedyBattler().act(state, random.Random(0)) == (ATTACK, giant, -1)


def test_greedy_published_card_count_term_is_zero_unless_asked():
    state, _, (_mine,), (theirs,) = position(mine=[(FILLER, 0)], theirs=[(FILLER, 0)])
    published, counting = GreedyBattler(), GreedyBattler(count_creatures=True)
    assert published.score(state) == 0 and counting.score(state) == 0
    state.board[1].remove(theirs)
    assert published.score(state) == 4 and counting.score(state) == 14


def test_greedy_passes_when_nothing_is_legal_and_random_plays_legal_actions():
    state, _, _, _ = position(hand=[62], mana=0)
    assert GreedyBattler().act(state, random.Random(0)) == PASS_ACTION
    state, _, _, _ = position(hand=[FILLER, 126, 155], mine=[(FILLER, 0)], theirs=[(FILLER, 1)])
    rng = random.Random(3)
    picks = {RandomBattler().act(state, rng) for _ in range(200)}
    assert picks == set(state.legal_actions()) and any(a[0] == USE for a in picks)


def test_clone_is_independent():
    state = State.new([FILLER] * 30, [FILLER] * 30)
    state.start_turn()
    copy = state.clone()
    copy.apply((SUMMON, copy.hand[0][0], 0))
    copy.start_turn()
    assert state.board == [[], []] and len(state.hand[0]) == 5 and state.current == 0 and copy.current == 1


def test_cli_play_prints_the_winner_and_both_decks(capsys):
    assert (
        main(
            ["locm", "play", "--drafters", "icebox,random", "--battlers", "greedy,max-attack", "--seed", "3", "--json"]
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    assert summary["winner"] in (0, 1) and summary["battle_turns"] > 0
    assert [s["drafter"] for s in summary["seats"]] == ["icebox", "random"]
    assert all(len(s["deck"]) == 30 for s in summary["seats"])
    assert main(["locm", "play", "--drafters", "icebox,random", "--battlers", "greedy,max-attack", "--seed", "3"]) == 0
    assert capsys.readouterr().out.startswith(f"seat {summary['winner']} (")


def test_cli_refuses_a_malformed_card_list_naming_file_and_line(tmp_path, capsys):
    path = tmp_path / "cards.txt"
    good = (resources.files("gamelp.games.locm") / "data" / "cardlist-v1.2.txt").read_text().splitlines()
    path.write_text("\n".join(good[:6] + [good[6].replace("creature", "monster")] + good[7:]) + "\n")
    for command in (["locm", "play", "--cards", str(path)], ["locm", "replay", "x.txt", "--cards", str(path)]):
        assert main(command) == 2
        err = capsys.readouterr().err.strip()
        assert f"{path}, line 7: unknown card type 'monster'" in err and len(err.splitlines()) == 1
    path.write_text("\n".join(good[:100]) + "\n")
    assert main(["locm", "play", "--cards", str(path)]) == 2
    assert "100 cards; the LOCM 1.2 draft needs 160" in capsys.readouterr().err
    path.write_text("\n".join(good) + "\n")
    assert main(["locm", "play", "--cards", str(path), "--seed", "4"]) == 0


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "--drafters", ",icebox"],
        ["play", "--drafters", "icebox, "],
        ["play", "--battlers", "greedy,"],
        ["tournament", "--drafters", "icebox,,random", "--out", "never-written"],
    ],
)
def test_an_empty_agent_name_is_refused_in_one_line(capsys, argv):
    """Issue 45: an empty drafter name was dropped (``,icebox`` played icebox against itself)."""
    with pytest.raises(SystemExit) as refused:  # argparse's refusal of the argument
        main(["locm", *argv])
    assert refused.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "an empty name in" in err


def test_an_empty_drafter_name_is_no_drafter():
    from gamelp.games.locm.drafters import make_drafter

    with pytest.raises(LocmError, match="an empty drafter name"):
        make_drafter(" ")

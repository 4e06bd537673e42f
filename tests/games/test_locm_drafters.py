"""The published LOCM drafters pick as their tables and gym-locm's tie rules say (Vieira (2020), Section 5.4)."""

import random
import re

import numpy as np
import pytest

from gamelp.games.errors import LocmError
from gamelp.games.locm.cards import locm12_cards
from gamelp.games.locm.drafters import (
    PUBLISHED_DRAFTERS,
    CoacDrafter,
    draft_rankings,
    icebox_scores,
    load_score_table,
    make_drafter,
)

# Card ids used below (cost attack/defense abilities):
SLIMER, SCUTTLER, BEAVRAT, GRIME_GNASHER = 1, 2, 3, 5  # 1 2/1 (+1 HP), 1 1/2 (-1 enemy), 1 2/2, 2 4/1
HERMIT_SLIME = 55  # 2 0/5 guard
PROTEIN, ROYAL_HELM = 117, 118  # green items
DECIMATE, MIGHTY_THROWING_AXE = 151, 152  # red items, -99 and -7 defense (the axe draws a card)
HEALING_POTION = 153  # blue item

RNG = random.Random(0)  # the match's generator; only the random drafter draws from it


def test_unknown_drafter_is_refused_in_one_line_listing_the_known_ones():
    with pytest.raises(LocmError) as error:
        make_drafter("icebx")
    message = str(error.value)
    assert "\n" not in message and "'icebx'" in message
    for name in PUBLISHED_DRAFTERS + ("scores:PATH",):
        assert name in message


def test_every_published_drafter_is_built_by_name():
    for name in PUBLISHED_DRAFTERS:
        drafter = make_drafter(name)
        assert drafter.name == name
        assert drafter.pick((SLIMER, BEAVRAT, PROTEIN), (), 0, random.Random(0)) in (0, 1, 2)


@pytest.mark.parametrize(
    "offer, expected",
    [
        ((SLIMER, GRIME_GNASHER, BEAVRAT), 1),  # 4 attack beats 2
        ((SLIMER, BEAVRAT, SCUTTLER), 0),  # 2 = 2: the first
        ((PROTEIN, SCUTTLER, BEAVRAT), 2),  # the item is no creature
        ((PROTEIN, ROYAL_HELM, HEALING_POTION), 0),  # no creature: position 0
        ((PROTEIN, HERMIT_SLIME, ROYAL_HELM), 0),  # gym-locm: a 0-attack creature never wins
        ((DECIMATE, PROTEIN, HERMIT_SLIME), 0),
    ],
)
def test_max_attack_picks_the_creature_with_the_greatest_attack(offer, expected):
    drafter = make_drafter("max-attack")
    assert drafter.pick(offer, (), 0, RNG) == expected
    assert drafter.pick(offer, (), 1, RNG) == expected


def test_icebox_values_by_hand():
    scores = icebox_scores()
    # Beavrat: 2 + 2 - 0.006392651 - 1.463006 - 1.435985 + 5.219 - 0.163766 - 0.07751401869
    assert scores[BEAVRAT - 1] == pytest.approx(6.07233633031, abs=1e-10)
    # Slimer: 2 + 1 ... + 0.05985350469 * 1 + 0.3880957 * 1 (it gains its player 1 health)
    assert scores[SLIMER - 1] == pytest.approx(5.52028553500, abs=1e-10)
    # Hermit Slime (cost 2, 0/5, guard): 5 - 0.006392651*4 - 1.463006*2 - 1.435985 + 5.219
    #   - 0.163766 - 0.07751401869 + 0.04418965
    assert scores[HERMIT_SLIME - 1] == pytest.approx(5.63434202731, abs=1e-10)


def test_icebox_values_equal_the_published_formula_text_on_every_card():
    icebox = draft_rankings()["icebox"]
    expression = icebox["formula"].replace("^", "**").replace("keyword bonuses", "bonus")
    cards, scores = locm12_cards(), icebox_scores()
    for i in range(len(cards)):
        names = {
            "attack": cards.attack[i],
            "defense": cards.defense[i],
            "cost": cards.cost[i],
            "player_hp": cards.player_hp[i],
            "enemy_hp": cards.enemy_hp[i],
            "card_draw": cards.card_draw[i],
            "bonus": sum(
                icebox["keyword_bonus"][letter] for letter, present in zip("BCDGLW", cards.ability_flags[i]) if present
            ),
        }
        assert eval(expression, {}, names) == pytest.approx(scores[i], abs=1e-9)


def test_icebox_picks_the_greatest_value_and_shuns_removal_and_card_draw():
    drafter = make_drafter("icebox")
    assert drafter.pick((SLIMER, BEAVRAT, HERMIT_SLIME), (), 0, RNG) == 1  # 6.07 > 5.63 > 5.52
    # Decimate's -99 defense and the axe's drawn card (-5.5) sink them below a 1/1 item.
    assert drafter.pick((DECIMATE, MIGHTY_THROWING_AXE, PROTEIN), (), 1, RNG) == 2


def test_closet_ai_reads_its_list_at_card_id_minus_one():
    drafter = make_drafter("closet-ai")
    published = draft_rankings()["closet_ai"]["scores_by_card_id_minus_1"]
    assert (published[SLIMER - 1], published[SCUTTLER - 1], published[BEAVRAT - 1]) == (-666, 65, 50)
    assert drafter.pick((SLIMER, SCUTTLER, BEAVRAT), (), 0, RNG) == 1
    # Beavrat and Grime Gnasher both score 50: the first offered wins.
    assert published[GRIME_GNASHER - 1] == 50
    assert drafter.pick((SLIMER, GRIME_GNASHER, BEAVRAT), (), 0, RNG) == 1
    assert drafter.pick((SLIMER, BEAVRAT, GRIME_GNASHER), (), 1, RNG) == 1
    # The blue Healing Potion scores -100, below any creature but Slimer.
    assert drafter.pick((HEALING_POTION, SLIMER, BEAVRAT), (), 0, RNG) == 2


def test_coac_orders_differ_per_seat():
    orders = draft_rankings()["coac"]["orders"]
    # p1 ranks 11 before 15, p2 ranks 15 before 11; both rank card 160 near the end.
    assert orders["p1"].index(11) < orders["p1"].index(15)
    assert orders["p2"].index(15) < orders["p2"].index(11)
    drafter = make_drafter("coac")
    offer = (11, 15, 160)
    assert drafter.pick(offer, (), 0, RNG) == 0
    assert drafter.pick(offer, (), 1, RNG) == 1
    # The first card of both orders, 68, beats everything from either seat.
    assert drafter.pick((160, 11, 68), (), 0, RNG) == 2 and drafter.pick((160, 68, 15), (), 1, RNG) == 1


def test_coac_switches_to_its_creature_order_below_forty_percent_creatures():
    plain = list(range(1, 161))
    reversed_order = plain[::-1]
    drafter = CoacDrafter({"p1": plain, "p2": plain, "p1_creature": reversed_order, "p2_creature": reversed_order})
    offer = (BEAVRAT, PROTEIN, GRIME_GNASHER)
    assert drafter.pick(offer, (), 0, RNG) == 0  # nothing drafted: plain
    assert drafter.pick(offer, (PROTEIN, BEAVRAT), 1, RNG) == 0  # 50% creatures: plain
    assert drafter.pick(offer, (PROTEIN, ROYAL_HELM, BEAVRAT), 0, RNG) == 1  # 33%: creature order
    assert drafter.pick(offer, (PROTEIN, ROYAL_HELM, HEALING_POTION, SLIMER), 1, RNG) == 1  # 25%: creature order
    assert drafter.pick(offer, (PROTEIN, ROYAL_HELM, BEAVRAT, SLIMER, HEALING_POTION), 1, RNG) == 0  # 40%: plain


def test_coac_refuses_an_order_that_is_not_a_permutation():
    plain = list(range(1, 161))
    with pytest.raises(LocmError, match="coac order 'p2'"):
        CoacDrafter({"p1": plain, "p2": [1] * 160, "p1_creature": plain, "p2_creature": plain})
    with pytest.raises(LocmError, match="coac orders \\['p1', 'p2'\\]; expected p1, p1_creature, p2, p2_creature"):
        CoacDrafter({"p1": plain, "p2": plain})


def test_random_drafter_is_uniform_and_follows_the_rng_it_is_given():
    drafter = make_drafter("random")
    offer = (SLIMER, BEAVRAT, PROTEIN)
    picks = [drafter.pick(offer, (), 0, random.Random(seed)) for seed in range(3000)]
    counts = np.bincount(picks, minlength=3)
    assert np.all(np.abs(counts - 1000) < 100)  # 4.5 standard deviations
    rng_a, rng_b = random.Random(7), random.Random(7)
    assert [drafter.pick(offer, (), 1, rng_a) for _ in range(50)] == [
        drafter.pick(offer, (), 1, rng_b) for _ in range(50)
    ]


def _score_file(tmp_path, lines):
    path = tmp_path / "scores.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_score_file_drafter_picks_the_greatest_score(tmp_path):
    # Score = minus the card's cost: the cheapest card wins, the first on a tie.
    cards = locm12_cards()
    path = _score_file(tmp_path, ["card_id,score"] + [f"{i + 1},{-cards.cost[i]}" for i in range(160)])
    drafter = make_drafter(f"scores:{path}")
    assert drafter.name == f"scores:{path}"
    assert drafter.pick((GRIME_GNASHER, SLIMER, DECIMATE), (), 0, RNG) == 1
    assert drafter.pick((SLIMER, BEAVRAT, GRIME_GNASHER), (), 1, RNG) == 0
    # Without a header, in any order, with blank lines.
    shuffled = [f"{i + 1},{-cards.cost[i]}" for i in reversed(range(160))]
    assert load_score_table(_score_file(tmp_path, shuffled[:80] + [""] + shuffled[80:])) == drafter.scores


@pytest.mark.parametrize(
    "bad_line, message",
    [
        ("7,high", r"line 8: expected an integer card id and a number"),
        ("7,1,2", r"line 8: expected 'card_id,score', found 3 fields"),
        ("161,1", r"line 8: card id 161 out of range 1\.\.160"),
        ("6,1", r"line 8: card 6 scored twice"),
        ("7,nan", r"line 8: score 'nan' is not a finite number"),
    ],
)
def test_bad_score_file_is_refused_naming_the_file_and_line(tmp_path, bad_line, message):
    lines = ["card_id,score"] + [f"{card},{card}" for card in range(1, 161) if card != 7]
    lines.insert(7, bad_line)
    path = _score_file(tmp_path, lines)
    with pytest.raises(LocmError, match=re.escape(str(path)) + ", " + message) as error:
        make_drafter(f"scores:{path}")
    assert "\n" not in str(error.value)


def test_score_file_missing_cards_or_absent_is_refused(tmp_path):
    path = _score_file(tmp_path, [f"{card},{card}" for card in range(1, 160)])
    with pytest.raises(LocmError, match=re.escape(str(path)) + ": no score for 1 card.*card 160"):
        load_score_table(path)
    with pytest.raises(LocmError, match="nowhere.csv: cannot read"):
        make_drafter(f"scores:{tmp_path / 'nowhere.csv'}")
    with pytest.raises(LocmError, match="it is a directory"):
        make_drafter(f"scores:{tmp_path}")

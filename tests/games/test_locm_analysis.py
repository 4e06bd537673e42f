"""Mana curves, choice similarity and the card encoding of Vieira (2020), Sections 4.3.3, 5.4.2 and 5.4.3."""

import itertools
import random

import numpy as np
import pytest

from gamelp.games.locm.analysis import (
    FIGURE_5_4,
    card_encoding,
    choice_projection,
    choice_similarity,
    draft_choices,
    mana_curve,
    reference_mana_curve,
)
from gamelp.games.locm.draft import RefereeSeeds, draft_offers
from gamelp.games.locm.drafters import PUBLISHED_DRAFTERS, make_drafter


@pytest.fixture(scope="module")
def offers():
    """The referee's offers of 2,000 seeded drafts: (2000, 30, 3) card ids."""
    return np.array([draft_offers(RefereeSeeds.from_seed(seed).draft) for seed in range(2000)])


@pytest.fixture(scope="module")
def choices(offers):
    """Each published drafter's picks: the first 1,000 drafts from seat 0, the rest from seat 1."""
    half = len(offers) // 2
    return {
        name: np.concatenate(
            [
                draft_choices(make_drafter(name), offers[:half], 0, random.Random(1)),
                draft_choices(make_drafter(name), offers[half:], 1, random.Random(2)),
            ]
        )
        for name in PUBLISHED_DRAFTERS
    }


def test_card_encoding_by_hand():
    encoding = card_encoding()
    assert encoding.shape == (160, 16) and encoding.dtype == np.float32
    # Greatest absolute values over the 160 cards: cost 12, attack 12, defense 99
    # (Decimate's -99), player HP 5, enemy HP 5 (-5), card draw 2.
    expected = {
        1: [1, 0, 0, 0, 1 / 12, 2 / 12, 1 / 99, 1 / 5, 0, 0, 0, 0, 0, 0, 0, 0],  # Slimer
        2: [1, 0, 0, 0, 1 / 12, 1 / 12, 2 / 99, 0, -1 / 5, 0, 0, 0, 0, 0, 0, 0],  # Scuttler
        63: [1, 0, 0, 0, 2 / 12, 0, 4 / 99, 0, 0, 0, 0, 0, 0, 1, 0, 1],  # Rootkin Drone, guard ward
        116: [1, 0, 0, 0, 1, 8 / 12, 8 / 99, 0, 0, 0, 1, 1, 1, 1, 1, 1],  # Emperor Nightmare
        118: [0, 1, 0, 0, 0, 0, 3 / 99, 0, 0, 0, 0, 0, 0, 0, 0, 0],  # Royal Helm
        151: [0, 0, 1, 0, 5 / 12, 0, -1, 0, 0, 0, 1, 1, 1, 1, 1, 1],  # Decimate
        152: [0, 0, 1, 0, 7 / 12, 0, -7 / 99, 0, 0, 1 / 2, 0, 0, 0, 0, 0, 0],  # Mighty Throwing Axe
        153: [0, 0, 0, 1, 2 / 12, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],  # Healing Potion
    }
    for card, row in expected.items():
        np.testing.assert_allclose(encoding[card - 1], row, rtol=1e-6, err_msg=f"card {card}")
    assert np.abs(encoding).max() == 1.0
    np.testing.assert_array_equal(encoding[:, :4].sum(axis=1), 1)


def test_mana_curve_counts_costs_zero_to_twelve():
    # Slimer and Beavrat cost 1, Grime Gnasher 2, Royal Helm 0, two Mutant Trolls (62) 12.
    curve = mana_curve([1, 3, 5, 118, 62, 62])
    assert curve.tolist() == [1, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]
    reference = reference_mana_curve()
    assert reference.sum() == pytest.approx(30)
    assert reference[10] == reference[11] == 0  # no card costs 10 or 11 (Figure 5.3)
    assert reference[2] == pytest.approx(33 / 160 * 30)  # 33 cards cost 2


def test_random_drafts_follow_the_reference_curve_and_max_attack_drafts_cost_more(offers, choices):
    def mean_curve(name):
        decks = np.take_along_axis(offers, choices[name][..., None], axis=2)[..., 0]
        return np.mean([mana_curve(deck) for deck in decks], axis=0)

    random_curve = mean_curve("random")
    # Every random pick is uniform over the 160 cards: 2,000 decks match the expected curve.
    np.testing.assert_allclose(random_curve, reference_mana_curve(), atol=0.15)
    # Section 5.4.2: max-attack favours higher costs (its decks cost 5.2 mana a card, random's 3.8).
    costs = np.arange(13)
    assert costs @ mean_curve("max-attack") > costs @ random_curve + 30


def test_similarity_of_a_drafter_with_itself_is_one_and_random_agrees_a_third_of_the_time(offers, choices):
    for name in ("icebox", "coac"):
        again = draft_choices(make_drafter(name), offers[:200], 0, random.Random(3))
        assert choice_similarity(choices[name][:200], again) == 1.0
    # 60,000 picks: the standard error of 1/3 is 0.19 percentage points.
    assert choice_similarity(choices["random"], choices["max-attack"]) == pytest.approx(1 / 3, abs=0.01)
    with pytest.raises(ValueError, match="equal, non-empty shapes"):
        choice_similarity(choices["random"], choices["coac"][:10])


def test_published_drafters_similarities_match_figure_5_4(choices):
    # The thesis counts 600,000 tournament picks; we count 60,000 (standard error at most 0.2
    # points).  Reading closet-ai's list at card_id instead of card_id - 1, for example, moves
    # its similarity to coac from 41.7% to 70%.
    for a, b in itertools.combinations(PUBLISHED_DRAFTERS, 2):
        published = FIGURE_5_4.get((a, b), FIGURE_5_4.get((b, a)))
        ours = 100 * choice_similarity(choices[a], choices[b])
        assert ours == pytest.approx(published, abs=1.0), (a, b)


def test_choice_projection_places_agreeing_drafters_close(choices):
    points = choice_projection(choices)
    assert set(points) == set(PUBLISHED_DRAFTERS) and all(point.shape == (2,) for point in points.values())

    def distance(a, b):
        return np.linalg.norm(points[a] - points[b])

    # Section 5.4.3: max-attack lies closest to icebox (55.76% alike); random far from all.
    others = [name for name in PUBLISHED_DRAFTERS if name != "max-attack"]
    assert min(others, key=lambda other: distance("max-attack", other)) == "icebox"
    for name in PUBLISHED_DRAFTERS:
        if name != "random":
            assert distance("random", name) > distance("max-attack", "icebox")
    # Identical choices give one point.
    twins = choice_projection({"a": choices["coac"], "b": choices["coac"], "c": choices["random"]})
    np.testing.assert_allclose(twins["a"], twins["b"], atol=1e-9)

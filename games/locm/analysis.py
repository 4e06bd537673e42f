"""Measures of LOCM drafts (mana curves, choice similarity and projection) and the cards' numeric encoding.

- Mana curve (Vieira (2020), Section 5.4.2, Figure 5.3): how many cards of a
  deck cost 0, 1, ..., 12 mana (13 counts; no card costs 10 or 11).  The
  reference curve is the 160 cards' cost distribution scaled to a 30-card
  deck: the expected curve of a random drafter, whose every pick is uniform
  over the 160 cards.
- Choice similarity (Section 5.4.3, Figure 5.4): the fraction of draft turns
  on which two drafters, shown the same three cards, pick the same card.
  A random drafter agrees with any other on about a third of the turns.
- Choice projection (Section 5.4.3, Figure 5.5): each drafter's picks as
  one vector (pick k of three as the point at angle 2 pi k / 3 on the unit
  circle, so the three choices are equidistant), projected on their first
  principal components: drafters that agree often land close together.
- Card encoding (Section 4.3.3): 16 numbers per card, the network input of
  the learned drafters: the type one-hot (creature, green, red, blue item),
  then cost, attack, defense, player health change, enemy health change and
  card draw, each divided by its greatest absolute value over the card list
  (so they lie in [-1, 1]), then the six abilities (``BCDGLW``) as 0/1.
  gym-locm divides by fixed constants instead (12, and 2 for card draw, with
  defense clipped at -12); this module follows the thesis's text.
  :func:`draft_observation` stacks the encodings into a learned drafter's input.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import numpy as np

from gamelp.deps import require
from gamelp.games.locm.cards import TYPE_NAMES, CardTable, locm12_cards
from gamelp.games.locm.draft import DRAFT_TURNS, OFFER_SIZE

MAX_COST = 12
CARD_FEATURES = 16
FIGURE_5_4 = {  # Vieira (2020), Figure 5.4: similarity of draft choices, %
    ("random", "max-attack"): 33.16,
    ("random", "coac"): 33.35,
    ("random", "closet-ai"): 33.38,
    ("random", "icebox"): 33.42,
    ("max-attack", "coac"): 38.01,
    ("max-attack", "closet-ai"): 44.57,
    ("max-attack", "icebox"): 55.76,
    ("coac", "closet-ai"): 41.17,
    ("coac", "icebox"): 32.71,
    ("closet-ai", "icebox"): 39.16,
    ("immediate", "lstm"): 55.39,  # Section 5.4.3 (max-attack battler)
}


def mana_curve(deck: Sequence[int], cards: CardTable | None = None) -> np.ndarray:
    """Counts of the deck's cards (ids) at each mana cost 0..12: a length-13 integer array."""
    cards = cards or locm12_cards()
    costs = cards.cost[np.asarray(deck, dtype=np.int64) - 1]
    return np.bincount(costs, minlength=MAX_COST + 1)


def reference_mana_curve(cards: CardTable | None = None, deck_size: int = DRAFT_TURNS) -> np.ndarray:
    """The card list's cost distribution scaled to ``deck_size`` cards (Figure 5.3's dashed line)."""
    cards = cards or locm12_cards()
    return np.bincount(cards.cost, minlength=MAX_COST + 1) * deck_size / len(cards)


def draft_choices(drafter, offers: np.ndarray, seat: int, rng: random.Random) -> np.ndarray:
    """The positions (0..2) that ``drafter`` picks from ``offers``, a (drafts, turns, 3) array of card ids.

    The drafter sees its own earlier picks of the same draft.  Returns a
    (drafts, turns) integer array.
    """
    offers = np.asarray(offers)
    choices = np.empty(offers.shape[:2], dtype=np.int64)
    for draft, draft_offers in enumerate(offers.tolist()):
        chosen: list[int] = []
        for turn, offer in enumerate(draft_offers):
            choice = drafter.pick(tuple(offer), tuple(chosen), seat, rng)
            choices[draft, turn] = choice
            chosen.append(offer[choice])
    return choices


def choice_similarity(choices_a: np.ndarray, choices_b: np.ndarray) -> float:
    """Fraction of turns on which two drafters picked the same card from the same offers."""
    choices_a, choices_b = np.asarray(choices_a), np.asarray(choices_b)
    if choices_a.shape != choices_b.shape or choices_a.size == 0:
        raise ValueError(f"choices of shapes {choices_a.shape} and {choices_b.shape}: need equal, non-empty shapes")
    return float(np.mean(choices_a == choices_b))


def choice_projection(choices: Mapping[str, np.ndarray], dimensions: int = 2) -> dict[str, np.ndarray]:
    """Each drafter's choices (equal-shape arrays of positions 0..2) as a point in ``dimensions`` dimensions."""
    require("sklearn", "the choice projection (PCA)")
    from sklearn.decomposition import PCA  # here, so that drafting never waits for scikit-learn's import

    names = list(choices)
    angles = 2 * np.pi / 3 * np.array([np.asarray(choices[name]).reshape(-1) for name in names])
    points = np.hstack([np.cos(angles), np.sin(angles)])
    projected = PCA(n_components=dimensions).fit_transform(points)
    return dict(zip(names, projected))


def draft_observation(
    encoding: np.ndarray, offer: Sequence[int] | None, chosen: Sequence[int], with_history: bool
) -> np.ndarray:
    """A learned drafter's input (Section 4.3.3), flattened float32.

    With history: 30 slots for the picked cards (in pick order, zero vectors
    for the slots still empty), then the three offered cards; without, only
    the offered cards.  ``offer`` None (the draft is over) gives zero vectors.
    """
    history_slots = DRAFT_TURNS if with_history else 0
    rows = np.zeros((history_slots + OFFER_SIZE, encoding.shape[1]), dtype=np.float32)
    if with_history and len(chosen):
        rows[: len(chosen)] = encoding[np.asarray(chosen, dtype=np.int64) - 1]
    if offer is not None:
        rows[history_slots:] = encoding[np.asarray(offer, dtype=np.int64) - 1]
    return rows.reshape(-1)


def card_encoding(cards: CardTable | None = None) -> np.ndarray:
    """The (n_cards, 16) float32 encoding of Section 4.3.3, row ``card_id - 1``."""
    cards = cards or locm12_cards()
    type_one_hot = np.eye(len(TYPE_NAMES))[cards.type]
    numeric = np.column_stack(
        [cards.cost, cards.attack, cards.defense, cards.player_hp, cards.enemy_hp, cards.card_draw]
    ).astype(float)
    scale = np.abs(numeric).max(axis=0)
    numeric /= np.where(scale > 0, scale, 1.0)  # a feature that is 0 on every card stays 0
    encoding = np.hstack([type_one_hot, numeric, cards.ability_flags])
    return encoding.astype(np.float32)

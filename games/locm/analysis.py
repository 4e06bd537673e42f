"""Measures of LOCM drafts: mana curves, choice similarity, and the cards' numeric encoding.

- Mana curve (Vieira (2020), Section 5.4.2, Figure 5.3): how many cards of a
  deck cost 0, 1, ..., 12 mana (13 counts; no card costs 10 or 11).  The
  reference curve is the 160 cards' cost distribution scaled to a 30-card
  deck: the expected curve of a random drafter, whose every pick is uniform
  over the 160 cards.
- Choice similarity (Section 5.4.3, Figure 5.4): the fraction of draft turns
  on which two drafters, shown the same three cards, pick the same card.
  A random drafter agrees with any other on about a third of the turns.
- Card encoding (Section 4.3.3): 16 numbers per card, the network input of
  the learned drafters: the type one-hot (creature, green, red, blue item),
  then cost, attack, defense, player health change, enemy health change and
  card draw, each divided by its greatest absolute value over the card list
  (so they lie in [-1, 1]), then the six abilities (``BCDGLW``) as 0/1.
  gym-locm divides by fixed constants instead (12, and 2 for card draw, with
  defense clipped at -12); this module follows the thesis's text.
"""

from __future__ import annotations

import random
from typing import Sequence

import numpy as np

from gamelp.games.locm.cards import TYPE_NAMES, CardTable, locm12_cards

MAX_COST = 12
CARD_FEATURES = 16
DECK_SIZE = 30


def mana_curve(deck: Sequence[int], cards: CardTable | None = None) -> np.ndarray:
    """Counts of the deck's cards (ids) at each mana cost 0..12: a length-13 integer array."""
    cards = cards or locm12_cards()
    costs = cards.cost[np.asarray(deck, dtype=np.int64) - 1]
    return np.bincount(costs, minlength=MAX_COST + 1)


def reference_mana_curve(cards: CardTable | None = None, deck_size: int = DECK_SIZE) -> np.ndarray:
    """The card list's cost distribution scaled to ``deck_size`` cards (Figure 5.3's dashed line)."""
    cards = cards or locm12_cards()
    return np.bincount(cards.cost, minlength=MAX_COST + 1) * deck_size / len(cards)


def draft_choices(drafter, offers: np.ndarray, seat: int, rng: random.Random) -> np.ndarray:
    """The positions (0..2) ``drafter`` picks over ``offers``, one (turns, 3) array of card ids per draft.

    ``offers`` has shape (drafts, turns, 3); the drafter sees its own earlier
    picks of the same draft.  Returns a (drafts, turns) integer array.
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


def card_encoding(cards: CardTable | None = None) -> np.ndarray:
    """The (n_cards, 16) float32 encoding of Section 4.3.3, row ``card_id - 1``."""
    cards = cards or locm12_cards()
    type_one_hot = np.eye(len(TYPE_NAMES))[cards.type]
    numeric = np.column_stack([cards.cost, cards.attack, cards.defense,
                               cards.player_hp, cards.enemy_hp, cards.card_draw]).astype(float)
    scale = np.abs(numeric).max(axis=0)
    numeric /= np.where(scale > 0, scale, 1.0)  # a feature that is 0 on every card stays 0
    encoding = np.hstack([type_one_hot, numeric, cards.ability_flags])
    return encoding.astype(np.float32)

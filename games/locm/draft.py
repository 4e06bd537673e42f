"""The LOCM 1.2 (3, 30) arena draft, with the referee's offers and deck shuffles from its seeds.

Both players see the same three cards each turn and pick one independently
(Vieira (2020), Sections 2.2 and 4.3).  The referee draws the offers with
``java.util.Random(draft_seed)``: 60 distinct cards of the 160 (rejecting
repeats), then for each of the 30 turns three distinct cards of those 60.
After the draft it shuffles each player's picks with
``Collections.shuffle(deck, java.util.Random(shuffle_seed[player]))`` and
numbers the cards ``2 i + player + 1`` in the shuffled order; the deck is
drawn from the front.  A match seed gives the three seeds as the referee's
``RefereeParams`` does: the first three ``nextLong()`` of
``java.util.Random(seed)``.

A drafter is any object with ``pick(offer, chosen, seat, rng) -> int``
(:class:`Drafter`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

import numpy as np

from gamelp.games.errors import LocmError
from gamelp.games.locm.javarandom import JavaRandom

DRAFT_TURNS = 30
OFFER_SIZE = 3
POOL_SIZE = 60
N_CARDS = 160


@dataclass(frozen=True)
class RefereeSeeds:
    """The referee's three seeds: draft offers, player 0's shuffle, player 1's shuffle."""

    draft: int
    shuffle0: int
    shuffle1: int

    @classmethod
    def from_seed(cls, seed: int) -> RefereeSeeds:
        """The seeds the referee derives from one match seed (``RefereeParams``)."""
        rng = JavaRandom(seed)
        return cls(rng.next_long(), rng.next_long(), rng.next_long())


class Drafter(Protocol):
    """Picks one of three offered cards.

    ``offer`` holds the three card ids shown this turn (ids 1..160, see
    :mod:`gamelp.games.locm.cards`), ``chosen`` the ids this drafter picked on
    the earlier turns, ``seat`` 0 for the first player of the battle, 1 for
    the second, ``rng`` the match's ``random.Random`` (the only randomness a
    drafter may use, so that a match depends on its seed alone).  Returns 0,
    1 or 2.
    """

    def pick(self, offer: tuple[int, int, int], chosen: Sequence[int], seat: int, rng: random.Random) -> int:
        """The index (0, 1 or 2) of the card taken from ``offer``; see the class docstring for the arguments."""


@lru_cache(maxsize=4096)
def draft_offers(draft_seed: int) -> np.ndarray:
    """The referee's 30 offers for ``draft_seed``: a read-only (30, 3) array of card ids.

    Cached: a tournament shows the same offers to every pair of drafters.
    """
    rng = JavaRandom(draft_seed)
    pool: list[int] = []
    while len(pool) < POOL_SIZE:
        index = rng.next_int(N_CARDS)
        if index not in pool:
            pool.append(index)
    offers = np.empty((DRAFT_TURNS, OFFER_SIZE), dtype=np.int64)
    for turn in range(DRAFT_TURNS):
        first = pool[rng.next_int(POOL_SIZE)]
        second = first
        while second == first:
            second = pool[rng.next_int(POOL_SIZE)]
        third = first
        while third in (first, second):
            third = pool[rng.next_int(POOL_SIZE)]
        offers[turn] = (first + 1, second + 1, third + 1)  # list index -> card id
    offers.flags.writeable = False
    return offers


def run_draft(offers: np.ndarray, drafters: tuple[Drafter, Drafter], rng: random.Random) -> tuple[list[int], list[int]]:
    """Both drafters pick from every offer; returns the two decks (card ids in pick order)."""
    decks: tuple[list[int], list[int]] = ([], [])
    for row in offers.tolist():
        offer = tuple(row)
        for seat in (0, 1):
            choice = drafters[seat].pick(offer, tuple(decks[seat]), seat, rng)
            if choice not in (0, 1, 2):
                raise LocmError(f"drafter {drafters[seat]!r} picked {choice!r}; expected 0, 1 or 2")
            decks[seat].append(offer[choice])
    return decks


def shuffled_deck(deck: Sequence[int], shuffle_seed: int) -> list[int]:
    """``deck`` in the referee's shuffled order (the first card is drawn first)."""
    cards = list(deck)
    JavaRandom(shuffle_seed).shuffle(cards)
    return cards

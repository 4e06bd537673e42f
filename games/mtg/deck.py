"""Cards and 60-card decks of the mini Magic game, named like ``8C28L``.

Esche (2018), *Mathematical programming and Magic: The Gathering*, uses three
cards: Mountain (land), Lightning Bolt (instant, 3 damage) and Vexing Devil
(creature 4/3). A deck is named by its creature (C) and bolt (L) counts; the
rest of the 60 cards are Mountains, so ``8C28L`` holds 8 Vexing Devils,
28 Lightning Bolts and 24 Mountains.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from gamelp.games.errors import DeckError

MOUNTAIN, BOLT, DEVIL = 0, 1, 2
CARD_LETTERS = "MLC"  # the letter of each card code, as in deck names
DECK_SIZE = 60

_DECK_NAME = re.compile(r"^\s*(\d+)\s*C\s*(\d+)\s*L\s*$", re.IGNORECASE)


@dataclass(frozen=True, order=True)
class Deck:
    """A 60-card deck: ``creatures`` Vexing Devils, ``bolts`` Lightning Bolts, the rest Mountains."""

    creatures: int
    bolts: int

    def __post_init__(self):
        for field, count in (("creatures", self.creatures), ("bolts", self.bolts)):
            if not isinstance(count, (int, np.integer)) or count < 0:
                raise DeckError(f"deck {field} must be a non-negative integer, got {count!r}")
        if self.creatures + self.bolts > DECK_SIZE:
            raise DeckError(
                f"deck {self.creatures}C{self.bolts}L has {self.creatures + self.bolts} "
                f"non-land cards, more than the {DECK_SIZE} a deck holds"
            )

    @classmethod
    def parse(cls, name: str | Deck) -> Deck:
        """Read a deck name such as ``"8C28L"`` (a Deck passes through unchanged)."""
        if isinstance(name, Deck):
            return name
        match = _DECK_NAME.match(str(name))
        if match is None:
            raise DeckError(f"bad deck name {name!r}: expected <creatures>C<bolts>L, e.g. '8C28L'")
        return cls(int(match.group(1)), int(match.group(2)))

    @property
    def mountains(self) -> int:
        """The Mountains: the cards of the deck that are neither creatures nor bolts."""
        return DECK_SIZE - self.creatures - self.bolts

    @property
    def analysed(self) -> bool:
        """One of the decks the thesis analysed: more than 12 non-land cards and at least one Mountain."""
        return 12 < self.creatures + self.bolts < DECK_SIZE

    @property
    def counts(self) -> tuple[int, int, int]:
        """Card counts indexed by card code (Mountain, Bolt, Devil)."""
        return (self.mountains, self.bolts, self.creatures)

    def cards(self) -> np.ndarray:
        """The 60 card codes in a fixed (unshuffled) order."""
        return np.repeat(np.arange(3, dtype=np.int8), self.counts)

    def shuffled(self, rng: np.random.Generator) -> tuple[int, ...]:
        """The deck in a random order drawn from ``rng``."""
        return tuple(int(c) for c in rng.permutation(self.cards()))

    def __str__(self) -> str:
        return f"{self.creatures}C{self.bolts}L"


def thesis_decks(max_creatures: int = 8, step: int = 4) -> list[Deck]:
    """Decks whose creature and bolt counts are multiples of ``step`` (45 decks for the thesis defaults)."""
    return [Deck(c, b) for c in range(0, max_creatures + 1, step) for b in range(0, DECK_SIZE - c + 1, step)]


def analysed_decks(max_creatures: int = 8) -> list[Deck]:
    """The decks the thesis analysed: more than 12 non-land cards and at least one Mountain.

    33 decks for ``max_creatures=8`` (Appendix B), 55 for 16 (Table 3.4).
    """
    return [d for d in thesis_decks(max_creatures) if d.analysed]

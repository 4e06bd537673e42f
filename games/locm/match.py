"""One full LOCM 1.2 match: the draft, the referee's deck shuffles, the battle.

``play_match(drafter0, drafter1, battler0, battler1, seed)`` plays it; the
seed fixes the draft offers and both shuffles (through the referee's
``RefereeSeeds.from_seed``) and the agents' random generators, so the same
seed and agents give the same match.  Seat 0 plays first in the battle.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MatchResult:
    """``winner`` is 0 or 1 (the seat); ``turns`` the battle turns played (both players);
    ``decks`` the two drafted decks, card ids in pick order."""

    winner: int
    turns: int
    decks: tuple[tuple[int, ...], tuple[int, ...]]


def play_match(drafter0, drafter1, battler0, battler1, seed: int) -> MatchResult:
    """Play one seeded match between two (drafter, battler) pairs; seat 0 plays first."""
    raise NotImplementedError("the battle engine lands in the next commit")

"""One full LOCM 1.2 match: the draft, the referee's deck shuffles, the battle.

``play_match(drafter0, drafter1, battler0, battler1, seed)`` plays it.  The
seed gives the referee's three seeds (``RefereeSeeds.from_seed``: the draft
offers and both shuffles, which depend on the seat, not on the agent in it)
and the ``random.Random(seed)`` that the agents draw from, so the same seed
and agents give the same match.  Seat 0 plays first in the battle.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from gamelp.games.locm.battlers import Battler
from gamelp.games.locm.cards import CardTable
from gamelp.games.locm.draft import Drafter, RefereeSeeds, draft_offers, run_draft, shuffled_deck
from gamelp.games.locm.engine import PASS, State

MAX_ACTIONS_PER_TURN = 100
"""A battler still acting after this many actions in one turn has its turn ended (ours never get near)."""


@dataclass(frozen=True)
class MatchResult:
    """The outcome of one match.

    ``winner`` is the seat (0 or 1) that won; ``turns`` the battle turns played (both players); ``decks`` the two
    drafted decks, card ids in pick order.
    """

    winner: int
    turns: int
    decks: tuple[tuple[int, ...], tuple[int, ...]]


def play_battle(state: State, battlers: tuple[Battler, Battler], rng: random.Random) -> int:
    """Play ``state`` (fresh from ``State.new``) to the end; returns the winner.

    Each turn the battler to move acts until it passes; an illegal action is
    skipped, as the referee skips it.
    """
    while True:
        state.start_turn()
        if state.winner >= 0:
            return state.winner
        battler = battlers[state.current]
        for _ in range(MAX_ACTIONS_PER_TURN):
            action = battler.act(state, rng)
            if action[0] == PASS:
                break
            state.play(action)
            if state.winner >= 0:
                return state.winner


def play_match(
    drafter0: Drafter,
    drafter1: Drafter,
    battler0: Battler,
    battler1: Battler,
    seed: int,
    cards: CardTable | None = None,
) -> MatchResult:
    """Play one seeded match between two (drafter, battler) pairs; seat 0 plays first."""
    seeds = RefereeSeeds.from_seed(seed)
    rng = random.Random(seed)
    decks = run_draft(draft_offers(seeds.draft), (drafter0, drafter1), rng)
    state = State.new(shuffled_deck(decks[0], seeds.shuffle0), shuffled_deck(decks[1], seeds.shuffle1), cards)
    winner = play_battle(state, (battler0, battler1), rng)
    return MatchResult(winner, state.turn + 1, (tuple(decks[0]), tuple(decks[1])))

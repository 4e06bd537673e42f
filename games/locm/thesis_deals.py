"""The deals of Vieira (2020)'s drafter tournaments, and the schedule behind its Figure 5.2.

The thesis played its tournaments (Section 5.4) on gym-locm, not on the
referee.  gym-locm draws a match's randomness from a numpy ``RandomState``
seeded as gym's ``seeding.np_random`` seeds it: the first 8 bytes of the
SHA-512 digest of the seed's decimal text, read little-endian, split into
32-bit words (least significant first).  From that generator, in order: the
160 card ids shuffled and the first 60 kept as the pool; for each of the 30
turns the pool shuffled and its first three cards offered; after the draft,
each player's picks shuffled (player 0's first), the first card drawn first.
The offers follow the same distribution as the referee's
(:mod:`gamelp.games.locm.draft`) but are another sample.

Figure 5.2's schedule: the tournament script ran every ordered pair of
drafters with 10 seeds and ``--games 1000 --concurrency 4``.  Its four
environments are built from lambdas that read the loop's seed variable late,
so all four get the last one's seed, ``s + 749``, and add 1 at every reset:
a seed's 1,000 games are the 250 deals ``s + 750 .. s + 999``, each played
four times.  Both seat orders use the same seeds, and a cell is the mean of
the row drafter's rates from the first seat and from the second.  The
figure's cells for the published drafters therefore rest on 2,500 distinct
deals, each played from both seats (:func:`thesis_cell` replays them).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

import numpy as np

from gamelp.games.errors import LocmError
from gamelp.games.locm.battlers import make_battler
from gamelp.games.locm.draft import DRAFT_TURNS, N_CARDS, OFFER_SIZE, POOL_SIZE, run_draft
from gamelp.games.locm.drafters import make_drafter
from gamelp.games.locm.engine import State
from gamelp.games.locm.match import play_battle

THESIS_SEEDS = (32359627, 91615349, 88803987, 83140551, 50731732, 19279988, 35717793, 48046766, 86798618, 62644993)
"""The tournament seeds of gym-locm's reproduction steps for Vieira (2020), Section 5.4."""
DEALS_PER_SEED = 250
FIRST_DEAL_OFFSET = 750


@dataclass(frozen=True)
class Deal:
    """A gym-locm match's randomness.

    The (30, 3) offered card ids and, per player, the positions in its pick list in the order the cards are drawn.
    """

    offers: np.ndarray
    orders: tuple[list[int], list[int]]


def gym_locm_rng(seed: int) -> np.random.RandomState:
    """The generator gym-locm's ``State(seed)`` draws from (gym's seeding of a non-negative integer)."""
    if seed < 0:
        raise LocmError(f"gym-locm seeds are non-negative, got {seed}")
    value = int.from_bytes(hashlib.sha512(str(seed % 2**64).encode()).digest()[:8], "little")
    words = []
    while value:
        value, word = divmod(value, 2**32)
        words.append(word)
    return np.random.RandomState(words or [0])


def gym_locm_deal(seed: int) -> Deal:
    """The offers and draw orders of gym-locm's match ``seed`` (see the module docstring)."""
    rng = gym_locm_rng(seed)
    cards = list(range(1, N_CARDS + 1))
    rng.shuffle(cards)
    pool = cards[:POOL_SIZE]
    offers = []
    for _ in range(DRAFT_TURNS):
        rng.shuffle(pool)
        offers.append(pool[:OFFER_SIZE])
    orders = []
    for _ in range(2):
        order = list(range(DRAFT_TURNS))
        rng.shuffle(order)
        orders.append(order)
    return Deal(np.array(offers, dtype=np.int64), (orders[0], orders[1]))


def play_deal(deal: Deal, drafters, battlers, rng: random.Random) -> int:
    """Draft ``deal``'s offers and battle with its draw orders on our engine; returns the winning seat."""
    decks = run_draft(deal.offers, drafters, rng)
    state = State.new(*([deck[k] for k in order] for deck, order in zip(decks, deal.orders)))
    return play_battle(state, battlers, rng)


def thesis_cell(row: str, col: str, battler: str = "max-attack") -> float:
    """Figure 5.2's cell (win rate of ``row`` against ``col``, %) replayed on the thesis's own deals.

    Exact for the deterministic drafters; the random drafter's picks come from
    ``random.Random(match seed)`` here, not from gym-locm's generator.
    """
    agents = {name: make_drafter(name) for name in (row, col)}
    battlers = (make_battler(battler), make_battler(battler))
    wins = 0  # row's wins from both seats
    for seed in THESIS_SEEDS:
        for k in range(DEALS_PER_SEED):
            match_seed = seed + FIRST_DEAL_OFFSET + k
            deal = gym_locm_deal(match_seed)
            for seat, pair in ((0, (row, col)), (1, (col, row))):
                drafters = (agents[pair[0]], agents[pair[1]])
                wins += play_deal(deal, drafters, battlers, random.Random(match_seed)) == seat
    return 100 * wins / (2 * len(THESIS_SEEDS) * DEALS_PER_SEED)

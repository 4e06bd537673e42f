"""A Gymnasium environment for the LOCM 1.2 (3, 30) draft, the learned drafters' training ground.

Vieira (2020), Section 4.1 casts drafting as a Markov decision process:
each step is one pick among the three offered cards (actions 0, 1, 2);
after the 30th pick the finished deck battles the deck of an opponent
drafter, who was shown the same offers, and the reward is
``(win rate - 0.5) * 2`` over the battles played (0 on every other pick).
Both decks are played by one fixed battler.  Each battle shuffles both decks
anew with the referee's shuffle from its own seed, so several battles
measure the deck, not one shuffle.

Observations use the 16-number card encoding of Section 4.3.3
(:func:`gamelp.games.locm.analysis.card_encoding`), flattened to float32:

- ``immediate`` (and ``lstm``, whose policy is recurrent): the three offered
  cards, shape (48,).
- ``history``: the 30 pick slots (the cards picked so far, in pick order,
  zero vectors for the slots still empty) then the three offered cards,
  shape (528,).

After the last pick the offered cards are zero vectors.  The seat (0 plays
first in the battles, 1 second) is a parameter; the opponent drafts for the
other seat.  ``reset(seed=...)`` fixes the episode: the offers, the
opponent's and battlers' random draws and the shuffles.
"""

from __future__ import annotations

import random

import gymnasium
import numpy as np

from gamelp.games.errors import LocmError
from gamelp.games.locm.analysis import CARD_FEATURES, card_encoding, draft_observation
from gamelp.games.locm.battlers import make_battler
from gamelp.games.locm.draft import DRAFT_TURNS, OFFER_SIZE, RefereeSeeds, draft_offers, shuffled_deck
from gamelp.games.locm.drafters import make_drafter
from gamelp.games.locm.engine import State
from gamelp.games.locm.match import play_battle

APPROACHES = ("immediate", "history", "lstm")
_SEED_BITS = 63


class DraftEnv(gymnasium.Env):
    """One drafter's (3, 30) draft against ``opponent``, scored by ``battles`` battles with ``battler``.

    ``opponent`` and ``battler`` are names (``make_drafter`` / ``make_battler``)
    or objects with the drafter / battler interface.  ``offers`` holds the
    episode's (30, 3) offered card ids once ``reset`` has drawn them.
    """

    metadata = {"render_modes": []}

    def __init__(
        self, approach: str = "immediate", seat: int = 0, opponent="max-attack", battler="max-attack", battles: int = 1
    ):
        if approach not in APPROACHES:
            raise LocmError(f"unknown draft approach {approach!r}; expected one of {', '.join(APPROACHES)}")
        if seat not in (0, 1):
            raise LocmError(f"seat must be 0 (first player) or 1, not {seat!r}")
        if battles < 1:
            raise LocmError(f"battles must be at least 1, not {battles!r}")
        self.approach, self.seat, self.battles = approach, seat, battles
        self.opponent = make_drafter(opponent) if isinstance(opponent, str) else opponent
        self.battler = make_battler(battler) if isinstance(battler, str) else battler
        self._encoding = card_encoding()
        slots = (DRAFT_TURNS if approach == "history" else 0) + OFFER_SIZE
        self.observation_space = gymnasium.spaces.Box(-1.0, 1.0, (slots * CARD_FEATURES,), np.float32)
        self.action_space = gymnasium.spaces.Discrete(OFFER_SIZE)
        self.offers: np.ndarray | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a new draft; returns the first observation and an empty info dict (Gymnasium's API)."""
        super().reset(seed=seed)
        episode_seed = int(self.np_random.integers(1 << _SEED_BITS))
        self._rng = random.Random(episode_seed)
        self.offers = draft_offers(RefereeSeeds.from_seed(episode_seed).draft)
        self._turn = 0
        self._decks: tuple[list[int], list[int]] = ([], [])
        return self._observation(), {}

    def step(self, action):
        """Take pick ``action`` (0, 1 or 2); returns ``(observation, reward, terminated, truncated, info)``.

        The reward is 0 until the last pick, then the share of battles won mapped to [-1, 1]; ``info`` then holds
        the wins and both decks.  Raises :class:`LocmError` after the draft or for a pick that is not 0, 1 or 2.
        """
        if self.offers is None or self._turn == DRAFT_TURNS:
            raise LocmError("the draft is over (or never began): call reset()")
        if not self.action_space.contains(action):
            raise LocmError(f"action {action!r} is not a pick 0, 1 or 2")
        offer = tuple(self.offers[self._turn].tolist())
        opponent_seat = 1 - self.seat
        opponent_choice = self.opponent.pick(offer, tuple(self._decks[opponent_seat]), opponent_seat, self._rng)
        self._decks[self.seat].append(offer[int(action)])
        self._decks[opponent_seat].append(offer[opponent_choice])
        self._turn += 1
        if self._turn < DRAFT_TURNS:
            return self._observation(), 0.0, False, False, {}
        wins = sum(self._battle() == self.seat for _ in range(self.battles))
        reward = (wins / self.battles - 0.5) * 2
        info = {
            "wins": wins,
            "battles": self.battles,
            "deck": tuple(self._decks[self.seat]),
            "opponent_deck": tuple(self._decks[opponent_seat]),
        }
        return self._observation(), reward, True, False, info

    def _battle(self) -> int:
        """One battle of the two finished decks, freshly shuffled; returns the winning seat."""
        seeds = RefereeSeeds.from_seed(self._rng.getrandbits(_SEED_BITS))
        state = State.new(shuffled_deck(self._decks[0], seeds.shuffle0), shuffled_deck(self._decks[1], seeds.shuffle1))
        return play_battle(state, (self.battler, self.battler), self._rng)

    def _observation(self) -> np.ndarray:
        offer = self.offers[self._turn] if self._turn < DRAFT_TURNS else None
        return draft_observation(self._encoding, offer, self._decks[self.seat], self.approach == "history")

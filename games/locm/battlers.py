"""LOCM battlers: pass, random, max-attack and greedy (Vieira (2020), Section 5.1).

A battler is any object with ``act(state, rng) -> action`` (:class:`Battler`):
it is called again and again during its turn, sees the state after each of
its actions, and ends the turn by returning ``PASS``.

- ``pass``: always passes.
- ``random``: a uniformly random legal action (PASS included), from the
  match's generator (gym-locm's ``RandomBattleAgent`` draws from Python's
  global generator whatever its seed, so its matches do not repeat; ours do).
- ``max-attack``: attacks first with the creature of greatest attack (left
  lane before right; an enemy Guard if the lane has one, else the opponent),
  then summons the affordable creature of greatest attack into the first
  lane with room; ignores items.  As gym-locm's ``MaxAttackBattleAgent``.
- ``greedy``: one-step lookahead: clones the state for every legal action
  except PASS, plays it, and keeps the first action of highest heuristic
  score; passes when none is left.  The score (gym-locm's
  ``GreedyBattleAgent``, used in the thesis's experiments): +1000 if the
  opponent is dead, -1000 if the player is, twice the health difference,
  plus attack + defense of the player's creatures minus the opponent's.
  Candidates are tried in gym-locm's order (summons, items, attacks) so ties
  break as there.  Published quirk: its creature-count term is
  ``(len(own lane) - len(own lane)) * 10``, always 0; ``GreedyBattler()``
  reproduces it, ``GreedyBattler(count_creatures=True)`` uses
  ``(own - enemy creatures per lane) * 10`` instead.
"""

from __future__ import annotations

import random
from typing import Protocol

from gamelp.games.errors import LocmError
from gamelp.games.locm.cards import BLUE_ITEM, CREATURE, GREEN_ITEM, GUARD
from gamelp.games.locm.engine import ATTACK, LANE_LIMIT, PASS_ACTION, SUMMON, USE, State


class Battler(Protocol):
    """Chooses the next action of the player to move (PASS ends its turn)."""

    def act(self, state: State, rng: random.Random) -> tuple[int, int, int]:
        """The next action ``(type, source, target)`` of the player to move; PASS ends its turn."""


class PassBattler:
    """Always passes."""

    def act(self, state: State, rng: random.Random) -> tuple[int, int, int]:
        """PASS."""
        return PASS_ACTION


class RandomBattler:
    """A uniformly random legal action, PASS included."""

    def act(self, state: State, rng: random.Random) -> tuple[int, int, int]:
        """One of the legal actions, drawn uniformly with ``rng``."""
        actions = state.legal_actions()
        return actions[int(rng.random() * len(actions))]


class MaxAttackBattler:
    """Attack with the strongest ready creature, else summon the strongest affordable creature (no items)."""

    def act(self, state: State, rng: random.Random) -> tuple[int, int, int]:
        """An attack by the strongest ready creature of a lane (on a guard if any), else a summon, else PASS."""
        me, enemy = state.current, 1 - state.current
        attack, lanes, can_attack = state.attack, state.lane, state.can_attack
        for lane in (0, 1):
            ready = [c for c in state.board[me] if lanes[c] == lane and can_attack[c]]
            if ready:
                strongest = max(ready, key=attack.__getitem__)  # the first of the ties, as a stable sort
                guards = state.guards(enemy, lane)
                return (ATTACK, strongest, guards[0] if guards else -1)
        types, costs, base_attack = state.columns[0], state.columns[1], state.columns[2]
        base, mana = state.base, state.mana[me]
        affordable = [c for c in state.hand[me] if types[base[c]] == CREATURE and costs[base[c]] <= mana]
        if affordable:
            for lane in (0, 1):
                if sum(1 for c in state.board[me] if lanes[c] == lane) < LANE_LIMIT:
                    return (SUMMON, max(affordable, key=lambda c: base_attack[base[c]]), lane)
        return PASS_ACTION


def _gym_locm_order(state: State) -> list[tuple[int, int, int]]:
    """The legal actions except PASS, in gym-locm's order: summons, items, attacks."""
    me, enemy = state.current, 1 - state.current
    types, costs = state.columns[0], state.columns[1]
    base, lanes, mana = state.base, state.lane, state.mana[me]
    board, enemy_board = state.board[me], state.board[enemy]
    by_lane = [[c for c in board if lanes[c] == lane] for lane in (0, 1)]
    enemy_by_lane = [[c for c in enemy_board if lanes[c] == lane] for lane in (0, 1)]
    open_lanes = [lane for lane in (0, 1) if len(by_lane[lane]) < LANE_LIMIT]
    summons, uses, attacks = [], [], []
    for card in state.hand[me]:
        b = base[card]
        if costs[b] > mana:
            continue
        card_type = types[b]
        if card_type == CREATURE:
            summons.extend((SUMMON, card, lane) for lane in open_lanes)
        elif card_type == GREEN_ITEM:
            uses.extend((USE, card, target) for target in by_lane[0] + by_lane[1])
        else:
            uses.extend((USE, card, target) for target in enemy_by_lane[0] + enemy_by_lane[1])
            if card_type == BLUE_ITEM:
                uses.append((USE, card, -1))
    abilities, can_attack = state.abilities, state.can_attack
    for lane in (0, 1):
        guards = [c for c in enemy_by_lane[lane] if abilities[c] & GUARD]
        targets = guards or enemy_by_lane[lane] + [-1]
        for creature in by_lane[lane]:
            if can_attack[creature]:
                attacks.extend((ATTACK, creature, target) for target in targets)
    return summons + uses + attacks


class GreedyBattler:
    """One-step lookahead scored by gym-locm's heuristic (see the module docstring for its quirk)."""

    def __init__(self, count_creatures: bool = False):
        self.count_creatures = count_creatures

    def score(self, state: State) -> int:
        """The heuristic value of ``state`` for the player to move."""
        me, enemy = state.current, 1 - state.current
        health = state.health
        score = 2 * (health[me] - health[enemy])
        if health[enemy] <= 0:
            score += 1000
        if health[me] <= 0:
            score -= 1000
        attack, defense = state.attack, state.defense
        for c in state.board[me]:
            score += attack[c] + defense[c]
        for c in state.board[enemy]:
            score -= attack[c] + defense[c]
        if self.count_creatures:
            lanes = state.lane
            for lane in (0, 1):
                own = sum(1 for c in state.board[me] if lanes[c] == lane)
                theirs = sum(1 for c in state.board[enemy] if lanes[c] == lane)
                score += 10 * (own - theirs)
        return score

    def act(self, state: State, rng: random.Random) -> tuple[int, int, int]:
        """The legal action whose resulting state scores highest, the first in gym-locm's order on a tie."""
        best_action, best_score = PASS_ACTION, None
        for action in _gym_locm_order(state):
            after = state.clone()
            after.apply(action)
            value = self.score(after)
            if best_score is None or value > best_score:
                best_action, best_score = action, value
        return best_action


BATTLERS = {
    "pass": PassBattler,
    "random": RandomBattler,
    "max-attack": MaxAttackBattler,
    "greedy": GreedyBattler,
}


def make_battler(name: str) -> Battler:
    """A battler by name (``pass``, ``random``, ``max-attack``, ``greedy``)."""
    try:
        return BATTLERS[name]()
    except KeyError:
        raise LocmError(f"unknown LOCM battler {name!r}; expected one of {', '.join(BATTLERS)}") from None

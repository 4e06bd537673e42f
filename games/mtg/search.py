"""Perfect-information search of the mini Magic game: minimax with alpha-beta and a transposition table.

Esche (2018), ch. 2.1-2.2: both players know everything (hands, library
orders), a win is worth 1 and a loss -1 (values are from player 0's point of
view: player 0 maximises, player 1 minimises), and the game tree is searched
depth first. Two devices keep it affordable:

* an evaluation cut-off: once a player is at or below ``threshold`` life, the
  position is scored by an evaluation function (values in [-1, 1]) instead of
  being searched further (``threshold=0`` searches to the end). As in the
  thesis (after Shannon 1950) the evaluation names the position's category:
  by default only its sign counts (predicted win 1, loss -1, draw 0), which
  keeps alpha-beta windows narrow; ``graded=True`` searches with the full
  score instead (e.g. to rank moves by the layered score);
* a cap on leaves scored (evaluation calls plus terminal positions) after which
  the search gives up by raising :class:`CapReached` (the thesis counts the game
  as a draw; 500,000 in the thesis).

:class:`Searcher` adds alpha-beta pruning (Knuth & Moore 1975) and a
transposition table of (lower, upper) value bounds keyed by the state tuple;
:func:`minimax` is the plain search the tests compare it with.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from contextlib import contextmanager

from gamelp.games.mtg.engine import (
    ACTIVE,
    BLOCK,
    EVAL_CAP,
    LIFE_THRESHOLD,
    OVER,
    PAY,
    PHASE,
    RESPOND,
    WINNER,
    Game,
    at_cutoff,
)

Evaluation = Callable[[Game, tuple], float]

DEFAULT_TT_LIMIT = 2_000_000  # entries; the table is cleared when it grows past this
SEARCH_RECURSION_LIMIT = 20_000  # the search recurses once per move of the game played out


@contextmanager
def deep_recursion(limit: int = SEARCH_RECURSION_LIMIT):
    """Raise Python's recursion limit to at least ``limit`` inside the block, then restore it."""
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


def _searches_deep(method):
    """Run ``method`` (an entry point of the recursive search) under :func:`deep_recursion`."""

    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        with deep_recursion():
            return method(*args, **kwargs)

    return wrapper


class CapReached(Exception):
    """The search scored more leaves than its cap allows."""


def _maximiser_moves(state) -> bool:
    """True when player 0 chooses at ``state``."""
    phase = state[PHASE]
    defender_moves = phase in (PAY, RESPOND, BLOCK)
    return (state[ACTIVE] == 0) != defender_moves


class Searcher:
    """Alpha-beta minimax with a transposition table over one :class:`Game`.

    Counters ``nodes`` (positions visited), ``leaves`` (positions scored) and
    ``evaluations`` (evaluation-function calls) accumulate over every search made
    with the object; the cap applies to ``leaves``. The transposition table is
    kept between searches, so successive decisions of one game reuse the work.
    """

    def __init__(
        self,
        game: Game,
        evaluate: Evaluation | None = None,
        threshold: int = LIFE_THRESHOLD,
        cap: int | None = EVAL_CAP,
        use_tt: bool = True,
        tt_limit: int = DEFAULT_TT_LIMIT,
        graded: bool = False,
    ):
        if threshold > 0 and evaluate is None:
            raise ValueError("an evaluation function is needed when threshold > 0")
        self.game = game
        self.evaluate = evaluate
        self.graded = graded
        self.threshold = threshold
        self.cap = cap
        self.use_tt = use_tt
        self.tt_limit = tt_limit
        self.tt: dict = {}
        self.nodes = 0
        self.leaves = 0
        self.evaluations = 0

    @_searches_deep
    def value(self, state) -> float:
        """Minimax value of ``state`` for player 0 (1 win, -1 loss, evaluations in between)."""
        return self._search(state, -1.0, 1.0)

    @_searches_deep
    def move_values(self, state) -> dict[str, float]:
        """Exact minimax value of every legal move (no pruning between moves)."""
        step = self.game.step
        return {m: self._search(step(state, m), -1.0, 1.0) for m in self.game.legal_moves(state)}

    @_searches_deep
    def best_move(self, state) -> tuple[str, float]:
        """The first best move in move order and its value, by alpha-beta at the root."""
        step = self.game.step
        maximise = _maximiser_moves(state)
        best_move, best = None, (-2.0 if maximise else 2.0)
        for move in self.game.legal_moves(state):
            if maximise:
                v = self._search(step(state, move), max(best, -1.0), 1.0)
                if v > best:
                    best_move, best = move, v
                    if best >= 1.0:
                        break
            else:
                v = self._search(step(state, move), -1.0, min(best, 1.0))
                if v < best:
                    best_move, best = move, v
                    if best <= -1.0:
                        break
        return best_move, best

    def _leaf(self) -> None:
        self.leaves += 1
        if self.cap is not None and self.leaves > self.cap:
            raise CapReached(f"more than {self.cap} positions scored")

    def _search(self, s, alpha: float, beta: float) -> float:
        self.nodes += 1
        if s[PHASE] == OVER:
            self._leaf()
            return 1.0 if s[WINNER] == 0 else -1.0
        if at_cutoff(s, self.threshold):
            self._leaf()
            self.evaluations += 1
            v = self.evaluate(self.game, s)
            if self.graded:
                return v
            return 1.0 if v > 0 else -1.0 if v < 0 else 0.0
        tt = self.tt
        lower, upper = -1.0, 1.0
        if self.use_tt:
            entry = tt.get(s)
            if entry is not None:
                lower, upper = entry
                if lower >= beta or lower == upper:
                    return lower
                if upper <= alpha:
                    return upper
                if lower > alpha:
                    alpha = lower
                if upper < beta:
                    beta = upper
        alpha0, beta0 = alpha, beta
        step = self.game.step
        search = self._search
        if _maximiser_moves(s):
            best = -2.0
            for move in self.game.legal_moves(s):
                v = search(step(s, move), alpha, beta)
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
        else:
            best = 2.0
            for move in self.game.legal_moves(s):
                v = search(step(s, move), alpha, beta)
                if v < best:
                    best = v
                    if v < beta:
                        beta = v
                        if alpha >= beta:
                            break
        if self.use_tt:
            if best <= alpha0:
                upper = best
            elif best >= beta0:
                lower = best
            else:
                lower = upper = best
            if len(tt) >= self.tt_limit:
                tt.clear()
            tt[s] = (lower, upper)
        return best


@_searches_deep
def minimax(game: Game, state, evaluate: Evaluation | None = None, threshold: int = 0) -> float:
    """Plain minimax value for player 0: no pruning, no table (a reference for tests)."""
    return _minimax(game, state, evaluate, threshold)


def _minimax(game: Game, state, evaluate: Evaluation | None, threshold: int) -> float:
    if state[PHASE] == OVER:
        return 1.0 if state[WINNER] == 0 else -1.0
    if at_cutoff(state, threshold):
        return evaluate(game, state)
    values = [_minimax(game, game.step(state, m), evaluate, threshold) for m in game.legal_moves(state)]
    return max(values) if _maximiser_moves(state) else min(values)

"""Play one game or a match of the mini Magic game between two players: ``play_game``.

A game between two ``perfect`` players follows Esche (2018), ch. 2.1: both
search the same perfect-information tree (sharing one transposition table);
once a player is at or below ``life_threshold`` life the evaluation function's
verdict is the result (``verify=True`` re-searches that position to the end
and flags a disagreement as ``mismatch``), and a game whose search scores more
than ``eval_cap`` leaves in total is a draw. Any other pairing plays the game
out to its end; search-based players then cap each decision at ``eval_cap``.
Two perfect players with ``life_threshold=0`` (exact play, no evaluation) are
played by the C search of :mod:`gamelp.games.mtg.exact`, which plays the same
moves (``verbose=True`` or ``compiled=False`` keeps the Python search), with no
cap: exact play decides every game, whatever ``eval_cap`` (the thesis's cap of
500,000 leaves drew 106 of the 297,000 games of the exact 55-deck matrix).

An unknown player kind or evaluation, or a ``first`` other than 0 or 1, raises
:class:`MtgError` (a ``GamelpError``) naming the bad value and the valid ones.

Everything is a function of ``seed``: the deck shuffles and every random choice
come from one ``numpy.random.Generator``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gamelp.games.errors import RunError
from gamelp.games.mtg.deck import Deck
from gamelp.games.mtg.engine import (
    EVAL_CAP,
    LIFE_THRESHOLD,
    MOVE_NAMES,
    TURN,
    Game,
    Rules,
    at_cutoff,
    decider,
    is_over,
    lives,
)
from gamelp.games.mtg.engine import winner as winner_of
from gamelp.games.mtg.evaluation import EVALUATIONS, get_evaluation
from gamelp.games.mtg.exact import exact_value, play_exact
from gamelp.games.mtg.players import PLAYER_KINDS, MtgError, PerfectPlayer, Table, make_player
from gamelp.games.mtg.search import CapReached

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class GameResult:
    """Outcome of one game. ``winner``: 0 = player1/deck1, 1 = player2/deck2, None = draw.

    ``nodes`` are search positions visited, ``evaluations`` positions scored
    (evaluation calls and finished games inside searches), ``mismatch`` is True
    when verification disagreed with the evaluation's verdict, ``verified`` when
    a verification search completed, ``capped`` when the game was drawn by the cap.
    """

    winner: int | None
    turns: int
    nodes: int
    evaluations: int
    mismatch: bool
    first: int
    verified: bool = False
    capped: bool = False


@dataclass(frozen=True)
class GameSettings:
    """How a game is played (Esche (2018), Sections 2.2-2.6); the defaults are the thesis's.

    The ``evaluation`` function scores positions at or below
    ``life_threshold`` life; a game reaching ``eval_cap`` evaluations is a
    draw (not at ``life_threshold=0`` between two perfect players: exact play
    is never capped); ``verify`` checks the evaluation's verdict by full minimax;
    ``imperfect_samples`` (when given) is the imperfect-information player's
    sampled deals per decision (None: the player's own default); ``graded``
    makes perfect players search with the full evaluation score rather than
    its sign (slower; see ``search``).
    """

    evaluation: str = "forest"
    eval_cap: int = EVAL_CAP
    life_threshold: int = LIFE_THRESHOLD
    verify: bool = False
    imperfect_samples: int | None = None
    graded: bool = False

    def options(self) -> dict[str, Any]:
        """The settings as a batch stores them with its parameters, checked.

        The defaults of ``imperfect_samples`` and ``graded`` are left out, so a store made before they were
        settings still resumes.
        """
        if self.eval_cap < 1:
            raise RunError(f"the evaluation cap must be at least 1, got {self.eval_cap}")
        options: dict[str, Any] = {
            "eval_cap": int(self.eval_cap),
            "life_threshold": int(self.life_threshold),
            "evaluation": self.evaluation,
            "verify": bool(self.verify),
        }
        if self.imperfect_samples is not None:
            if self.imperfect_samples < 1:
                raise RunError(f"the imperfect player needs at least 1 sample, got {self.imperfect_samples}")
            options["imperfect_samples"] = int(self.imperfect_samples)
        if self.graded:
            options["graded"] = True
        return options


def _sign_winner(value: float) -> int | None:
    return 0 if value > 0 else 1 if value < 0 else None


def play_game(
    deck1: str | Deck,
    deck2: str | Deck,
    player1: str = "perfect",
    player2: str = "perfect",
    *,
    seed: int = 0,
    first: int = 0,
    settings: GameSettings = GameSettings(),
    rules: Rules | None = None,
    verbose: bool = False,
    log: Callable[[str], None] | None = None,
    compiled: bool = True,
) -> GameResult:
    """Deal ``deck1`` to ``player1`` and ``deck2`` to ``player2`` and play one game.

    ``first`` (0 or 1) is the player who takes turn 1. ``settings`` are the
    evaluation, its cap and life threshold, verification, the imperfect
    player's samples and graded search (:class:`GameSettings`; see the module
    docstring for how perfect-information games end). ``rules`` changes rule
    parameters; ``verbose`` sends a line per turn and per decision to ``log``
    (default ``print``); ``compiled=False`` plays exact games (two perfect
    players, ``life_threshold=0``) with the Python search instead of the C one.
    """
    evaluation, eval_cap, life_threshold = settings.evaluation, settings.eval_cap, settings.life_threshold
    graded = settings.graded
    for name, kind in (("player1", player1), ("player2", player2)):
        if kind not in PLAYER_KINDS:
            raise MtgError(f"unknown player kind {kind!r} for {name}; expected one of {', '.join(PLAYER_KINDS)}")
    if evaluation not in EVALUATIONS:
        raise MtgError(f"unknown evaluation {evaluation!r}; expected one of {', '.join(EVALUATIONS)}")
    if first not in (0, 1):
        raise MtgError(f"first must be 0 or 1, got {first!r}")
    log = log or print
    rng = np.random.default_rng(seed)
    decks = (Deck.parse(deck1), Deck.parse(deck2))
    game, state = Game.deal(decks[0], decks[1], rng, first, rules or Rules())
    table = Table(decks)
    both_perfect = player1 == player2 == "perfect"
    if both_perfect and life_threshold == 0 and compiled and not verbose:
        return _exact_game(game, state, first)
    if both_perfect:
        shared = PerfectPlayer(evaluation, life_threshold, eval_cap, graded=graded)
        players = (shared, shared)
    else:
        samples = {} if settings.imperfect_samples is None else {"samples": settings.imperfect_samples}
        options = {"imperfect": samples, "perfect": {"graded": graded}}
        players = tuple(
            make_player(
                kind,
                np.random.default_rng(rng.integers(2**63)),
                evaluation,
                life_threshold,
                eval_cap,
                **options.get(kind, {}),
            )
            for kind in (player1, player2)
        )

    def nodes_and_evaluations():
        unique = {id(p): p for p in players}.values()
        return sum(p.nodes for p in unique), sum(p.evaluations for p in unique)

    last_turn = None
    while not is_over(state):
        if verbose and state[TURN] != last_turn:
            last_turn = state[TURN]
            log(game.describe(state))
        if both_perfect and at_cutoff(state, life_threshold):
            return _perfect_verdict(
                game, state, shared, life_threshold, eval_cap, evaluation, settings.verify, first, verbose, log
            )
        mover = decider(state)
        moves = game.legal_moves(state)
        if both_perfect:
            searcher = shared.searcher(game, life_threshold)
            searcher.cap = None if life_threshold == 0 else eval_cap  # exact play decides every game
            try:
                move, _ = searcher.best_move(state)
            except CapReached:
                nodes, evaluations = nodes_and_evaluations()
                if verbose:
                    log(f"evaluation cap {eval_cap} reached: draw")
                return GameResult(None, state[TURN], nodes, evaluations, False, first, capped=True)
        else:
            move = players[mover].choose(game, state, moves, table)
        if verbose:
            log(f"  P{mover + 1}: {move} ({MOVE_NAMES[move]})")
        table.record(mover, move)
        state = game.step(state, move)
    nodes, evaluations = nodes_and_evaluations()
    if verbose:
        log(game.describe(state))
    return GameResult(winner_of(state), state[TURN], nodes, evaluations, False, first)


def _exact_game(game: Game, state, first: int) -> GameResult:
    """Two perfect players with no evaluation cut-off: the game played out by the C search, uncapped."""
    played = play_exact(game, state, cap=None)
    return GameResult(played.winner, played.turn, played.nodes, played.leaves, False, first, capped=played.capped)


def _perfect_verdict(game, state, player, life_threshold, eval_cap, evaluation, verify, first, verbose, log):
    """The evaluation's verdict at the first position below the threshold, optionally verified."""
    value = get_evaluation(evaluation, threshold=life_threshold)(game, state)
    verdict = _sign_winner(value)
    nodes, evaluations = player.nodes, player.evaluations + 1
    mismatch = verified = False
    if verify:
        truth, checker_nodes, checker_leaves = exact_value(game, state, eval_cap)
        if truth is None:
            logger.info("verification of the cut-off position hit the cap of %s", eval_cap)
        else:
            verified = True
            mismatch = _sign_winner(truth) != verdict
        nodes += checker_nodes
        evaluations += checker_leaves
    if verbose:
        who = "draw" if verdict is None else f"player {verdict + 1} wins"
        check = ("; verification " + ("disagrees" if mismatch else "agrees")) if verified else ""
        log(f"cut-off at life {lives(state)[0]}/{lives(state)[1]}: {evaluation} evaluation {value:+.3f}, {who}{check}")
    return GameResult(verdict, state[TURN], nodes, evaluations, mismatch, first, verified=verified)


def play_match(deck1: str | Deck, deck2: str | Deck, games: int, seed: int = 0, **options) -> list[GameResult]:
    """``games`` games, player1 going first in the even-numbered ones; per-game seeds from ``seed``."""
    seeds = np.random.SeedSequence(seed).generate_state(games)
    return [play_game(deck1, deck2, seed=int(s), first=i % 2, **options) for i, s in enumerate(seeds)]

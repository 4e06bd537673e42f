"""Batches of mini-Magic games run in parallel into a resumable store, summarised as win-rate matrices.

Esche (2018), Sections 2.1 and 3.1, estimates the payoff matrix of
the deck-choice game by Monte Carlo: every unordered pair of decks on a grid
of creature (Vexing Devil) and bolt (Lightning Bolt) counts, multiples of 4
with at most 60 cards (45 decks, 1035 pairs counting the mirrors), plays 200
games, each deck going first half of the time.  Draws (the evaluation cap
was reached) and games whose evaluation-function verdict disagreed with full
minimax are counted but left out of the win rate.  Repeating the whole run
gives the standard deviation of every entry, which the robust LPs need.
Section 3.4 plays players against players the same way (random decks, 200
games per repeat, 20 repeats).

This module runs both kinds of batch:

* ``run_sweep`` -- decks against decks, one player kind on both sides;
* ``run_tournament`` -- player kinds against player kinds, decks drawn at
  random from a pool for every game.

Both produce a ``BatchResult`` whose ``matrix`` is a ``gamelp.matrix.MatrixGame``
with c_ij = win rate of entrant i against entrant j and C + C^T = 1: only
i < j is played and c_ji is set to 1 - c_ij.  The diagonal is 0.5 with
deviation 0 unless mirror games were asked for (``mirror=True``), in which
case it holds the measured win rate of the first-listed seat of the mirror
(expected 0.5; its distance from 0.5 is a check on the simulation), so
C + C^T = 1 then holds off the diagonal only.

Each entry is the mean over repeats of the per-repeat win rates (repeats in
which a pair had no decided game are skipped; a pair never decided gets 0.5
and is listed in ``BatchResult.undecided``).  Its deviation is the sample
standard deviation (ddof=1) of those per-repeat rates when at least two
repeats decided games, and otherwise the binomial standard error
sqrt(c (1 - c) / n) of the n decided games, the same quantity estimated
from a single run.

Reproducibility: every game's seed is derived with ``numpy.random.SeedSequence``
from (seed, repeat, pair key, game index), where the pair key of a sweep is
the two decks' creature and bolt counts (so a pair gives the same games on
any grid) and that of a tournament is the two players' positions.  Game g
puts the first entrant on the play when g is even, the second when g is odd
(with an odd number of games the first entrant starts once more).  The
matrix is therefore identical whatever the number of workers or executor.

Execution and storage are ``gamelp.games.runner``'s: game g of repeat r is
match ``r * games + g`` of its pair; batches of ``batch_size`` games go to
this process (``workers=1``), a local process pool or a Dask cluster
(``scheduler``); ``DIR/games.sqlite`` keeps one row per game (deck indices,
who went first, winner, turns, nodes, evaluations, mismatch), so a killed
run resumes without losing or repeating a game, and a store made with other
parameters, or failing validation, is refused with one line.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import sqlite3
from abc import abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from gamelp.display import Raw, Summarised, frame, shape_text
from gamelp.games.errors import RunError
from gamelp.games.mtg.deck import DECK_SIZE, Deck
from gamelp.games.mtg.evaluation import EVALUATIONS
from gamelp.games.mtg.match import PLAYER_KINDS, GameSettings, play_game
from gamelp.games.runner import (
    Column,
    Execution,
    Experiment,
    derive_seed,
    open_store,
    rate_matrix,
    rates_by_group,
    round_robin,
    run_matches,
)
from gamelp.io import atomic_write
from gamelp.matrix import MatrixGame

log = logging.getLogger(__name__)

THESIS_CREATURES = (0, 4, 8)
THESIS_BOLTS = tuple(range(0, DECK_SIZE + 1, 4))
STORE_NAME = "games.sqlite"

GameFn = Callable[..., Any]
SweepError = RunError  # the name this module's callers catch


@dataclass(frozen=True)
class GameTask:
    """One game to play: the game function's arguments (deck indices into the experiment's deck list)."""

    deck1: int
    deck2: int
    player1: str
    player2: str
    first: int
    seed: int


@dataclass(frozen=True)
class PairStats:
    """Counts and win rate of one played pair (summed over repeats); ``rate`` is the row entrant's."""

    row: str
    col: str
    games: int
    wins: int
    losses: int
    draws: int
    mismatches: int
    rate: float
    std: float


@dataclass(frozen=True, repr=False)
class BatchResult(Summarised):
    """A finished batch: the win-rate matrix with deviations, per-pair counts and totals."""

    matrix: MatrixGame
    pairs: tuple[PairStats, ...]
    undecided: tuple[tuple[str, str], ...]

    @property
    def games(self) -> int:
        """Games played, over all pairs."""
        return sum(p.games for p in self.pairs)

    @property
    def draws(self) -> int:
        """Drawn games, over all pairs."""
        return sum(p.draws for p in self.pairs)

    @property
    def mismatches(self) -> int:
        """Games whose evaluation disagreed with the exact result, over all pairs."""
        return sum(p.mismatches for p in self.pairs)

    def _summary(self) -> dict:
        return {
            "matrix": Raw(shape_text(self.matrix.shape)),
            "pairs": len(self.pairs),
            "games": self.games,
            "draws": self.draws,
            "mismatches": self.mismatches,
            "undecided": len(self.undecided) or None,
        }

    def to_frame(self):
        """One row per played pair as a pandas DataFrame: the counts, the win rate and its standard deviation."""
        columns = ["row", "col", "games", "wins", "losses", "draws", "mismatches", "rate", "std"]
        return frame([[getattr(p, c) for c in columns] for p in self.pairs], "a win-rate table", columns=columns)

    def summary(self) -> str:
        """One line of totals, as the CLI prints it."""
        text = (
            f"{self.games} games over {len(self.pairs)} pairs: "
            f"{self.draws} draws and {self.mismatches} evaluation mismatches left out of the win rates"
        )
        if self.undecided:
            names = ", ".join(f"{a} v {b}" for a, b in self.undecided)
            text += f"; no decided game (entry set to 0.5): {names}"
        return text

    def pairs_csv(self, path: str | os.PathLike) -> None:
        """Write the per-pair counts as CSV (atomically)."""
        lines = ["row,col,games,wins,losses,draws,mismatches,rate,std"]
        lines += [
            f"{p.row},{p.col},{p.games},{p.wins},{p.losses},{p.draws},{p.mismatches},{p.rate:.6g},{p.std:.6g}"
            for p in self.pairs
        ]
        with atomic_write(path) as handle:
            handle.write("\n".join(lines) + "\n")


# ----------------------------------------------------------------------------- decks and seeds


def deck_grid(
    creatures: Iterable[int] = THESIS_CREATURES, bolts: Iterable[int] = THESIS_BOLTS, analysed: bool = False
) -> list[Deck]:
    """Every deck of the grid with at most 60 cards, ordered by creatures then bolts.

    ``analysed=True`` keeps only the decks Esche (2018) analysed (:attr:`Deck.analysed`):
    with the default grid, the 33 decks of Appendix B.
    """
    creatures, bolts = sorted(set(creatures)), sorted(set(bolts))
    grid = [Deck(c, b) for c in creatures for b in bolts if c + b <= DECK_SIZE]
    if analysed:
        grid = [deck for deck in grid if deck.analysed]
    if not grid:
        which = (
            "deck the thesis analysed (more than 12 non-land cards, at least one Mountain)"
            if analysed
            else f"deck of at most {DECK_SIZE} cards"
        )
        raise SweepError(f"no {which} on the grid creatures={creatures} bolts={bolts}")
    return grid


def game_seed(seed: int, *key: int) -> int:
    """The seed of one game, derived from the batch seed and the game's key by SeedSequence (63 bits)."""
    return derive_seed(seed, *key)


def deck_game_seed(seed: int, repeat: int, a: Deck, b: Deck, game: int) -> int:
    """The seed of game ``game`` of repeat ``repeat`` of deck ``a`` against deck ``b`` in a sweep.

    Keyed by the decks' card counts, so the pair plays the same games on any grid (game ``game`` puts
    deck ``a`` on the play when ``game`` is even).
    """
    return game_seed(seed, repeat, a.creatures, a.bolts, b.creatures, b.bolts, game)


def _check_counts(games: int, repeats: int, seed: int) -> None:
    if games < 1:
        raise SweepError(f"games per pair must be at least 1, got {games}")
    if repeats < 1:
        raise SweepError(f"repeats must be at least 1, got {repeats}")
    if seed < 0:
        raise SweepError(f"seed must be non-negative, got {seed}")


# ----------------------------------------------------------------------------- the two batch kinds as experiments


class _MtgGames(Experiment):
    """Mini-Magic games for the runner: game g of repeat r is match r * games + g of its pair."""

    def __init__(
        self,
        params: dict[str, Any],
        pairs: Sequence[tuple[int, int]],
        decks: Sequence[str],
        games: int,
        repeats: int,
        game_fn: GameFn,
        settings: GameSettings,
    ):
        self.params = params
        self.pairs = list(pairs)
        self.decks = list(decks)
        self.games = games
        self.game_fn = game_fn
        self.settings = settings
        self.n_pairs = len(self.pairs)
        self.n_matches = games * repeats
        last_deck = len(self.decks) - 1
        self.columns = (
            Column("deck1", 0, last_deck),
            Column("deck2", 0, last_deck),
            Column("first", 0, 1),
            Column("winner", 0, 1, nullable=True),
            Column("turns"),
            Column("nodes"),
            Column("evaluations"),
            Column("mismatch", 0, 1),
        )

    @abstractmethod
    def task(self, pair: int, match: int) -> GameTask:
        """The game function's arguments for one match."""

    def match_seed(self, pair: int, match: int) -> int:
        return self.task(pair, match).seed

    def play(self, pair: int, match: int) -> tuple[int | None, ...]:
        task = self.task(pair, match)
        result = self.game_fn(
            self.decks[task.deck1],
            self.decks[task.deck2],
            player1=task.player1,
            player2=task.player2,
            seed=task.seed,
            first=task.first,
            settings=self.settings,
        )
        winner = None if result.winner is None else int(result.winner)
        return (
            task.deck1,
            task.deck2,
            task.first,
            winner,
            int(result.turns),
            int(result.nodes),
            int(result.evaluations),
            int(bool(result.mismatch)),
        )


class _DeckSweep(_MtgGames):
    """Deck i against deck j, one player kind; seeds keyed by the decks' card counts."""

    def __init__(self, *args, grid: Sequence[Deck], player: str, seed: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.grid, self.player, self.seed = list(grid), player, seed

    def task(self, pair: int, match: int) -> GameTask:
        (i, j), (r, g) = self.pairs[pair], divmod(match, self.games)
        a, b = self.grid[i], self.grid[j]
        return GameTask(i, j, self.player, self.player, g % 2, deck_game_seed(self.seed, r, a, b, g))


class _PlayerTournament(_MtgGames):
    """Player kind i against player kind j, both decks drawn from the pool with the game's own generator."""

    def __init__(self, *args, players: Sequence[str], seed: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.players, self.seed = list(players), seed

    def task(self, pair: int, match: int) -> GameTask:
        (i, j), (r, g) = self.pairs[pair], divmod(match, self.games)
        rng = np.random.default_rng(np.random.SeedSequence([self.seed, r, i, j, g]))
        d1, d2 = rng.integers(len(self.decks), size=2)
        return GameTask(int(d1), int(d2), self.players[i], self.players[j], g % 2, int(rng.integers(2**63 - 1)))


# ----------------------------------------------------------------------------- running and summarising


def summarise(rows: np.ndarray, experiment: _MtgGames, labels: Sequence[str], repeats: int) -> BatchResult:
    """The win-rate matrix (c_ji = 1 - c_ij, diagonal 0.5 unless played) with deviations and per-pair counts."""
    pair, match = rows[:, 0], rows[:, 1]
    winner, mismatch = experiment.column(rows, "winner"), experiment.column(rows, "mismatch")
    kind = np.where(mismatch == 1, 3, np.where(winner == -1, 2, winner))  # 0 win, 1 loss, 2 draw, 3 mismatch
    rate, std, counts = rates_by_group(pair, match // experiment.games, kind, experiment.n_pairs, repeats, n_kinds=4)
    stats = tuple(
        PairStats(labels[i], labels[j], int(c.sum()), *(int(x) for x in c), float(r), float(s))
        for (i, j), c, r, s in zip(experiment.pairs, counts, rate, std)
    )
    undecided = tuple((p.row, p.col) for p in stats if p.wins + p.losses == 0)
    for a, b in undecided:
        log.warning("%s v %s: no decided game, entry set to 0.5", a, b)
    return BatchResult(rate_matrix(labels, experiment.pairs, rate, std), stats, undecided)


def _run(
    experiment: _MtgGames, labels: Sequence[str], repeats: int, out: str | os.PathLike | None, execution: Execution
) -> BatchResult:
    """Play what the store lacks, then summarise and (with ``out``) write the matrices and per-pair counts."""
    out, store = open_store(out, STORE_NAME, experiment, execution.resume)
    try:
        run_matches(store, execution, unit="game")
        result = summarise(store.table(), experiment, labels, repeats)
    finally:
        store.close()
    if out is not None:
        result.matrix.to_csv(out / "payoffs.csv", std_path=out / "std.csv")
        result.pairs_csv(out / "pairs.csv")
    return result


class StoredGame(NamedTuple):
    """One game of a sweep store; ``deck1`` is the pair's row deck, ``first`` the player who began."""

    deck1: str
    deck2: str
    repeat: int
    game: int
    winner: int | None
    mismatch: bool
    first: int


def stored_games(out: str | os.PathLike) -> list[StoredGame]:
    """Every game in ``out/games.sqlite``, read-only.

    Returned with the decks named as in the run's parameters (the store keeps their indices).
    """
    path = Path(out) / STORE_NAME
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise SweepError(f"{path}: cannot open the game store ({exc})") from exc
    try:
        params = json.loads(db.execute("SELECT params FROM run").fetchone()[0])
        decks, games = params["decks"], int(params["games"])
        rows = db.execute("SELECT deck1, deck2, match, winner, mismatch, first FROM matches ORDER BY pair, match")
        return [
            StoredGame(decks[d1], decks[d2], m // games, m % games, w, bool(mm), int(f))
            for d1, d2, m, w, mm, f in rows.fetchall()
        ]
    except (sqlite3.Error, TypeError, ValueError, KeyError, IndexError) as exc:
        raise SweepError(f"{path}: not a readable game store ({exc})") from exc
    finally:
        db.close()


def _function_name(fn: GameFn) -> str:
    """A game function's stable name for the run's parameters.

    The same on every run, so a resume matches; a ``functools.partial`` (e.g. ``play_game`` with changed rules) is named
    by its function and arguments, never by its memory address.
    """
    if isinstance(fn, functools.partial):
        arguments = [repr(a) for a in fn.args] + [f"{k}={v!r}" for k, v in sorted(fn.keywords.items())]
        return f"{_function_name(fn.func)}({', '.join(arguments)})"
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"


def _check_engine_arguments(players: Iterable[str], evaluation: str, game_fn: GameFn | None) -> None:
    """Refuse unknown player kinds and evaluations up front (a caller's own game function decides its own)."""
    if game_fn is not None:
        return
    for kind in players:
        if kind not in PLAYER_KINDS:
            raise SweepError(f"unknown player kind {kind!r}; choose from {', '.join(PLAYER_KINDS)}")
    if evaluation not in EVALUATIONS:
        raise SweepError(f"unknown evaluation {evaluation!r}; choose from {', '.join(EVALUATIONS)}")


def run_sweep(
    creatures: Iterable[int] = THESIS_CREATURES,
    bolts: Iterable[int] = THESIS_BOLTS,
    *,
    games: int = 200,
    repeats: int = 1,
    seed: int = 0,
    mirror: bool = False,
    analysed: bool = False,
    player: str = "perfect",
    settings: GameSettings = GameSettings(),
    out: str | os.PathLike | None = None,
    execution: Execution = Execution(),
    game_fn: GameFn | None = None,
) -> BatchResult:
    """Play every deck pair of the grid ``games`` times per repeat and return the win-rate matrix.

    Writes ``out/games.sqlite`` as batches of games finish and, at the end,
    ``out/payoffs.csv``, ``out/std.csv`` and ``out/pairs.csv``; with
    ``out=None`` nothing is written and nothing can be resumed.  ``game_fn``
    defaults to ``gamelp.games.mtg.match.play_game`` and is called as it is, with ``settings``; ``analysed`` keeps the
    decks Esche (2018) analysed (see :func:`deck_grid`).
    """
    _check_counts(games, repeats, seed)
    grid = deck_grid(creatures, bolts, analysed)
    _check_engine_arguments([player], settings.evaluation, game_fn)
    labels = [str(d) for d in grid]
    pairs = round_robin(len(grid), mirror)
    if not pairs:
        raise SweepError(f"the grid has the single deck {labels[0]}: add decks or ask for mirror games")
    options = settings.options()
    game_fn = game_fn or play_game
    params = {
        "kind": "sweep",
        "decks": labels,
        "games": games,
        "repeats": repeats,
        "seed": seed,
        "mirror": mirror,
        "player": player,
        **options,
        "game_fn": _function_name(game_fn),
    }
    experiment = _DeckSweep(
        params, pairs, labels, games, repeats, game_fn, settings, grid=grid, player=player, seed=seed
    )
    return _run(experiment, labels, repeats, out, execution)


def run_tournament(
    players: Sequence[str],
    decks: Sequence[str],
    *,
    games: int = 200,
    repeats: int = 20,
    seed: int = 0,
    settings: GameSettings = GameSettings(),
    out: str | os.PathLike | None = None,
    execution: Execution = Execution(),
    game_fn: GameFn | None = None,
) -> BatchResult:
    """Play every pair of player kinds ``games`` times per repeat on random decks (Esche (2018), Section 3.4).

    For each game both decks are drawn uniformly and independently from
    ``decks`` with the game's own seed.  The matrix rows and columns are the
    player kinds; entry (a, b) is a's win rate against b.
    """
    _check_counts(games, repeats, seed)
    players = list(players)
    if len(set(players)) != len(players) or len(players) < 2:
        raise SweepError(f"a tournament needs at least two distinct player kinds, got {players}")
    _check_engine_arguments(players, settings.evaluation, game_fn)
    decks = [str(Deck.parse(d)) for d in decks]
    if not decks:
        raise SweepError("a tournament needs at least one deck to draw from")
    options = settings.options()
    game_fn = game_fn or play_game
    params = {
        "kind": "tournament",
        "players": players,
        "decks": decks,
        "games": games,
        "repeats": repeats,
        "seed": seed,
        **options,
        "game_fn": _function_name(game_fn),
    }
    pairs = round_robin(len(players))
    experiment = _PlayerTournament(params, pairs, decks, games, repeats, game_fn, settings, players=players, seed=seed)
    return _run(experiment, players, repeats, out, execution)

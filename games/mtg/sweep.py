"""Batches of mini-Magic games run in parallel into a resumable store, summarised as win-rate matrices.

The thesis (seed 000, Sections 2.1 and 3.1) estimates the payoff matrix of
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

Execution: ``workers=1`` plays in this process; ``workers>1`` uses a local
``ProcessPoolExecutor``; ``scheduler="tcp://host:port"`` sends the games to a
Dask distributed cluster through ``dask.distributed.Client``.  At most a few
games per worker are in flight at once (bounded submission), and each
finished game is written and committed at once to SQLite
(``DIR/games.sqlite``: the run parameters plus one row per game keyed by
(repeat, pair, game)).  Starting the same batch again skips the games
already stored, so a killed run continues without losing or repeating a
game; a store made with different parameters is refused.  A tqdm progress
bar shows games done, rate and time left.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor
from concurrent.futures import wait as wait_futures
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from gamelp.errors import GamelpError
from gamelp.games.mtg.deck import DECK_SIZE, Deck, thesis_decks
from gamelp.games.mtg.evaluation import EVALUATIONS
from gamelp.games.mtg.match import PLAYER_KINDS, play_game
from gamelp.matrix import MatrixGame

log = logging.getLogger(__name__)

THESIS_CREATURES = (0, 4, 8)
THESIS_BOLTS = tuple(range(0, DECK_SIZE + 1, 4))
STORE_NAME = "games.sqlite"
_SCHEMA_VERSION = 1
_IN_FLIGHT_PER_WORKER = 4

GameFn = Callable[..., Any]


class SweepError(GamelpError):
    """A batch of games was asked for with bad arguments, or its store does not match them."""


@dataclass(frozen=True)
class GameTask:
    """One game to play: its store key (repeat, pair, game) and the game function's arguments."""

    repeat: int
    pair: int
    game: int
    deck1: str
    deck2: str
    player1: str
    player2: str
    first: int
    seed: int

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.repeat, self.pair, self.game)


@dataclass(frozen=True)
class GameOutcome:
    """What the store keeps of a finished game (a ``GameResult`` without the redundant fields)."""

    winner: int | None
    turns: int
    nodes: int
    evaluations: int
    mismatch: bool


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


@dataclass(frozen=True)
class BatchResult:
    """A finished batch: the win-rate matrix with deviations, per-pair counts and totals."""

    matrix: MatrixGame
    pairs: tuple[PairStats, ...]
    undecided: tuple[tuple[str, str], ...]

    @property
    def games(self) -> int:
        return sum(p.games for p in self.pairs)

    @property
    def draws(self) -> int:
        return sum(p.draws for p in self.pairs)

    @property
    def mismatches(self) -> int:
        return sum(p.mismatches for p in self.pairs)

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
        """Write the per-pair counts as CSV."""
        lines = ["row,col,games,wins,losses,draws,mismatches,rate,std"]
        lines += [
            f"{p.row},{p.col},{p.games},{p.wins},{p.losses},{p.draws},{p.mismatches},{p.rate:.6g},{p.std:.6g}"
            for p in self.pairs
        ]
        Path(path).write_text("\n".join(lines) + "\n")


# ----------------------------------------------------------------------------- decks and seeds


def deck_grid(creatures: Iterable[int] = THESIS_CREATURES, bolts: Iterable[int] = THESIS_BOLTS) -> list[Deck]:
    """Every deck of the grid with at most 60 cards, ordered by creatures then bolts."""
    creatures, bolts = sorted(set(creatures)), sorted(set(bolts))
    grid = [Deck(c, b) for c in creatures for b in bolts if c + b <= DECK_SIZE]
    if not grid:
        raise SweepError(f"no deck on the grid creatures={creatures} bolts={bolts} "
                         f"has at most {DECK_SIZE} cards")
    return grid


def analysed_decks(max_creatures: int = 8) -> list[Deck]:
    """The decks the thesis analysed: more than 12 non-land cards and at least one Mountain.

    33 decks for ``max_creatures=8`` (Appendix B), 55 for 16 (Table 3.4).
    """
    return [d for d in thesis_decks(max_creatures) if 12 < d.creatures + d.bolts < DECK_SIZE]


def game_seed(seed: int, *key: int) -> int:
    """The seed of one game, derived from the batch seed and the game's key by SeedSequence (63 bits)."""
    state = np.random.SeedSequence([seed, *key]).generate_state(1, np.uint64)[0]
    return int(state >> np.uint64(1))


def _pairs(n: int, mirror: bool) -> list[tuple[int, int]]:
    return [(i, j) for i in range(n) for j in range(i if mirror else i + 1, n)]


def _check_counts(games: int, repeats: int, seed: int) -> None:
    if games < 1:
        raise SweepError(f"games per pair must be at least 1, got {games}")
    if repeats < 1:
        raise SweepError(f"repeats must be at least 1, got {repeats}")
    if seed < 0:
        raise SweepError(f"seed must be non-negative, got {seed}")


# ----------------------------------------------------------------------------- the store


class GameStore:
    """SQLite store of one batch: its parameters and one committed row per finished game.

    Opening an existing store checks that it was made with the same
    parameters, so a resumed batch can neither mix two experiments nor
    repeat a game (the key (repeat, pair, game) is the primary key).
    ``path=None`` keeps the store in memory.
    """

    _COLUMNS = (
        "repeat", "pair", "game", "deck1", "deck2", "player1", "player2", "first", "seed",
        "winner", "turns", "nodes", "evaluations", "mismatch",
    )

    def __init__(self, path: str | os.PathLike | None, params: dict[str, Any]):
        self.path = None if path is None else Path(path)
        self.params = json.loads(json.dumps({"schema": _SCHEMA_VERSION, **params}))
        where = ":memory:" if self.path is None else str(self.path)
        try:
            self._db = sqlite3.connect(where)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(
                """
                CREATE TABLE IF NOT EXISTS run (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    params TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS games (
                    repeat INTEGER NOT NULL, pair INTEGER NOT NULL, game INTEGER NOT NULL,
                    deck1 TEXT NOT NULL, deck2 TEXT NOT NULL,
                    player1 TEXT NOT NULL, player2 TEXT NOT NULL,
                    first INTEGER NOT NULL, seed INTEGER NOT NULL,
                    winner INTEGER, turns INTEGER NOT NULL, nodes INTEGER NOT NULL,
                    evaluations INTEGER NOT NULL, mismatch INTEGER NOT NULL,
                    PRIMARY KEY (repeat, pair, game));
                """
            )
            stored = self._db.execute("SELECT params FROM run").fetchone()
            if stored is None:
                with self._db:
                    self._db.execute("INSERT INTO run (id, params) VALUES (1, ?)", (json.dumps(self.params, sort_keys=True),))
        except sqlite3.DatabaseError as exc:
            raise SweepError(f"{where}: not a usable game store ({exc})") from exc
        if stored is not None:
            self._check_params(json.loads(stored[0]))

    def _check_params(self, stored: dict[str, Any]) -> None:
        if stored == self.params:
            return
        keys = sorted(set(stored) | set(self.params))
        diffs = [f"{k}: stored {stored.get(k)!r}, asked {self.params.get(k)!r}" for k in keys if stored.get(k) != self.params.get(k)]
        self.close()
        raise SweepError(
            f"{self.path}: the store was made with other arguments ({'; '.join(diffs)}); "
            "resume with the same arguments or write to another directory"
        )

    def done_keys(self) -> set[tuple[int, int, int]]:
        return set(self._db.execute("SELECT repeat, pair, game FROM games").fetchall())

    def add(self, task: GameTask, outcome: GameOutcome) -> None:
        """Write one finished game and commit at once."""
        row = (
            task.repeat, task.pair, task.game, task.deck1, task.deck2, task.player1, task.player2,
            task.first, task.seed, outcome.winner, outcome.turns, outcome.nodes, outcome.evaluations,
            int(outcome.mismatch),
        )
        try:
            with self._db:
                self._db.execute(f"INSERT INTO games ({', '.join(self._COLUMNS)}) VALUES ({', '.join('?' * len(row))})",
                                 row)
        except sqlite3.IntegrityError as exc:
            raise SweepError(f"{self.path}: game {task.key} is already stored; is another run writing to this "
                             "store?") from exc

    def outcomes(self) -> np.ndarray:
        """(repeat, pair, winner, mismatch) of every stored game, winner -1 for a draw; int array (n, 4)."""
        rows = self._db.execute("SELECT repeat, pair, COALESCE(winner, -1), mismatch FROM games").fetchall()
        return np.asarray(rows, dtype=np.int64).reshape(-1, 4)

    def close(self) -> None:
        self._db.close()


# ----------------------------------------------------------------------------- executing games


def _play(game_fn: GameFn, task: GameTask, options: dict[str, Any]) -> GameOutcome:
    """Play one game (in a worker) and keep the fields the store needs."""
    result = game_fn(
        task.deck1, task.deck2, player1=task.player1, player2=task.player2,
        seed=task.seed, first=task.first, **options,
    )
    winner = None if result.winner is None else int(result.winner)
    return GameOutcome(winner, int(result.turns), int(result.nodes), int(result.evaluations), bool(result.mismatch))


class _Serial:
    """Plays each game in this process when it is submitted (``workers=1``)."""

    window = 1

    class _Done:
        def __init__(self, fn, args):
            self._value = fn(*args)

        def result(self):
            return self._value

    def submit(self, fn, *args):
        return self._Done(fn, args)

    @staticmethod
    def wait_any(pending):
        return set(pending)

    def close(self, interrupted: bool) -> None:
        pass


class _Local:
    """A local process pool."""

    def __init__(self, workers: int):
        self.window = workers * _IN_FLIGHT_PER_WORKER
        self._pool = ProcessPoolExecutor(max_workers=workers)

    def submit(self, fn, *args):
        return self._pool.submit(fn, *args)

    @staticmethod
    def wait_any(pending):
        return wait_futures(pending, return_when=FIRST_COMPLETED).done

    def close(self, interrupted: bool) -> None:
        self._pool.shutdown(wait=True, cancel_futures=interrupted)


class _Dask:
    """A Dask distributed cluster reached through its scheduler address."""

    def __init__(self, address: str):
        try:
            from dask.distributed import Client
        except ImportError as exc:  # the [dist] extra
            raise SweepError("--scheduler needs dask[distributed] (pip install 'gamelp[dist]')") from exc
        try:
            self._client = Client(address, timeout="20s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise SweepError(f"cannot reach the Dask scheduler at {address}: {exc}") from exc
        self.window = max(1, sum(self._client.nthreads().values())) * _IN_FLIGHT_PER_WORKER

    def submit(self, fn, *args):
        return self._client.submit(fn, *args, pure=False)

    @staticmethod
    def wait_any(pending):
        from dask.distributed import wait

        return wait(list(pending), return_when="FIRST_COMPLETED").done

    def close(self, interrupted: bool) -> None:
        self._client.close()


def _executor(workers: int, scheduler: str | None):
    if scheduler:
        return _Dask(scheduler)
    if workers < 1:
        raise SweepError(f"workers must be at least 1, got {workers}")
    return _Serial() if workers == 1 else _Local(workers)


def run_games(
    tasks: Sequence[GameTask],
    store: GameStore,
    *,
    game_fn: GameFn,
    options: dict[str, Any],
    workers: int = 1,
    scheduler: str | None = None,
    progress: bool = True,
    on_game: Callable[[GameTask, GameOutcome], None] | None = None,
) -> int:
    """Play the tasks not yet in the store, writing each as it finishes; returns how many were played.

    ``on_game`` is called after each game is committed (a hook for callers
    and tests; an exception raised there stops the batch, keeping what was
    stored).
    """
    done = store.done_keys()
    todo = [t for t in tasks if t.key not in done]
    if not todo:
        return 0
    executor = _executor(workers, scheduler)
    queue = iter(todo)
    pending: dict[Any, GameTask] = {}
    bar = tqdm(total=len(tasks), initial=len(tasks) - len(todo), unit="game", disable=not progress, smoothing=0.05)
    interrupted = True
    try:
        while True:
            for task in queue:
                pending[executor.submit(_play, game_fn, task, options)] = task
                if len(pending) >= executor.window:
                    break
            if not pending:
                break
            for future in executor.wait_any(pending):
                task = pending.pop(future)
                outcome = future.result()
                store.add(task, outcome)
                bar.update()
                if on_game is not None:
                    on_game(task, outcome)
        interrupted = False
    finally:
        bar.close()
        executor.close(interrupted)
    return len(todo)


# ----------------------------------------------------------------------------- summarising


def _rates(store: GameStore, n_pairs: int, repeats: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-pair (rate, std) and counts (n_pairs, 4: wins, losses, draws, mismatches) from the stored games."""
    data = store.outcomes()
    rep, pair, winner, mismatch = data.T
    kind = np.where(mismatch == 1, 3, np.where(winner == -1, 2, winner))  # 0 win, 1 loss, 2 draw, 3 mismatch
    counts = np.zeros((repeats, n_pairs, 4), dtype=np.int64)
    np.add.at(counts, (rep, pair, kind), 1)
    wins, decided = counts[..., 0], counts[..., 0] + counts[..., 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        per_run = np.where(decided > 0, wins / decided, np.nan)
    ran = np.isfinite(per_run)
    n_runs = ran.sum(axis=0)
    rate = np.where(n_runs > 0, np.nansum(per_run, axis=0) / np.maximum(n_runs, 1), 0.5)
    dev = np.where(ran, per_run - rate, 0.0)
    sample_std = np.sqrt((dev**2).sum(axis=0) / np.maximum(n_runs - 1, 1))
    total_decided = decided.sum(axis=0)
    binomial_se = np.sqrt(rate * (1 - rate) / np.maximum(total_decided, 1)) * (total_decided > 0)
    std = np.where(n_runs >= 2, sample_std, binomial_se)
    return rate, std, counts.sum(axis=0)


def summarise(store: GameStore, labels: Sequence[str], pairs: Sequence[tuple[int, int]], repeats: int) -> BatchResult:
    """The win-rate matrix (c_ji = 1 - c_ij, diagonal 0.5 unless played) with deviations and per-pair counts."""
    rate, std, counts = _rates(store, len(pairs), repeats)
    n = len(labels)
    payoffs, deviations = np.full((n, n), 0.5), np.zeros((n, n))
    rows, cols = np.array([p[0] for p in pairs], dtype=int), np.array([p[1] for p in pairs], dtype=int)
    payoffs[cols, rows] = 1.0 - rate
    payoffs[rows, cols] = rate
    deviations[cols, rows] = std
    deviations[rows, cols] = std
    stats = tuple(
        PairStats(labels[i], labels[j], int(c.sum()), *(int(x) for x in c), float(r), float(s))
        for (i, j), c, r, s in zip(pairs, counts, rate, std)
    )
    undecided = tuple((p.row, p.col) for p in stats if p.wins + p.losses == 0)
    for a, b in undecided:
        log.warning("%s v %s: no decided game, entry set to 0.5", a, b)
    matrix = MatrixGame(payoffs, list(labels), list(labels), std=deviations)
    return BatchResult(matrix, stats, undecided)


def _finish(result: BatchResult, out: Path | None) -> BatchResult:
    if out is not None:
        result.matrix.to_csv(out / "payoffs.csv", std_path=out / "std.csv")
        result.pairs_csv(out / "pairs.csv")
    return result


def _open_store(out: str | os.PathLike | None, params: dict[str, Any]) -> tuple[Path | None, GameStore]:
    if out is None:
        return None, GameStore(None, params)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    return out, GameStore(out / STORE_NAME, params)


def _game_options(evaluation: str, eval_cap: int, life_threshold: int, verify: bool) -> dict[str, Any]:
    if eval_cap < 1:
        raise SweepError(f"the evaluation cap must be at least 1, got {eval_cap}")
    return {"eval_cap": int(eval_cap), "life_threshold": int(life_threshold), "evaluation": evaluation, "verify": bool(verify)}


def _function_name(fn: GameFn) -> str:
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


# ----------------------------------------------------------------------------- the two batch kinds


def run_sweep(
    creatures: Iterable[int] = THESIS_CREATURES,
    bolts: Iterable[int] = THESIS_BOLTS,
    *,
    games: int = 200,
    repeats: int = 1,
    seed: int = 0,
    mirror: bool = False,
    player: str = "perfect",
    evaluation: str = "forest",
    eval_cap: int = 500_000,
    life_threshold: int = 12,
    verify: bool = False,
    out: str | os.PathLike | None = None,
    workers: int = 1,
    scheduler: str | None = None,
    progress: bool = True,
    game_fn: GameFn | None = None,
    on_game: Callable[[GameTask, GameOutcome], None] | None = None,
) -> BatchResult:
    """Play every deck pair of the grid ``games`` times per repeat and return the win-rate matrix.

    Writes ``out/games.sqlite`` as games finish and, at the end,
    ``out/payoffs.csv``, ``out/std.csv`` and ``out/pairs.csv``; with
    ``out=None`` nothing is written and nothing can be resumed.
    ``game_fn`` defaults to ``gamelp.games.mtg.match.play_game``.
    """
    _check_counts(games, repeats, seed)
    grid = deck_grid(creatures, bolts)
    _check_engine_arguments([player], evaluation, game_fn)
    labels = [str(d) for d in grid]
    pairs = _pairs(len(grid), mirror)
    if not pairs:
        raise SweepError(f"the grid has the single deck {labels[0]}: add decks or ask for mirror games")
    options = _game_options(evaluation, eval_cap, life_threshold, verify)
    game_fn = game_fn or play_game
    params = {
        "kind": "sweep", "decks": labels, "games": games, "repeats": repeats, "seed": seed, "mirror": mirror,
        "player": player, **options, "game_fn": _function_name(game_fn),
    }
    tasks = [
        GameTask(r, p, g, labels[i], labels[j], player, player, g % 2, game_seed(seed, r, grid[i].creatures, grid[i].bolts, grid[j].creatures, grid[j].bolts, g))
        for r in range(repeats)
        for p, (i, j) in enumerate(pairs)
        for g in range(games)
    ]
    out, store = _open_store(out, params)
    try:
        run_games(tasks, store, game_fn=game_fn, options=options, workers=workers, scheduler=scheduler,
                  progress=progress, on_game=on_game)
        return _finish(summarise(store, labels, pairs, repeats), out)
    finally:
        store.close()


def run_tournament(
    players: Sequence[str],
    decks: Sequence[str],
    *,
    games: int = 200,
    repeats: int = 20,
    seed: int = 0,
    evaluation: str = "forest",
    eval_cap: int = 500_000,
    life_threshold: int = 12,
    verify: bool = False,
    imperfect_samples: int | None = None,
    out: str | os.PathLike | None = None,
    workers: int = 1,
    scheduler: str | None = None,
    progress: bool = True,
    game_fn: GameFn | None = None,
    on_game: Callable[[GameTask, GameOutcome], None] | None = None,
) -> BatchResult:
    """Play every pair of player kinds ``games`` times per repeat on random decks (thesis Section 3.4).

    For each game both decks are drawn uniformly and independently from
    ``decks`` with the game's own seed.  The matrix rows and columns are the
    player kinds; entry (a, b) is a's win rate against b.  ``imperfect_samples``
    (sampled deals per decision of the imperfect-information player) is
    passed on to the game function when given.
    """
    _check_counts(games, repeats, seed)
    players = list(players)
    if len(set(players)) != len(players) or len(players) < 2:
        raise SweepError(f"a tournament needs at least two distinct player kinds, got {players}")
    _check_engine_arguments(players, evaluation, game_fn)
    decks = [str(Deck.parse(d)) for d in decks]
    if not decks:
        raise SweepError("a tournament needs at least one deck to draw from")
    options = _game_options(evaluation, eval_cap, life_threshold, verify)
    if imperfect_samples is not None:
        if imperfect_samples < 1:
            raise SweepError(f"the imperfect player needs at least 1 sample, got {imperfect_samples}")
        options["imperfect_samples"] = int(imperfect_samples)
    game_fn = game_fn or play_game
    params = {
        "kind": "tournament", "players": players, "decks": decks, "games": games, "repeats": repeats,
        "seed": seed, **options, "game_fn": _function_name(game_fn),
    }
    pairs = _pairs(len(players), mirror=False)
    tasks = []
    for r in range(repeats):
        for p, (i, j) in enumerate(pairs):
            for g in range(games):
                rng = np.random.default_rng(np.random.SeedSequence([seed, r, i, j, g]))
                d1, d2 = rng.integers(len(decks), size=2)
                tasks.append(GameTask(r, p, g, decks[d1], decks[d2], players[i], players[j], g % 2,
                                      int(rng.integers(2**63 - 1))))
    out, store = _open_store(out, params)
    try:
        run_games(tasks, store, game_fn=game_fn, options=options, workers=workers, scheduler=scheduler,
                  progress=progress, on_game=on_game)
        return _finish(summarise(store, players, pairs, repeats), out)
    finally:
        store.close()

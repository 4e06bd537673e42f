"""Benchmark: exact mini Magic games (no evaluation cut-off) in C against the Python search.

Plays the same perfect-information games, to their end (Esche 2018, ch. 2.1,
without the evaluation function: ``life_threshold=0``), between random pairs of
Appendix B's 33 decks (``--max-creatures 16``: the 55 decks of Table 3.4),
seats alternating, every game decided (exact play has no cap since the
search decides the games the thesis's cap of 500,000 leaves drew): first with
the C search (:mod:`gamelp.games.mtg.exact`), then
with both searches on the first ``--python-games`` of them. Prints games and
nodes per second of each, the ratio, whether the winners agree, the median and
largest game, and the one-core time the C search would take for the whole
matrix of the pool, 200 games a pair (528 pairs for 33 decks, 1,485 for 55).

``--sweep-seed S`` plays, instead of random pairs, ``--games`` games drawn
(by ``--seed``) from the sweep of the pool at seed S: the very games that
``esche_table_3_4.py --analysed --games 200 --seed S`` plays (S = 3: the shipped
55-deck matrix), so the projection is that run's. It also reports where the
nodes go: the share of the heaviest 1% of games, and
the value search of each dealt position (the work of proving who wins; a game
searches again at every decision, one table for the game).

    python scripts/bench/bench_mtg_exact.py [--games 1000] [--python-games 150] [--seed 0]
    python scripts/bench/bench_mtg_exact.py --max-creatures 16 --games 20 --python-games 0
    python scripts/bench/bench_mtg_exact.py --max-creatures 16 --sweep-seed 3 --games 3000 --python-games 0

Measured (2026-11-27, 2 cores, load average 1.1 to 2.3) with
``--max-creatures 16 --sweep-seed 3 --games 600 --python-games 0``: 1,120
games and 19.2M positions a CPU second, the matrix projected at 0.07 CPU hours
(2.2 min on 2 cores; the run itself took 2 min 56 s, 251 CPU s); the build
before the search's own move order, 209 games and 13.9M positions a CPU
second, 0.39 CPU hours (docs/esche-reproduction.md, Section 8).

``--baseline PATH`` names another build of the C search (the ``_exact*.so`` of
another commit, copied aside): the same C games are played with both builds,
alternating, ``--repeats`` times each; the games must come out identical (same
winners and turns, game by game; the builds may search other numbers of
positions for them, which are printed) and the medians of the CPU seconds are
compared, with the load average of the machine at each run:

    cp games/mtg/_exact*.so /tmp/exact_before.so   # on the commit before the change, then rebuild
    python scripts/bench/bench_mtg_exact.py --max-creatures 16 --sweep-seed 3 --games 600 --python-games 0 \\
        --baseline /tmp/exact_before.so --repeats 3
"""

import importlib.util
import os
import statistics
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gamelp.cli.args import OneLineParser, integer, run_script
from gamelp.errors import GamelpError
from gamelp.games.mtg import exact, play_game
from gamelp.games.mtg.deck import analysed_decks
from gamelp.games.mtg.engine import Game
from gamelp.games.mtg.exact import exact_value
from gamelp.games.mtg.match import GameSettings
from gamelp.games.mtg.sweep import deck_game_seed
from gamelp.games.runner import round_robin

GAMES_PER_PAIR = 200


@dataclass
class SearchRun:
    """One search's games: how many, their wall and CPU seconds, nodes and draws."""

    search: str  # "C" or "Python"
    games: int
    seconds: float
    cpu_seconds: float
    nodes: int
    draws: int
    winners: list  # per game: 0, 1 or None (a draw)
    game_nodes: list  # per game
    turns: list  # per game: the turn it ended on

    @property
    def games_per_cpu_second(self) -> float:
        return self.games / self.cpu_seconds

    @property
    def nodes_per_cpu_second(self) -> float:
        return self.nodes / self.cpu_seconds


@dataclass
class ExactSpeed:
    """The C search's games, the C and Python searches on the same first games, and the matrix's projected cost."""

    decks: int  # the pool's size (33 or 55)
    c: SearchRun  # every game, in C
    median_nodes: int  # nodes per game of the C games
    largest_nodes: int
    c_same: SearchRun | None  # the first --python-games games again, in C
    python_same: SearchRun | None  # and in Python
    matrix_games: int  # GAMES_PER_PAIR games for every pair of the pool
    cpu_hours: float  # the matrix at the C games' CPU seconds per game
    wall_hours: float  # on 2 cores
    value_nodes: int | None = None  # --sweep-seed: the value searches of the dealt positions, over all games
    value_seconds: float | None = None  # their CPU seconds
    timings: dict = field(default_factory=dict)  # --baseline: build -> [(CPU seconds, 1-minute load average)]
    identical: bool | None = None  # --baseline: both builds played the same games (winners and turns)
    build_nodes: dict = field(default_factory=dict)  # --baseline: build -> positions searched over the games

    @property
    def heaviest_share(self) -> float:
        """Share of the C games' nodes spent in their heaviest 1% of games."""
        nodes = sorted(self.c.game_nodes, reverse=True)
        return sum(nodes[: max(1, len(nodes) // 100)]) / self.c.nodes

    @property
    def decided(self) -> int:
        """Games of the comparison decided by both searches."""
        return sum(None not in pair for pair in zip(self.c_same.winners, self.python_same.winners))

    @property
    def agree(self) -> int:
        """Games of the comparison decided by both searches, with the same winner."""
        return sum(
            a == b and a is not None and b is not None for a, b in zip(self.c_same.winners, self.python_same.winners)
        )

    @property
    def cpu_ratio(self) -> float:
        """CPU time on the same games: Python's over C's."""
        return self.python_same.cpu_seconds / self.c_same.cpu_seconds


def play(name: str, deals, compiled: bool) -> SearchRun:
    """Play every (deck1, deck2, seed, first) of ``deals`` to its end, as the exact sweep plays a game."""
    start, cpu = time.perf_counter(), time.process_time()
    results = [
        play_game(
            deck1,
            deck2,
            seed=seed,
            first=first,
            settings=GameSettings(life_threshold=0, evaluation="life"),
            compiled=compiled,
        )
        for deck1, deck2, seed, first in deals
    ]
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    run = SearchRun(
        search=name,
        games=len(results),
        seconds=wall,
        cpu_seconds=cpu,
        nodes=sum(r.nodes for r in results),
        draws=sum(r.winner is None for r in results),
        winners=[r.winner for r in results],
        game_nodes=[r.nodes for r in results],
        turns=[r.turns for r in results],
    )
    return run


def load_build(path: Path):
    """Another build of the C search, loaded beside this one (its own table)."""
    spec = importlib.util.spec_from_file_location("_exact", path)
    try:
        if spec is None or spec.loader is None or not path.is_file():
            raise ImportError("no such extension module")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except ImportError as exc:
        raise GamelpError(f"--baseline {path}: not a build of the C search ({exc})") from exc
    return module


@contextmanager
def searching_with(module):
    """Play exact games with ``module`` as the C search inside the block."""
    current = exact._exact
    exact._exact = module
    try:
        yield
    finally:
        exact._exact = current


def compare_builds(deals, baseline, repeats: int) -> tuple[dict, bool, dict]:
    """CPU seconds (and load) of both builds on the same games, alternating; whether their games are identical
    (winners and turns, game by game: two builds may search other numbers of positions for the same games); the
    positions each build searched."""
    builds = {"this build": exact._exact, "baseline": baseline}
    timings: dict = {name: [] for name in builds}
    played: dict = {}
    nodes: dict = {}
    for r in range(repeats):
        for name in builds if r % 2 == 0 else reversed(builds):
            load = os.getloadavg()[0]
            with searching_with(builds[name]):
                run = play("C", deals, compiled=True)
            timings[name].append((run.cpu_seconds, load))
            played.setdefault(name, []).append((run.winners, run.turns))
            nodes[name] = run.nodes
    identical = all(p == played["this build"][0] for runs in played.values() for p in runs)
    return timings, identical, nodes


def value_searches(deals) -> tuple[int, float]:
    """Nodes and CPU seconds of the C value search of every dealt position (``play_game``'s deal)."""
    cpu, nodes = time.process_time(), 0
    for deck1, deck2, seed, first in deals:
        game, state = Game.deal(deck1, deck2, np.random.default_rng(seed), first)
        nodes += exact_value(game, state)[1]
    return nodes, time.process_time() - cpu


def sweep_deals(decks, count: int, sweep_seed: int, rng: np.random.Generator) -> list:
    """``count`` games drawn without replacement from the sweep of ``decks`` (repeat 0, 200 games a pair)."""
    pairs = round_robin(len(decks))
    drawn = rng.choice(len(pairs) * GAMES_PER_PAIR, size=min(count, len(pairs) * GAMES_PER_PAIR), replace=False)
    deals = []
    for k in drawn:
        (i, j), g = pairs[k // GAMES_PER_PAIR], int(k % GAMES_PER_PAIR)
        deals.append((decks[i], decks[j], deck_game_seed(sweep_seed, 0, decks[i], decks[j], g), g % 2))
    return deals


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=integer(1), default=1000, help="games played in C (default: 1000)")
    parser.add_argument(
        "--python-games",
        type=integer(0),
        default=150,
        help="the first games of those also played by the Python search (default: 150)",
    )
    parser.add_argument(
        "--seed", type=integer(0), default=0, help="seed of the random deck pairs and deals (default %(default)s)"
    )
    parser.add_argument(
        "--max-creatures",
        type=int,
        choices=(8, 16),
        default=8,
        help="deck pool: Appendix B's 33 decks (8, default) or Table 3.4's 55 (16)",
    )
    parser.add_argument("--baseline", type=Path, default=None, help="another build of the C search to compare")
    parser.add_argument("--repeats", type=integer(1), default=3, help="runs of each build with --baseline")
    parser.add_argument(
        "--sweep-seed",
        type=integer(0),
        default=None,
        help="play games of the pool's sweep at this seed (3: the shipped matrix's) instead of random pairs",
    )
    return parser


def main(argv: list[str] | None = None) -> ExactSpeed:
    args = build_parser().parse_args(argv)
    baseline = None if args.baseline is None else load_build(args.baseline)  # refused before any game is played
    rng = np.random.default_rng(args.seed)
    value_nodes = value_seconds = None
    if args.sweep_seed is None:
        decks = [str(d) for d in analysed_decks(args.max_creatures)]
        deals = [(*rng.choice(decks, 2, replace=False), g, g % 2) for g in range(args.games)]
    else:
        decks = analysed_decks(args.max_creatures)
        deals = sweep_deals(decks, args.games, args.sweep_seed, rng)

    c_run = play("C", deals, compiled=True)
    nodes = sorted(c_run.game_nodes)
    if args.sweep_seed is not None:
        value_nodes, value_seconds = value_searches(deals)
    timings, identical, build_nodes = {}, None, {}
    if baseline is not None:
        timings, identical, build_nodes = compare_builds(deals, baseline, args.repeats)
    c_same = python_same = None
    python_count = min(args.python_games, len(deals))
    if python_count:
        same = deals[:python_count]
        c_same = play("C", same, compiled=True)
        python_same = play("Python", same, compiled=False)
    per_game = c_run.cpu_seconds / c_run.games
    matrix_games = len(decks) * (len(decks) - 1) // 2 * GAMES_PER_PAIR
    return ExactSpeed(
        decks=len(decks),
        c=c_run,
        median_nodes=nodes[len(nodes) // 2],
        largest_nodes=nodes[-1],
        c_same=c_same,
        python_same=python_same,
        matrix_games=matrix_games,
        cpu_hours=matrix_games * per_game / 3600,
        wall_hours=matrix_games * per_game / 7200,
        value_nodes=value_nodes,
        value_seconds=value_seconds,
        timings=timings,
        identical=identical,
        build_nodes=build_nodes,
    )


def _row(run: SearchRun) -> None:
    print(
        f"{run.search:8}{run.games:8d}{run.seconds:10.1f}{run.cpu_seconds:10.1f}{run.games_per_cpu_second:12.2f}"
        f"{run.nodes_per_cpu_second:14,.0f}{run.draws:8d}"
    )


def report(result: ExactSpeed) -> None:
    print(f"{'search':8}{'games':>8}{'wall s':>10}{'CPU s':>10}{'games/CPU s':>12}{'nodes/CPU s':>14}{'draws':>8}")
    _row(result.c)
    print(
        f"nodes per game: median {result.median_nodes:,}, mean {result.c.nodes / result.c.games:,.0f}, largest "
        f"{result.largest_nodes:,}; the heaviest 1% of games hold {100 * result.heaviest_share:.1f}% of the nodes"
    )
    if result.value_nodes is not None:
        print(
            f"the value search of the dealt positions: {result.value_nodes:,} nodes "
            f"({100 * result.value_nodes / result.c.nodes:.1f}% of the games' nodes), "
            f"{result.value_seconds:.1f} CPU s; {result.c.draws} of {result.c.games} games drawn"
        )
    if result.c_same is not None:
        _row(result.c_same)
        _row(result.python_same)
        print(
            f"on the same {result.c_same.games} games: winners agree in {result.agree} of "
            f"{result.decided} decided by both; draws C {result.c_same.draws}, "
            f"Python {result.python_same.draws}; C is {result.cpu_ratio:.0f}x faster (CPU)"
        )
    if result.timings:
        medians = {name: statistics.median(t for t, _ in runs) for name, runs in result.timings.items()}
        for name, runs in result.timings.items():
            each = ", ".join(f"{t:.2f} s (load {load:.1f})" for t, load in runs)
            print(f"{name}: CPU median {medians[name]:.2f} s over {len(runs)} runs: {each}")
        nodes = result.build_nodes
        print(
            f"the same {result.c.games} games, {'identical' if result.identical else 'NOT identical'} (winners and "
            f"turns, game by game); positions: this build {nodes['this build']:,}, baseline {nodes['baseline']:,}; "
            f"baseline / this build CPU: {medians['baseline'] / medians['this build']:.2f}"
        )
    print(
        f"the {result.decks}-deck matrix ({result.matrix_games:,} games) in C: about {result.cpu_hours:.2f} "
        f"CPU hours, {result.wall_hours:.2f} h of wall time on 2 cores"
    )


if __name__ == "__main__":
    run_script(main, report)

"""Benchmark: re-solving one changed LP in a persistent HiGHS model against building it afresh.

    python scripts/bench/bench_persistent.py [--game leduc] [--player 1] [--rhs-steps 300]
                                             [--greedy-steps 2] [--search-lps 600] [--sweep-time-limit S]

Three workloads, each run both ways in the same process on the same LPs,
with the objectives of the two ways compared:

* ``rhs sweep``: the Nash LP of ``--player``, ``--rhs-steps`` re-solves,
  step ``j`` giving one best-response row (the opponent's sequence ``j mod
  rows``) the right-hand side ``t_j`` in ``[0, 0.5]`` (the other rows back at
  0): ``Model.set_rhs`` then ``solve("highs")`` against ``solve("highs",
  persistent=True)``.
* ``greedy step``: the k-sweep's greedy step
  (:func:`gamelp.models.determinism._greedy_step`: one LP per mixed point and
  action, the same model with other right-hand sides), ``--greedy-steps``
  steps from the Nash strategy, each step from the fresh run's strategy so
  both ways solve the same LPs.
* ``search LPs``: the first ``--search-lps`` face LPs of
  :class:`gamelp.models.kdet_search.KdetSearch` (its greedy dive from the
  root), replayed three ways: the search's own ``FaceLP`` (one ``highspy``
  model, column bounds changed, started from the parent node's basis),
  ``Model.set_bounds`` with ``persistent=True``, and fresh models.
* ``k-sweep`` (with ``--sweep-time-limit S``): the whole MIP k-sweep
  (:func:`gamelp.models.determinism.k_sweep`, each MIP stopped after ``S``
  seconds) with ``persistent=False`` and with its default, the persistent
  greedy-step LPs; the MIPs are the same both ways, so the difference is the
  LPs'.  ``max |diff|`` compares the curves' values.

Prints per workload and way the wall time, the LPs, the simplex iterations
the largest objective difference
to the fresh solves and the ratio of wall times.  Run it under ``nice -n 10``
on a shared machine.
"""

import contextlib
import sys
import time
from dataclasses import dataclass

import numpy as np

from gamelp.cli.args import OneLineParser, finite_float, integer, run_script
from gamelp.game import load_game
from gamelp.models.determinism import _choice_lp, _greedy_step, k_sweep
from gamelp.models.kdet_search import FaceLP, KdetSearch
from gamelp.models.nash import sequence_form_lp, solve_nash


class Tally:
    """Solves of one way: how many, their simplex iterations, their wall time, their objectives."""

    def __init__(self, persistent: bool | None):
        self.persistent = persistent
        self.lps = self.iterations = 0
        self.seconds = 0.0
        self.objectives = []

    def solve(self, model):
        began = time.perf_counter()
        sol = model.solve("highs", persistent=self.persistent)
        self.seconds += time.perf_counter() - began
        self.lps += 1
        self.iterations += sol.iterations or 0
        self.objectives.append(sol.objective)
        return sol


@dataclass
class Way:
    """One way of solving one workload's LPs, against the fresh way."""

    workload: str  # "rhs sweep", "greedy step", "search LPs" or "k-sweep"
    way: str  # "fresh", "persistent" or "FaceLP (search's)"
    seconds: float
    lps: int
    iterations: int | None  # simplex iterations (None: not counted, the k-sweep's)
    max_diff: float  # the largest objective difference to the fresh way's, LP by LP
    speedup: float  # the fresh way's seconds over this way's
    mips: int | None = None  # the k-sweep's MIPs


@dataclass
class PersistentSpeed:
    """Each workload's ways, in the order run."""

    game: str
    player: int
    ways: list[Way]

    def way(self, workload: str, way: str) -> Way:
        return next(row for row in self.ways if (row.workload, row.way) == (workload, way))


def compare(workload: str, ways: dict[str, Tally], mips: dict[str, int] | None = None) -> list[Way]:
    fresh = ways["fresh"]
    return [
        Way(
            workload,
            name,
            tally.seconds,
            tally.lps,
            tally.iterations,
            float(np.max(np.abs(np.array(tally.objectives) - fresh.objectives))),
            fresh.seconds / tally.seconds,
            None if mips is None else mips[name],
        )
        for name, tally in ways.items()
    ]


def rhs_sweep(game, player: int, steps: int) -> dict[str, Tally]:
    ways = {}
    for name, persistent in (("fresh", False), ("persistent", True)):
        tally = ways[name] = Tally(persistent)
        model = sequence_form_lp(game, player)
        rows = model.constraints["best_response"].size
        for j, t in enumerate(np.linspace(0.0, 0.5, steps)):
            rhs = np.zeros(rows)
            rhs[j % rows] = t
            model.set_rhs("best_response", rhs)
            tally.solve(model)
    return ways


def greedy_steps(game, player: int, steps: int) -> dict[str, Tally]:
    own = game.player(player)
    ways = {name: Tally(persistent) for name, persistent in (("fresh", False), ("persistent", True))}
    lps = {name: _choice_lp(game, player) for name in ways}
    x = solve_nash(game, player).strategy
    for _ in range(steps):
        results = {
            name: _greedy_step(lps[name], own, x, lambda model, t=tally: t.solve(model)) for name, tally in ways.items()
        }
        if results["fresh"] is None:
            break
        x = results["fresh"].values["x"]
    return ways


def search_lps(game, player: int, count: int) -> dict[str, Tally]:
    """Record the search's first ``count`` face LPs (choice, basis), then replay them three ways."""
    search = KdetSearch(game, player)
    calls = []
    solve = search.lp.solve

    def recording(choice, basis=None):
        if len(calls) >= count:
            raise StopIteration
        calls.append((choice.copy(), basis))
        return solve(choice, basis)

    search.lp.solve = recording
    with contextlib.suppress(StopIteration):
        search.solve_root()
    ways = {name: Tally(persistent) for name, persistent in (("fresh", False), ("persistent", True))}
    face = FaceLP(game, player)
    own_lp = ways["FaceLP (search's)"] = Tally(None)
    for choice, basis in calls:
        began = time.perf_counter()
        value = face.solve(choice, basis)[0]
        own_lp.seconds += time.perf_counter() - began
        own_lp.iterations += face.highs.getInfo().simplex_iteration_count
        own_lp.lps += 1
        own_lp.objectives.append(value)
    for name in ("fresh", "persistent"):
        model = sequence_form_lp(game, player)
        for choice, _ in calls:
            model.set_bounds("x", ub=face.upper_bounds(choice))
            ways[name].solve(model)
    return ways


def whole_sweep(game, player: int, time_limit: float) -> tuple[dict[str, Tally], dict[str, int]]:
    ways, mips = {}, {}
    for name, persistent in (("fresh", False), ("persistent", True)):
        tally = ways[name] = Tally(persistent)
        began = time.perf_counter()
        result = k_sweep(game, player, mip_gap=1e-6, time_limit=time_limit, persistent=persistent)
        tally.seconds = time.perf_counter() - began
        tally.lps, tally.objectives = result.lps_solved, list(result.values)
        tally.iterations = None
        mips[name] = result.mips_solved
        print(f"k-sweep {name}: {result.mips_solved} MIPs, {result.lps_solved} LPs", file=sys.stderr, flush=True)
    return ways, mips


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="leduc", help="a built-in game name or a game file (default leduc)")
    parser.add_argument("--player", type=integer(1, 2), default=1, help="whose Nash LP (default %(default)s)")
    parser.add_argument("--rhs-steps", type=integer(1, 10**5), default=300, help="re-solves of the RHS sweep")
    parser.add_argument("--greedy-steps", type=integer(0), default=2, help="greedy steps from the Nash strategy")
    parser.add_argument("--search-lps", type=integer(0, 10**5), default=600, help="search face LPs to replay")
    parser.add_argument(
        "--sweep-time-limit",
        type=finite_float(0.0),
        default=None,
        help="also run the whole MIP k-sweep both ways, each MIP stopped after this many seconds",
    )
    return parser


def main(argv: list[str] | None = None) -> PersistentSpeed:
    args = build_parser().parse_args(argv)
    game = load_game(args.game)
    ways = compare("rhs sweep", rhs_sweep(game, args.player, args.rhs_steps))
    if args.greedy_steps:
        ways += compare("greedy step", greedy_steps(game, args.player, args.greedy_steps))
    if args.search_lps:
        ways += compare("search LPs", search_lps(game, args.player, args.search_lps))
    if args.sweep_time_limit is not None:
        ways += compare("k-sweep", *whole_sweep(game, args.player, args.sweep_time_limit))
    return PersistentSpeed(game=game.name, player=args.player, ways=ways)


def report(result: PersistentSpeed) -> None:
    print(f"{result.game}, player {result.player}: persistent HiGHS re-solves against fresh models")
    print(
        f"{'workload':12s} {'way':18s} {'seconds':>9s} {'LPs':>6s} {'iterations':>10s} {'max |diff|':>10s} "
        f"{'speed-up':>8s}"
    )
    for row in result.ways:
        iterations = f"{row.iterations:10d}" if row.iterations is not None else f"{'-':>10s}"
        print(
            f"{row.workload:12s} {row.way:18s} {row.seconds:9.3f} {row.lps:6d} {iterations} {row.max_diff:10.1e} "
            f"{row.speedup:8.2f}"
        )


if __name__ == "__main__":
    run_script(main, report)

"""Benchmark: re-solving one changed LP in a persistent HiGHS model against building it afresh.

    python scripts/bench_persistent.py [--game leduc] [--player 1] [--rhs-steps 300]
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

import time

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


def report(workload: str, ways: dict[str, Tally]) -> None:
    fresh = ways["fresh"]
    for name, tally in ways.items():
        iterations = f"{tally.iterations:10d}" if tally.iterations is not None else f"{'-':>10s}"
        diff = np.max(np.abs(np.array(tally.objectives) - fresh.objectives))
        print(f"{workload:12s} {name:18s} {tally.seconds:9.3f} {tally.lps:6d} {iterations} {diff:10.1e} "
              f"{fresh.seconds / tally.seconds:8.2f}", flush=True)


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
        results = {name: _greedy_step(lps[name], own, x, lambda model, t=tally: t.solve(model))
                   for name, tally in ways.items()}
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
    try:
        search.solve_root()
    except StopIteration:
        pass
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


def whole_sweep(game, player: int, time_limit: float) -> dict[str, Tally]:
    ways = {}
    for name, persistent in (("fresh", False), ("persistent", True)):
        tally = ways[name] = Tally(persistent)
        began = time.perf_counter()
        result = k_sweep(game, player, mip_gap=1e-6, time_limit=time_limit, persistent=persistent)
        tally.seconds = time.perf_counter() - began
        tally.lps, tally.objectives = result.lps_solved, list(result.values)
        tally.iterations = None
        print(f"k-sweep {name}: {result.mips_solved} MIPs, {result.lps_solved} LPs", flush=True)
    return ways


def main(argv=None) -> int:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="leduc", help="a built-in game name or a game file (default leduc)")
    parser.add_argument("--player", type=integer(1, 2), default=1)
    parser.add_argument("--rhs-steps", type=integer(1), default=300, help="re-solves of the RHS sweep")
    parser.add_argument("--greedy-steps", type=integer(0), default=2, help="greedy steps from the Nash strategy")
    parser.add_argument("--search-lps", type=integer(0), default=600, help="search face LPs to replay")
    parser.add_argument("--sweep-time-limit", type=finite_float(0.0), default=None,
                        help="also run the whole MIP k-sweep both ways, each MIP stopped after this many seconds")
    args = parser.parse_args(argv)
    game = load_game(args.game)
    print(f"{game.name}, player {args.player}: persistent HiGHS re-solves against fresh models")
    print(f"{'workload':12s} {'way':18s} {'seconds':>9s} {'LPs':>6s} {'iterations':>10s} {'max |diff|':>10s} "
          f"{'speed-up':>8s}")
    report("rhs sweep", rhs_sweep(game, args.player, args.rhs_steps))
    if args.greedy_steps:
        report("greedy step", greedy_steps(game, args.player, args.greedy_steps))
    if args.search_lps:
        report("search LPs", search_lps(game, args.player, args.search_lps))
    if args.sweep_time_limit is not None:
        report("k-sweep", whole_sweep(game, args.player, args.sweep_time_limit))
    return 0


if __name__ == "__main__":
    run_script(main)

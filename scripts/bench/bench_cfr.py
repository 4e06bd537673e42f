"""Benchmark: CFR+, DCFR, PCFR+, DCFR+ and PDCFR+ to saddle-point gaps 1e-4..1e-6, and CFR+ against OpenSpiel.

First table: gamelp's CFR+, DCFR, PCFR+, DCFR+ and PDCFR+ side by side,
iterations and seconds to each of ``--targets`` (one run per method and
target, the median of ``--repeats`` timings; the gap is measured every
``--check-gap-every`` iterations, inside the timing).  Second table, unless
``--skip-openspiel``: Runs gamelp's vectorised CFR+ (:func:`gamelp.regret.solve_regret`) and, in
the same process, OpenSpiel's Python ``open_spiel.python.algorithms.cfr.
CFRPlusSolver`` and its C++ ``pyspiel.CFRPlusSolver`` (all three: RM+,
alternating updates, linear averaging) until the gap of the average
strategies is at most the target.  OpenSpiel's ``nash_conv`` (the sum of
both players' best-response gains) is our saddle-point gap.  Unless
``--skip-liteefg``, the same table has LiteEFG's CFR+ and PCFR+ (its
``baselines``, compiled C++ computation graphs on OpenSpiel's game; linear
averaging; its ``exploitability`` summed over both players is the gap).  The
packages ``open-spiel`` and ``LiteEFG`` are benchmark peers only, installed by
gamelp's ``bench`` extra (never required by gamelp): without one, the script
refuses in one line naming the extra, unless its flag leaves it out.

Timing: gamelp's wall time includes computing the gap every
``--check-gap-every`` iterations; OpenSpiel's counts only ``evaluate_and_update_policy`` (its
``nash_conv`` checks, every ``--check-every`` iterations, are timed apart).

Game: OpenSpiel's ``leduc_poker`` has the same rules as ours (ante 1, raises
of 2 then 4, at most two raises a round, pair beats high card); with
``suit_isomorphism=True`` it has exactly our 288 information sets, without
it the six cards are told apart (936 information sets, the same game value).
``--game kuhn`` compares on Kuhn poker (``kuhn_poker``) instead.

The machine's load average (``os.getloadavg()``) is printed before and
after and kept in the JSON: on a shared machine it says how far the seconds
can be trusted.

    python scripts/bench/bench_cfr.py                       # Leduc: methods to 1e-4..1e-6, OpenSpiel at 1e-4
    python scripts/bench/bench_cfr.py --skip-python         # only gamelp and OpenSpiel C++
    python scripts/bench/bench_cfr.py --game kuhn --target 1e-4
    python scripts/bench/bench_cfr.py --methods pdcfr+ --targets 1e-6 --target 1e-6 --skip-python --skip-six-cards \
        --max-iterations 200000 --check-every 100     # the default method against OpenSpiel and LiteEFG at 1e-6
"""

import importlib
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from gamelp.cli.args import OneLineParser, finite_float, integer, output_directory, run_script
from gamelp.deps import require
from gamelp.game import load_game
from gamelp.io import write_text
from gamelp.models.nash import solve_nash
from gamelp.regret import CHECK_EVERY, solve_regret

OPENSPIEL_GAMES = {"leduc": "leduc_poker", "kuhn": "kuhn_poker"}


def run_gamelp(
    name: str, target: float, max_iterations: int, repeats: int, method: str = "cfr+", check_every: int = CHECK_EVERY
) -> dict:
    """``method`` is a method name, or ``name@gamma`` to average with weights ``t^gamma`` instead of its own."""
    game = load_game(name)
    method_name, _, gamma = method.partition("@")
    averaging = float(gamma) if gamma else None
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = solve_regret(
            game,
            method_name,
            max_iterations,
            target_gap=target,
            track_last=False,
            check_every=check_every,
            averaging=averaging,
        )
        times.append(time.perf_counter() - start)
    return {
        "solver": f"gamelp {method.upper()}",
        "information_sets": game.pl1.num_decision_points + game.pl2.num_decision_points,
        "iterations": result.iterations,
        "gap": result.gap,
        "value": result.value,
        "seconds": statistics.median(times),
        "eval_seconds": None,
        "reached": result.converged,
    }


LITEEFG_METHODS = {"CFR+": "CFRplus", "PCFR+": "PCFR"}


def run_liteefg(kind: str, game_name: str, params: dict, target: float, max_iterations: int, check_every: int) -> dict:
    """Iterate LiteEFG's ``kind`` (a key of :data:`LITEEFG_METHODS`) until its exploitability sum <= target."""
    import contextlib
    import io

    import LiteEFG
    import pyspiel

    baseline = importlib.import_module(f"LiteEFG.baselines.{LITEEFG_METHODS[kind]}")
    game = pyspiel.load_game(game_name, params)
    with contextlib.redirect_stdout(io.StringIO()):  # LiteEFG prints banners while building
        env = LiteEFG.OpenSpielEnv(game, traverse_type="Enumerate", regenerate=False)
        graph = baseline.graph()
        env.set_graph(graph)
    solve_seconds = eval_seconds = 0.0
    gap, iteration = float("inf"), 0
    for iteration in range(1, max_iterations + 1):
        start = time.perf_counter()
        graph.update_graph(env)
        env.update_strategy(graph.current_strategy(), update_best=False)
        solve_seconds += time.perf_counter() - start
        if iteration % check_every == 0 or iteration == max_iterations:
            start = time.perf_counter()
            gap = float(sum(env.exploitability(graph.current_strategy(), "linear-avg-iterate")))
            eval_seconds += time.perf_counter() - start
            if gap <= target:
                break
    return {
        "solver": f"LiteEFG {kind} (C++ graph)",
        "information_sets": None,
        "iterations": iteration,
        "gap": gap,
        "value": None,  # LiteEFG reports exploitability, not the value
        "seconds": solve_seconds,
        "eval_seconds": eval_seconds,
        "reached": bool(gap <= target),
        "check_every": check_every,
    }


def run_openspiel(
    kind: str, game_name: str, params: dict, target: float, max_iterations: int, check_every: int
) -> dict:
    """Iterate OpenSpiel's CFR+ (``kind`` = "python" or "c++") until nash_conv <= target."""
    import pyspiel
    from open_spiel.python.algorithms import cfr, exploitability

    game = pyspiel.load_game(game_name, params)
    if kind == "python":
        solver = cfr.CFRPlusSolver(game)
        nash_conv = lambda: exploitability.nash_conv(game, solver.average_policy())  # noqa: E731
    else:
        solver = pyspiel.CFRPlusSolver(game)
        nash_conv = lambda: pyspiel.nash_conv(game, solver.average_policy())  # noqa: E731
    solve_seconds = eval_seconds = 0.0
    gap, iteration = float("inf"), 0
    for iteration in range(1, max_iterations + 1):
        start = time.perf_counter()
        solver.evaluate_and_update_policy()
        solve_seconds += time.perf_counter() - start
        if iteration % check_every == 0 or iteration == max_iterations:
            start = time.perf_counter()
            gap = nash_conv()
            eval_seconds += time.perf_counter() - start
            if gap <= target:
                break
    policy = solver.average_policy()
    if kind == "python":
        from open_spiel.python import policy as policy_lib

        policy = policy_lib.python_policy_to_pyspiel_policy(policy)
    value = pyspiel.expected_returns(game.new_initial_state(), policy, -1, True)[0]
    label = "suit-isomorphic" if params.get("suit_isomorphism") else "six cards"
    return {
        "solver": f"OpenSpiel {kind} CFR+ ({label})" if game_name == "leduc_poker" else f"OpenSpiel {kind} CFR+",
        "information_sets": None,
        "iterations": iteration,
        "gap": float(gap),
        "value": float(value),
        "seconds": solve_seconds,
        "eval_seconds": eval_seconds,
        "reached": bool(gap <= target),
        "check_every": check_every,
    }


def compare_methods(
    name: str, methods: list[str], targets: list[float], max_iterations: int, repeats: int, check_every: int
) -> list[dict]:
    """Iterations and seconds of each method to each target: one row per method and target."""
    rows = []
    for method in methods:
        for target in targets:
            run = run_gamelp(name, target, max_iterations, repeats, method, check_every)
            rows.append(dict(run, method=method, target=target))
        print(f"{method}: done", file=sys.stderr, flush=True)
    return rows


@dataclass
class CfrRace:
    """The methods' table and, unless skipped, CFR+ against OpenSpiel's; the LP's value to check them by."""

    game: str
    target: float  # the OpenSpiel comparison's gap
    targets: list[float]  # the methods table's gaps
    repeats: int
    lp_value: float  # player 1's value by the Nash LP
    methods: list[dict]  # per method and target: method, target, solver, iterations, gap, value, seconds, reached
    runs: list[dict] | None  # gamelp's CFR+ then OpenSpiel's runs, each with ratio_to_gamelp (None: skipped)
    fastest_method: dict | None  # the methods row fastest to ``target`` (None: none reached it, or skipped)
    load_average: dict  # before and after: os.getloadavg()
    path: str  # the JSON written

    @property
    def off_lp(self) -> list[dict]:
        """Methods rows whose value is further from the LP's than their gap allows."""
        return [row for row in self.methods if abs(row["value"] - self.lp_value) > row["gap"]]

    @property
    def status(self) -> int:
        """0 if every run reached its target, else 1."""
        return 0 if all(row["reached"] for row in (self.runs or []) + self.methods) else 1


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(OPENSPIEL_GAMES), default="leduc", help="default: leduc")
    parser.add_argument(
        "--target",
        type=finite_float(0.0, strict=True),
        default=1e-4,
        help="OpenSpiel comparison: saddle-point gap to reach (default: 1e-4)",
    )
    parser.add_argument(
        "--max-iterations", type=integer(1), default=20000, help="OpenSpiel comparison: give up after (default: 20000)"
    )
    parser.add_argument(
        "--methods",
        nargs="+",
        default=["cfr+", "dcfr", "pcfr+", "dcfr+", "pdcfr+"],
        help="first table's methods; NAME@GAMMA averages with weights t^GAMMA instead of the "
        "method's own (e.g. pdcfr+@20)",
    )
    parser.add_argument(
        "--targets",
        type=finite_float(0.0, strict=True),
        nargs="+",
        default=[1e-4, 1e-5, 1e-6],
        help="first table's gaps (default: 1e-4 1e-5 1e-6)",
    )
    parser.add_argument(
        "--method-max-iterations", type=integer(1), default=200000, help="first table: give up after (default: 200000)"
    )
    parser.add_argument("--skip-openspiel", action="store_true", help="only the first table")
    parser.add_argument(
        "--repeats", type=integer(1), default=3, help="gamelp runs; the median time is kept (default: 3)"
    )
    parser.add_argument(
        "--check-gap-every",
        type=integer(1),
        default=CHECK_EVERY,
        help=f"gamelp: iterations between two gap measurements (default: {CHECK_EVERY})",
    )
    parser.add_argument(
        "--check-every",
        type=integer(1),
        default=1,
        help="OpenSpiel C++: iterations between nash_conv checks (default: 1)",
    )
    parser.add_argument(
        "--python-check-every",
        type=integer(1),
        default=5,
        help="OpenSpiel Python: iterations between nash_conv checks (default: 5)",
    )
    parser.add_argument("--skip-python", action="store_true", help="skip OpenSpiel's (slow) Python CFR+")
    parser.add_argument("--skip-liteefg", action="store_true", help="skip LiteEFG's CFR+ and PCFR+")
    parser.add_argument("--skip-six-cards", action="store_true", help="skip OpenSpiel's C++ CFR+ on the six-card Leduc")
    parser.add_argument(
        "--python-six-cards",
        action="store_true",
        help="also run the Python CFR+ on the six-card Leduc (several minutes)",
    )
    parser.add_argument(
        "--out", type=output_directory, default="out", help="directory for bench_cfr.json (default: out/)"
    )
    return parser


def main(argv: list[str] | None = None) -> CfrRace:
    args = build_parser().parse_args(argv)
    if not args.skip_openspiel:  # the peers, refused in one line before anything runs
        require("pyspiel", "bench_cfr's OpenSpiel runs (--skip-openspiel leaves them out)", extra="bench")
        if not args.skip_liteefg:
            require("LiteEFG", "bench_cfr's LiteEFG runs (--skip-liteefg leaves them out)", extra="bench")

    load = {"before": os.getloadavg()}
    lp_value = solve_nash(load_game(args.game), 1).value
    method_rows = compare_methods(
        args.game, args.methods, args.targets, args.method_max_iterations, args.repeats, args.check_gap_every
    )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "bench_cfr.json"
    race = CfrRace(
        game=args.game,
        target=args.target,
        targets=args.targets,
        repeats=args.repeats,
        lp_value=lp_value,
        methods=method_rows,
        runs=None,
        fastest_method=None,
        load_average=load,
        path=str(path),
    )
    if args.skip_openspiel:
        load["after"] = os.getloadavg()
        write_text(
            path,
            json.dumps(
                {"args": vars(args), "load_average": load, "lp_value": lp_value, "methods": method_rows}, indent=2
            ),
        )
        return race
    ours = run_gamelp(args.game, args.target, args.max_iterations, args.repeats, check_every=args.check_gap_every)
    race.fastest_method = min(
        (row for row in method_rows if row["target"] == args.target and row["reached"]),
        key=lambda row: row["seconds"],
        default=None,
    )
    rows = race.runs = [ours]
    name = OPENSPIEL_GAMES[args.game]
    variants = [{"suit_isomorphism": True}, {"suit_isomorphism": False}] if args.game == "leduc" else [{}]
    for params in variants[: 1 if args.skip_six_cards else 2]:
        rows.append(run_openspiel("c++", name, params, args.target, args.max_iterations, args.check_every))
    if not args.skip_liteefg:
        for kind in LITEEFG_METHODS:
            rows.append(run_liteefg(kind, name, variants[0], args.target, args.max_iterations, args.check_every))
    if not args.skip_python:
        for params in variants[: 2 if args.python_six_cards else 1]:
            rows.append(
                run_openspiel("python", name, params, args.target, args.max_iterations, args.python_check_every)
            )
    for row in rows:
        row["ratio_to_gamelp"] = row["seconds"] / ours["seconds"]
    load["after"] = os.getloadavg()
    write_text(
        path,
        json.dumps(
            {
                "args": vars(args),
                "load_average": load,
                "lp_value": lp_value,
                "methods": method_rows,
                "runs": rows,
                "fastest_method": race.fastest_method,
            },
            indent=2,
        ),
    )
    return race


def report(result: CfrRace) -> None:
    print("load average (1, 5, 15 min) before: " + ", ".join(f"{v:.2f}" for v in result.load_average["before"]))
    print(f"gamelp on {result.game}: iterations / seconds to each saddle-point gap (median of {result.repeats} runs)")
    print(f"{'method':<10}" + "".join(f"{f'gap {target:g}':>32}" for target in result.targets))
    cells: dict[str, list[str]] = {}
    for run in result.methods:
        text = f"{run['iterations']} / {run['seconds']:.2f} s" + ("" if run["reached"] else " (not reached)")
        cells.setdefault(run["method"], []).append(f"{text:>32}")
    for method, row in cells.items():
        print(f"{method:<10}" + "".join(row))
    for row in result.off_lp:
        print(f"  {row['method']} at {row['target']:g}: value {row['value']:.9f} is off the LP's {result.lp_value:.9f}")
    if result.runs is not None:
        print()
        print(
            f"CFR+ on {result.game} to a saddle-point gap of {result.target:g} "
            f"(LP value of player 1: {result.lp_value:.6f})"
        )
        print(
            f"{'solver':<44} {'iters':>6} {'gap':>9} {'value':>10} {'solve s':>9} {'ms/iter':>8} "
            f"{'check s':>8} {'time / gamelp':>13}"
        )
        for row in result.runs:
            check = "" if row["eval_seconds"] is None else f"{row['eval_seconds']:.2f}"
            value = "" if row["value"] is None else f"{row['value']:.6f}"
            note = "" if row["reached"] else "  (target not reached)"
            print(
                f"{row['solver']:<44} {row['iterations']:>6} {row['gap']:>9.2e} {value:>10} "
                f"{row['seconds']:>9.3f} {1000 * row['seconds'] / row['iterations']:>8.3f} {check:>8} "
                f"{row['ratio_to_gamelp']:>13.1f}{note}"
            )
        best = result.fastest_method
        if best is not None:
            print(
                f"gamelp's fastest method at {result.target:g}: {best['method']} in {best['seconds']:.3f} s; "
                + "; ".join(
                    f"{row['solver']} takes {row['seconds'] / best['seconds']:.1f} x as long"
                    for row in result.runs[1:]
                    if row["reached"]
                )
            )
    print("load average after: " + ", ".join(f"{v:.2f}" for v in result.load_average["after"]))


def finish(result: CfrRace) -> None:
    """Report, then exit with status 1 if a run missed its target."""
    report(result)
    sys.stdout.flush()
    sys.stderr.flush()
    # pyspiel can crash while the interpreter tears down its objects; the results are written by now.
    os._exit(result.status)


if __name__ == "__main__":
    run_script(main, finish)

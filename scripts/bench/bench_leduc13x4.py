"""Benchmark: the ways to solve both players of a large sequence-form game, side by side in one run.

    python scripts/bench/bench_leduc13x4.py [--games leduc:13x4,...] [--methods default,ipm,...]
        [--repeats 1] [--pdlp-limit 60] [--polish-target 1e-3] [--openspiel-limit 300] [--openspiel-memory-gb 8]

For each game (default ``leduc:13x4``, 6,007 sequences a player) it loads the game once, then times every
method on player 1's Nash LP, both players' strategies from that one solve (player 2's is read from the
duals, :func:`gamelp.models.nash.solve_equilibrium`), and checks the pair's saddle-point gap without the
solver.  The methods:

* ``default``: what ``gamelp solve GAME --player both`` runs (``auto``: HiGHS, the method its size rule picks);
* ``two-lps``: the default backend on each player's own LP, one after the other (the slow way);
* ``dual-simplex``, ``primal-simplex``: HiGHS's simplex;
* ``ipm``, ``ipm-no-crossover``: HiGHS's interior-point method with and without the crossover to a vertex;
* ``pdlp``: HiGHS's first-order primal-dual LP method, stopped at ``--pdlp-limit`` seconds;
* ``clarabel``: Clarabel (interior point, no crossover) through cvxpy (the ``cvxpy`` extra);
* ``cfr+polish``: a first-order method, then an exact polish on its support: CFR+ to a saddle-point gap of
  ``--polish-target`` of the payoff range, then HiGHS's simplex from the basis its support and both best
  responses guess (each strategy's support and the pure best response to the other are basic columns and
  tight rows; the count is evened by the smallest weights); the simplex ends at an optimal vertex, so the
  answer is exact whatever the guess, and the guess only saves the iterations it gets right;
* ``openspiel``, the peer: OpenSpiel's own sequence-form LP (``sequence_form_lp.solve_zero_sum_game``,
  both players, its default solver ECOS through cvxpy; the ``bench`` extra) on OpenSpiel's ``universal_poker``
  with the same rules as the game (Leduc and ``leduc:RxS[xN]`` only; the parameters are bench_large's
  ``universal_poker``, with which Leduc's value agrees to 1e-15).  It runs in a child process capped at
  ``--openspiel-memory-gb`` and stopped at ``--openspiel-limit`` seconds ("stopped at N s"); its time is the
  child's own, from the load of the game to both values, and its CPU when stopped is the child's in all.
  OpenSpiel reports no solver status ("finished": it returned); its value is compared with the first gamelp
  method's in the same run, and it has no gap column (its policies are OpenSpiel's, not gamelp's sequences).

Times are wall seconds and the CPU seconds of this process (a shared machine inflates the wall; the load
average is printed with the table); the build of the model is counted in every method's time, the load of
the game in none (but in ``openspiel``'s, whose child loads its own game).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import resource
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gamelp.cli.args import OneLineParser, finite_float, integer, name_list, run_script
from gamelp.deps import require
from gamelp.errors import GamelpError, SolveError
from gamelp.game import SequenceFormGame, load_game
from gamelp.models.nash import sequence_form_lp, solve_equilibrium, solve_nash

HIGHS_METHODS = {
    "dual-simplex": {"solver": "simplex", "simplex_strategy": 1},
    "primal-simplex": {"solver": "simplex", "simplex_strategy": 4},
    "ipm": {"solver": "ipm", "run_crossover": "on"},
    "ipm-no-crossover": {"solver": "ipm", "run_crossover": "off"},
    "pdlp": {"solver": "pdlp"},
}
METHODS = ("default", "two-lps", *HIGHS_METHODS, "clarabel", "cfr+polish", "openspiel")


@dataclass
class Row:
    """One method on one game: times, the answer and how good it is."""

    game: str
    sequences: int
    nonzeros: int
    method: str
    wall: float
    cpu: float
    status: str
    value: float | None = None
    gap: float | None = None  # saddle-point gap of (x, y), computed without the solver
    detail: str = ""


@dataclass
class LpMethods:
    """Every method on every game, and the load average when the run ended."""

    rows: list[Row]
    load: tuple[float, float, float]
    repeats: int


def _both(game: SequenceFormGame, backend: str, **options) -> tuple[str, float, float, str]:
    """Both players from player 1's LP: status, value, gap, and the backend that ran."""
    result = solve_equilibrium(game, backend, **options)
    crossover = " (interior point, crossover)" if "Ipx: Crossover optimal" in result.solution.log else ""
    return str(result.solution.status), result.value, result.gap, result.solution.backend + crossover


def _two_lps(game: SequenceFormGame) -> tuple[str, float, float, str]:
    first, second = (solve_nash(game, player) for player in (1, 2))
    return str(first.solution.status), first.value, game.saddle_point_gap(first.strategy, second.strategy), "two LPs"


def _pdlp(game: SequenceFormGame, limit: float) -> tuple[str, float | None, float | None, str]:
    model = sequence_form_lp(game, 1)
    solution = model.solve("highs", time_limit=limit, **HIGHS_METHODS["pdlp"])
    if "x" not in solution.values or "best_response" not in solution.duals:
        return str(solution.status), None, None, f"stopped at {limit:g} s with no point"
    x = np.clip(solution.values["x"], 0.0, None)
    y = np.clip(-solution.duals["best_response"], 0.0, None)
    return str(solution.status), float(solution.objective), game.saddle_point_gap(x, y), "unpolished"


def _cfr_polish(game: SequenceFormGame, target: float) -> tuple[str, float, float, str]:
    """CFR+ to ``target``, then HiGHS's simplex from the basis the CFR+ pair guesses (see the module's text)."""
    import highspy

    from gamelp.backends.highs import _STATUS, _passed
    from gamelp.regret import solve_regret

    began = time.process_time()
    regret = solve_regret(game, "cfr+", iterations=10**6, target_gap=target, track_last=False)
    first_order = time.process_time() - began
    x, y, A = regret.x, regret.y, game.payoff_matrix(1)
    _, br_x = game.pl1.best_response(A @ y)
    _, br_y = game.pl2.best_response(-(A.T @ x))
    tolerance = target * abs(A).max()  # the payoff range (gamelp.units.payoff_range)
    basic = (x > tolerance) | (br_x > 0)
    tight = (y > tolerance) | (br_y > 0)
    excess = int(basic.sum()) - int(tight.sum())  # basic x and tight rows must pair off for a square basis
    if excess > 0:
        spare = np.flatnonzero(basic & (br_x == 0))
        basic[spare[np.argsort(x[spare])[:excess]]] = False
    elif excess < 0:
        spare = np.flatnonzero(tight & (br_y == 0))
        tight[spare[np.argsort(y[spare])[:-excess]]] = False
    form = sequence_form_lp(game, 1).matrix_form()
    status = highspy.HighsBasisStatus
    guess = highspy.HighsBasis()
    values, polytope = form.c.size - x.size, form.A.shape[0] - y.size  # v (free: basic); F x = f (equalities)
    guess.col_status = [status.kBasic if b else status.kLower for b in basic] + [status.kBasic] * values
    guess.row_status = [status.kLower if t else status.kBasic for t in tight] + [status.kLower] * polytope
    guess.valid = True
    h = _passed(form)
    if h.setBasis(guess) != highspy.HighsStatus.kOk:
        raise SolveError(f"{game.name}: HiGHS refused the guessed basis")
    h.run()
    solution, info = h.getSolution(), h.getInfo()
    polished_x = np.clip(np.asarray(solution.col_value)[: x.size], 0.0, None)
    polished_y = np.clip(-np.asarray(solution.row_dual)[: y.size], 0.0, None)
    detail = (
        f"CFR+ {regret.iterations} iterations to gap {regret.gap:.1e} ({first_order:.2f} s CPU), "
        f"then {info.simplex_iteration_count} simplex iterations"
    )
    gap = game.saddle_point_gap(polished_x, polished_y)
    return str(_STATUS.get(h.getModelStatus(), "error")), info.objective_function_value, gap, detail


def _bench_large():
    """bench_large.py beside this script (scripts are no package): its ``universal_poker`` and ``run_child``."""
    path = Path(__file__).with_name("bench_large.py")
    spec = importlib.util.spec_from_file_location("bench_large", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def openspiel_lp(params: str, memory_gb: float) -> None:
    """In the child process: OpenSpiel's sequence-form LP on ``universal_poker(params)``, one JSON line out."""
    limit = int(memory_gb * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import pyspiel
    from open_spiel.python.algorithms import sequence_form_lp

    wall, cpu = time.perf_counter(), time.process_time()
    game = pyspiel.load_game("universal_poker", json.loads(params))
    first, second, _, _ = sequence_form_lp.solve_zero_sum_game(game)
    done = {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}
    print(json.dumps(done | {"value": float(first), "value2": float(second)}))


def _openspiel(game: SequenceFormGame, nonzeros: int, args) -> Row:
    """OpenSpiel's LP on the same rules, in a child process stopped at ``--openspiel-limit`` (see the module's text)."""
    from gamelp.games import poker

    rules = poker.rules_of(game.name)
    if rules is None or rules.raise_action != "r":
        raise GamelpError(f"{game.name}: openspiel runs on Leduc and its variants leduc:RxS[xN] only")
    bench_large = _bench_large()
    params = bench_large.universal_poker(rules.ranks, rules.suits, rules.raise_sizes, rules.max_raises, rules.ante)
    command = [sys.executable, __file__, "--openspiel-lp", json.dumps(params), str(args.openspiel_memory_gb)]
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = bench_large.run_child(command, args.openspiel_limit)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
    row = Row(game.name, game.pl1.num_sequences, nonzeros, "openspiel", done["seconds"], cpu, "stopped")
    row.detail = f"stopped at {args.openspiel_limit:g} s"
    if done["returncode"] is None:
        return row
    answers = [json.loads(line) for line in done["stdout"].splitlines() if line.startswith("{")]
    if done["returncode"] or not answers:
        lines = done["stderr"].strip().splitlines()
        row.status, row.detail = "failed", lines[-1] if lines else f"exit status {done['returncode']}"
        return row
    answer = answers[-1]
    row.wall, row.cpu, row.status, row.value = answer["wall"], answer["cpu"], "finished", answer["value"]
    row.detail = f"player 2's value {answer['value2']:+.10f}"
    return row


def measure(game: SequenceFormGame, method: str, args) -> tuple[str, float | None, float | None, str]:
    """Run ``method`` on ``game``: status, player 1's value, the pair's gap, a note."""
    if method == "default":
        return _both(game, "auto")
    if method == "two-lps":
        return _two_lps(game)
    if method == "pdlp":
        return _pdlp(game, args.pdlp_limit)
    if method in HIGHS_METHODS:
        return _both(game, "highs", **HIGHS_METHODS[method])
    if method == "clarabel":
        return _both(game, "cvxpy:CLARABEL")
    return _cfr_polish(game, args.polish_target)


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="leduc:13x4", help="comma-separated games (default %(default)s)")
    parser.add_argument(
        "--methods", type=name_list(METHODS), default=",".join(METHODS), help="comma-separated methods (default: all)"
    )
    parser.add_argument("--repeats", type=integer(1), default=1, help="runs per method; the fastest (default 1)")
    parser.add_argument(
        "--pdlp-limit", type=finite_float(0.0), default=60.0, help="seconds PDLP may run (default %(default)s)"
    )
    parser.add_argument(
        "--polish-target",
        type=finite_float(0.0),
        default=1e-3,
        help="CFR+'s saddle-point gap, relative to the payoff range, before the polish (default %(default)s)",
    )
    parser.add_argument(
        "--openspiel-limit",
        type=finite_float(0.0, strict=True),
        default=300.0,
        help="seconds OpenSpiel's LP may run before it is stopped (default %(default)s)",
    )
    parser.add_argument(
        "--openspiel-memory-gb",
        type=finite_float(0.5),
        default=8.0,
        help="address space of OpenSpiel's process, in GiB (default %(default)s)",
    )
    return parser


def _run(game: SequenceFormGame, nonzeros: int, method: str, args) -> Row:
    """One run of ``method`` on ``game``: its row, a refusal's too."""
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        if method == "openspiel":
            return _openspiel(game, nonzeros, args)
        status, value, gap, detail = measure(game, method, args)
    except GamelpError as exc:
        status, value, gap, detail = "refused", None, None, str(exc)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return Row(game.name, game.pl1.num_sequences, nonzeros, method, wall, cpu, status, value, gap, detail)


def main(argv: list[str] | None = None) -> LpMethods:
    args = build_parser().parse_args(argv)
    methods = args.methods
    if "openspiel" in methods:  # the peer, refused in one line before anything runs
        for module in ("pyspiel", "ecos"):  # ecos: the cone solver of OpenSpiel's sequence-form LP
            require(module, "bench_leduc13x4's openspiel method", extra="bench")
    rows: list[Row] = []
    warm = load_game("kuhn")
    for method in methods:  # imports and first calls outside the times; a refusal is reported on the games
        if method == "openspiel":
            continue  # a fresh process each run: nothing to warm
        with contextlib.suppress(GamelpError):
            measure(warm, method, args)
    for name in args.games.split(","):
        wall, cpu = time.perf_counter(), time.process_time()
        game = load_game(name.strip())
        form = sequence_form_lp(game, 1).matrix_form()
        rows.append(
            Row(
                game.name,
                game.pl1.num_sequences,
                form.A.nnz,
                "(load)",
                time.perf_counter() - wall,
                time.process_time() - cpu,
                "loaded",
                detail="load (or generate) the game and build the LP once",
            )
        )
        for method in methods:
            print(f"{game.name}: {method}...", file=sys.stderr)
            runs = [_run(game, form.A.nnz, method, args) for _ in range(args.repeats)]
            best = min(runs, key=lambda run: run.cpu)
            reference = next((row for row in rows if row.game == game.name and row.status == "optimal"), None)
            if method == "openspiel" and best.value is not None and reference is not None:
                best.detail += f"; {best.value - reference.value:+.1e} from {reference.method}'s value"
            rows.append(best)
    return LpMethods(rows, os.getloadavg(), args.repeats)


def report(result: LpMethods) -> None:
    load = ", ".join(f"{x:.1f}" for x in result.load)
    print(
        f"Both players of player 1's Nash LP (one solve), build + solve; the fastest CPU of {result.repeats}; "
        f"{os.cpu_count()} cores, load average {load}"
    )
    print(
        f"{'game':14s} {'seqs':>6s} {'method':>17s} {'wall s':>8s} {'cpu s':>7s} {'status':>12s} "
        f"{'value pl1':>14s} {'gap':>8s}  note"
    )
    for row in result.rows:
        value = f"{row.value:14.10f}" if row.value is not None else f"{'':>14s}"
        gap = f"{row.gap:8.1e}" if row.gap is not None else f"{'':>8s}"
        print(
            f"{row.game:14s} {row.sequences:6d} {row.method:>17s} {row.wall:8.2f} {row.cpu:7.2f} {row.status:>12s} "
            f"{value} {gap}  {row.detail}"
        )


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--openspiel-lp":
        openspiel_lp(sys.argv[2], float(sys.argv[3]))
    else:
        run_script(main, report)

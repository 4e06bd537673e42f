"""Benchmark: exact certificates of poker equilibria (gamelp's exact=True) beside Gambit's rational LP.

    python scripts/bench/bench_exact.py [--games kuhn,leduc,leduc:13x4] [--gambit-games kuhn,leduc]
        [--gambit-timeout 300] [--no-gambit]

For each game it times, in this process, loading the game, solving player 1's
Nash LP on HiGHS, and certifying both players' strategies in rational
arithmetic (:mod:`gamelp.models.exact`: the floats rounded, else HiGHS's
optimal basis solved exactly, then the checks), and reports the certified
value (a fraction: the digits of its denominator), how the fractions were
found, and how far the float value is from it.  In the same run it writes each
of the Gambit games' trees as ``.efg`` (gamelp's poker generators) and times
pygambit's rational sequence-form LP on it (``gbt.nash.lp_solve(game,
rational=True)``, in a subprocess stopped after ``--gambit-timeout`` seconds;
pygambit comes with gamelp's ``bench`` extra, and without it the script refuses
in one line naming it, unless ``--no-gambit``); when Gambit finishes, its
value is compared with gamelp's.  Times are wall seconds on a machine that may
be shared.
"""

import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from gamelp.cli.args import OneLineParser, finite_float, name_list, run_script
from gamelp.deps import require
from gamelp.game import load_game
from gamelp.games.gambit import write_efg
from gamelp.models.nash import solve_equilibrium

GAMBIT_CODE = """
import sys, time
import pygambit as gbt
game = gbt.read_efg(sys.argv[1])
start = time.perf_counter()
payoffs = gbt.nash.lp_solve(game, rational=True).equilibrium.payoffs
first = next(iter(game.players))  # player 1 (pygambit 17 lists players by label)
value = payoffs[getattr(first, "label", first)]
print(time.perf_counter() - start, value)
"""


@dataclass
class ExactSpeed:
    """gamelp's exact certificate per game, and Gambit's rational LP where it was run."""

    games: list[dict]  # game, load, solve, certify, seconds, value (Fraction), float_value, recovery
    gambit: list[dict]  # game, status ("ok", "stopped", "error: ..."), seconds, value (Fraction or None), agrees
    gambit_timeout: float


def ours(name: str) -> dict:
    """Load, solve and certify ``name``: the times of each step, the exact value and the float value."""
    began = time.perf_counter()
    game = load_game(name)
    loaded = time.perf_counter()
    floats = solve_equilibrium(game)
    solved = time.perf_counter()
    exact = solve_equilibrium(game, exact=True)
    done = time.perf_counter()
    certificate = exact.certificate
    assert certificate is not None  # exact=True either certifies or raises
    return {
        "game": name,
        "sequences": game.pl1.num_sequences + game.pl2.num_sequences,
        "load": loaded - began,
        "solve": solved - loaded,
        "exact": done - solved,  # its own LP solve (kept by HiGHS for the basis) and the certificate
        "value": certificate.value,
        "float_value": floats.value,
        "recovery": certificate.recovery,
    }


def gambit(name: str, folder: Path, timeout: float) -> dict:
    """Gambit's rational LP on ``name``'s tree in a subprocess stopped after ``timeout`` seconds."""
    path = folder / f"{name.replace(':', '_')}.efg"
    write_efg(name, path)
    row: dict = {"game": name, "seconds": None, "value": None}
    try:
        done = subprocess.run(
            [sys.executable, "-c", GAMBIT_CODE, str(path)], capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return {**row, "status": "stopped"}
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or ["no message"]
        return {**row, "status": "error: " + lines[-1][:80]}
    seconds, value = done.stdout.split()
    return {**row, "status": "ok", "seconds": float(seconds), "value": Fraction(value)}


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games",
        type=name_list(example="kuhn,leduc,leduc:13x4"),
        default="kuhn,leduc,leduc:13x4",
        help="games gamelp certifies, comma-separated (default: %(default)s)",
    )
    parser.add_argument(
        "--gambit-games",
        type=name_list(example="kuhn,leduc,leduc:13x4"),
        default="kuhn,leduc",
        help="games Gambit's rational LP is timed on: kuhn, leduc or their variants (default: %(default)s)",
    )
    parser.add_argument(
        "--gambit-timeout",
        type=finite_float(0.0, strict=True),
        default=300.0,
        help="seconds before Gambit's run on a game is stopped (default: %(default)s)",
    )
    parser.add_argument(
        "--no-gambit", action="store_true", help="skip Gambit's rational LP (and so the need for pygambit)"
    )
    return parser


def main(argv: list[str] | None = None) -> ExactSpeed:
    args = build_parser().parse_args(argv)
    if not args.no_gambit:  # the peer, refused in one line before anything runs
        require("pygambit", "bench_exact's Gambit reference (--no-gambit leaves it out)", extra="bench")
    games = [ours(name) for name in args.games]
    values = {row["game"]: row["value"] for row in games}
    rows = []
    if not args.no_gambit:
        with tempfile.TemporaryDirectory() as folder:
            for name in args.gambit_games:
                row = gambit(name, Path(folder), args.gambit_timeout)
                mine = values.get(name)
                row["agrees"] = None if row["value"] is None or mine is None else row["value"] == mine
                rows.append(row)
    return ExactSpeed(games=games, gambit=rows, gambit_timeout=args.gambit_timeout)


def _fraction(value: Fraction) -> str:
    """A fraction in full when short, else its float and the size of its denominator."""
    text = str(value)
    return text if len(text) <= 24 else f"{float(value):.12g} (denominator of {len(str(value.denominator))} digits)"


def report(result: ExactSpeed) -> None:
    print("gamelp: load, solve player 1's LP (HiGHS), then exact=True (its LP kept for the basis + the certificate)")
    print(f"{'game':12s} {'sequences':>9s} {'load':>7s} {'solve':>7s} {'exact':>8s}  {'|float - exact|':>15s}  value")
    for row in result.games:
        error = abs(row["float_value"] - float(row["value"]))
        print(
            f"{row['game']:12s} {row['sequences']:9d} {row['load']:7.2f} {row['solve']:7.2f} {row['exact']:8.2f}  "
            f"{error:15.1e}  {_fraction(row['value'])}"
        )
        print(f"{'':12s} recovered by: {row['recovery']}")
    if result.gambit:
        limit = f"stopped after {result.gambit_timeout:g} s"
        print(f"\nGambit: gbt.nash.lp_solve(game, rational=True) on the .efg tree, {limit}")
    for row in result.gambit:
        if row["status"] != "ok":
            shown = f"stopped after {result.gambit_timeout:g} s" if row["status"] == "stopped" else row["status"]
            print(f"{row['game']:12s} {shown}")
            continue
        agrees = {True: "equals gamelp's", False: "DIFFERS from gamelp's", None: "(gamelp did not run this game)"}
        print(f"{row['game']:12s} {row['seconds']:8.2f} s  {_fraction(row['value'])}  {agrees[row['agrees']]}")


if __name__ == "__main__":
    run_script(main, report)

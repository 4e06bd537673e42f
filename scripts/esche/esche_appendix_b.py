"""Esche (2018), Appendix B: our simulated win rates against the thesis's, cell by cell.

``run`` plays a deck grid like ``gamelp mtg sweep`` (same seeds, same store)
with optional rule changes, so a one-factor run differs from the reference
run in that factor only:

    python scripts/esche/esche_appendix_b.py run --creatures 0,8 --bolts 28,32,40 --games 100 \\
        --life-threshold 0 --rule first_player_draws=1 --out out/appb-draw

``compare`` reads one or more sweep directories (``payoffs.csv`` and
``std.csv``, or for an unfinished sweep the games its ``games.sqlite`` holds so
far) and prints, for every
played cell, our rate, the thesis's, and the z-score

    z = (ours - thesis) / sqrt(se_ours^2 + thesis (1 - thesis) / 200),

the difference over the sampling error of both estimates (the thesis played
200 games per cell and did not publish per-cell deviations; ``se_ours`` is
the sweep's deviation). For a forest sweep run with ``--verify`` it also
prints the three ways of scoring the same games: the thesis's (mismatches
and draws dropped), every verdict kept, and every game scored by its
verified minimax winner. ``--plot`` draws a heatmap of ours - thesis.

    python scripts/esche/esche_appendix_b.py compare out/appb-exact out/appb-forest --plot docs/esche-appendix-b.png

``forest-accuracy`` measures the cached 12-life forest's error rate on
positions reached by exact play between given decks (no search over the
forest's verdicts), to set beside the mismatch rate of a ``--verify`` sweep.
``matrix DIR PREFIX`` writes the played cells of a sweep, finished or not,
as ``PREFIX_payoffs.csv`` and ``PREFIX_std.csv`` (binomial errors for an
unfinished one). ``paired`` matches the games of two runs made with the same ``--seed`` (the
same deals, game by game) and prints, per cell, both win rates over the
common games and how many games changed winner each way; McNemar's exact
test on the pooled changes says whether the factor that differs between the
runs moves the win rates:

    python scripts/esche/esche_appendix_b.py paired out/appb-exact out/appb-draw
"""

import argparse
import functools
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from gamelp.cli.args import OneLineParser, int_list, integer, output_directory, plot_path, run_script, workers
from gamelp.errors import GamelpError
from gamelp.games.errors import RunError
from gamelp.games.mtg.engine import EVAL_CAP, LIFE_THRESHOLD, Rules
from gamelp.games.mtg.match import play_game
from gamelp.games.mtg.sweep import BatchResult, GameSettings, run_sweep, stored_games
from gamelp.games.runner import Execution
from gamelp.io import atomic_path
from gamelp.matrix import MatrixGame

THESIS_GAMES = 200


# ----------------------------------------------------------------------------- what each command returns


@dataclass
class Run:
    """``run``: a deck grid played with the given rule changes."""

    rules: dict
    batch: BatchResult
    out: str


@dataclass
class Cell:
    """A played cell beside Appendix B's: the row deck's win rate, ours and the thesis's."""

    row: str
    col: str
    ours: float
    se: float  # our standard error (the sweep's deviation)
    thesis: float
    z: float  # (ours - thesis) / sqrt(se^2 + thesis (1 - thesis) / 200)


@dataclass
class SweepComparison:
    """One sweep directory against Appendix B."""

    directory: Path
    labels: list[str]  # the decks of its cells, in Appendix B's order
    cells: list[Cell]
    scorings: dict | None = None  # (row, col) -> rates under three scorings, for a verified sweep with mismatches

    @property
    def within_3se(self) -> int:
        return int(sum(abs(c.z) <= 3 for c in self.cells))

    @property
    def mean_gap(self) -> float:
        """Mean |ours - thesis| over the cells."""
        return float(np.mean([abs(c.ours - c.thesis) for c in self.cells]))


@dataclass
class Comparison:
    """``compare``: every directory's cells against Appendix B."""

    sweeps: list[SweepComparison]
    plot: str | None


@dataclass
class PairedCell:
    """A cell's common decided games of two runs with the same seed."""

    row: str
    col: str
    games: int
    base: float  # the row deck's win rate over these games in the base run
    other: float  # and in the other run
    to_row: int  # games that changed winner to the row deck
    to_col: int  # and to the column deck


@dataclass
class Paired:
    """``paired``: two runs with the same seed compared game by game, McNemar's exact test on the changes."""

    base: str
    other: str
    common: int  # common decided games
    cells: list[PairedCell]
    gained: int  # changes to the row deck, summed over cells
    lost: int  # changes to the column deck
    p: float  # McNemar's exact p
    gaps: dict[str, float]  # "base"/"other" -> mean |rate - Appendix B| over these games


@dataclass
class ForestAccuracy:
    """``forest-accuracy``: the cached 12-life forest's errors on positions reached by exact play."""

    games: int
    positions: int
    capped: int  # positions skipped at the label cap
    wrong: int


@dataclass
class MatrixFiles:
    """``matrix``: a sweep's played cells written as CSVs."""

    payoffs: str
    std: str
    decks: int


@dataclass
class SeatRun:
    """A sweep directory's first-player shares and dispersion among mid-range decks."""

    directory: Path
    decided: int  # decided games
    first_share: float  # share of them the first player won
    among: int  # decided games between mid-range decks
    first_share_among: float
    cells: int
    statistic: float  # T = sum 4 n (rate - 1/2)^2
    p: float  # lower-tail p


@dataclass
class Seats:
    """``seats``: Appendix B's dispersion test and our runs' first-player shares."""

    low: int
    high: int
    cells: int  # Appendix B's cells between mid-range decks
    statistic: float  # Appendix B's T
    p: float  # its lower-tail p
    first_player_share: float  # the first (or second) player won at least this share of those games
    runs: list[SeatRun] = field(default_factory=list)


# ----------------------------------------------------------------------------- shared with the other scripts


def thesis_matrix() -> MatrixGame:
    return MatrixGame.from_csv(resources.files("gamelp.games").joinpath("data", "esche_8c_payoffs.csv"))


def parse_rule(text: str) -> tuple[str, object]:
    name, _, value = text.partition("=")
    fields = Rules.__dataclass_fields__
    if name not in fields or not value:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE with NAME one of {', '.join(fields)}, got {text!r}")
    kind = type(getattr(Rules(), name))
    if kind is bool:
        return name, value.lower() in ("1", "true", "yes")
    try:
        return name, kind(value)
    except ValueError:
        what = "a whole number" if kind is int else "a number" if kind is float else f"a {kind.__name__}"
        raise argparse.ArgumentTypeError(f"{name} expects {what}, got {value!r}") from None


def add_game_arguments(parser: argparse.ArgumentParser, life_threshold: int = LIFE_THRESHOLD) -> None:
    """The game settings, rule changes and execution options shared by the sweep scripts."""
    parser.add_argument("--seed", type=integer(0), default=0, help="seed of the deals (default %(default)s)")
    parser.add_argument(
        "--evaluation",
        default="forest",
        choices=("forest", "layered", "life"),
        help="evaluation function at or below the life threshold (default %(default)s)",
    )
    parser.add_argument(
        "--life-threshold",
        type=integer(0),
        default=life_threshold,
        help="life at or below which the evaluation function is used; 0 plays exactly (default %(default)s)",
    )
    parser.add_argument(
        "--eval-cap",
        type=integer(1),
        default=EVAL_CAP,
        help="evaluations after which a game is a draw (default %(default)s, the thesis's)",
    )
    parser.add_argument(
        "--rule",
        type=parse_rule,
        action="append",
        default=[],
        help="a changed rule, e.g. starting_life=3, first_player_draws=1, instant_bolts=0",
    )
    parser.add_argument(
        "--workers", type=workers, default=1, help="worker processes playing the games (default %(default)s)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def game_setup(args) -> tuple[dict, GameSettings, Execution, functools.partial | None]:
    """(rule changes, game settings, execution, game function) from ``add_game_arguments``' options."""
    rules = dict(args.rule)
    game_fn = functools.partial(play_game, rules=Rules(**rules)) if rules else None
    settings = GameSettings(
        evaluation=args.evaluation,
        eval_cap=args.eval_cap,
        life_threshold=args.life_threshold,
        verify=getattr(args, "verify", False),
    )
    return rules, settings, Execution(workers=args.workers, progress=not args.quiet), game_fn


# ----------------------------------------------------------------------------- the commands


def cmd_run(args) -> Run:
    rules, settings, execution, game_fn = game_setup(args)
    result = run_sweep(
        args.creatures,
        args.bolts,
        games=args.games,
        seed=args.seed,
        settings=settings,
        out=args.out,
        execution=execution,
        game_fn=game_fn,
    )
    return Run(rules=rules, batch=result, out=args.out)


def scorings(store: Path, labels) -> dict:
    """Win rate of each played (row, col) under three scorings of a verified forest sweep."""
    out: dict = {}
    for deck1, deck2, _, _, winner, mismatch, _ in stored_games(store.parent):
        tally = out.setdefault((deck1, deck2), np.zeros(5))  # wins, losses, draws, mismatched wins, mismatched losses
        if winner is None:
            tally[2] += 1
        elif mismatch:
            tally[3 + winner] += 1
        else:
            tally[winner] += 1
    rates = {}
    for key, (w, lose, d, mw, ml) in out.items():
        rates[key] = {
            "thesis": w / max(w + lose, 1),  # mismatches and draws dropped
            "verdict": (w + mw) / max(w + lose + mw + ml, 1),  # the evaluation's verdict always kept
            "truth": (w + ml) / max(w + lose + mw + ml, 1),  # mismatches scored by minimax's winner
            "mismatch": (mw + ml) / max(w + lose + mw + ml + d, 1),
            "draws": d,
        }
    return rates


def played_cells(directory: Path) -> list:
    """(row, col, rate, se) of every played cell: from payoffs.csv and std.csv when the sweep
    finished, else from the games its store holds so far (binomial standard errors)."""
    if (directory / "payoffs.csv").exists():
        ours = MatrixGame.from_csv(directory / "payoffs.csv", std_path=directory / "std.csv")
        labels = ours.row_labels
        return [
            (labels[a], labels[b], ours.payoffs[a, b], ours.std[a, b])
            for a in range(len(labels))
            for b in range(a + 1, len(labels))
        ]
    decided: dict = {}
    for (a, b, _), winner in store_games(directory, score_mismatches=False).items():
        if winner is not None:
            decided.setdefault((a, b), []).append(winner == 0)
    return [(a, b, np.mean(w), np.sqrt(np.mean(w) * (1 - np.mean(w)) / len(w))) for (a, b), w in decided.items()]


def compare(directory: Path, thesis: MatrixGame):
    index = {label: i for i, label in enumerate(thesis.row_labels)}
    cells = []
    for a, b, o, se in played_cells(directory):
        if a not in index or b not in index:
            continue  # a deck Appendix B does not hold
        t = thesis.payoffs[index[a], index[b]]
        z = (o - t) / np.sqrt(se**2 + t * (1 - t) / THESIS_GAMES)
        cells.append(Cell(a, b, float(o), float(se), float(t), float(z)))
    labels = sorted({c.row for c in cells} | {c.col for c in cells}, key=list(thesis.row_labels).index)
    return labels, cells


def cmd_compare(args) -> Comparison:
    thesis = thesis_matrix()
    sweeps = []
    for directory in map(Path, args.dirs):
        labels, cells = compare(directory, thesis)
        sweep = SweepComparison(directory, labels, cells)
        store = directory / "games.sqlite"
        if store.exists():
            rates = scorings(store, labels)
            if any(r["mismatch"] for r in rates.values()):
                sweep.scorings = rates
        sweeps.append(sweep)
    if args.plot:
        plot({s.directory.name: (s.labels, s.cells) for s in sweeps}, thesis, args.plot)
    return Comparison(sweeps=sweeps, plot=args.plot)


def plot(results, thesis, path) -> None:
    import matplotlib.pyplot as plt

    side = max(4.2, 0.32 * max(len(labels) for labels, _ in results.values()))  # room for a z in every cell
    fig, axes = plt.subplots(1, len(results), figsize=(1.1 * side * len(results), side), squeeze=False)
    for ax, (name, (labels, cells)) in zip(axes[0], results.items()):
        n = len(labels)
        diff = np.full((n, n), np.nan)
        position = {label: k for k, label in enumerate(labels)}
        for c in cells:
            diff[position[c.row], position[c.col]] = c.ours - c.thesis
            diff[position[c.col], position[c.row]] = c.thesis - c.ours
        image = ax.imshow(diff, cmap="RdBu_r", vmin=-0.5, vmax=0.5)
        for c in cells:
            for r, col, zz in ((position[c.row], position[c.col], c.z), (position[c.col], position[c.row], -c.z)):
                ax.text(col, r, f"{zz:+.0f}", ha="center", va="center", fontsize=6 if n > 8 else 8)
        ax.set_xticks(range(n), labels, rotation=90, fontsize=7 if n > 8 else 9)
        ax.set_yticks(range(n), labels, fontsize=7 if n > 8 else 9)
        ax.set_title(f"{name}: ours - Appendix B (text: z)", fontsize=9)
    fig.colorbar(image, ax=axes[0].tolist(), shrink=0.8, label="row deck's win rate, ours - thesis")
    with atomic_path(path) as temporary:
        fig.savefig(temporary, dpi=130, bbox_inches="tight")
    plt.close(fig)


def store_games(directory: Path, score_mismatches: bool = True) -> dict:
    """(deck1, deck2, game) -> winner (0, 1; None for a draw) of a sweep store. A verified mismatch
    is scored by minimax's winner (the opposite of the stored verdict), or left out as a draw is
    (as the thesis did) with ``score_mismatches=False``."""
    return {
        (a, b, g): (None if w is None or (m and not score_mismatches) else (1 - w if m else w))
        for a, b, _, g, w, m, _ in stored_games(directory)
    }


def cmd_paired(args) -> Paired:
    from scipy.stats import binomtest

    base, other = store_games(Path(args.base)), store_games(Path(args.other))
    common = sorted(k for k in base.keys() & other.keys() if base[k] is not None and other[k] is not None)
    cells: dict = {}
    for a, b, g in common:
        cells.setdefault((a, b), []).append((base[(a, b, g)], other[(a, b, g)]))
    rows = []
    gained = lost = 0
    for (a, b), pairs in sorted(cells.items()):
        x = np.array(pairs)
        up, down = int(((x[:, 0] == 1) & (x[:, 1] == 0)).sum()), int(((x[:, 0] == 0) & (x[:, 1] == 1)).sum())
        gained, lost = gained + up, lost + down
        rows.append(PairedCell(a, b, len(x), float(1 - x[:, 0].mean()), float(1 - x[:, 1].mean()), up, down))
    changed = gained + lost
    p = binomtest(gained, changed).pvalue if changed else 1.0
    thesis = thesis_matrix()
    index = {label: i for i, label in enumerate(thesis.row_labels)}
    gaps = {}
    for name, column in (("base", 0), ("other", 1)):
        gaps[name] = float(
            np.mean(
                [
                    abs(1 - np.mean([w[column] for w in pairs]) - thesis.payoffs[index[a], index[b]])
                    for (a, b), pairs in cells.items()
                    if a in index and b in index
                ]
            )
        )
    return Paired(
        base=args.base,
        other=args.other,
        common=len(common),
        cells=rows,
        gained=gained,
        lost=lost,
        p=float(p),
        gaps=gaps,
    )


def cmd_matrix(args) -> MatrixFiles:
    """Write the played cells of a (possibly unfinished) sweep as payoffs and std CSVs."""
    thesis = thesis_matrix()
    cells = played_cells(Path(args.dir))
    labels = sorted({c[0] for c in cells} | {c[1] for c in cells}, key=list(thesis.row_labels).index)
    at = {label: k for k, label in enumerate(labels)}
    payoffs, std = np.full((len(labels),) * 2, 0.5), np.zeros((len(labels),) * 2)
    for a, b, rate, se in cells:
        payoffs[at[a], at[b]], payoffs[at[b], at[a]] = rate, 1 - rate
        std[at[a], at[b]] = std[at[b], at[a]] = se
    if len(cells) != len(labels) * (len(labels) - 1) // 2:
        raise RunError(f"{args.dir}: {len(cells)} cells played, not every pair of {len(labels)} decks")
    names = f"{args.prefix}_payoffs.csv", f"{args.prefix}_std.csv"
    MatrixGame(payoffs, labels, labels, std=std).to_csv(names[0], std_path=names[1])
    return MatrixFiles(payoffs=names[0], std=names[1], decks=len(labels))


def cmd_forest_accuracy(args) -> ForestAccuracy:
    """The cached 12-life forest's accuracy on positions reached by exact play between ``--decks``."""
    from gamelp.games.mtg.deck import Deck
    from gamelp.games.mtg.forest import collect_positions, forest_evaluation

    forest = forest_evaluation(LIFE_THRESHOLD)
    data = collect_positions(
        args.games,
        (LIFE_THRESHOLD,),
        [args.seed, 2],
        label_cap=args.label_cap,
        workers=args.workers,
        decks=[Deck.parse(d) for d in args.decks.split(",")],
        progress=not args.quiet,
    )
    X, y = data.X[LIFE_THRESHOLD], data.y[LIFE_THRESHOLD]
    return ForestAccuracy(
        games=args.games, positions=len(y), capped=data.capped, wrong=int((forest.predict(X) != y).sum())
    )


def cell_games(rate: float, most: int = THESIS_GAMES) -> int:
    """The games behind a 4-digit rate of Appendix B: the largest n <= ``most`` with a k / n that
    rounds to it (the thesis left draws and mismatches out of a cell's 200 games)."""
    return next((n for n in range(most, most // 2, -1) if abs(round(rate * n) / n - rate) < 5e-5), most)


def mid_range(deck: str, low: int, high: int) -> bool:
    return low <= int(deck.split("C")[1].rstrip("L")) <= high


def seat_dispersion(cells) -> tuple[int, float, float, float]:
    """(cells, T, p, q) for (rate, games) cells: T = sum 4 n (rate - 1/2)^2.

    If a game's winner does not depend on the seat, a cell of n games is binomial with some p
    and E[4 n (rate - 1/2)^2] = 4 p (1 - p) + 4 n (p - 1/2)^2 = 1 + 4 (n - 1) (p - 1/2)^2 >= 1,
    so T is stochastically at least a chi-square with one degree of freedom per cell (exactly
    that when every p = 1/2), and a T far below the number of cells (its lower-tail p) says
    the games were not seat-independent: the seat decided them. With seats alternating
    and the first player winning a share q whatever the decks, E[n (rate - 1/2)^2] = q (1 - q),
    so the mean of n (rate - 1/2)^2 bounds q from below (deck differences only add to it).
    """
    from scipy.stats import chi2

    rates, games = np.array(cells, dtype=float).T
    statistic = float(np.sum(4 * games * (rates - 0.5) ** 2))
    q = 0.5 + np.sqrt(max(0.25 - float(np.mean(games * (rates - 0.5) ** 2)), 0.0))
    return len(rates), statistic, float(chi2.cdf(statistic, len(rates))), float(q)


def cmd_seats(args) -> Seats:
    """Did the seat decide the games? Appendix B's dispersion test beside our runs' first-player shares."""
    thesis = thesis_matrix()
    labels = list(thesis.row_labels)
    inside = [a for a in labels if mid_range(a, args.low, args.high)]
    cells = [
        (thesis.payoffs[i, j], cell_games(thesis.payoffs[i, j]))
        for i, a in enumerate(labels)
        for j, b in enumerate(labels)
        if i < j and a in inside and b in inside
    ]
    if not cells:
        raise GamelpError(f"no pair of Appendix B's decks has both Lightning Bolt counts in [{args.low}, {args.high}]")
    k, statistic, p, q = seat_dispersion(cells)
    result = Seats(low=args.low, high=args.high, cells=k, statistic=statistic, p=p, first_player_share=q)
    for directory in map(Path, args.dirs):
        games = [g for g in stored_games(directory) if g.winner is not None]
        among = [
            g for g in games if mid_range(g.deck1, args.low, args.high) and mid_range(g.deck2, args.low, args.high)
        ]
        tally: dict = {}
        for g in among:
            tally.setdefault((g.deck1, g.deck2), []).append(g.winner == 0)
        first = float(np.mean([g.winner == g.first for g in among])) if among else float("nan")
        k, statistic, p, q = seat_dispersion([(np.mean(w), len(w)) for w in tally.values()]) if tally else (0, 0, 1, 0)
        result.runs.append(
            SeatRun(
                directory,
                len(games),
                float(np.mean([g.winner == g.first for g in games])),
                len(among),
                first,
                k,
                statistic,
                p,
            )
        )
    return result


# ----------------------------------------------------------------------------- printing


def report_run(result: Run) -> None:
    print(result.batch.summary())
    print(f"rules changed: {result.rules or 'none'}; wrote {result.out}")


def report_compare(result: Comparison) -> None:
    for sweep in result.sweeps:
        print(f"\n{sweep.directory}: {len(sweep.cells)} cells, row deck's win rate")
        print(f"{'row':>7} {'col':>7} {'ours':>7} {'se':>6} {'thesis':>7} {'z':>7}")
        for c in sweep.cells:
            print(f"{c.row:>7} {c.col:>7} {c.ours:7.3f} {c.se:6.3f} {c.thesis:7.3f} {c.z:7.2f}")
        print(
            f"within 3 SE of Appendix B: {sweep.within_3se} of {len(sweep.cells)}; "
            f"mean |ours - thesis| = {sweep.mean_gap:.3f}"
        )
        if sweep.scorings is not None:
            print(
                "the same games scored three ways (thesis: mismatches and draws dropped; verdict: every "
                "verdict kept; truth: every game by minimax's winner), mismatch share"
            )
            for c in sweep.cells:
                r = sweep.scorings[(c.row, c.col)]
                print(
                    f"{c.row:>7} {c.col:>7}  thesis {r['thesis']:.3f}  verdict {r['verdict']:.3f}  "
                    f"truth {r['truth']:.3f}  mismatches {r['mismatch']:.1%}  draws {int(r['draws'])}"
                )
    if result.plot:
        print(f"\nwrote {result.plot}")


def report_paired(result: Paired) -> None:
    print(f"{result.base} against {result.other}: {result.common} common decided games")
    print(f"{'row':>7} {'col':>7} {'games':>5} {'base':>6} {'other':>6} {'to row':>6} {'to col':>6}")
    for c in result.cells:
        print(f"{c.row:>7} {c.col:>7} {c.games:5d} {c.base:6.3f} {c.other:6.3f} {c.to_row:6d} {c.to_col:6d}")
    print(
        f"games that changed winner: {result.gained + result.lost} of {result.common} ({result.gained} to the row "
        f"deck, {result.lost} to the column deck); McNemar exact p = {result.p:.3g}"
    )
    for name, gap in result.gaps.items():
        print(f"{name}: mean |rate - Appendix B| over these games {gap:.3f}")


def report_forest_accuracy(result: ForestAccuracy) -> None:
    share = f"{result.wrong / result.positions:.1%}" if result.positions else "no position left to judge"
    print(
        f"forest at 12 life on {result.positions} positions reached by exact play ({result.games} games, "
        f"{result.capped} skipped at the label cap): {result.wrong} wrong ({share})"
    )


def report_matrix(result: MatrixFiles) -> None:
    print(f"wrote {result.payoffs} and {result.std} ({result.decks} decks)")


def report_seats(result: Seats) -> None:
    print(
        f"cells between decks with {result.low} to {result.high} bolts; T = sum 4 n (rate - 1/2)^2, "
        "at least one per cell in expectation if the seat does not decide games"
    )
    print(
        f"Appendix B: {result.cells} cells, T = {result.statistic:.1f} (lower-tail p = {result.p:.2g}); the first "
        f"(or second) player won at least {result.first_player_share:.1%} of these games"
    )
    for run in result.runs:
        print(
            f"{run.directory}: first player won {run.first_share:.1%} of {run.decided} decided games, "
            f"{run.first_share_among:.1%} of {run.among} between these decks; {run.cells} cells, "
            f"T = {run.statistic:.1f} (lower-tail p = {run.p:.2g})"
        )


REPORTS = {
    Run: report_run,
    Comparison: report_compare,
    Paired: report_paired,
    ForestAccuracy: report_forest_accuracy,
    MatrixFiles: report_matrix,
    Seats: report_seats,
}


def report(result) -> None:
    """Print what one command found (its table, as the command always printed it)."""
    REPORTS[type(result)](result)


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="play a deck grid, optionally with changed rules")
    run.add_argument(
        "--creatures", type=int_list, default=[0, 8], help="Vexing Devil counts, e.g. 0,8 or 0:16:4 (default 0,8)"
    )
    run.add_argument(
        "--bolts", type=int_list, default=[28, 32, 40], help="Lightning Bolt counts, e.g. 28,32,40 (default 28,32,40)"
    )
    run.add_argument("--games", type=integer(1), default=100, help="games per deck pair (default %(default)s)")
    add_game_arguments(run, life_threshold=0)
    run.add_argument(
        "--verify",
        action="store_true",
        help="check the evaluation's verdicts by full minimax (mismatches are recorded)",
    )
    run.add_argument(
        "--out",
        type=output_directory,
        required=True,
        help="directory of the sweep (payoffs.csv, std.csv, games.sqlite)",
    )
    run.set_defaults(func=cmd_run)
    comp = commands.add_parser("compare", help="compare sweep directories with Appendix B")
    comp.add_argument("dirs", nargs="+", help="sweep output directories")
    comp.add_argument("--plot", type=plot_path, help="heatmap PNG of ours - thesis")
    comp.set_defaults(func=cmd_compare)
    paired = commands.add_parser("paired", help="game-by-game comparison of two runs with the same seed")
    paired.add_argument("base", help="the reference sweep directory")
    paired.add_argument("other", help="the sweep directory with one factor changed")
    paired.set_defaults(func=cmd_paired)
    accuracy = commands.add_parser("forest-accuracy", help="the forest's error rate on exact-play positions")
    accuracy.add_argument(
        "--decks",
        default="0C28L,0C32L,0C40L,8C28L,8C32L,8C40L",
        help="comma-separated decks whose exact-play positions are scored (default %(default)s)",
    )
    accuracy.add_argument(
        "--games",
        type=integer(1),
        default=200,
        help="games of exact play whose positions are scored (default %(default)s)",
    )
    accuracy.add_argument("--seed", type=integer(0), default=0, help="seed of the deals (default %(default)s)")
    accuracy.add_argument(
        "--label-cap",
        type=integer(1),
        default=50_000,
        help="positions a game's exact search may score before the game is skipped (default %(default)s)",
    )
    accuracy.add_argument(
        "--workers", type=workers, default=1, help="worker processes playing the games (default %(default)s)"
    )
    accuracy.add_argument("--quiet", action="store_true", help="no progress bar")
    accuracy.set_defaults(func=cmd_forest_accuracy)
    matrix = commands.add_parser("matrix", help="write a sweep's played cells (finished or not) as CSVs")
    matrix.add_argument("dir", help="sweep output directory")
    matrix.add_argument("prefix", help="output prefix: PREFIX_payoffs.csv and PREFIX_std.csv")
    matrix.set_defaults(func=cmd_matrix)
    seats = commands.add_parser("seats", help="did the seat decide the games? Appendix B's dispersion and ours")
    seats.add_argument("dirs", nargs="*", help="sweep directories whose first-player shares to print")
    seats.add_argument("--low", type=integer(0), default=24, help="fewest bolts of a mid-range deck")
    seats.add_argument("--high", type=integer(0), default=44, help="most bolts of a mid-range deck")
    seats.set_defaults(func=cmd_seats)
    return parser


def main(argv: list[str] | None = None):
    """Run one command; its dataclass (:class:`Run`, :class:`Comparison`, :class:`Paired`,
    :class:`ForestAccuracy`, :class:`MatrixFiles` or :class:`Seats`) holds what it found."""
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    run_script(main, report)

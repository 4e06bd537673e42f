"""Esche (2018) Table 3.1: random forests of 9 against 27 trees, accuracy and evaluation time.

Trains both forests on positions where a player first reached the life
threshold (labelled by full minimax), then, on several fresh test sets, counts
wrong predictions (scaled to 200 positions, as in the thesis) and times the
evaluation of the whole set; Welch t-tests as in ch. 3.1 (H_A: 27 trees more
accurate; H_A: 27 trees slower). Smaller than the thesis's 1000 training games
and 20 sets of 200 so it finishes in minutes on two cores.

``--curve 1,3,9,27,81`` adds Figures 3.1 and 3.2: the out-of-sample accuracy
and the evaluation time against the number of trees, on the same training
positions and test sets (``--plot PATH`` draws both panels). The thesis
publishes the figures without their numbers; its text reads them as "an
accuracy of 85%" with the choice falling between 9 and 27 trees.

    python scripts/esche/esche_table_3_1_forest.py [--train-games 400] [--sets 5] [--set-games 120] [--jobs 2]
        [--curve 1,3,9,27,81 --plot figures_3_1_3_2.png]
"""

import argparse
import time
from dataclasses import dataclass

import numpy as np
from scipy import stats

from gamelp.cli.args import OneLineParser, int_list, integer, plot_path, run_script, workers
from gamelp.games.errors import ForestError
from gamelp.games.mtg.engine import LIFE_THRESHOLD
from gamelp.games.mtg.forest import Forest, collect_positions, train_forest
from gamelp.games.runner import process_pool
from gamelp.io import atomic_path

THESIS = {9: (37.8, 17.43, 4.77, 0.037), 27: (34.25, 30.69, 11.55, 1.079)}  # mean/var wrong, mean/var ms


@dataclass
class ForestTable:
    """Table 3.1 (9 against 27 trees) and, with ``--curve``, Figures 3.1 and 3.2 (every tree count)."""

    positions: int  # training positions
    first_player_wins: float  # share of the training positions player 1 wins
    training_seconds: float  # collecting the training positions
    sets: int  # test sets
    wrong: dict[int, list[float]]  # trees -> wrong predictions per test set, scaled to 200 positions
    millis: dict[int, list[float]]  # trees -> evaluation time per test set, ms per 200 positions
    fewer_errors: tuple[float, float]  # Welch t and p, H_A: 27 trees make fewer errors
    slower: tuple[float, float]  # Welch t and p, H_A: 27 trees are slower
    curve: list[int]  # the tree counts of Figures 3.1 and 3.2 (empty without --curve)
    plot: str | None  # the plot written

    def accuracy(self, trees: int) -> np.ndarray:
        """Out-of-sample accuracy of each test set."""
        return 1 - np.array(self.wrong[trees]) / 200


def _collect(job):
    games, threshold, seed, cap = job
    data = collect_positions(games, (threshold,), seed, label_cap=cap)
    return data.X[threshold], data.y[threshold]


def collect(games, threshold, seed, cap, jobs):
    sizes = [games // jobs + (k < games % jobs) for k in range(jobs)]  # as even as np.array_split, no array
    chunks = [(size, threshold, seed * 1000 + k, cap) for k, size in enumerate(sizes) if size]
    if jobs == 1:
        parts = [_collect(chunk) for chunk in chunks]  # the same chunk, no worker process
    else:
        with process_pool(jobs) as pool:
            parts = list(pool.map(_collect, chunks))
    return np.vstack([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--train-games",
        type=integer(1),
        default=400,
        help="games whose positions train the forests (default %(default)s)",
    )
    parser.add_argument("--sets", type=integer(1), default=5, help="test sets (default %(default)s)")
    parser.add_argument("--set-games", type=integer(1), default=120, help="games per test set (default %(default)s)")
    parser.add_argument(
        "--threshold",
        type=integer(1),
        default=LIFE_THRESHOLD,
        help="life threshold of the positions (default %(default)s)",
    )
    parser.add_argument(
        "--label-cap",
        type=integer(1),
        default=50_000,
        help="positions a game's exact search may score before the game is skipped (default %(default)s)",
    )
    parser.add_argument(
        "--jobs", type=workers, default=2, help="worker processes collecting positions (default %(default)s)"
    )
    parser.add_argument(
        "--seed",
        type=integer(0),
        default=0,
        help="seed of the training games; test set k uses seed + 1 + k (default %(default)s)",
    )
    parser.add_argument(
        "--curve", type=int_list, default=[], help="tree counts for Figures 3.1 and 3.2, e.g. 1,3,9,27,81"
    )
    parser.add_argument("--plot", type=plot_path, help="PNG of the accuracy and time curves (with --curve)")
    return parser


def main(argv: list[str] | None = None) -> ForestTable:
    parser = build_parser()
    args = parser.parse_args(argv)
    if any(n < 1 for n in args.curve):
        parser.error(f"--curve: tree counts must be at least 1, got {args.curve}")
    counts = sorted({9, 27, *args.curve})

    start = time.perf_counter()
    X, y = collect(args.train_games, args.threshold, args.seed, args.label_cap, args.jobs)
    training_seconds = time.perf_counter() - start
    forests = {n: Forest.from_sklearn(train_forest(X, y, trees=n, seed=args.seed)) for n in counts}
    for forest in forests.values():
        forest.predict(X[:1])  # compile before timing
    wrong = {n: [] for n in counts}
    millis = {n: [] for n in counts}
    for k in range(args.sets):
        Xt, yt = collect(args.set_games, args.threshold, args.seed + 1 + k, args.label_cap, args.jobs)
        if not len(yt):
            raise ForestError(f"test set {k + 1}: no labelled positions (every game passed the label cap)")
        for n, forest in forests.items():
            t = time.perf_counter()
            predicted = forest.predict(Xt)
            millis[n].append((time.perf_counter() - t) * 1000 * 200 / len(yt))
            wrong[n].append(float((predicted != yt).sum() * 200 / len(yt)))
    acc = stats.ttest_ind(wrong[27], wrong[9], equal_var=False, alternative="less")
    slow = stats.ttest_ind(millis[9], millis[27], equal_var=False, alternative="less")
    result = ForestTable(
        positions=len(y),
        first_player_wins=float(y.mean()),
        training_seconds=training_seconds,
        sets=args.sets,
        wrong=wrong,
        millis=millis,
        fewer_errors=(float(acc.statistic), float(acc.pvalue)),
        slower=(float(slow.statistic), float(slow.pvalue)),
        curve=list(args.curve),
        plot=args.plot if args.curve else None,
    )
    if result.plot:
        plot_curve(result, result.plot)
    return result


def report(result: ForestTable) -> None:
    wrong, millis = result.wrong, result.millis
    print(
        f"training positions: {result.positions} (player 1 wins {result.first_player_wins:.0%}), "
        f"{result.training_seconds:.0f} s"
    )
    print(f"\n{'':28}{'ours 9':>10}{'ours 27':>10}{'thesis 9':>10}{'thesis 27':>10}")
    rows = (
        ("wrong of 200, mean", lambda n: np.mean(wrong[n]), 0),
        ("wrong of 200, variance", lambda n: np.var(wrong[n], ddof=1), 1),
        ("time per 200 (ms), mean", lambda n: np.mean(millis[n]), 2),
        ("time per 200 (ms), var", lambda n: np.var(millis[n], ddof=1), 3),
    )
    for label, ours, index in rows:
        print(f"{label:28}{ours(9):10.3f}{ours(27):10.3f}{THESIS[9][index]:10.3f}{THESIS[27][index]:10.3f}")
    print(f"{'number of sets':28}{result.sets:10d}{result.sets:10d}{20:10d}{20:10d}")
    (t_acc, p_acc), (t_slow, p_slow) = result.fewer_errors, result.slower
    print(f"\n27 trees fewer errors: t = {t_acc:.3f}, p = {p_acc:.3g} (thesis: t = -1.475, p = .075)")
    print(f"27 trees slower:       t = {t_slow:.3f}, p = {p_slow:.3g} (thesis: t = -121.5, p ~ 0)")
    print(
        f"accuracy: 9 trees {result.accuracy(9).mean():.1%}, 27 trees {result.accuracy(27).mean():.1%} "
        f"(thesis: {1 - 37.8 / 200:.1%}, {1 - 34.25 / 200:.1%}); "
        "times are our compiled forests' (the thesis timed DecisionTree.jl on a 2.13 GHz laptop)"
    )
    if result.curve:
        print_curve(result)


def print_curve(result: ForestTable) -> None:
    """Figures 3.1 and 3.2 as a table: accuracy and time per 200 positions by tree count."""
    print(f"\n{'trees':>6} {'accuracy':>9} {'sd':>6} {'ms per 200':>11}   (Figures 3.1 and 3.2)")
    for n in result.curve:
        accuracy = result.accuracy(n)
        print(
            f"{n:6d} {accuracy.mean():9.1%} {accuracy.std(ddof=1) if len(accuracy) > 1 else 0:6.3f} "
            f"{np.mean(result.millis[n]):11.3f}"
        )
    if result.plot:
        print(f"wrote {result.plot}")


def plot_curve(result: ForestTable, plot: str) -> None:
    """Figures 3.1 and 3.2 as two panels, written atomically to ``plot``."""
    import matplotlib.pyplot as plt

    counts = result.curve
    accuracy = {n: result.accuracy(n) for n in counts}
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.4))
    left.errorbar(counts, [accuracy[n].mean() for n in counts], [accuracy[n].std() for n in counts], marker="o")
    left.set(xscale="log", xlabel="trees", ylabel="out-of-sample accuracy", title="Figure 3.1")
    right.plot(counts, [np.mean(result.millis[n]) for n in counts], marker="o")
    right.set(xscale="log", xlabel="trees", ylabel="ms per 200 positions", title="Figure 3.2")
    with atomic_path(plot) as temporary:
        fig.savefig(temporary, dpi=110, bbox_inches="tight")
    plt.close(fig)


if __name__ == "__main__":
    run_script(main, report)

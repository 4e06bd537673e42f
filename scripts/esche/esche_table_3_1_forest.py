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

    python scripts/esche_table_3_1_forest.py [--train-games 400] [--sets 5] [--set-games 120] [--jobs 2]
        [--curve 1,3,9,27,81 --plot figures_3_1_3_2.png]
"""

import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from scipy import stats

from gamelp.cli.args import OneLineParser, int_list, run_script
from gamelp.games.mtg.forest import Forest, collect_positions, train_forest

THESIS = {9: (37.8, 17.43, 4.77, 0.037), 27: (34.25, 30.69, 11.55, 1.079)}  # mean/var wrong, mean/var ms


def _collect(job):
    games, threshold, seed, cap = job
    data = collect_positions(games, (threshold,), seed, label_cap=cap)
    return data.X[threshold], data.y[threshold]


def collect(games, threshold, seed, cap, jobs):
    chunks = [(len(part), threshold, seed * 1000 + k, cap)
              for k, part in enumerate(np.array_split(np.arange(games), jobs)) if len(part)]
    with ProcessPoolExecutor(jobs) as pool:
        parts = list(pool.map(_collect, chunks))
    return np.vstack([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def main(argv=None):
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train-games", type=int, default=400)
    parser.add_argument("--sets", type=int, default=5)
    parser.add_argument("--set-games", type=int, default=120)
    parser.add_argument("--threshold", type=int, default=12)
    parser.add_argument("--label-cap", type=int, default=50_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--curve", type=int_list, default=[],
                        help="tree counts for Figures 3.1 and 3.2, e.g. 1,3,9,27,81")
    parser.add_argument("--plot", help="PNG of the accuracy and time curves (with --curve)")
    args = parser.parse_args(argv)
    if any(n < 1 for n in args.curve):
        parser.error(f"--curve: tree counts must be at least 1, got {args.curve}")
    counts = sorted({9, 27, *args.curve})

    start = time.perf_counter()
    X, y = collect(args.train_games, args.threshold, args.seed, args.label_cap, args.jobs)
    print(f"training positions: {len(y)} (player 1 wins {y.mean():.0%}), {time.perf_counter() - start:.0f} s")
    forests = {n: Forest.from_sklearn(train_forest(X, y, trees=n, seed=args.seed)) for n in counts}
    for forest in forests.values():
        forest.predict(X[:1])  # compile before timing
    wrong = {n: [] for n in counts}
    millis = {n: [] for n in counts}
    for k in range(args.sets):
        Xt, yt = collect(args.set_games, args.threshold, args.seed + 1 + k, args.label_cap, args.jobs)
        for n, forest in forests.items():
            t = time.perf_counter()
            predicted = forest.predict(Xt)
            millis[n].append((time.perf_counter() - t) * 1000 * 200 / len(yt))
            wrong[n].append((predicted != yt).sum() * 200 / len(yt))
    print(f"\n{'':28}{'ours 9':>10}{'ours 27':>10}{'thesis 9':>10}{'thesis 27':>10}")
    rows = (("wrong of 200, mean", lambda n: np.mean(wrong[n]), 0),
            ("wrong of 200, variance", lambda n: np.var(wrong[n], ddof=1), 1),
            ("time per 200 (ms), mean", lambda n: np.mean(millis[n]), 2),
            ("time per 200 (ms), var", lambda n: np.var(millis[n], ddof=1), 3))
    for label, ours, index in rows:
        print(f"{label:28}{ours(9):10.3f}{ours(27):10.3f}{THESIS[9][index]:10.3f}{THESIS[27][index]:10.3f}")
    print(f"{'number of sets':28}{args.sets:10d}{args.sets:10d}{20:10d}{20:10d}")
    acc = stats.ttest_ind(wrong[27], wrong[9], equal_var=False, alternative="less")
    slow = stats.ttest_ind(millis[9], millis[27], equal_var=False, alternative="less")
    print(f"\n27 trees fewer errors: t = {acc.statistic:.3f}, p = {acc.pvalue:.3g} (thesis: t = -1.475, p = .075)")
    print(f"27 trees slower:       t = {slow.statistic:.3f}, p = {slow.pvalue:.3g} (thesis: t = -121.5, p ~ 0)")
    print(f"accuracy: 9 trees {1 - np.mean(wrong[9]) / 200:.1%}, 27 trees {1 - np.mean(wrong[27]) / 200:.1%} "
          f"(thesis: {1 - 37.8 / 200:.1%}, {1 - 34.25 / 200:.1%}); "
          "times are our compiled forests' (the thesis timed DecisionTree.jl on a 2.13 GHz laptop)")
    if args.curve:
        print_curve(args.curve, wrong, millis, args.plot)


def print_curve(counts, wrong, millis, plot) -> None:
    """Figures 3.1 and 3.2 as a table (and a plot): accuracy and time per 200 positions by tree count."""
    print(f"\n{'trees':>6} {'accuracy':>9} {'sd':>6} {'ms per 200':>11}   (Figures 3.1 and 3.2)")
    accuracy = {n: 1 - np.array(wrong[n]) / 200 for n in counts}
    for n in counts:
        print(f"{n:6d} {accuracy[n].mean():9.1%} {accuracy[n].std(ddof=1) if len(accuracy[n]) > 1 else 0:6.3f} "
              f"{np.mean(millis[n]):11.3f}")
    if plot:
        import matplotlib.pyplot as plt

        fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.4))
        left.errorbar(counts, [accuracy[n].mean() for n in counts], [accuracy[n].std() for n in counts], marker="o")
        left.set(xscale="log", xlabel="trees", ylabel="out-of-sample accuracy", title="Figure 3.1")
        right.plot(counts, [np.mean(millis[n]) for n in counts], marker="o")
        right.set(xscale="log", xlabel="trees", ylabel="ms per 200 positions", title="Figure 3.2")
        fig.savefig(plot, dpi=110, bbox_inches="tight")
        print(f"wrote {plot}")


if __name__ == "__main__":
    run_script(main)

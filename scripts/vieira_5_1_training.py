"""Vieira (2020), Section 5.1 / Figure 5.1: a self-play PPO training session of a learned LOCM drafter.

Trains the first- and second-player networks of the Immediate, History or
LSTM approach with the thesis's hyperparameters (Appendix A, Tables A.2 / A.3),
evaluates both twelve times against the max-attack drafter, and writes in
``--out``: ``policy.npz`` (both seats; draft with it as ``file:DIR/policy.npz``),
``curve.csv`` (episodes, seat, win rate) and ``curve.png`` (the learning
curves per seat and their mean, like Figure 5.1).  ``--minibatches`` replaces
the thesis's number of PPO mini-batches for both seats: its batches of 2 or
3 steps cost one gradient step per environment step or more.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import sys
import time
from pathlib import Path

from gamelp.errors import GamelpError


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--approach", choices=["immediate", "history", "lstm"], default="immediate")
    parser.add_argument("--battler", choices=["max-attack", "greedy"], default="max-attack")
    parser.add_argument("--episodes", type=int, default=30000, help="training episodes per seat (default %(default)s)")
    parser.add_argument("--eval-episodes", type=int, default=1000,
                        help="matches per checkpoint and seat against max-attack (default %(default)s)")
    parser.add_argument("--minibatches", type=int, help="PPO mini-batches per batch for both seats "
                                                         "(default: the thesis's)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="out/vieira_5_1", help="output directory (default %(default)s)")
    args = parser.parse_args(argv)
    try:
        return _run(args)
    except GamelpError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _run(args) -> int:
    import matplotlib.pyplot as plt
    from tqdm import tqdm

    from gamelp.games.locm.policy import save_policy
    from gamelp.games.locm.train import THESIS_SETTINGS, train
    from gamelp.io import atomic_path, atomic_write

    settings = THESIS_SETTINGS[args.approach, args.battler]
    if args.minibatches:
        settings = tuple(dataclasses.replace(seat, minibatches=args.minibatches) for seat in settings)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with tqdm(total=args.episodes, unit="episode", desc=f"{args.approach}/{args.battler}") as bar:
        result = train(args.approach, args.battler, args.episodes, seed=args.seed, eval_episodes=args.eval_episodes,
                       settings=settings, progress=lambda done: bar.update(done - bar.n))
    seconds = time.perf_counter() - start
    save_policy(out / "policy.npz", args.approach, result.drafter.policies)
    with atomic_write(out / "curve.csv", newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(["episodes", "seat", "win_rate"])
        writer.writerows(result.curve)

    print(f"{args.approach} with {args.battler}: {args.episodes} episodes per seat in {seconds:.0f} s")
    print(f"{'episodes':>9}  {'1st player':>10}  {'2nd player':>10}  {'mean':>6}")
    rates = {(episodes, seat): rate for episodes, seat, rate in result.curve}
    points = sorted({episodes for episodes, _, _ in result.curve})
    for episodes in points:
        first, second = rates[episodes, 0], rates[episodes, 1]
        print(f"{episodes:>9}  {100 * first:9.1f}%  {100 * second:9.1f}%  {50 * (first + second):5.1f}%")

    figure, axis = plt.subplots(figsize=(6, 4))
    for seat, label in ((0, "1st player"), (1, "2nd player")):
        axis.plot(points, [rates[episodes, seat] for episodes in points], marker="o", label=label)
    axis.plot(points, [(rates[e, 0] + rates[e, 1]) / 2 for e in points], linestyle="--", label="mean")
    axis.set_xlabel("training episodes")
    axis.set_ylabel("win rate against max-attack")
    axis.set_title(f"{args.approach} drafter, {args.battler} battler")
    axis.legend()
    with atomic_path(out / "curve.png") as path:
        figure.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(figure)
    print(f"wrote {out / 'policy.npz'}, {out / 'curve.csv'}, {out / 'curve.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

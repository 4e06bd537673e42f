"""Benchmark: the learned drafters' training throughput, environment alone and self-play PPO, on one core.

First the draft environment alone (``gamelp.games.locm.env.DraftEnv``,
uniformly random picks, the max-attack drafter as the opponent, one battle
per episode): environment steps and episodes per second with each battler.
Then self-play PPO training (``gamelp.games.locm.train.train``) of the
chosen approach for ``--episodes`` episodes per seat with 1 and 2
(``--envs``) environments per seat stepped together (Stable-Baselines3's
``DummyVecEnv``): episodes per second summed over both seats, with the
thesis's mini-batches (Vieira (2020), Appendix A) and with ``--minibatches``
instead.  The last lines estimate the wall time of a thesis session, 30,000
episodes per seat, at each measured rate (Vieira (2020), Section 5.1: 30
minutes with max-attack, 3 hours with greedy, on 4 cores and a GPU).  Every
measurement runs in this one process with ``torch.set_num_threads(1)``.

    python scripts/bench/bench_locm_train.py --episodes 100
"""

import argparse
import dataclasses
import sys
import time
from dataclasses import dataclass

from gamelp.cli.args import OneLineParser, int_list, integer, run_script

SESSION_EPISODES = 30_000


def environment_rate(battler: str, episodes: int) -> tuple[float, float]:
    """(steps/s, episodes/s) of the draft environment alone with random picks."""
    from gamelp.games.locm.env import DraftEnv

    env = DraftEnv("immediate", seat=0, opponent="max-attack", battler=battler)
    env.action_space.seed(0)
    steps, start = 0, time.perf_counter()
    for episode in range(episodes):
        env.reset(seed=episode)
        done = False
        while not done:
            done = env.step(env.action_space.sample())[2]
            steps += 1
    seconds = time.perf_counter() - start
    return steps / seconds, episodes / seconds


def training_rate(approach: str, battler: str, episodes: int, n_envs: int, minibatches: int | None) -> float:
    """Episodes/s of self-play training, both seats together, checkpoints of 10 matches each."""
    from gamelp.games.locm.train import THESIS_SETTINGS, train

    settings = tuple(
        dataclasses.replace(seat, minibatches=minibatches or seat.minibatches)
        for seat in THESIS_SETTINGS[approach, battler]
    )
    start = time.perf_counter()
    train(approach, battler, episodes, eval_episodes=10, settings=settings, n_envs=n_envs)
    return 2 * episodes / (time.perf_counter() - start)


@dataclass
class TrainingSpeed:
    """Per battler the environment's rates, then one row per training setting."""

    approach: str
    environment: list[dict]  # battler, steps_per_second, episodes_per_second, episodes
    training: list[dict]  # battler, envs (per seat), minibatches (None: the thesis's), episodes_per_second, hours
    #                       (of a 30,000-episode session, both seats, at that rate)


def battler_list(text: str) -> list[str]:
    from gamelp.games.locm.battlers import BATTLERS

    chosen = [b.strip() for b in text.split(",") if b.strip()]
    if not chosen or any(b not in BATTLERS for b in chosen):
        raise argparse.ArgumentTypeError(f"expected battlers among {', '.join(BATTLERS)}, got {text!r}")
    return chosen


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--approach",
        choices=["immediate", "history", "lstm"],
        default="immediate",
        help="the learned drafter trained by self-play PPO (default %(default)s)",
    )
    parser.add_argument(
        "--battlers", type=battler_list, default="max-attack,greedy", help="comma-separated (default %(default)s)"
    )
    parser.add_argument(
        "--episodes", type=integer(1), default=100, help="training episodes per seat (default %(default)s)"
    )
    parser.add_argument(
        "--env-episodes", type=integer(1), default=300, help="episodes of the environment alone (default %(default)s)"
    )
    parser.add_argument(
        "--minibatches",
        type=integer(1),
        default=10,
        help="the second training setting's PPO mini-batches (default %(default)s)",
    )
    parser.add_argument(
        "--envs", type=int_list, default=[1, 2], help="environments per seat to measure, comma-separated (default: 1,2)"
    )
    return parser


def main(argv: list[str] | None = None) -> TrainingSpeed:
    parser = build_parser()
    args = parser.parse_args(argv)
    if min(args.envs) < 1:
        parser.error(f"argument --envs: environments per seat must be at least 1, got {min(args.envs)}")

    from gamelp.games.locm.train import require_training_packages

    require_training_packages(args.approach)
    import torch

    torch.set_num_threads(1)
    environment, training = [], []
    for battler in args.battlers:
        steps, episodes = environment_rate(battler, args.env_episodes)
        environment.append(
            {
                "battler": battler,
                "steps_per_second": steps,
                "episodes_per_second": episodes,
                "episodes": args.env_episodes,
            }
        )
        for minibatches in (None, args.minibatches):
            for n_envs in args.envs:
                rate = training_rate(args.approach, battler, args.episodes, n_envs, minibatches)
                training.append(
                    {
                        "battler": battler,
                        "envs": n_envs,
                        "minibatches": minibatches,
                        "episodes_per_second": rate,
                        "hours": 2 * SESSION_EPISODES / rate / 3600,
                    }
                )
                print(f"{battler}: training with {n_envs} env(s)/seat measured", file=sys.stderr, flush=True)
    return TrainingSpeed(approach=args.approach, environment=environment, training=training)


def report(result: TrainingSpeed) -> None:
    print(f"{'battler':<11} {'measured':<62} {'rate':>12}  {'30,000-episode session':>22}")
    for env in result.environment:
        battler = env["battler"]
        print(
            f"{battler:<11} {'environment alone':<62} {env['steps_per_second']:8.0f} st/s  "
            f"({env['episodes_per_second']:.1f} episodes/s)"
        )
        for row in (row for row in result.training if row["battler"] == battler):
            label = f"{result.approach} training, {row['envs']} env(s)/seat, " + (
                "thesis mini-batches" if row["minibatches"] is None else f"{row['minibatches']} mini-batches"
            )
            print(f"{battler:<11} {label:<62} {row['episodes_per_second']:6.1f} ep/s   {row['hours']:17.1f} h")


if __name__ == "__main__":
    run_script(main, report)

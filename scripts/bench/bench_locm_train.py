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

    python scripts/bench_locm_train.py --episodes 100
"""

from __future__ import annotations

import argparse
import dataclasses
import time

from gamelp.cli.args import int_list

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

    settings = tuple(dataclasses.replace(seat, minibatches=minibatches or seat.minibatches)
                     for seat in THESIS_SETTINGS[approach, battler])
    start = time.perf_counter()
    train(approach, battler, episodes, eval_episodes=10, settings=settings, n_envs=n_envs)
    return 2 * episodes / (time.perf_counter() - start)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--approach", choices=["immediate", "history", "lstm"], default="immediate")
    parser.add_argument("--battlers", default="max-attack,greedy", help="comma-separated (default %(default)s)")
    parser.add_argument("--episodes", type=int, default=100, help="training episodes per seat (default %(default)s)")
    parser.add_argument("--env-episodes", type=int, default=300,
                        help="episodes of the environment alone (default %(default)s)")
    parser.add_argument("--minibatches", type=int, default=10,
                        help="the second training setting's PPO mini-batches (default %(default)s)")
    parser.add_argument("--envs", type=int_list, default=[1, 2],
                        help="environments per seat to measure, comma-separated (default: 1,2)")
    args = parser.parse_args(argv)

    import torch
    torch.set_num_threads(1)
    print(f"{'battler':<11} {'measured':<62} {'rate':>12}  {'30,000-episode session':>22}")
    for battler in (b.strip() for b in args.battlers.split(",") if b.strip()):
        steps, episodes = environment_rate(battler, args.env_episodes)
        print(f"{battler:<11} {'environment alone':<62} {steps:8.0f} st/s  ({episodes:.1f} episodes/s)")
        for minibatches in (None, args.minibatches):
            for n_envs in args.envs:
                rate = training_rate(args.approach, battler, args.episodes, n_envs, minibatches)
                label = (f"{args.approach} training, {n_envs} env(s)/seat, "
                         + ("thesis mini-batches" if minibatches is None else f"{minibatches} mini-batches"))
                hours = 2 * SESSION_EPISODES / rate / 3600
                print(f"{battler:<11} {label:<62} {rate:6.1f} ep/s   {hours:17.1f} h", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Benchmark: full LOCM 1.2 matches (draft and battle) per second, gamelp against gym-locm, same run.

Both engines play matches between two uniformly random drafters with the
named battler on both sides (max-attack and greedy, Vieira (2020),
Section 5.1), each for ``--seconds`` of wall time on one core; gamelp also
with ``--workers`` processes (matches/s summed over the processes).  A match
is the 30-turn draft, the shuffles and the battle to its end.

gym-locm (MIT, the thesis's engine) needs Python >= 3.12, so it runs in a
subprocess of ``--gym-python`` (an interpreter with ``pip install gym-locm``);
its wheel omits its card list, so the benchmark hands it ours (the same
160 cards).  Without ``--gym-python`` only gamelp is measured.  gym-locm
draws its draft offers from numpy, gamelp from the referee's Java generator;
both play the same rules and the same battler policies.

The last lines estimate the wall time of a 5-drafter round-robin with
2,000 matches per pair (10 pairs) at the measured rates.

    python scripts/bench_locm.py --gym-python /tmp/gymlocm-venv/bin/python
    python scripts/bench_locm.py --battlers max-attack --seconds 5 --workers 1
"""

from __future__ import annotations

import argparse
import multiprocessing
import subprocess
import sys
import time
from importlib import resources

from gamelp.games.locm.battlers import make_battler
from gamelp.games.locm.match import play_match

GYM_DRIVER = r'''
import random, sys, time
import gym_locm.engine.card as card_module
from gym_locm.engine import Action, ActionType, Phase, State
from gym_locm.agents import GreedyBattleAgent, MaxAttackBattleAgent

kinds = {"creature": (card_module.Creature, 0), "itemGreen": (card_module.GreenItem, 1),
         "itemRed": (card_module.RedItem, 2), "itemBlue": (card_module.BlueItem, 3)}
cards = []
for line in open(sys.argv[1]):
    f = [x.strip() for x in line.split(";")]
    cls, type_id = kinds[f[2]]
    cards.append(cls(int(f[0]), f[1], type_id, int(f[3]), int(f[4]), int(f[5]), f[6], int(f[7]), int(f[8]),
                     int(f[9]), 0, f[10]))
card_module._cards = cards  # the list gym-locm's loader would have read from its missing resources
agent = {"max-attack": MaxAttackBattleAgent, "greedy": GreedyBattleAgent}[sys.argv[2]]()
budget = float(sys.argv[3])
rng = random.Random(0)
matches, start = 0, time.perf_counter()
while time.perf_counter() - start < budget:
    state = State(seed=matches, version="1.2")
    while state.phase == Phase.DRAFT:
        state.act(Action(ActionType.PICK, rng.randrange(3)))
    while state.phase != Phase.ENDED:
        state.act(agent.act(state))
    matches += 1
print(matches, time.perf_counter() - start)
'''


class UniformDrafter:
    """Picks one of the three offered cards uniformly at random (the match's generator)."""

    def pick(self, offer, chosen, seat, rng) -> int:
        return rng.randrange(3)


def gamelp_matches(battler_name: str, seconds: float, first_seed: int = 0) -> tuple[int, float]:
    """(matches played, seconds) within the budget, one process."""
    drafter, battler = UniformDrafter(), make_battler(battler_name)
    matches, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        play_match(drafter, drafter, battler, battler, first_seed + matches)
        matches += 1
    return matches, time.perf_counter() - start


def _worker(job: tuple[str, float, int]) -> tuple[int, float]:
    return gamelp_matches(*job)


def gamelp_rate(battler_name: str, seconds: float, workers: int) -> float:
    if workers == 1:
        matches, elapsed = gamelp_matches(battler_name, seconds)
        return matches / elapsed
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        results = pool.map(_worker, [(battler_name, seconds, 10_000_000 * w) for w in range(workers)])
    return sum(matches / elapsed for matches, elapsed in results)


def gym_rate(python: str, battler_name: str, seconds: float) -> float:
    with resources.as_file(resources.files("gamelp.games.locm").joinpath("data", "cardlist-v1.2.txt")) as cards:
        run = subprocess.run([python, "-c", GYM_DRIVER, str(cards), battler_name, str(seconds)],
                             capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise SystemExit(f"gym-locm run failed with {python}: {run.stderr.strip().splitlines()[-1:]}")
    matches, elapsed = run.stdout.split()
    return int(matches) / float(elapsed)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--battlers", default="max-attack,greedy", help="comma-separated (default: both)")
    parser.add_argument("--seconds", type=float, default=20.0, help="wall time per measurement (default: 20)")
    parser.add_argument("--workers", default="1,2", help="gamelp process counts to measure (default: 1,2)")
    parser.add_argument("--gym-python", help="a Python >= 3.12 with gym-locm installed (omit to skip gym-locm)")
    args = parser.parse_args(argv)
    workers = [int(w) for w in args.workers.split(",")]

    print(f"{'battler':<11} {'engine':<18} {'matches/s':>10} {'vs gym-locm':>12}")
    rates = {}
    for name in args.battlers.split(","):
        gym = gym_rate(args.gym_python, name, args.seconds) if args.gym_python else None
        if gym is not None:
            print(f"{name:<11} {'gym-locm, 1 core':<18} {gym:>10.1f} {'1.0x':>12}", flush=True)
        for count in workers:
            rate = gamelp_rate(name, args.seconds, count)
            rates[name, count] = rate
            ratio = f"{rate / gym:.1f}x" if gym else "-"
            print(f"{name:<11} {f'gamelp, {count} proc':<18} {rate:>10.1f} {ratio:>12}", flush=True)
    matches = 10 * 2000
    for (name, count), rate in rates.items():
        print(f"5-drafter round-robin, 2,000 matches per pair, {name}, {count} proc: "
              f"{matches / rate / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())

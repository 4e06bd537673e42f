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

First, where gym-locm runs, the benchmark checks that the two compare like
with like: at every position of ``--agreement-matches`` matches (rendered as
the referee's text, which gym-locm parses, plus the mana left and the
creatures still able to attack) gym-locm's max-attack and greedy agents
must choose the action ours choose.

The last lines estimate the wall time of a 5-drafter round-robin with
2,000 matches per pair (10 pairs) at the measured rates.

    python scripts/bench/bench_locm.py --gym-python /tmp/gymlocm-venv/bin/python
    python scripts/bench/bench_locm.py --battlers max-attack --seconds 5 --workers 1
"""

import argparse
import json
import multiprocessing
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from gamelp.cli.args import OneLineParser, finite_float, integer, name_list, run_script, worker_counts
from gamelp.games.locm.battlers import BATTLERS, make_battler
from gamelp.games.locm.draft import RefereeSeeds, draft_offers, shuffled_deck
from gamelp.games.locm.engine import PASS, State
from gamelp.games.locm.match import play_match
from gamelp.games.runner import process_pool

GYM_DRIVER = r"""
import json, random, sys, time
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
agents = {"max-attack": MaxAttackBattleAgent(), "greedy": GreedyBattleAgent()}

if sys.argv[2] == "agree":  # positions rendered by gamelp: does gym-locm's agent choose gamelp's action?
    kind = {ActionType.PASS: 0, ActionType.SUMMON: 1, ActionType.ATTACK: 2, ActionType.USE: 3}
    agree = dict.fromkeys(agents, 0)
    for line in open(sys.argv[3]):
        position = json.loads(line)
        state = State.from_native_input(position["text"])
        state.current_player.mana = position["mana"]  # the text shows the turn's maximum
        for lane in state.current_player.lanes:
            for creature in lane:
                creature.can_attack = creature.instance_id in position["ready"]
                creature.has_attacked_this_turn = not creature.can_attack
        for name, agent in agents.items():
            action = agent.act(state)
            target = action.target
            target = -1 if target is None else getattr(target, "instance_id", target)
            chosen = [0, -1, -1] if action.type == ActionType.PASS else [kind[action.type], action.origin, int(target)]
            agree[name] += chosen == position[name]
    print(json.dumps(agree))
    sys.exit()

agent = agents[sys.argv[2]]
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
"""


class UniformDrafter:
    """Picks one of the three offered cards uniformly at random (the match's generator)."""

    def pick(self, offer, chosen, seat, rng) -> int:
        return rng.randrange(3)


def gamelp_matches(battler_name: str, seconds: float, first_seed: int = 0) -> tuple[int, float]:
    """(matches played, seconds) within the budget, one process."""
    drafter, battler = UniformDrafter(), make_battler(battler_name)
    matches, start = 0, time.perf_counter()
    while matches == 0 or time.perf_counter() - start < seconds:  # one match at least: a rate to divide by
        play_match(drafter, drafter, battler, battler, first_seed + matches)
        matches += 1
    return matches, time.perf_counter() - start


def _worker(job: tuple[str, float, int]) -> tuple[int, float]:
    return gamelp_matches(*job)


def gamelp_rate(battler_name: str, seconds: float, workers: int) -> tuple[int, float]:
    """(matches played, matches/s summed over the ``workers`` processes)."""
    if workers == 1:
        results = [gamelp_matches(battler_name, seconds)]
    else:
        with process_pool(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            results = list(pool.map(_worker, [(battler_name, seconds, 10_000_000 * w) for w in range(workers)]))
    return sum(matches for matches, _ in results), sum(matches / elapsed for matches, elapsed in results)


def _run_gym(python: str, *args: str) -> str:
    with resources.as_file(resources.files("gamelp.games.locm").joinpath("data", "cardlist-v1.2.txt")) as cards:
        run = subprocess.run([python, "-c", GYM_DRIVER, str(cards), *args], capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise SystemExit(f"gym-locm run failed with {python}: {run.stderr.strip().splitlines()[-1:]}")
    return run.stdout


def gym_rate(python: str, battler_name: str, seconds: float) -> tuple[int, float]:
    """(matches played, matches/s) of gym-locm on one core."""
    matches, elapsed = _run_gym(python, battler_name, str(seconds)).split()
    return int(matches), int(matches) / float(elapsed)


def battler_positions(matches: int) -> list[dict]:
    """Every position where a battler acts in ``matches`` seeded matches (random drafts; turns played
    alternately by greedy and random), with gamelp's max-attack and greedy choices there."""
    rng = random.Random(0)
    choosers = {"max-attack": make_battler("max-attack"), "greedy": make_battler("greedy")}
    players = (make_battler("greedy"), make_battler("random"))
    positions = []
    for seed in range(matches):
        seeds = RefereeSeeds.from_seed(seed)
        decks = [[offer[rng.randrange(3)] for offer in draft_offers(seeds.draft).tolist()] for _ in (0, 1)]
        state = State.new(shuffled_deck(decks[0], seeds.shuffle0), shuffled_deck(decks[1], seeds.shuffle1))
        player = players[seed % 2]
        while True:
            state.start_turn()
            while state.winner < 0:
                me = state.current
                position = {
                    "text": state.render(),
                    "mana": state.mana[me],
                    "ready": [c for c in state.board[me] if state.can_attack[c]],
                }
                position.update({name: list(b.act(state, rng)) for name, b in choosers.items()})
                positions.append(position)
                action = player.act(state, rng)
                if action[0] == PASS:
                    break
                state.play(action)
            if state.winner >= 0:
                break
    return positions


def gym_agreement(python: str, matches: int) -> tuple[int, dict]:
    """(positions, how many of them gym-locm's agents choose gamelp's action at, per battler)."""
    positions = battler_positions(matches)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "positions.jsonl"
        path.write_text("".join(json.dumps(p) + "\n" for p in positions))
        return len(positions), json.loads(_run_gym(python, "agree", str(path)))


ROUND_ROBIN_MATCHES = 10 * 2000  # 5 drafters: 10 pairs, 2,000 matches each


@dataclass
class LocmSpeed:
    """Matches per second of each engine and battler, and the round-robin's estimated wall time."""

    agreement: tuple[int, dict] | None  # positions checked, and per battler how many gym-locm chose ours at
    rows: list[dict]  # battler, engine ("gym-locm" or "gamelp"), processes, rate (matches/s), ratio (to gym-locm's
    #                   rate, None without gym-locm), matches

    @property
    def estimates(self) -> dict[tuple[str, int], float]:
        """Minutes of the 5-drafter round-robin at each gamelp (battler, processes) rate."""
        return {
            (row["battler"], row["processes"]): ROUND_ROBIN_MATCHES / row["rate"] / 60
            for row in self.rows
            if row["engine"] == "gamelp"
        }


def build_parser() -> OneLineParser:
    parser = OneLineParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__
    )
    parser.add_argument(
        "--battlers", type=name_list(BATTLERS), default="max-attack,greedy", help="comma-separated (default: both)"
    )
    parser.add_argument(
        "--seconds", type=finite_float(0.0, strict=True), default=20.0, help="wall time per measurement (default: 20)"
    )
    parser.add_argument(
        "--workers", type=worker_counts, default=[1, 2], help="gamelp process counts to measure (default: 1,2)"
    )
    parser.add_argument("--gym-python", help="a Python >= 3.12 with gym-locm installed (omit to skip gym-locm)")
    parser.add_argument(
        "--agreement-matches",
        type=integer(0),
        default=30,
        help="matches whose positions check that gym-locm's battlers choose ours (default: 30)",
    )
    return parser


def main(argv: list[str] | None = None) -> LocmSpeed:
    parser = build_parser()
    args = parser.parse_args(argv)
    if min(args.workers) < 1:
        parser.error(f"argument --workers: process counts must be at least 1, got {min(args.workers)}")

    agreement = None
    if args.gym_python and args.agreement_matches:
        agreement = gym_agreement(args.gym_python, args.agreement_matches)
    rows = []
    for name in args.battlers:
        gym = None
        if args.gym_python:
            played, gym = gym_rate(args.gym_python, name, args.seconds)
            rows.append(
                {"battler": name, "engine": "gym-locm", "processes": 1, "rate": gym, "ratio": 1.0, "matches": played}
            )
        for count in args.workers:
            played, rate = gamelp_rate(name, args.seconds, count)
            rows.append(
                {
                    "battler": name,
                    "engine": "gamelp",
                    "processes": count,
                    "rate": rate,
                    "ratio": rate / gym if gym else None,
                    "matches": played,
                }
            )
            print(f"{name}, gamelp, {count} proc: {played} matches", file=sys.stderr, flush=True)
    return LocmSpeed(agreement=agreement, rows=rows)


def report(result: LocmSpeed) -> None:
    if result.agreement is not None:
        count, agree = result.agreement
        print(
            f"same action as gym-locm's agent at {count} positions: "
            + ", ".join(f"{name} {agree[name]}" for name in agree)
        )
    print(f"{'battler':<11} {'engine':<18} {'matches/s':>10} {'vs gym-locm':>12} {'matches':>8}")
    for row in result.rows:
        engine = "gym-locm, 1 core" if row["engine"] == "gym-locm" else f"gamelp, {row['processes']} proc"
        ratio = f"{row['ratio']:.1f}x" if row["ratio"] is not None else "-"
        print(f"{row['battler']:<11} {engine:<18} {row['rate']:>10.1f} {ratio:>12} {row['matches']:>8}")
    for (name, count), minutes in result.estimates.items():
        print(f"5-drafter round-robin, 2,000 matches per pair, {name}, {count} proc: {minutes:.1f} min")


if __name__ == "__main__":
    run_script(main, report)

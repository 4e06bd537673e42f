"""The ``gamelp locm`` command: replay referee matches, play one match, run tournaments, train drafters.

``add_subparser(subparsers)`` hangs the ``locm`` group on gamelp's argparse
CLI; every leaf sets ``func(args) -> exit code`` and raises ``GamelpError``
for bad input (printed as one line, exit 2).

- ``gamelp locm replay FILE [--json]``: replay a referee consistency file and
  report, per match, whether our input text equals the referee's at every turn.
- ``gamelp locm play --drafters A,B --battlers X,Y --seed N [--json]``: one
  match (seat 0 plays first).
- ``gamelp locm tournament --drafters A,B,C --battler NAME --matches M --sets S
  --seed N --out DIR [--workers W | --scheduler ADDRESS] [--resume]``: a
  round-robin drafter tournament (``gamelp.games.locm.tournament``).

- ``gamelp locm train --approach immediate|history|lstm --battler max-attack|greedy
  --episodes N --out DIR [--seed N]``: self-play PPO training
  (``gamelp.games.locm.train``).

Replay and play take ``--cards FILE`` to use another 160-card list.
"""

from __future__ import annotations

import argparse

from gamelp.argtypes import MAX_COUNT, MAX_SEED, integer
from gamelp.cli.args import add_execution_options, execution_from
from gamelp.cli.output import print_json
from gamelp.games.errors import LocmError


def _split_names(text: str) -> list[str]:
    """The comma-separated names of ``text``, stripped; an empty one (``,icebox``, ``a,,b``) is refused."""
    names = [p.strip() for p in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"an empty name in {text!r}; name every agent (e.g. random)")
    return names


def _pair(text: str) -> tuple[str, str]:
    names = _split_names(text)
    if len(names) == 1:
        names *= 2
    if len(names) != 2:
        raise argparse.ArgumentTypeError(f"expected one name or two separated by a comma, got {text!r}")
    return names[0], names[1]


def _cards(args):
    """``--cards FILE`` (160 cards, as the draft draws from 160) or the shipped LOCM 1.2 list."""
    from gamelp.games.locm.cards import load_cards, locm12_cards

    if not args.cards:
        return locm12_cards()
    cards = load_cards(args.cards)
    if len(cards) != 160:
        raise LocmError(f"{args.cards}: {len(cards)} cards; the LOCM 1.2 draft needs 160")
    return cards


def _cmd_replay(args) -> int:
    from gamelp.games.locm.replay import replay_file

    report = replay_file(args.file, _cards(args))
    if args.json:
        print_json(report.as_dict())
    else:
        print(f"{report.consistent} of {report.matches} matches consistent; {report.turns_checked} turns checked")
        for mismatch in report.mismatches:
            print(
                f"match {mismatch['match']}: first difference at turn {mismatch['turn']} (player {mismatch['player']})"
            )
    return 0 if report.consistent == report.matches else 1


def _cmd_play(args) -> int:
    from gamelp.games.locm.battlers import make_battler
    from gamelp.games.locm.match import play_match

    cards = _cards(args)
    battlers = [make_battler(name) for name in args.battlers]
    from gamelp.games.locm.drafters import make_seated_drafter  # after the battlers: their names are checked first

    drafters = [make_seated_drafter(name, (seat,)) for seat, name in enumerate(args.drafters)]
    result = play_match(drafters[0], drafters[1], battlers[0], battlers[1], seed=args.seed, cards=cards)
    summary = {
        "seed": args.seed,
        "winner": result.winner,
        "battle_turns": result.turns,
        "seats": [
            {
                "drafter": args.drafters[s],
                "battler": args.battlers[s],
                "deck": list(result.decks[s]),
                "mean_cost": round(float(cards.cost[[c - 1 for c in result.decks[s]]].mean()), 3),
            }
            for s in (0, 1)
        ],
    }
    if args.json:
        print_json(summary)
    else:
        winner = summary["seats"][result.winner]
        print(
            f"seat {result.winner} ({winner['drafter']} / {winner['battler']}) wins after "
            f"{result.turns} battle turns (seed {args.seed})"
        )
        for seat in summary["seats"]:
            print(
                f"  {seat['drafter']} / {seat['battler']}: mean cost {seat['mean_cost']}, "
                f"deck {' '.join(map(str, seat['deck']))}"
            )
    return 0


def _cmd_tournament(args) -> int:
    from gamelp.deps import require
    from gamelp.games.locm.tournament import report_table, run_tournament

    require("matplotlib", "writing the tournament's figures (mana_curves.png, similarity.png)")  # before any match
    result = run_tournament(
        args.drafters,
        args.battler,
        matches=args.matches,
        sets=args.sets,
        seed=args.seed,
        out=args.out,
        execution=execution_from(args),
    )
    print(report_table(result))
    print(f"wrote {args.out}/winrates.csv, std.csv, seats.csv, mana_curves.csv/.png, similarity.csv/.png")
    return 0


def _names(text: str) -> list[str]:
    names = _split_names(text)
    if len(names) < 2:
        raise argparse.ArgumentTypeError(f"expected at least two comma-separated drafters, got {text!r}")
    return names


def add_subparser(commands) -> argparse.ArgumentParser:
    """Add ``locm`` and its subcommands to gamelp's subparsers; returns the group's parser."""
    locm = commands.add_parser("locm", help="Legends of Code and Magic 1.2: replay referee matches, play matches")
    sub = locm.add_subparsers(dest="locm_command", required=True)

    replay = sub.add_parser("replay", help="replay a referee consistency file and compare the input texts")
    replay.add_argument("file", help="consistency file: one referee match per line (.xz accepted)")
    replay.add_argument("--json", action="store_true", help="print matches, consistent, turns_checked, mismatches")
    replay.add_argument("--cards", help="card list file (default: the shipped LOCM 1.2 list)")
    replay.set_defaults(func=_cmd_replay)

    play = sub.add_parser("play", help="play one match (draft and battle) and print the winner")
    play.add_argument(
        "--drafters",
        type=_pair,
        default=("random", "random"),
        help="drafter of seat 0 and seat 1, e.g. icebox,random (default: random)",
    )
    play.add_argument(
        "--battlers",
        type=_pair,
        default=("max-attack", "max-attack"),
        help="battler of seat 0 and seat 1: pass, random, max-attack, greedy (default: max-attack)",
    )
    play.add_argument(
        "--seed", type=integer(0, MAX_SEED), default=0, help="match seed: draft offers, shuffles, agents' randomness"
    )
    play.add_argument("--json", action="store_true", help="print the summary as JSON")
    play.add_argument("--cards", help="card list file (default: the shipped LOCM 1.2 list)")
    play.set_defaults(func=_cmd_play)

    tour = sub.add_parser(
        "tournament",
        help="round-robin drafter tournament with one battler",
        description="Every pair of drafters plays S sets of M matches, each drafter in the first "
        "seat in half of the sets; the i-th match of every pair has the same draft "
        "offers and deck shuffles. Writes DIR/winrates.csv, std.csv, seats.csv, "
        "mana_curves.csv/.png, similarity.csv/.png and the store matches.sqlite.",
    )
    tour.add_argument(
        "--drafters",
        type=_names,
        default=["random", "max-attack", "coac", "closet-ai", "icebox"],
        help="comma-separated drafters (default: random,max-attack,coac,closet-ai,icebox)",
    )
    tour.add_argument("--battler", default="max-attack", help="battler of both seats (default: max-attack)")
    tour.add_argument("--matches", type=integer(1, MAX_COUNT), default=1000, help="matches per set (default: 1000)")
    tour.add_argument(
        "--sets",
        type=integer(2, MAX_COUNT),
        default=2,
        help="sets per pair, an even number: seats alternate (default: 2)",
    )
    tour.add_argument("--seed", type=integer(0, MAX_SEED), default=0, help="tournament seed (default: 0)")
    tour.add_argument("--out", metavar="DIR", required=True, help="output directory")
    add_execution_options(tour)
    tour.set_defaults(func=_cmd_tournament)

    train = sub.add_parser(
        "train",
        help="train a learned drafter by self-play PPO (Vieira 2020, Section 5.1)",
        description="Writes DIR/policy.npz (both seats), curve.csv and curve.png.",
    )
    _train_module().add_train_arguments(train)
    train.set_defaults(func=lambda args: _train_module().run_train(args))
    return locm


def _train_module():
    """The training module, imported when the ``locm`` group is built (torch and gymnasium only when it trains)."""
    from gamelp.games.locm import train

    return train

"""Vieira (2020), Section 5.1 / Figure 5.1: a self-play PPO training session of a learned LOCM drafter.

Trains the first- and second-player networks of the Immediate, History or
LSTM approach with the thesis's hyperparameters (Appendix A, Tables A.2 / A.3),
evaluates both twelve times against the max-attack drafter, and writes in
``--out``: ``policy.npz`` (both seats; draft with it as ``file:DIR/policy.npz``),
``curve.csv`` (episodes, seat, win rate) and ``curve.png`` (the learning
curves per seat and their mean, like Figure 5.1).  The same as ``gamelp locm
train``.  ``--minibatches`` replaces the thesis's number of PPO mini-batches
for both seats (its batches of 2 or 3 steps cost one gradient step per
environment step or more) and ``--learning-rate-scale`` multiplies its
learning rates; ``--envs`` steps several environments per seat together.
"""

from __future__ import annotations

import argparse

from gamelp.cli.args import OneLineParser, run_script
from gamelp.games.locm.train import TrainingSession, add_train_arguments, train_from_args


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_train_arguments(parser, default_out="out/vieira_5_1")
    return parser


def main(argv: list[str] | None = None) -> TrainingSession:
    """Train; the result holds the learning curve, rows (episodes per seat, seat, win rate against max-attack)."""
    args = build_parser().parse_args(argv)
    return train_from_args(args)


def report(result: TrainingSession) -> None:
    print(result.report())


if __name__ == "__main__":
    run_script(main, report)

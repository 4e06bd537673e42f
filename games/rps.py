"""Rock-paper-scissors as a repeated win/lose game: the fixed-weight experiments of Giotta (2020).

W. Giotta (UCF, 2020), section 2.2 and appendix B: two players with fixed
mixed strategies play ``n_games`` = 1000 games, repeated 1000 times, and the
histograms of the two scores overlap only at the equilibrium (1/3, 1/3,
1/3).  The experiments (step adjustment, score distributions, MWU/OMWU
self-play) are the generic ones of :class:`gamelp.games.pennies.WinLossGame`
run on the rock-paper-scissors win matrix; this module holds the game and
the paper's weight pairs.
"""

from __future__ import annotations

import numpy as np

from gamelp.games.pennies import WinLossGame

RPS = WinLossGame(
    "rock-paper-scissors",
    np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]]),
    ("Rock", "Paper", "Scissors"),
)
"""Rows: A's action, columns: B's; rock beats scissors, scissors paper, paper rock."""

PAPER_WEIGHTS_A = (0.2, 0.6, 0.2)
PAPER_WEIGHTS_B = (0.4, 0.5, 0.1)
"""The weight pair of the paper's appendix B (its Table 4: A about 360, B about 240 wins)."""

EQUILIBRIUM = (1 / 3, 1 / 3, 1 / 3)

FIGURE2_PAIRS = {
    "favours A": (PAPER_WEIGHTS_A, PAPER_WEIGHTS_B),
    "favours B": (PAPER_WEIGHTS_B, PAPER_WEIGHTS_A),
    "equilibrium": (EQUILIBRIUM, EQUILIBRIUM),
}
"""The three panels of the paper's Figure 2: weights favouring A, favouring B, and equal."""

PAPER_START_A = (1.0, 0.0, 0.0)
PAPER_START_B = (0.0, 1.0, 0.0)
"""Pure, opposite starting strategies for the step-adjustment run (A rock, B paper)."""

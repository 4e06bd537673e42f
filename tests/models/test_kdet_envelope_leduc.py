"""The Lagrangian envelope and the search it feeds on full Leduc, against V(143) known exactly.

Kept apart from tests/models/test_kdet_envelope.py: each run takes tens of seconds of time-limited MIPs, too
long for every mutant of the envelope (scripts/mutation_score.py runs that file's tests).
"""

import numpy as np
import pytest

from gamelp.models.determinism import determinism
from gamelp.models.kdet_envelope import lagrangian_envelope
from gamelp.models.kdet_search import search_sweep
from gamelp.solution import OPTIMAL

pytestmark = pytest.mark.slow

# V(143) of Leduc, solved exactly by one MIP per choice of the mixing point (144 per player).
LEDUC_V143 = {1: -0.244000, 2: -0.197333}


@pytest.mark.parametrize("player", [1, 2])
def test_leduc_envelope_and_sweep_bracket_v143(leduc, player):
    """Time-limited everywhere: whatever the solver reached, bounds stay above V(143) and incumbents below it."""
    envelope = lagrangian_envelope(leduc, player, time_limit=1.0, max_solves=4)
    assert envelope.bounds()[143] >= LEDUC_V143[player] - 1e-6
    assert envelope.incumbents()[143] <= LEDUC_V143[player] + 1e-6
    sweep = search_sweep(leduc, player, time_limit=0.0, patience=1, envelope=1.0)
    point = sweep.points[143]
    assert point.value - 1e-6 <= LEDUC_V143[player] <= point.bound + 1e-6
    x = np.array([point.strategy[label] for label in leduc.player(player).labels])
    assert leduc.guaranteed_value(player, x) == pytest.approx(point.value, abs=1e-7)
    assert determinism(leduc.player(player), x) == point.determinism >= 143


def test_leduc_p143_on_gurobi_brackets_v143_within_its_gap(leduc):
    """Gurobi's MIP of P(143), stopped at 1 % of |V(0)|, brackets the enumerated V(143) of player 2 (about 10 s)."""
    pytest.importorskip("gurobipy")
    from gamelp.models.determinism import solve_kdet

    gap = 0.01 * 0.085606  # 1 % of |V(0)|, in the game's units
    result = solve_kdet(leduc, 2, 143, "gurobi", mip_gap=0.01, mip_abs_gap=gap, threads=1, time_limit=300)
    assert result.solution.status == OPTIMAL
    bound = result.solution.objective_bound
    assert result.value - 1e-6 <= LEDUC_V143[2] <= bound + 1e-6
    assert bound - result.value <= max(0.01 * abs(result.value), gap) * (1 + 1e-6)  # whichever gap it reached
    x = np.asarray(result.strategy)
    assert leduc.guaranteed_value(2, x) == pytest.approx(result.value, abs=1e-7)
    assert determinism(leduc.player(2), x) >= 143

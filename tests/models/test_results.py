"""Every game model's result follows one protocol: value, strategy and a JSON-ready to_dict()."""

import json

import numpy as np
import pytest

from gamelp.errors import ModelError
from gamelp.matrix import MatrixGame
from gamelp.models import SolverResult
from gamelp.models.determinism import k_sweep, solve_deterministic, solve_kdet
from gamelp.models.matrix_first_order import solve_matrix_first_order
from gamelp.models.nash import solve_matrix_nash, solve_nash
from gamelp.models.robust import solve_robust
from gamelp.regret import solve_regret

PENNIES = MatrixGame([[1.0, 0.0], [0.0, 1.0]], ["heads", "tails"], ["heads", "tails"], std=[[0.1, 0.1], [0.1, 0.1]])


def results(kuhn):
    yield solve_nash(kuhn, 2)
    yield solve_deterministic(kuhn, 1)
    yield solve_kdet(kuhn, 1, 3)
    yield k_sweep(kuhn, 1).points[2]
    yield solve_matrix_nash(PENNIES, "col")
    yield solve_matrix_nash(PENNIES, "row", form="thesis")
    yield solve_robust(PENNIES, "interval", 1.0)
    yield solve_matrix_first_order(PENNIES, "pcfr+", target_gap=1e-8)
    yield solve_regret(kuhn, "cfr+", 50)


def test_every_result_has_value_strategy_and_a_json_summary_that_agrees(kuhn):
    for result in results(kuhn):
        assert isinstance(result, SolverResult), type(result).__name__
        summary = json.loads(json.dumps(result.to_dict()))
        assert summary["value"] == pytest.approx(result.value, abs=1e-12)
        strategy = (
            result.strategy
            if isinstance(result.strategy, dict)
            else dict(zip(summary["strategy"], np.asarray(result.strategy).tolist()))
        )
        assert summary["strategy"] == pytest.approx(strategy, abs=1e-12), type(result).__name__


def test_a_matrix_result_refuses_a_player_it_does_not_know():
    result = solve_matrix_first_order(PENNIES, "pcfr+", target_gap=1e-8)
    for player in (1, "column", "A"):  # matrix players are "row" and "col" only
        with pytest.raises(ModelError, match="player must be one of"):
            result.to_dict(player)

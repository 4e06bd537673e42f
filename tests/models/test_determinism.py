"""Deterministic ILP, k-determinism MIP and the k-sweep, cross-checked against independent solves."""

import numpy as np
import pytest

from gamelp.models.determinism import deterministic_choices, determinism, k_sweep, kdet_mip, solve_deterministic, solve_kdet
from gamelp.models.nash import solve_nash


def test_kuhn_deterministic_value(kuhn):
    result = solve_deterministic(kuhn, 1)
    assert result.value == pytest.approx(-1 / 6, abs=1e-9)
    assert set(np.unique(np.round(result.strategy, 9))) <= {0.0, 1.0}
    assert result.guaranteed_value == pytest.approx(result.value, abs=1e-9)


@pytest.mark.parametrize("backend", ["highs", "gurobi", "pyomo:appsi_highs"])
def test_deterministic_ilp_agrees_across_backends(kuhn, backend):
    assert solve_deterministic(kuhn, 1, backend).value == pytest.approx(-1 / 6, abs=1e-7)
    assert solve_deterministic(kuhn, 2, backend).value == pytest.approx(
        solve_deterministic(kuhn, 2, "highs").value, abs=1e-7)


@pytest.mark.parametrize("name", ["rps", "kuhn"])
@pytest.mark.parametrize("player", [1, 2])
def test_sweep_matches_independent_mips(name, player, request):
    game = request.getfixturevalue(name)
    sweep = k_sweep(game, player)
    total = game.player(player).num_decision_points
    assert [p.k for p in sweep.points] == list(range(total + 1))
    values = sweep.values
    assert values[0] == pytest.approx(solve_nash(game, player).value, abs=1e-9)
    assert values[-1] == pytest.approx(solve_deterministic(game, player).value, abs=1e-9)
    assert np.all(np.diff(values) <= 1e-9)
    independent = [solve_kdet(game, player, k).value for k in range(total + 1)]
    assert values == pytest.approx(independent, abs=1e-8)
    assert all(p.mip_gap <= 1e-5 for p in sweep.points)
    assert sweep.mips_solved <= 2 * (total + 1)


def test_sweep_skips_work_on_kuhn(kuhn):
    sweep = k_sweep(kuhn, 1)
    assert sweep.mips_solved < kuhn.pl1.num_decision_points + 1


def test_kdet_solution_is_deterministic_where_required(kuhn):
    for k in range(kuhn.pl1.num_decision_points + 1):
        result = solve_kdet(kuhn, 1, k)
        assert determinism(kuhn.pl1, result.strategy) >= k
        assert kdet_mip(kuhn, 1, k).constraints["at_least_k"].rhs[0] == k


@pytest.mark.parametrize("backend", ["highs", "gurobi", "pyomo:appsi_highs", "pyomo:gurobi_direct", "cvxpy:HIGHS"])
def test_mip_start_is_accepted_and_does_not_change_the_optimum(kuhn, backend):
    pure = solve_deterministic(kuhn, 1, "highs")
    start = {"x": pure.strategy, "v": pure.solution.values["v"],
             "z": deterministic_choices(kuhn.pl1, pure.strategy)}
    assert start["z"].sum() == kuhn.pl1.num_decision_points
    with_start = kdet_mip(kuhn, 1, 3).solve(backend, start=start)
    assert with_start.objective == pytest.approx(solve_kdet(kuhn, 1, 3).value, abs=1e-7)


def test_choices_match_determinism_count(leduc):
    x = leduc.pl1.uniform_strategy()
    assert determinism(leduc.pl1, x) == 0
    pure = leduc.pl1.best_response(np.random.default_rng(1).normal(size=leduc.pl1.num_sequences))[1]
    z = deterministic_choices(leduc.pl1, pure)
    assert z.sum() == leduc.pl1.num_decision_points

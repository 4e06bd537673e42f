"""The deterministic ILP counted in grains: the grain itself, the optimum it keeps, and node order not mattering."""

import copy
import importlib.util
import json
import math
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from gamelp.game import SequenceFormGame
from gamelp.models.determinism import deterministic_ilp, k_sweep, solve_deterministic, value_grain
from gamelp.models.nash import sequence_form_lp


def with_values(kuhn_dict: dict, value) -> SequenceFormGame:
    """Kuhn with each utility value replaced by ``value(entry index, old value)``, on a copy of the dict."""
    kuhn_dict = copy.deepcopy(kuhn_dict)
    for i, entry in enumerate(kuhn_dict["utility_pl1"]):
        entry["value"] = value(i, entry["value"])
    return SequenceFormGame.from_dict(kuhn_dict, "kuhn_revalued")


def test_the_grain_divides_every_entry_and_is_the_largest_that_does(kuhn, leduc):
    for game, grain in ((kuhn, Fraction(1, 6)), (leduc, Fraction(1, 30))):
        for player in (1, 2):
            assert value_grain(game, player) == pytest.approx(float(grain), rel=1e-12)
            steps = game.payoff_matrix(player).data / value_grain(game, player)
            whole = np.round(steps)
            assert np.abs(steps - whole).max() < 1e-9
            assert math.gcd(*whole.astype(int).tolist()) == 1  # no larger grain divides them all


def test_the_grain_of_mixed_denominators_is_their_common_divisor(kuhn_dict):
    # entries of sixths and quarters: every pure value is a multiple of 1/12, not of 1/6 or 1/4
    game = with_values(kuhn_dict, lambda i, v: 0.25 if i == 0 else v)
    assert value_grain(game, 1) == pytest.approx(1 / 12, rel=1e-12)


@pytest.mark.parametrize("unit", [3.0, 1e-12, 1e12, math.sqrt(2)])
def test_the_grain_does_not_depend_on_the_payoffs_units(kuhn_dict, unit):
    game = with_values(kuhn_dict, lambda i, v: v * unit)
    assert value_grain(game, 1) == pytest.approx(unit / 6, rel=1e-12)


@pytest.mark.parametrize("unit", [1e-7, 1e7])
def test_a_grain_in_units_far_from_1_keeps_the_plain_objective(kuhn_dict, unit):
    game = with_values(kuhn_dict, lambda i, v: v * unit * 6)  # a grain of 1e-7 or 1e7
    assert "grains" not in deterministic_ilp(game, 1).variables
    assert (
        "grains"
        in deterministic_ilp(with_values(kuhn_dict, lambda i, v: v * 6e-6 if unit < 1 else v * 6e6), 1).variables
    )


def test_entries_without_a_common_grain_keep_the_plain_objective(kuhn_dict):
    game = with_values(kuhn_dict, lambda i, v: v * math.sqrt(2) if i == 0 else v)
    assert value_grain(game, 1) is None
    model = deterministic_ilp(game, 1)
    assert "grains" not in model.variables
    assert solve_deterministic(game, 1).value == pytest.approx(
        sequence_form_lp(game, 1, deterministic=True).solve("highs").objective, abs=1e-9
    )


def test_a_grain_too_fine_to_prune_is_not_used(kuhn_dict):
    # thousandths and thousand-and-firsts of the largest entry, 1: a grain of 1/1,001,000, past GRAIN_STEPS
    game = with_values(kuhn_dict, lambda i, v: (1.0, 1 / 1000, 1 / 1001)[i % 3])
    assert value_grain(game, 1) is None
    coarser = with_values(kuhn_dict, lambda i, v: (1.0, 1 / 1000, 1 / 999)[i % 3] if i % 3 else 1.0)
    assert value_grain(coarser, 1) == pytest.approx(1 / 999000, rel=1e-12)  # just within GRAIN_STEPS


def test_an_entry_read_off_a_long_fraction_has_no_grain(kuhn_dict):
    # 1/1,000,003 is no fraction of denominator at most GRAIN_DENOMINATOR: the reading misses it
    game = with_values(kuhn_dict, lambda i, v: 1 / 1000003 if i == 0 else 1.0)
    assert value_grain(game, 1) is None


@pytest.mark.parametrize("player", [1, 2])
@pytest.mark.parametrize("twelfths", [(1, 7, -5), (3, -11, 2)])
def test_the_grain_formulation_keeps_the_plain_optimum(kuhn_dict, player, twelfths):
    # payoffs in twelfths and sixths: a grain read too coarse (1/6) would round the optimum down
    game = with_values(kuhn_dict, lambda i, v: twelfths[i % 3] / 12 if i % 4 == 0 else v)
    assert value_grain(game, player) == pytest.approx(1 / 12, rel=1e-12)
    grains = deterministic_ilp(game, player).solve("highs")
    plain = sequence_form_lp(game, player, deterministic=True).solve("highs")
    assert grains.objective == pytest.approx(plain.objective, abs=1e-9)
    assert grains.values["grains"][0] * value_grain(game, player) == pytest.approx(grains.objective, abs=1e-9)
    assert game.guaranteed_value(player, grains.values["x"]) == pytest.approx(grains.objective, abs=1e-9)


def test_the_sweep_top_is_the_grain_ilp(kuhn):
    sweep = k_sweep(kuhn, 2)
    assert sweep.points[-1].value == pytest.approx(solve_deterministic(kuhn, 2).value, abs=1e-9)
    assert sweep.points[-1].status == "optimal"


def shuffled(kuhn_dict: dict, seed: int) -> dict:
    """Kuhn's file with its nodes in a random order (parents first), actions, signals and utilities shuffled."""
    rng = random.Random(seed)
    for key in ("decision_problem_pl1", "decision_problem_pl2"):
        nodes = kuhn_dict[key]
        for node in nodes:
            rng.shuffle(node.get("actions", node.get("signals")))
        placed: set = {None}
        order = []
        while len(order) < len(nodes):
            ready = [n for n in nodes if n not in order and (n["parent_edge"] or [None])[0] in placed]
            chosen = rng.choice(ready)
            order.append(chosen)
            placed.add(chosen["id"])
        kuhn_dict[key] = order
    rng.shuffle(kuhn_dict["utility_pl1"])
    return kuhn_dict


@pytest.mark.parametrize("seed", range(5))
def test_kuhn_with_its_nodes_shuffled_has_the_same_deterministic_values(kuhn, kuhn_dict, seed):
    game = SequenceFormGame.from_dict(shuffled(kuhn_dict, seed), f"kuhn_shuffled_{seed}")
    assert game.pl1.labels != kuhn.pl1.labels or game.pl2.labels != kuhn.pl2.labels  # the order did change
    for player in (1, 2):
        result = solve_deterministic(game, player)
        assert result.value == pytest.approx(solve_deterministic(kuhn, player).value, abs=1e-9)
        assert result.guaranteed_value == pytest.approx(result.value, abs=1e-9)


def test_bench_det_ilp_solves_both_formulations_at_the_kuhn_values(kuhn, capsys):
    path = Path(__file__).resolve().parents[2] / "scripts" / "bench" / "bench_det_ilp.py"
    spec = importlib.util.spec_from_file_location("bench_det_ilp", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    bench, as_json = script.main(["--games", "kuhn", "--backends", "highs", "--time-limit", "30", "--json"])
    assert as_json and bench.grains == {"kuhn": {1: pytest.approx(1 / 6), 2: pytest.approx(1 / 6)}}
    assert [(case.player, case.formulation) for case in bench.cases] == [
        (1, "grains"),
        (1, "plain"),
        (2, "grains"),
        (2, "plain"),
    ]
    for case in bench.cases:
        assert case.status == "optimal" and not case.refused
        assert case.value == pytest.approx(solve_deterministic(kuhn, case.player).value, abs=1e-9)
        assert case.bound == pytest.approx(case.value, abs=1e-6)
    script.report((bench, True))
    assert len(json.loads(capsys.readouterr().out)["cases"]) == 4
    script.report((bench, False))
    table = capsys.readouterr().out.splitlines()
    assert len(table) == 5 and all("stopped at" not in row for row in table)

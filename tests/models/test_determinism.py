"""Deterministic ILP, k-determinism MIP and the k-sweep, cross-checked against independent solves."""

import json

import numpy as np
import pytest

from gamelp.cli import main
from gamelp.errors import ModelError
from gamelp.game import SequenceFormGame, load_game
from gamelp.games import poker
from gamelp.models.determinism import (
    determinism,
    deterministic_choices,
    k_sweep,
    kdet_mip,
    solve_deterministic,
    solve_kdet,
)
from gamelp.models.kdet_search import SEARCH_ABS_GAP, KdetSearch, mixed_points, search_sweep, sweep_kdet
from gamelp.models.nash import solve_nash
from gamelp.units import normalised


def test_kuhn_deterministic_value(kuhn):
    result = solve_deterministic(kuhn, 1)
    assert result.value == pytest.approx(-1 / 6, abs=1e-9)
    assert set(np.unique(np.round(result.strategy, 9))) <= {0.0, 1.0}
    assert result.guaranteed_value == pytest.approx(result.value, abs=1e-9)


@pytest.mark.parametrize("backend", ["highs", "gurobi", "pyomo:appsi_highs"])
def test_deterministic_ilp_agrees_across_backends(kuhn, backend):
    assert solve_deterministic(kuhn, 1, backend).value == pytest.approx(-1 / 6, abs=1e-7)
    assert solve_deterministic(kuhn, 2, backend).value == pytest.approx(
        solve_deterministic(kuhn, 2, "highs").value, abs=1e-7
    )


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
    start = {"x": pure.strategy, "v": pure.solution.values["v"], "z": deterministic_choices(kuhn.pl1, pure.strategy)}
    assert start["z"].sum() == kuhn.pl1.num_decision_points
    with_start = kdet_mip(kuhn, 1, 3).solve(backend, start=start)
    assert with_start.objective == pytest.approx(solve_kdet(kuhn, 1, 3).value, abs=1e-7)


def test_choices_match_determinism_count(leduc):
    x = leduc.pl1.uniform_strategy()
    assert determinism(leduc.pl1, x) == 0
    pure = leduc.pl1.best_response(np.random.default_rng(1).normal(size=leduc.pl1.num_sequences))[1]
    z = deterministic_choices(leduc.pl1, pure)
    assert z.sum() == leduc.pl1.num_decision_points


# ---------------------------------------------------------------------- the search sweep (kdet_search)
def small_leduc():
    """Leduc with 3 ranks in one suit, raises of 1 and 2, one raise per round: 42 decision points each."""
    return SequenceFormGame.from_dict(poker.leduc(ranks=3, suits=1, raise_sizes=(1, 2), max_raises=1), "leduc_3x1")


def check_point_without_solver(game, player, point, tol=1e-7):
    """The point's strategy is a sequence-form strategy, guarantees its value, and is deterministic at >= k points."""
    own = game.player(player)
    x = np.array([point["strategy"][label] for label in own.labels])
    assert own.infeasibility(x) <= tol
    assert game.guaranteed_value(player, x) == pytest.approx(point["value"], abs=tol)
    assert point["bound"] >= point["value"] - tol
    assert determinism(own, x) == point["determinism"] >= point["k"]


@pytest.mark.parametrize(
    "make_game",
    [lambda: load_game("kuhn"), lambda: SequenceFormGame.from_dict(poker.kuhn(4), "kuhn4"), small_leduc],
    ids=["kuhn", "kuhn4", "leduc_3x1"],
)
@pytest.mark.parametrize("player", [1, 2])
def test_search_sweep_equals_independent_mips(make_game, player):
    game = make_game()
    sweep = search_sweep(game, player, rel_gap=0.0, abs_gap=1e-9)
    total = game.player(player).num_decision_points
    assert [p.k for p in sweep.points] == list(range(total + 1))
    independent = [solve_kdet(game, player, k, mip_gap=1e-9).value for k in range(total + 1)]
    assert sweep.values == pytest.approx(independent, abs=1e-8)
    assert sweep.values[0] == pytest.approx(solve_nash(game, player).value, abs=1e-9)
    assert sweep.values[-1] == pytest.approx(solve_deterministic(game, player, mip_gap=1e-9).value, abs=1e-9)
    assert all(p.within(0.0, 1e-8) for p in sweep.points)
    for point in sweep.points:
        check_point_without_solver(game, player, point.to_dict())


def test_search_sweep_stops_within_the_relative_gap():
    game = small_leduc()
    exact = search_sweep(game, 2, rel_gap=0.0, abs_gap=1e-9).values
    sweep = search_sweep(game, 2, rel_gap=0.05, abs_gap=1e-4)
    for point, value in zip(sweep.points, exact):
        assert point.value - 1e-9 <= value <= point.bound + 1e-9
        assert point.within(0.05, 1e-4)


@pytest.mark.parametrize("player", [1, 2])
def test_search_top_end_is_the_deterministic_ilp(player):
    game = small_leduc()
    search = KdetSearch(game, player, rel_gap=0.0, abs_gap=1e-9)
    bound = search.solve_top()
    exact = solve_deterministic(game, player, mip_gap=1e-9).value
    total = search.total
    assert search.value[total] == pytest.approx(exact, abs=1e-9)
    assert bound == pytest.approx(exact, abs=1e-7)
    assert not mixed_points(search.own, search.strategy[total]).any()
    assert np.all(search.value >= exact - 1e-9)  # an incumbent for every k


def test_patience_stops_the_sweep_after_fruitless_searches():
    game = small_leduc()
    hasty = search_sweep(game, 2, time_limit=0.0, patience=1)  # every search stops before its first node
    assert hasty.mips_solved == 1
    assert search_sweep(game, 2, time_limit=0.0).mips_solved > 1  # without patience every open k is searched
    exact = search_sweep(game, 2, rel_gap=0.0, abs_gap=1e-9)
    for point, value in zip(hasty.points, exact.values):
        assert point.value - 1e-9 <= value <= point.bound + 1e-9
        check_point_without_solver(game, 2, point.to_dict())


def test_time_limited_search_reports_an_open_bound(leduc):
    search = KdetSearch(leduc, 1)
    search.solve_root()
    bound = search.prove(140, deadline=0.0)  # stopped before the first node: the root is open
    assert bound == np.inf
    assert search.value[140] <= search.value[0]


def test_mixed_points_counts_unreached_points_as_deterministic(kuhn):
    x = kuhn.pl1.uniform_strategy()
    assert mixed_points(kuhn.pl1, x).all()
    pure = kuhn.pl1.best_response(np.ones(kuhn.pl1.num_sequences))[1]
    assert not mixed_points(kuhn.pl1, pure).any()
    assert determinism(kuhn.pl1, pure) == kuhn.pl1.num_decision_points


def test_mip_sweep_points_carry_checkable_strategies(kuhn):
    for point in k_sweep(kuhn, 2).points:
        check_point_without_solver(kuhn, 2, point.to_dict())


@pytest.mark.parametrize("player", [1, 2])
def test_cli_sweep_json_points_check_without_solver(player, capsys, tmp_path):
    game = small_leduc()
    path = tmp_path / "leduc_3x1.json"
    game.save(path)
    assert (
        main(
            ["kdet", str(path), "--player", str(player), "--sweep", "--mip-gap", "0.01", "--abs-gap", "1e-4", "--json"]
        )
        == 0
    )
    rows = json.loads(capsys.readouterr().out)
    assert [row["k"] for row in rows] == list(range(game.player(player).num_decision_points + 1))
    for row in rows:
        check_point_without_solver(game, player, row)
        assert row["bound"] - row["value"] <= max(0.01 * abs(row["value"]), 1e-4) * (1 + 1e-9)


def test_cli_sweep_with_patience(capsys, tmp_path):
    game = small_leduc()
    path = tmp_path / "leduc_3x1.json"
    game.save(path)
    assert main(["kdet", str(path), "--player", "2", "--sweep", "--time-limit", "0", "--patience", "1", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    inner = rows[1:-1]  # k = 0 is the Nash LP's, k = |J| the deterministic ILP's
    assert sum(row["solved"] for row in inner) == 1  # one search stopped at once, then patience ends them
    assert rows[0]["status"] == "optimal" and rows[0]["solved"] and rows[-1]["solved"]
    searched = next(row for row in inner if row["solved"])
    assert searched["status"] == "time_limit" and not searched["proven"]
    assert all(row["status"] == "open" and row["seconds"] == 0 for row in inner if row["k"] > searched["k"])
    for row in rows:
        check_point_without_solver(game, 2, row)
    with pytest.raises(SystemExit) as refused:  # argparse's refusal
        main(["kdet", str(path), "--player", "2", "--sweep", "--patience", "0"])
    assert refused.value.code == 2


def sweep_curve(sweep):
    return [(p.k, p.value, p.bound, p.determinism, p.status) for p in sweep.points]


def test_sweep_kdet_is_the_search_or_the_mip_sweep_it_names(kuhn):
    """One choice of method for the CLI and the scripts: each method's sweep is the called function's, the
    default is the search on HiGHS and the MIPs elsewhere, and what only one method takes is refused by the other."""
    search = sweep_kdet(kuhn, 2, "search", rel_gap=1e-3, abs_gap=1e-4, patience=3)
    assert sweep_curve(search) == sweep_curve(search_sweep(kuhn, 2, rel_gap=1e-3, abs_gap=1e-4, patience=3))
    assert search.nodes > 0 or search.mips_solved == 0
    by_default = sweep_kdet(kuhn, 2, backend="highs")  # the search, to the tight gap the CLI has always used
    assert sweep_curve(by_default) == sweep_curve(search_sweep(kuhn, 2, rel_gap=1e-6, abs_gap=SEARCH_ABS_GAP))
    mip = sweep_kdet(kuhn, 2, "mip", backend="highs", rel_gap=1e-6, threads=1)
    assert sweep_curve(mip) == sweep_curve(k_sweep(kuhn, 2, "highs", mip_gap=1e-6, threads=1))
    assert mip.nodes == 0 and mip.backend == "highs"
    with pytest.raises(ModelError, match="runs on HiGHS only, not on backend 'gurobi'"):
        sweep_kdet(kuhn, 2, "search", backend="gurobi")
    with pytest.raises(ModelError, match="patience, envelope: only the search takes it"):
        sweep_kdet(kuhn, 2, "mip", patience=1, envelope=1.0)
    with pytest.raises(ModelError, match="no solver options \\(threads\\)"):
        sweep_kdet(kuhn, 2, "search", threads=1)
    with pytest.raises(ModelError, match="unknown k-sweep method 'lp'"):
        sweep_kdet(kuhn, 2, "lp")


# ----------------------------------------------------------------------------- the sweep's per-k flags
def sweep_rows(capsys, method, player):
    assert main(["kdet", "kuhn", "--player", str(player), "--sweep", "--method", method, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("player", [1, 2])
def test_both_sweep_methods_print_the_same_keys_and_flags_that_mean_the_same(capsys, kuhn, player):
    """Search and MIPs on Kuhn: one schema; status is solved and proven together; an implied point names the
    solved k that proves it; a proven point's bound is within the gap; both ends are solved and proven; where
    both methods prove a value, it is the same."""
    from gamelp.models.determinism import SOLVER_ABS_GAP, STATUSES

    rows = {method: sweep_rows(capsys, method, player) for method in ("search", "mip")}
    keys = {frozenset(row) for method_rows in rows.values() for row in method_rows}
    assert len(keys) == 1  # every row of both methods has the same keys
    assert {"status", "solved", "proven", "source", "seconds", "value", "bound", "determinism"} <= set(next(iter(keys)))
    abs_gap = {"search": 1e-9, "mip": SOLVER_ABS_GAP}  # the CLI's search default; the MIP solver's own
    unit = normalised(kuhn)[1]  # absolute gaps are relative to the payoff range
    top = solve_deterministic(kuhn, player).value
    for method, points in rows.items():
        assert [row["k"] for row in points] == list(range(kuhn.player(player).num_decision_points + 1))
        for row in points:
            check_point_without_solver(kuhn, player, row)
            assert row["status"] in STATUSES
            expected = {(True, True): "optimal", (False, True): "implied", (True, False): "time_limit"}
            assert row["status"] == expected.get((row["solved"], row["proven"]), "open"), (method, row["k"])
            assert row["proven"], (method, row["k"])  # no time limit: every point is proven
            tolerance = max(1e-6 * abs(row["value"]), abs_gap[method] * unit)
            assert row["bound"] - row["value"] <= tolerance * (1 + 1e-9), (method, row["k"])
            assert (row["seconds"] > 0) == row["solved"] and row["seconds"] >= 0
            if row["solved"]:
                assert row["source"] is not None and row["source"] <= row["k"]
            else:  # implied: by the bound of a solved k below it, where the value is the same level's
                source = points[row["source"]]
                assert row["source"] < row["k"] and source["solved"] and source["proven"]
                assert row["bound"] <= source["bound"] + 1e-12
        first, last = points[0], points[-1]
        assert first["status"] == "optimal" and first["source"] == 0  # P(0) is the Nash LP
        assert first["value"] == pytest.approx(solve_nash(kuhn, player).value, abs=1e-9)
        assert last["status"] == "optimal" and last["source"] == last["k"]  # P(|J|) is the deterministic ILP
        assert last["value"] == pytest.approx(top, abs=1e-9)
    for search, mip in zip(rows["search"], rows["mip"]):
        assert search["value"] == pytest.approx(mip["value"], abs=1e-6)


def test_the_methods_carry_different_optimal_strategies_at_k_0(kuhn):
    """Player 1 at k = 0: the search carries the Nash LP's vertex (pure at 4 points), the first strategy it found
    with the value; the MIP sweep the most deterministic strategy it found with the value (P(5)'s, pure at 5).
    Both attain V(0); neither reports k."""
    search, mip = search_sweep(kuhn, 1).points[0], k_sweep(kuhn, 1).points[0]
    nash = solve_nash(kuhn, 1)
    assert search.value == pytest.approx(mip.value, abs=1e-12) == pytest.approx(nash.value, abs=1e-12)
    assert search.determinism == determinism(kuhn.pl1, nash.strategy) == 4
    assert mip.determinism == 5 == max(p.determinism for p in k_sweep(kuhn, 1).points if p.value >= nash.value - 1e-9)

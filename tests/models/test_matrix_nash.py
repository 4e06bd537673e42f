"""Matrix-game Nash LPs: the thesis's deck game on every LP backend, both forms, scipy as the reference, CLI."""

import argparse
import json
from importlib import resources

import numpy as np
import pytest
from scipy.optimize import linprog

from gamelp.cli.matrix import add_subparser
from gamelp.errors import GamelpError, MatrixFileError, ModelError, SolveError
from gamelp.matrix import MatrixGame
from gamelp.models.nash import matrix_nash_lp, solve_matrix_nash

ESCHE = resources.files("gamelp.games").joinpath("data", "esche_8c_payoffs.csv")
THESIS_MIX = {"0C40L": 0.2, "8C28L": 0.4, "8C32L": 0.4}
LP_BACKENDS = ["highs", "gurobi", "pyomo:appsi_highs", "cvxpy:CLARABEL", "cvxpy:HIGHS"]


@pytest.fixture(scope="module")
def esche():
    return MatrixGame.from_csv(ESCHE)


def support(strategy: dict, tol=1e-6) -> dict:
    return {label: p for label, p in strategy.items() if p > tol}


@pytest.mark.parametrize("backend", LP_BACKENDS)
@pytest.mark.parametrize("form", ["general", "thesis"])
def test_appendix_b_optimal_mix(esche, backend, form):
    tol = 1e-6 if backend.startswith("cvxpy:CLARABEL") else 1e-9
    for player in ("row", "col"):
        result = solve_matrix_nash(esche, player, backend, form=form)
        assert result.value == pytest.approx(0.5, abs=tol)
        for which in ("row", "col"):  # the game is symmetric: both players use the thesis's mix
            mix = support(result.strategy_dict(which))
            assert mix.keys() == THESIS_MIX.keys()
            for label, p in THESIS_MIX.items():
                assert mix[label] == pytest.approx(p, abs=tol)
        assert result.guaranteed_value == pytest.approx(0.5, abs=tol)
        assert result.saddle_gap < 10 * tol


def random_game(rng, shape, low, high):
    return MatrixGame(rng.uniform(low, high, size=shape))


def scipy_value(C):
    """Reference: max v s.t. C^T p >= v, sum p = 1, p >= 0 with scipy's linprog."""
    m, n = C.shape
    c = np.zeros(m + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-C.T, np.ones((n, 1))])
    res = linprog(
        c,
        A_ub=A_ub,
        b_ub=np.zeros(n),
        A_eq=[[1.0] * m + [0.0]],
        b_eq=[1.0],
        bounds=[(0, None)] * m + [(None, None)],
        method="highs",
    )
    assert res.status == 0
    return -res.fun


@pytest.mark.parametrize("shape", [(1, 5), (5, 1), (3, 7), (7, 3), (12, 12), (40, 25)])
@pytest.mark.parametrize("low, high", [(-1.0, 1.0), (-5.0, -1.0), (0.1, 2.0)])
def test_general_form_against_linprog(shape, low, high):
    rng = np.random.default_rng(hash((shape, low)) % 2**32)
    game = random_game(rng, shape, low, high)
    reference = scipy_value(game.payoffs)
    row = solve_matrix_nash(game, "row")
    col = solve_matrix_nash(game, "col")
    assert row.value == pytest.approx(reference, abs=1e-7)
    assert col.value == pytest.approx(reference, abs=1e-7)
    # Strategies from primal and duals are optimal: each secures the value.
    for result in (row, col):
        assert result.saddle_gap == pytest.approx(0.0, abs=1e-7)
        assert result.row_strategy.sum() == pytest.approx(1.0) and result.col_strategy.sum() == pytest.approx(1.0)
    if low > 0:
        thesis = solve_matrix_nash(game, "row", form="thesis")
        assert thesis.value == pytest.approx(reference, abs=1e-7)
        assert solve_matrix_nash(game, "col", form="thesis").value == pytest.approx(reference, abs=1e-7)


def test_thesis_form_accepts_mixed_signs_with_positive_value():
    # Negative entries, but row 0 pays at least 1 everywhere: V > 0 and the thesis form works.
    game = MatrixGame([[1.0, 2.0], [-3.0, 5.0]])
    assert solve_matrix_nash(game, form="thesis").value == pytest.approx(scipy_value(game.payoffs), abs=1e-9)
    assert solve_matrix_nash(game, "col", form="thesis").value == pytest.approx(solve_matrix_nash(game).value, abs=1e-9)


def test_thesis_form_refuses_a_column_without_positive_payoff():
    game = MatrixGame([[1.0, -1.0], [2.0, 0.0]], col_labels=["good", "bad"])
    with pytest.raises(ModelError, match="column 'bad'"):
        matrix_nash_lp(game, form="thesis")


@pytest.mark.parametrize("player", ["row", "col"])
def test_thesis_form_refuses_a_non_positive_value_found_by_the_lp(player):
    # Matching pennies: every column has a positive entry, but the value is 0.
    game = MatrixGame([[1.0, -1.0], [-1.0, 1.0]])
    with pytest.raises(SolveError, match="not positive"):
        solve_matrix_nash(game, player, form="thesis")
    assert solve_matrix_nash(game, player).value == pytest.approx(0.0, abs=1e-12)


def test_column_strategy_read_from_duals_matches_column_lp():
    rng = np.random.default_rng(7)
    game = random_game(rng, (6, 6), -1, 1)
    row, col = solve_matrix_nash(game, "row"), solve_matrix_nash(game, "col")
    C = game.payoffs
    # The duals' strategy secures exactly what the column player's own LP secures.
    assert (C @ row.col_strategy).max() == pytest.approx((C @ col.col_strategy).max(), abs=1e-9)
    assert row.model.variables["x"].labels == game.row_labels


@pytest.mark.parametrize("form", ["general", "thesis"])
@pytest.mark.parametrize("player", ["row", "col"])
def test_one_block_name_per_role_and_a_json_ready_summary(esche, player, form):
    result = solve_matrix_nash(esche, player, form=form)
    assert set(result.model.variables) == ({"x", "v"} if form == "general" else {"x"})
    summary = json.loads(json.dumps(result.to_dict()))
    assert (summary["player"], summary["form"], summary["status"], summary["backend"]) == (
        player,
        form,
        "optimal",
        "highs",
    )
    assert summary["value"] == pytest.approx(result.value) and summary["gap"] < 1e-9
    other = "col" if player == "row" else "row"
    mine, theirs = (esche.row_labels, esche.col_labels) if player == "row" else (esche.col_labels, esche.row_labels)
    assert list(summary["strategy"]) == list(mine) and list(summary["opponent_strategy"]) == list(theirs)
    np.testing.assert_allclose(list(summary["opponent_strategy"].values()), result.opponent_strategy)
    assert summary["opponent_strategy"] == result.strategy_dict(other)
    assert support(summary["strategy" if player == "row" else "opponent_strategy"]) == pytest.approx(
        THESIS_MIX, abs=1e-7
    )


def test_bad_arguments():
    game = MatrixGame([[1.0]])
    with pytest.raises(ModelError):
        matrix_nash_lp(game, "both")
    with pytest.raises(ModelError):
        matrix_nash_lp(game, form="dual")


# ----------------------------------------------------------------------------- CLI
def run_cli(argv, capsys):
    parser = argparse.ArgumentParser(prog="gamelp")
    add_subparser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code = args.func(args)
    return code, capsys.readouterr().out


def test_cli_json_on_appendix_b(capsys):
    code, out = run_cli(["matrix", "solve", str(ESCHE), "--unique", "--json"], capsys)
    payload = json.loads(out)
    assert code == 0
    assert payload["value"] == pytest.approx(0.5, abs=1e-9)
    assert len(payload["strategy"]) == 33  # every original label, the removed ones at zero
    assert payload["strategy"]["0C56L"] == 0.0
    for label, p in THESIS_MIX.items():
        assert payload["strategy"][label] == pytest.approx(p, abs=1e-9)
    assert len(payload["removed"]["rows"]) == 17 and "0C56L" in payload["removed"]["rows"]
    assert payload["unique"] is True
    assert payload["tolerance"] == 1e-7
    assert payload["smallest_positive_dual"] > 1e-4 and payload["largest_zero_dual"] is None


def test_cli_no_reduce_column_player_thesis_form(capsys):
    _, out = run_cli(
        ["matrix", "solve", str(ESCHE), "--player", "col", "--form", "thesis", "--no-reduce", "--json"], capsys
    )
    payload = json.loads(out)
    assert payload["removed"] == {"rows": [], "columns": []}
    assert support(payload["strategy"]).keys() == THESIS_MIX.keys()
    assert payload["value"] == pytest.approx(0.5, abs=1e-9)


def test_cli_robust_interval(tmp_path, capsys):
    game = MatrixGame([[0.6, 0.3], [0.4, 0.7]], ["a", "b"], ["x", "y"], std=[[0.1, 0.0], [0.0, 0.1]])
    game.to_csv(tmp_path / "p.csv", std_path=tmp_path / "s.csv")
    _, out = run_cli(
        [
            "matrix",
            "solve",
            str(tmp_path / "p.csv"),
            "--robust",
            "interval",
            "--radius",
            "1",
            "--std",
            str(tmp_path / "s.csv"),
            "--json",
        ],
        capsys,
    )
    payload = json.loads(out)
    # Worst case: [[0.5, 0.3], [0.4, 0.6]] with value (0.3 - 0.24)/(0.5+0.6-0.3-0.4) = 0.45.
    assert payload["value"] == pytest.approx(0.45, abs=1e-9)
    assert payload["guaranteed_value"] == pytest.approx(0.45, abs=1e-9)
    assert payload["strategy"]["a"] == pytest.approx(0.5, abs=1e-9)


def test_cli_text_output(capsys):
    code, out = run_cli(["matrix", "solve", str(ESCHE)], capsys)
    assert code == 0 and "0C40L" in out and "20.00%" in out


def test_cli_bad_inputs(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text(",a,b\nr1,1,x\n")
    with pytest.raises(MatrixFileError, match="bad.csv.*column 'b'"):
        run_cli(["matrix", "solve", str(bad)], capsys)
    with pytest.raises(GamelpError, match="--radius"):
        run_cli(["matrix", "solve", str(ESCHE), "--robust", "interval"], capsys)
    with pytest.raises(GamelpError, match="missing.csv: cannot read"):
        run_cli(
            [
                "matrix",
                "solve",
                str(ESCHE),
                "--robust",
                "interval",
                "--radius",
                "2",
                "--std",
                str(tmp_path / "missing.csv"),
            ],
            capsys,
        )

"""The gamelp command prints the results' own ``to_dict()`` summaries: no dictionary is rebuilt on the way."""

import json
from importlib import metadata

import pytest

from gamelp.cli import main
from gamelp.matrix import MatrixGame
from gamelp.models.determinism import k_sweep
from gamelp.models.kdet_search import search_sweep
from gamelp.models.matrix_first_order import solve_matrix_first_order
from gamelp.models.nash import solve_nash
from gamelp.models.uniqueness import check_game_uniqueness
from gamelp.regret import solve_regret


def cli_json(capsys, *args):
    assert main([*map(str, args), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def plain(payload):
    """``payload`` as the command's JSON reads back, without the wall-clock time (it differs run to run)."""
    data = json.loads(json.dumps(payload, default=float))
    for row in data if isinstance(data, list) else [data]:
        row.pop("wall_time", None)
    return data


def test_a_regret_solve_prints_the_regret_results_summary(capsys, kuhn):
    for player in (1, 2):
        printed = cli_json(capsys, "solve", "kuhn", "--method", "pcfr+", "--iterations", "200", "--player", player)
        assert printed == plain(solve_regret(kuhn, "pcfr+", 200).to_dict(player))
        assert printed["player"] == player and printed["status"] == "iteration_limit"


def test_the_averaging_weights_reach_the_regret_solve(capsys, kuhn):
    printed = cli_json(capsys, "solve", "kuhn", "--method", "pdcfr+", "--iterations", "300", "--averaging", "5")
    assert printed == plain(solve_regret(kuhn, "pdcfr+", 300, averaging=5.0).to_dict(1))
    assert printed != plain(solve_regret(kuhn, "pdcfr+", 300).to_dict(1))  # the method's own weights differ
    with pytest.raises(SystemExit) as refused:
        main(["solve", "kuhn", "--method", "pdcfr+", "--averaging", "steep"])
    assert refused.value.code == 2
    assert (
        "--averaging: expected uniform, linear, quadratic or an exponent from 0 to 32, got 'steep'"
        in capsys.readouterr().err
    )


def test_an_lp_solve_prints_the_nash_and_uniqueness_summaries(capsys, kuhn):
    result = solve_nash(kuhn, 2)
    verdict = check_game_uniqueness(kuhn, 2)  # on the payoffs divided by their range
    printed = plain(cli_json(capsys, "solve", "kuhn", "--player", "2", "--unique"))
    assert printed == plain({**result.to_dict(), **verdict.to_dict()})
    assert printed["player"] == 2 and printed["unique"] is verdict.unique and "rank" in printed


def test_a_kdet_sweep_prints_each_points_summary(capsys, kuhn):
    by_mip = cli_json(capsys, "kdet", "kuhn", "--player", "2", "--sweep", "--method", "mip", "--quiet")

    def rows(sweep):  # each row also says which solver produced it
        return plain(
            [{**p.to_dict(), "backend": sweep.backend, "solver_version": sweep.solver_version} for p in sweep.points]
        )

    def timeless(printed):  # the seconds spent differ from run to run
        assert all(row["seconds"] >= 0 for row in printed)
        return [{key: value for key, value in row.items() if key != "seconds"} for row in printed]

    assert timeless(by_mip) == timeless(rows(k_sweep(kuhn, 2)))
    by_search = cli_json(capsys, "kdet", "kuhn", "--player", "2", "--sweep", "--quiet")
    assert timeless(by_search) == timeless(rows(search_sweep(kuhn, 2, rel_gap=1e-6, abs_gap=1e-9)))
    assert {(row["backend"], row["solver_version"]) for row in by_mip + by_search} == {
        ("highs", f"highspy {metadata.version('highspy')}")
    }
    assert [row["k"] for row in by_search] == list(range(len(kuhn.pl2.decision_points) + 1))


def test_a_first_order_matrix_solve_prints_the_results_summary(capsys, tmp_path):
    csv = tmp_path / "rps.csv"
    csv.write_text(",R,P,S\nR,0,-1,1\nP,1,0,-1\nS,-1,1,0\n")
    printed = cli_json(capsys, "matrix", "solve", csv, "--method", "pcfr+", "--player", "col", "--target-gap", "1e-8")
    expected = solve_matrix_first_order(MatrixGame.from_csv(csv), "pcfr+", target_gap=1e-8).to_dict("col")
    assert {key: printed[key] for key in expected} == plain(expected)
    assert printed["player"] == "col" and printed["status"] == "converged"

"""The homework 2 scripts (scripts/hw2/) at a tiny scale: the figures main() returns, checked.

Each test imports a script and calls ``main`` with the smallest sizes its
flags allow, then checks the returned figures against the homework's values
(Kuhn -1/18 and -1/6, Leduc -0.0856), against Problem 1.8's bound and
against the files the script wrote.
"""

import itertools
import json

import pytest
from conftest import load_script, refusal


def test_hw2_1_omwu_last_iterate_converges_and_mwu_cycles(tmp_path, capsys):
    script = load_script("hw2/hw2_1_omwu.py")
    result = script.main(["--iterations", "300", "--size", "3", "--out", str(tmp_path)])
    runs = {(run.game, run.method): run for run in result.runs}
    assert sorted(runs) == sorted(
        (game, method) for game in ("rock-paper-superscissors", "random 3x3 (seed 0)") for method in ("mwu", "omwu")
    )
    for run in runs.values():
        assert run.holds is True and run.regret <= run.bound  # Problem 1.8's bound, after every iteration
    last_gap = {method: runs["rock-paper-superscissors", method].gap_last for method in ("mwu", "omwu")}
    assert last_gap["omwu"] < 0.05 and last_gap["mwu"] > 1  # OMWU's last iterate converges, MWU's cycles
    assert abs(result.rpss_value) < 1e-9
    # x = y: the game is symmetric; the equilibrium is (1/2, 1/4, 1/4)
    assert result.rpss_last_x == result.rpss_last_y == pytest.approx([0.5, 0.25, 0.25], abs=0.01)
    assert (result.iterations, result.eta) == (300, 0.2)
    assert [path.name for path in result.plots] == ["hw2_1_regret_and_gap.png", "hw2_1_rpss_weights.png"]
    assert all((tmp_path / path.name).stat().st_size > 1000 for path in result.plots)
    script.report(result)
    out = capsys.readouterr().out
    assert out.startswith("T = 300, eta = 0.2\n") and out.count(" True ") == 4 and "hw2_1_rpss_weights.png" in out


def test_hw2_2_1_nash_values_of_both_players(capsys):
    script = load_script("hw2/hw2_2_1_nash.py")
    result = script.main([])
    values = {(v.game, v.player): v for v in result.values}
    assert sorted(values) == sorted((game, player) for game in ("rps", "kuhn", "leduc") for player in (1, 2))
    assert values["leduc", 1].value == pytest.approx(-0.0856, abs=1e-4)
    assert values["kuhn", 1].value == pytest.approx(-1 / 18, abs=1e-7)
    assert values["kuhn", 2].value == pytest.approx(1 / 18, abs=1e-7)
    assert values["rps", 1].value == pytest.approx(0, abs=1e-9)
    assert [values[game, 1].homework for game in ("rps", "kuhn", "leduc")] == [0.0, -0.0555, -0.0856]
    assert all(values[game, 2].homework is None for game in ("rps", "kuhn", "leduc"))
    for game, total in result.sums.items():
        assert abs(total) < 1e-9 and total == values[game, 1].value + values[game, 2].value
    assert all(v.saddle_gap < 1e-6 and v.log is None for v in values.values())  # no --verbose: no logs
    script.report(result)
    out = capsys.readouterr().out
    assert "homework (pl 1)" in out and out.count(" sum ") == 3


def test_hw2_2_2_deterministic_values(capsys):
    script = load_script("hw2/hw2_2_2_deterministic.py")
    result = script.main(["--games", "rps,kuhn", "--verbose"])
    values = {(v.game, v.player): v for v in result.values}
    assert list(values) == [("rps", 1), ("rps", 2), ("kuhn", 1), ("kuhn", 2)]
    for player in (1, 2):
        rps = values["rps", player]
        assert (rps.deterministic, rps.lp, rps.mip_gap) == pytest.approx((-1, 0, 0), abs=1e-9)
        assert rps.homework is None
    kuhn = values["kuhn", 1]
    assert kuhn.deterministic == pytest.approx(-1 / 6, abs=1e-8) and kuhn.homework == pytest.approx(-1 / 6)
    assert kuhn.lp == pytest.approx(-1 / 18)
    kuhn = values["kuhn", 2]
    assert kuhn.lp == pytest.approx(1 / 18) and kuhn.deterministic <= kuhn.lp and kuhn.mip_gap < 1e-6
    assert kuhn.homework is None
    assert all(v.log for v in values.values())  # --verbose keeps each solver log
    script.report(result)
    out = capsys.readouterr().out
    assert "-0.1667" in out and values["kuhn", 2].log in out


def test_hw2_2_3_search_and_mip_give_the_same_curves(tmp_path, capsys):
    script = load_script("hw2/hw2_2_3_kdeterminism.py")
    curves = {}
    for method in ("search", "mip"):
        result = script.main(["--games", "rps,kuhn", "--method", method, "--quiet", "--out", str(tmp_path / method)])
        assert result.method == method and len(result.sweeps) == 4
        assert all(sweep.over_gap == [] for sweep in result.sweeps)  # every point reached its gap
        assert all(sweep.k_values == len(sweep.points) for sweep in result.sweeps)
        assert all((sweep.nodes is None) == (method == "mip") for sweep in result.sweeps)
        saved = {game: json.loads((tmp_path / method / f"kdet_{game}.json").read_text()) for game in ("rps", "kuhn")}
        assert {name: path.name for name, path in result.files.items()} == {
            "rps": "kdet_rps.json",
            "kuhn": "kdet_kuhn.json",
        }
        for sweep in result.sweeps:  # the JSON holds the points returned
            assert saved[sweep.game][f"player {sweep.player}"] == json.loads(json.dumps(sweep.points))
        curves[method] = saved
        assert all((tmp_path / method / f"kdet_{game}.png").stat().st_size > 1000 for game in ("rps", "kuhn"))
        assert set(result.plots) == {"rps", "kuhn"}
    for game, ends in (("rps", ([0, -1], [0, -1])), ("kuhn", ([-1 / 18, -1 / 6], [1 / 18, -1 / 6]))):
        for player, (first, last) in zip(("player 1", "player 2"), ends):
            search, mip = curves["search"][game][player], curves["mip"][game][player]
            assert [p["k"] for p in search] == [p["k"] for p in mip] == list(range(len(search)))
            assert [p["value"] for p in search] == pytest.approx([p["value"] for p in mip], abs=1e-6)
            values = [p["value"] for p in search]
            assert values[0] == pytest.approx(first) and values[-1] == pytest.approx(last)  # LP and deterministic
            assert all(a >= b - 1e-9 for a, b in itertools.pairwise(values))  # forcing more points never helps
            assert all(p["determinism"] >= p["k"] for p in search)
    assert len(curves["search"]["kuhn"]["player 1"]) == 7  # Kuhn: 6 decision points per player
    script.report(result)
    out = capsys.readouterr().out
    assert out.count("k over the gap: none") == 4 and out.count("MIPs for") == 4 and "kdet_kuhn.png" in out


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, args, message",
    [
        ("hw2_1_omwu.py", ["--iterations", "0"], "argument --iterations: must be at least 1, got 0"),
        ("hw2_1_omwu.py", ["--eta", "nan"], "argument --eta: must be a finite number > 0"),
        ("hw2_2_3_kdeterminism.py", ["--time-limit", "0", "--out", "out"], "argument --time-limit: must be a finite"),
        ("hw2_2_2_deterministic.py", ["--games", "nosuch"], "nosuch"),
    ],
)
def test_hw2_scripts_refuse_bad_input_in_one_line(tmp_path, name, args, message):
    assert message in refusal("hw2/" + name, args, tmp_path)
    assert not (tmp_path / "out").exists()

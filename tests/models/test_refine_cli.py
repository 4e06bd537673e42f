"""``gamelp solve --refine``: the refined equilibrium on the command line, its JSON and its refusals."""

import importlib.util
import json
from fractions import Fraction
from pathlib import Path

import pytest

from gamelp.cli import main
from gamelp.errors import GamelpError


def run(capsys, *args) -> tuple[int, str, str]:
    status = main([*map(str, args)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("player", ["1", "2", "both"])
def test_the_json_has_the_plain_solves_keys_and_the_refinement(capsys, player):
    _, plain, _ = run(capsys, "solve", "kuhn", "--player", player, "--json")
    status, out, _ = run(capsys, "solve", "kuhn", "--player", player, "--json", "--refine", "quasi-perfect")
    floats, document = json.loads(plain), json.loads(out)
    assert status == 0 and set(document) == set(floats) | {"refine", "epsilon", "lps", "pivots"}
    assert document["refine"] == "quasi-perfect" and document["select"] is None
    assert document["value"] == pytest.approx(floats["value"], abs=1e-12)
    assert document["strategy"].keys() == floats["strategy"].keys()
    if player == "2":
        assert document["guaranteed_value"] == pytest.approx(1 / 18, abs=1e-12)
        assert document["strategy"]["dQ/b_pl2:c"] == pytest.approx(1 / 3, abs=1e-12)
    if player == "both":
        assert document["opponent_strategy"]["dK/b_pl2:c"] == 1.0


def test_the_behavioural_strategy_is_the_refined_one_off_the_path(capsys):
    status, out, _ = run(capsys, "solve", "kuhn", "--refine", "quasi-perfect", "--behavioural", "--json")
    document = json.loads(out)
    # Player 1 never checks a king; if it did, and player 2 bet, it would call (uniform would say 1/2).
    assert status == 0 and document["behavioural"]["dK/kb_pl1"] == {"f": 0.0, "c": 1.0}
    status, out, _ = run(capsys, "solve", "kuhn", "--refine", "quasi-perfect", "--behavioural")
    assert status == 0 and "  dK/kb_pl1: f 0.000000, c 1.000000" in out.splitlines()
    assert out.splitlines()[1].startswith("refined: quasi-perfect, the limit of the perturbed equilibria")


def test_exact_prints_the_refined_strategies_as_fractions(capsys):
    status, out, _ = run(capsys, "solve", "kuhn", "--refine", "quasi-perfect", "--exact", "--player", "2")
    lines = out.splitlines()
    assert status == 0 and lines[0] == "kuhn: player 2 value 1/18 (= 0.05555555556; exact, highs)"
    assert "  dQ/b_pl2:c                     1/3" in lines and "kuhn: player 1 value -1/18" in lines


def test_proper_prints_its_procedure_and_its_fractions(capsys):
    status, out, _ = run(capsys, "solve", "kuhn", "--refine", "proper", "--behavioural")
    lines = out.splitlines()
    assert status == 0 and lines[1].startswith("refined: proper (normal form), Dresher's procedure")
    assert "  dJ_pl1: k 0.833333, b 0.166667" in lines and "  dK/kb_pl1: f 0.000000, c 1.000000" in lines
    status, out, _ = run(capsys, "solve", "kuhn", "--refine", "proper", "--exact", "--json")
    document = json.loads(out)
    assert status == 0 and document["refine"] == "proper" and document["epsilon"] is None
    assert document["exact"]["value"] == "-1/18" and document["exact"]["strategy"]["dJ_pl1:b"] == "1/6"
    assert document["lps"] > 2 and document["pivots"] >= 0


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--refine", "quasi-perfct"], "did you mean 'quasi-perfect'?"),
        (["--refine", "quasi-perfect", "--select", "min-norm"], "cannot go with --select"),
        (["--refine", "quasi-perfect", "--backend", "cvxpy:CLARABEL"], "cannot go with --backend cvxpy:CLARABEL"),
        (["--refine", "quasi-perfect", "--method", "cfr+"], "cannot go with --method cfr+"),
        (["--refine", "quasi-perfect", "--deterministic"], "cannot go with --deterministic"),
        (["--refine", "propr"], "did you mean 'proper'?"),
        (["--refine", "proper", "--backend", "gurobi"], "cannot go with --backend gurobi"),
        (["--refine", "proper", "--method", "cfr"], "cannot go with --method cfr"),
    ],
)
def test_refusals_are_one_line(capsys, options, message):
    status, out, err = run(capsys, "solve", "kuhn", *options)
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1 and message in err


def _bench_refine():
    path = Path(__file__).resolve().parents[2] / "scripts" / "bench" / "bench_refine.py"
    spec = importlib.util.spec_from_file_location("bench_refine", path)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script


def test_the_benchmark_refuses_an_openspiel_without_the_peer_in_one_line(monkeypatch):
    sequence_form_lp = pytest.importorskip("open_spiel.python.algorithms.sequence_form_lp")
    monkeypatch.delattr(sequence_form_lp, "solve_perturbed_zero_sum_game", raising=False)
    with pytest.raises(GamelpError, match="no sequence_form_lp.solve_perturbed_zero_sum_game .* --no-openspiel$"):
        _bench_refine().main(["--games", "kuhn_poker"])


def test_the_benchmark_compares_openspiels_perturbed_lp_with_the_exact_limit(capsys):
    sequence_form_lp = pytest.importorskip("open_spiel.python.algorithms.sequence_form_lp")
    if not hasattr(sequence_form_lp, "solve_perturbed_zero_sum_game"):
        pytest.skip("this OpenSpiel release has no perturbed sequence-form LP (the benchmark's peer)")
    script = _bench_refine()
    result = script.main(["--games", "kuhn_poker", "--openspiel-eps", "1e-2,1e-4"])
    (ours,) = result.games
    assert ours["value"] == Fraction(-1, 18) and ours["information_sets"] == 12
    coarse, fine = result.openspiel
    # OpenSpiel's answer at one eps is a perturbed equilibrium: off by about eps from the limit.
    assert coarse["status"] == fine["status"] == "ok" and fine["largest"] < coarse["largest"]
    assert 1e-3 < coarse["largest"] < 5e-2 and fine["largest"] < 1e-3 and fine["differing"] == 0
    script.report(result)
    assert "kuhn_poker" in capsys.readouterr().out

"""``--exact`` on the command line: the certified value as a fraction, the JSON's exact section, one-line refusals."""

import json
from fractions import Fraction

import numpy as np
import pytest

from gamelp.cli import main
from gamelp.matrix import MatrixGame
from gamelp.models import exact

LEDUC_VALUE = Fraction(-1454920850547486749701863871533, 16995463438839962469905132501930)


def run(capsys, *args) -> tuple[int, str, str]:
    status = main([*map(str, args)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_solve_kuhn_exact_prints_minus_one_eighteenth(capsys):
    status, out, _ = run(capsys, "solve", "kuhn", "--exact")
    lines = out.splitlines()
    assert status == 0 and lines[0] == "kuhn: player 1 value -1/18 (= -0.05555555556; exact, highs)"
    assert "  dJ_pl1:b                       1/3" in lines and "kuhn: player 2 value 1/18" in lines
    assert lines[-1].startswith("certified in rational arithmetic (the solver's floats rounded")


def test_the_json_keeps_the_float_keys_and_adds_the_exact_section(capsys):
    _, plain, _ = run(capsys, "solve", "kuhn", "--player", "2", "--json")
    status, out, _ = run(capsys, "solve", "kuhn", "--player", "2", "--json", "--exact")
    floats, document = json.loads(plain), json.loads(out)
    assert status == 0 and set(document) == set(floats) | {"exact"} and "exact" not in floats
    section = document["exact"]
    assert section["value"] == "1/18" and section["certified"] is True
    assert set(section["strategy"]) == set(floats["strategy"]) and section["strategy"]["dK/b_pl2:c"] == "1"
    assert section["payoff_rule"] == exact.PAYOFF_RULE and section["binary_payoffs"] == 0


def test_leduc_exact_value_agrees_with_the_float_value(capsys):
    status, out, _ = run(capsys, "solve", "leduc", "--player", "both", "--exact", "--json")
    document = json.loads(out)
    assert status == 0 and Fraction(document["exact"]["value"]) == LEDUC_VALUE
    assert abs(float(LEDUC_VALUE) - document["value"]) < 1e-9
    assert document["exact"]["recovery"] == "HiGHS's optimal basis solved exactly"


def test_matrix_exact_values(capsys, tmp_path):
    status, out, _ = run(capsys, "matrix", "solve", "esche_8c", "--exact")
    assert status == 0 and "value 1/2 (= 0.5; exact)" in out.splitlines()[0]
    path = tmp_path / "rps.csv"
    MatrixGame([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], ["R", "P", "S"], ["R", "P", "S"]).to_csv(path)
    status, out, _ = run(capsys, "matrix", "solve", path, "--exact", "--player", "col", "--json")
    section = json.loads(out)["exact"]
    assert status == 0 and section["value"] == "0" and section["strategy"] == dict.fromkeys("RPS", "1/3")


def test_a_reduced_matrix_is_certified_on_the_whole_game(capsys):
    status, out, _ = run(capsys, "matrix", "solve", "esche_8c", "--exact", "--form", "thesis", "--json")
    document = json.loads(out)
    assert status == 0 and document["removed"]["rows"] and document["exact"]["value"] == "1/2"
    assert len(document["exact"]["strategy"]) == document["shape"][0]
    assert all(document["exact"]["strategy"][label] == "0" for label in document["removed"]["rows"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["solve", "kuhn", "--exact", "--method", "cfr+"], "--exact need the LP (--method lp)"),
        (["solve", "kuhn", "--exact", "--deterministic"], "not with --deterministic or --behavioural"),
        (["solve", "kuhn", "--exact", "--behavioural"], "not with --deterministic or --behavioural"),
    ],
)
def test_exact_is_refused_where_it_certifies_nothing(capsys, args, message):
    status, out, err = run(capsys, *args)
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1 and message in err


def test_exact_is_refused_with_a_robust_matrix_solve(capsys, tmp_path):
    payoffs, std = tmp_path / "p.csv", tmp_path / "s.csv"
    MatrixGame([[1.0, 0.0], [0.0, 1.0]]).to_csv(payoffs)
    MatrixGame(np.full((2, 2), 0.1)).to_csv(std)
    status, _, err = run(
        capsys, "matrix", "solve", payoffs, "--robust", "interval", "--radius", "1", "--std", std, "--exact"
    )
    assert status == 2 and "--exact certifies the Nash equilibrium of the game: not with --robust" in err


def test_a_failed_certificate_prints_no_fraction_and_names_the_check(capsys, monkeypatch, kuhn):
    wrong = tuple(
        np.array([Fraction(w).limit_denominator(100) for w in s], dtype=object)
        for s in (kuhn.pl1.uniform_strategy(), kuhn.pl2.uniform_strategy())
    )
    monkeypatch.setattr(exact, "ROUNDING_BOUNDS", ())
    monkeypatch.setattr(exact, "exact_basic_solution", lambda model: ({"x": wrong[0]}, {"best_response": -wrong[1]}))
    status, out, err = run(capsys, "solve", "kuhn", "--exact", "--json")
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "not an equilibrium in exact arithmetic" in err

"""scripts/bench/bench_exact.py at a tiny scale (Kuhn), in this process: the certified value against the published
-1/18 and, where pygambit is installed, against Gambit's rational LP of the same run."""

import importlib.util
from fractions import Fraction

from conftest import load_script, refusal

PYGAMBIT = importlib.util.find_spec("pygambit") is not None


def test_bench_exact_certifies_kuhn_beside_gambit(capsys):
    script = load_script("bench/bench_exact.py")
    gambit = ["--gambit-games", "kuhn", "--gambit-timeout", "120"] if PYGAMBIT else ["--no-gambit"]
    result = script.main(["--games", "kuhn", *gambit])
    (row,) = result.games
    assert row["value"] == Fraction(-1, 18) and abs(row["float_value"] + 1 / 18) < 1e-12
    assert row["recovery"].startswith("the solver's floats rounded")
    if PYGAMBIT:
        (peer,) = result.gambit
        assert peer["status"] == "ok" and peer["value"] == Fraction(-1, 18) and peer["agrees"] is True
    script.report(result)
    out = capsys.readouterr().out
    assert "-1/18" in out and ("equals gamelp's" in out or not PYGAMBIT)


def test_bench_exact_refuses_a_zero_timeout_in_one_line(tmp_path):
    assert "--gambit-timeout" in refusal("bench/bench_exact.py", ["--gambit-timeout", "0"], tmp_path)

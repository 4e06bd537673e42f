"""The documentation's figure scripts (scripts/figures/) at a tiny scale, their numbers checked."""

import numpy as np
import pytest
from conftest import load_script

from gamelp.errors import RegretError
from gamelp.game import load_game
from gamelp.regret import solve_regret


def test_regret_convergence_measures_each_method_as_solve_regret_does(tmp_path, capsys):
    script = load_script("figures/regret_convergence.py")
    result = script.main(
        [
            "--game",
            "kuhn",
            "--iterations",
            "200",
            "--check-every",
            "10",
            "--target",
            "1e-2",
            "--plot",
            str(tmp_path / "r.png"),
        ]
    )
    assert [curve.method for curve in result.curves] == ["cfr", "cfr+", "dcfr", "pcfr+", "dcfr+", "pdcfr+"]
    for curve in result.curves:
        assert curve.checked[0] == 10 and curve.checked[-1] == 200 and len(curve.gaps) == len(curve.checked)
        # the same run outside the script: the gap after the last iteration agrees
        again = solve_regret(load_game("kuhn"), curve.method, 200, check_every=10, track_last=False)
        assert curve.gaps[-1] == pytest.approx(again.gap, rel=1e-12)
        first = np.flatnonzero(curve.gaps <= 1e-2)
        assert curve.reached == (int(curve.checked[first[0]]) if first.size else None)
    plus = next(curve for curve in result.curves if curve.method == "cfr+")
    plain = next(curve for curve in result.curves if curve.method == "cfr")
    assert plus.gaps[-1] < plain.gaps[-1]  # CFR+ is ahead of plain CFR after 200 iterations
    assert (tmp_path / "r.png").stat().st_size > 1000
    script.report(result)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["method", "iterations", "final", "gap", "reached", "0.01"] and len(lines) == 7


def test_an_unknown_method_is_refused_in_one_line():
    script = load_script("figures/regret_convergence.py")
    with pytest.raises(RegretError, match="unknown method 'nope'"):
        script.main(["--game", "kuhn", "--iterations", "10", "--methods", "nope"])

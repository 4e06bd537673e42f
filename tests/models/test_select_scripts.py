"""The selection's scripts at a tiny scale: scripts/figures/kuhn_family.py and scripts/bench/bench_select.py."""

import pytest
from conftest import load_script


@pytest.mark.slow  # two drawings of the figure: about 3 s on a quiet machine
def test_kuhn_family_places_each_answer_on_the_family(tmp_path, capsys):
    script = load_script("figures/kuhn_family.py")
    first, second = tmp_path / "a.png", tmp_path / "b.png"
    result = script.main(["--backends", "highs,cvxpy:CLARABEL", "--plot", str(first)])
    assert result.worst_value == pytest.approx(-1 / 18, abs=1e-12)  # every member of the family is optimal
    points = {point.name: point for point in result.points}
    assert set(points) == {"highs", "cvxpy:CLARABEL", "min-norm", "quasi-perfect", "proper"}
    assert all(point.off <= 1e-7 for point in result.points)  # each answer lies on the family
    assert points["highs"].alpha == pytest.approx(1 / 3, abs=1e-9)  # HiGHS 1.16's vertex
    assert points["min-norm"].alpha == pytest.approx(25 / 96, abs=1e-9)  # d/dalpha ||x||^2 = 64 alpha - 50/3
    assert points["quasi-perfect"].alpha == pytest.approx(1 / 3, abs=1e-12)
    assert points["proper"].alpha == pytest.approx(1 / 6, abs=1e-12)  # Dresher's: the jack bet 1/6
    assert points["min-norm"].norm <= result.norms.min() + 1e-12
    assert 0 < points["cvxpy:CLARABEL"].alpha < 1 / 3  # an interior point: neither end
    script.plot(result, second)
    assert first.read_bytes() == second.read_bytes() and first.stat().st_size > 1000  # deterministic
    script.report(result)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("family: alpha in [0, 1/3]") and len(lines) == 7


def test_kuhn_family_reports_a_backend_that_cannot_answer():
    script = load_script("figures/kuhn_family.py")
    result = script.main(["--backends", "highs,pyomo:cbc"])
    assert [point.name for point in result.points] == ["highs", "min-norm", "quasi-perfect", "proper"]
    assert len(result.failed) == 1 and result.failed[0].startswith("pyomo:cbc: ")


def test_bench_select_times_kuhn_and_finds_the_selection_verified(capsys):
    script = load_script("bench/bench_select.py")
    result = script.main(["--games", "kuhn", "--repeats", "1"])
    (row,) = result.rows
    assert row["error"] is None and row["verified"] and row["sequences"] == 26
    assert row["plain"] > 0 and row["select"] > 0 and row["ratio"] == pytest.approx(row["select"] / row["plain"])
    assert row["moved"] == pytest.approx(0.21875, abs=1e-6)  # HiGHS's vertex (alpha 1/3) against 25/96: K bet 3 alpha
    script.report(result)
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[:4] == ["game", "sequences", "plain", "select"] and lines[2].startswith("kuhn")

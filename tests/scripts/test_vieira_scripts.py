"""The Vieira (2020) scripts (scripts/vieira/) at a tiny scale: the figures main() returns, checked.

Each test imports a script and calls ``main`` with small sizes: a training
session of 20 episodes (torch), a tournament of 10 matches a seat, the
choices of 40 drafts; then checks the figures against the thesis's
Figures 5.2 and 5.4, an independent LP (scipy) and the files written.
"""

import json

import numpy as np
import pytest
from conftest import load_script, matrix_value, needs_rl, refusal

from gamelp.games.locm.drafters import make_drafter


@needs_rl
def test_vieira_training_writes_a_policy_and_its_learning_curve(tmp_path, capsys):
    script = load_script("vieira/vieira_5_1_training.py")
    result = script.main(
        [
            "--episodes",
            "20",
            "--eval-episodes",
            "2",
            "--minibatches",
            "1",
            "--seed",
            "1",
            "--out",
            str(tmp_path),
            "--quiet",
        ]
    )
    assert (result.approach, result.battler, result.episodes) == ("immediate", "max-attack", 20)
    drafter = make_drafter(f"file:{tmp_path / 'policy.npz'}")
    assert result.policy == tmp_path / "policy.npz"
    assert sorted(drafter.policies) == [0, 1] and drafter.policies[0].activation == "elu"  # Table A.2
    # Rounds of 10 episodes (the opponent update of Table A.2): checkpoints after 10 and 20.
    assert [(episodes, seat) for episodes, seat, _ in result.curve] == [(10, 0), (10, 1), (20, 0), (20, 1)]
    assert all(rate in (0.0, 0.5, 1.0) for _, _, rate in result.curve)  # 2 matches each
    rows = (tmp_path / "curve.csv").read_text().splitlines()
    assert rows[0] == "episodes,seat,win_rate"
    assert [row.split(",") for row in rows[1:]] == [[str(e), str(s), repr(r)] for e, s, r in result.curve]
    assert (tmp_path / "curve.png").stat().st_size > 0
    script.report(result)
    out = capsys.readouterr().out
    assert "20 episodes per seat" in out and "1st player" in out and f"file:{tmp_path / 'policy.npz'}" in out


def test_vieira_tournament_cells_beside_figure_5_2(tmp_path, capsys):
    script = load_script("vieira/vieira_5_2_tournament.py")
    result = script.main(
        [
            "--battlers",
            "max-attack",
            "--matches",
            "10",
            "--sets",
            "2",
            "--learned",
            "immediate",
            "--quiet",
            "--out",
            str(tmp_path),
        ]
    )
    (table,) = result.tables
    cells = json.loads((tmp_path / "max-attack" / "figure_5_2.json").read_text())["cells"]
    assert cells == table.cells
    names = ["random", "max-attack", "coac", "closet-ai", "icebox", "immediate"]
    assert list(table.tournament.drafters) == names
    assert table.tournament.matches == 300 and table.per_pair == 20 and len(cells) == 15
    # Vieira (2020), Figure 5.2 (max-attack battler): win rate (%) of the row drafter
    thesis = {
        ("random", "max-attack"): 45.83,
        ("max-attack", "coac"): 51.24,
        ("coac", "closet-ai"): 43.12,
        ("closet-ai", "icebox"): 44.06,
        ("random", "immediate"): 19.51,
        ("icebox", "immediate"): 30.04,
    }
    A = np.full((6, 6), 0.5)
    for cell in cells:
        assert cell["thesis"] == thesis.get((cell["row"], cell["col"]), cell["thesis"])
        assert cell["ours"] == pytest.approx((cell["first_seat"] + cell["second_seat"]) / 2)  # 10 matches a seat
        assert cell["ours"] / 5 == pytest.approx(round(cell["ours"] / 5))  # 20 matches: multiples of 5%
        if cell["se"] > 0:
            assert cell["z"] == pytest.approx((cell["ours"] - cell["thesis"]) / cell["se"])
        else:  # every match of the pair went one way: no standard error to measure the difference in
            assert cell["z"] is None
        i, j = names.index(cell["row"]), names.index(cell["col"])
        assert table.thesis[i, j] == cell["thesis"]
        A[i, j], A[j, i] = cell["ours"] / 100, 1 - cell["ours"] / 100
    assert {(c["row"], c["col"]) for c in cells} >= set(thesis)
    assert table.nash_ours.value == pytest.approx(matrix_value(A), abs=1e-6)
    assert sum(table.nash_ours.mix.values()) == pytest.approx(1)
    # in Vieira's table the Immediate drafter beats every other: a pure, unique equilibrium
    nash = table.nash_thesis
    assert nash.value == pytest.approx(0.5) and nash.unique and nash.mix["immediate"] == pytest.approx(1)
    robust = table.robust_ours
    assert robust.radius == 2 and robust.guaranteed_value < robust.nominal_value <= table.nash_ours.value + 1e-7
    script.report(result)
    out = capsys.readouterr().out
    assert "300 matches, 20 per pair" in out
    assert "Nash over drafters, Vieira (2020): value 0.5000; mix immediate 100.0%; unique" in out
    assert " 0.0%" not in out.split("robust mix")[1]


def test_vieira_choices_figure_5_4_and_clusters(tmp_path, capsys):
    script = load_script("vieira/vieira_5_4_choices.py")
    result = script.main(["--drafts", "40", "--plot", str(tmp_path / "choices.png")])
    table = {(pair.a, pair.b): pair for pair in result.similarity}
    assert len(table) == 28 and result.turns == 40 * 30
    assert table["max-attack", "icebox"].thesis == 55.76 and table["immediate", "lstm"].thesis == 55.39
    assert all(abs(pair.ours - 33.3) < 6 for key, pair in table.items() if "random" in key)  # 1,200 turns
    assert all(0 <= pair.ours <= 100 for pair in table.values())
    names = ["random", "max-attack", "icebox", "closet-ai", "coac", "immediate", "history", "lstm"]
    assert list(result.points) == list(result.clusters) == names
    assert 2 <= result.k <= 7 and set(result.clusters.values()) == set(range(result.k))
    assert (tmp_path / "choices.png").stat().st_size > 1000
    script.report(result)
    out = capsys.readouterr().out
    assert f"k-means with k = {result.k} by silhouette" in out and f"wrote {tmp_path / 'choices.png'}" in out


@pytest.mark.parametrize(
    "name, args, message",
    [
        ("vieira_5_4_choices.py", ["--learned", "nobody", "--drafts", "2"], "unknown drafter 'nobody'"),
        ("vieira_5_4_choices.py", ["--drafts", "1"], "argument --drafts: must be at least 2, got 1"),
        ("vieira_5_2_tournament.py", ["--battlers", "nobody", "--out", "out"], "Figure 5.2 has the battlers"),
        ("vieira_5_2_tournament.py", ["--matches", "0", "--out", "out"], "argument --matches: must be at least 1"),
        ("vieira_5_1_training.py", ["--episodes", "0", "--out", "out"], "argument --episodes: must be between 1 and"),
        ("vieira_5_1_training.py", ["--envs", "two", "--out", "out"], "argument --envs: expected a number, got 'two'"),
    ],
)
def test_vieira_scripts_refuse_bad_input_in_one_line(tmp_path, name, args, message):
    assert message in refusal("vieira/" + name, args, tmp_path)
    assert not (tmp_path / "out").exists()

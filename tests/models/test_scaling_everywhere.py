"""Issue 23, items 1-5: a game's answer does not depend on its payoffs' units, on every model path.

Each test runs one command on Kuhn poker (or a matrix game) and on the same game with every payoff
multiplied by a factor of 1e-12 or 1e12, and expects the unscaled answer, scaled: values times the
factor within a relative tolerance, the same verdicts, the same k-curve.
"""

import json

import numpy as np
import pytest

from gamelp.cli import main
from gamelp.game import SequenceFormGame

FACTORS = (1e-12, 1e12)


def scaled_kuhn(kuhn_dict, factor: float, tmp_path) -> str:
    """A Kuhn game file with every ``utility_pl1`` value times ``factor``."""
    data = json.loads(json.dumps(kuhn_dict))
    for entry in data["utility_pl1"]:
        entry["value"] = entry["value"] * factor
    path = tmp_path / f"kuhn_x{factor:g}.json"
    SequenceFormGame.from_dict(data).save(path)
    return str(path)


def run_json(capsys, *argv: str):
    """Run the command line and return its JSON output."""
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def unscaled_kuhn(kuhn_dict, tmp_path) -> str:
    return scaled_kuhn(kuhn_dict, 1.0, tmp_path)


@pytest.mark.parametrize("factor", FACTORS)
@pytest.mark.parametrize("method", ["mip", "search"])
def test_kdet_sweep_is_unit_free(kuhn_dict, unscaled_kuhn, tmp_path, capsys, method, factor):
    """Items 1 and 2: the k-curve of the MIP sweep and of the search, scaled."""
    argv = ("kdet", "--player", "1", "--sweep", "--method", method, "--quiet")
    base = run_json(capsys, *argv[:1], unscaled_kuhn, *argv[1:])
    scaled = run_json(capsys, *argv[:1], scaled_kuhn(kuhn_dict, factor, tmp_path), *argv[1:])
    assert [row["k"] for row in scaled] == [row["k"] for row in base]
    np.testing.assert_allclose(
        [row["value"] / factor for row in scaled], [row["value"] for row in base], rtol=1e-6, atol=1e-9
    )
    np.testing.assert_allclose(
        [row["bound"] / factor for row in scaled], [row["bound"] for row in base], rtol=1e-6, atol=1e-9
    )
    np.testing.assert_allclose([row["mip_gap"] for row in scaled], [row["mip_gap"] for row in base], atol=1e-6)


@pytest.mark.parametrize("factor", FACTORS)
def test_unique_verdict_is_unit_free(kuhn_dict, unscaled_kuhn, tmp_path, capsys, factor):
    """Item 3: --unique gives the same verdict and the value scaled."""
    base = run_json(capsys, "solve", unscaled_kuhn, "--unique")
    scaled = run_json(capsys, "solve", scaled_kuhn(kuhn_dict, factor, tmp_path), "--unique")
    assert scaled["unique"] == base["unique"]
    assert scaled["value"] / factor == pytest.approx(base["value"], rel=1e-6)


@pytest.mark.parametrize("factor", FACTORS)
def test_matrix_unique_verdict_is_unit_free(tmp_path, capsys, factor):
    """Item 3 on matrix games: matrix solve --unique gives the same verdict and the value scaled."""
    from importlib import resources

    from gamelp.matrix import MatrixGame

    esche = MatrixGame.from_csv(resources.files("gamelp.games").joinpath("data", "esche_8c_payoffs.csv"))
    files = []
    for scale in (1.0, factor):
        path = tmp_path / f"esche{scale:g}.csv"
        MatrixGame(esche.payoffs * scale, esche.row_labels, esche.col_labels).to_csv(path)
        files.append(str(path))
    base, scaled = (run_json(capsys, "matrix", "solve", f, "--unique") for f in files)
    assert scaled["unique"] == base["unique"]
    assert scaled["value"] / factor == pytest.approx(base["value"], rel=1e-6)


def _read_back(path) -> tuple[int, float]:
    """The non-zero count and the optimum of an LP file, as HiGHS reads and solves it."""
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    return h.getLp().a_matrix_.value_.__len__(), h.getInfo().objective_function_value


@pytest.mark.parametrize("factor", FACTORS)
def test_export_keeps_every_coefficient(kuhn_dict, unscaled_kuhn, tmp_path, capsys, factor):
    """Item 4: the exported Nash LP is the solved model: every coefficient kept, its optimum the game's value."""
    import re

    from gamelp.game import load_game
    from gamelp.models.nash import sequence_form_lp

    files = [unscaled_kuhn, scaled_kuhn(kuhn_dict, factor, tmp_path)]
    read = []
    for index, game_file in enumerate(files):
        out = tmp_path / f"x{index}.lp"
        capsys.readouterr()
        assert main(["export", game_file, "--model", "nash", "-o", str(out)]) == 0
        said = re.search(r"divided by their range (\S+)", capsys.readouterr().out)
        unit = float(said.group(1)) if said else 1.0
        game = load_game(game_file)
        nonzeros = sequence_form_lp(game, 1).matrix_form().A.nnz
        count, optimum = _read_back(out)
        assert count == nonzeros  # no coefficient dropped
        read.append(optimum * unit)  # the message gives the factor the payoffs were divided by
    assert read[1] / factor == pytest.approx(read[0], rel=1e-6)
    assert read[0] == pytest.approx(-1 / 18, rel=1e-6)


@pytest.mark.parametrize("factor", FACTORS)
@pytest.mark.parametrize("command", ["matrix", "solve"])
def test_target_gap_is_relative(kuhn_dict, unscaled_kuhn, tmp_path, capsys, command, factor):
    """Item 5: --target-gap is relative to the payoff range; the run takes as many iterations scaled."""
    if command == "matrix":
        rng = np.random.default_rng(0)
        values = rng.uniform(-1, 1, (6, 5))
        files = []
        for scale in (1.0, factor):
            path = tmp_path / f"m{scale:g}.csv"
            rows = ["," + ",".join(f"c{j}" for j in range(5))]
            rows += [f"r{i}," + ",".join(repr(float(v * scale)) for v in row) for i, row in enumerate(values)]
            path.write_text("\n".join(rows) + "\n")
            files.append(str(path))
        argv = ("matrix", "solve", "{}", "--method", "pcfr+", "--target-gap", "1e-4")
    else:
        files = [unscaled_kuhn, scaled_kuhn(kuhn_dict, factor, tmp_path)]
        argv = ("solve", "{}", "--method", "cfr+", "--iterations", "5000", "--target-gap", "1e-3")
    base, scaled = (run_json(capsys, *(f if a == "{}" else a for a in argv)) for f in files)
    assert base["iterations"] > 1
    assert scaled["iterations"] == base["iterations"]
    assert scaled["value"] / factor == pytest.approx(base["value"], rel=1e-6)
    assert scaled["gap"] / factor == pytest.approx(base["gap"], rel=1e-6)


def _scaled_csv_pair(tmp_path, name: str, factor: float) -> tuple[str, str]:
    """The shipped mini-Magic 15-cell payoffs and standard deviations, both times ``factor``, as CSV files."""
    from importlib import resources

    from gamelp.matrix import MatrixGame

    data = resources.files("gamelp.games").joinpath("data")
    game = MatrixGame.from_csv(data / f"{name}_payoffs.csv", std_path=data / f"{name}_std.csv")
    assert game.std is not None
    paths = (tmp_path / f"{name}_x{factor:g}.csv", tmp_path / f"{name}_std_x{factor:g}.csv")
    MatrixGame(game.payoffs * factor, game.row_labels, game.col_labels).to_csv(paths[0])
    MatrixGame(game.std * factor, game.row_labels, game.col_labels).to_csv(paths[1])
    return str(paths[0]), str(paths[1])


@pytest.mark.parametrize("factor", FACTORS)
@pytest.mark.parametrize(
    ("robust", "form", "player"),
    [
        ("interval", "general", "row"),
        ("interval", "general", "col"),
        ("interval", "thesis", "row"),
        ("ellipsoidal", "general", "row"),
        ("ellipsoidal", "general", "col"),
    ],
)
def test_robust_lp_is_unit_free(tmp_path, capsys, robust, form, player, factor):
    """The robust LPs (interval: an LP; ellipsoidal: a second-order cone program) on a game and deviations in
    other units: the same strategy, the value scaled (the radius counts deviations, so it has no unit)."""
    runs = []
    for scale in (1.0, factor):
        payoffs, std = _scaled_csv_pair(tmp_path, "mtg_exact_15cells", scale)
        argv = ("matrix", "solve", payoffs, "--std", std, "--robust", robust, "--radius", "0.5")
        runs.append(run_json(capsys, *argv, "--form", form, "--player", player))
    base, scaled = runs
    assert scaled["value"] / factor == pytest.approx(base["value"], rel=1e-5)
    assert base["strategy"].keys() == scaled["strategy"].keys()
    np.testing.assert_allclose(list(scaled["strategy"].values()), list(base["strategy"].values()), atol=1e-5)


@pytest.mark.parametrize("factor", FACTORS)
@pytest.mark.parametrize("method", ["mwu", "omwu"])
def test_step_size_is_relative(kuhn_dict, unscaled_kuhn, tmp_path, capsys, method, factor):
    """MWU / OMWU's --eta is relative to the payoff range: the game in other units plays the same strategies."""
    files = [unscaled_kuhn, scaled_kuhn(kuhn_dict, factor, tmp_path)]
    argv = ("--method", method, "--iterations", "300", "--eta", "0.5")
    base, scaled = (run_json(capsys, "solve", f, *argv) for f in files)
    assert base["gap"] < 0.2  # it moved: with the step taken in the game's units it stalls or overflows scaled
    assert scaled["gap"] / factor == pytest.approx(base["gap"], rel=1e-6)
    assert scaled["value"] / factor == pytest.approx(base["value"], rel=1e-6)

"""MatrixGame: CSV round trip, every malformed-file error, iterated dominance, the Appendix B data."""

import json
from importlib import resources

import numpy as np
import pytest

from gamelp.errors import GamelpError, MatrixFileError
from gamelp.matrix import MatrixGame, MatrixGameError

ESCHE = resources.files("gamelp.games").joinpath("data", "esche_8c_payoffs.csv")


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_round_trip_is_exact(tmp_path):
    rng = np.random.default_rng(1)
    payoffs, std = rng.normal(size=(4, 3)), rng.random((4, 3))
    game = MatrixGame(payoffs, ["a", "b", "c", "d"], ["x", "y", "z"], std=std)
    game.to_csv(tmp_path / "p.csv", std_path=tmp_path / "s.csv")
    back = MatrixGame.from_csv(tmp_path / "p.csv", std_path=tmp_path / "s.csv")
    assert np.array_equal(back.payoffs, payoffs) and np.array_equal(back.std, std)
    assert back.row_labels == ("a", "b", "c", "d") and back.col_labels == ("x", "y", "z")
    assert back.shape == (4, 3)


def test_appendix_b_transcription():
    game = MatrixGame.from_csv(ESCHE)
    assert game.shape == (33, 33)
    assert game.row_labels == game.col_labels
    assert game.row_labels[0] == "0C16L" and game.row_labels[-1] == "8C48L"
    assert game.row_labels[11] == "4C12L" and game.row_labels[22] == "8C8L"
    # A symmetric deck game: c_ij + c_ji = 1 exactly as printed, 0.5 on the diagonal.
    assert np.abs(game.payoffs + game.payoffs.T - 1).max() < 1e-12
    assert np.all(np.diag(game.payoffs) == 0.5)
    assert game.payoffs[game.row_labels.index("8C28L"), game.col_labels.index("0C56L")] == 0.6735


MALFORMED = {
    "ragged": (",a,b\nr1,1,2\nr2,3\n", ["line 3", "'r2'", "1 values", "2 columns"]),
    "non_numeric": (",a,b\nr1,1,2\nr2,3,abc\n", ["line 3", "'r2'", "column 'b'", "'abc'"]),
    "nan": (",a,b\nr1,1,nan\nr2,3,4\n", ["line 2", "'r1'", "column 'b'", "finite"]),
    "inf": (",a,b\nr1,1,2\nr2,inf,4\n", ["'r2'", "column 'a'", "finite"]),
    "empty": ("", ["empty"]),
    "blank_lines_only": ("\n\n", ["empty"]),
    "header_only": (",a,b\n", ["no data rows"]),
    "no_columns": ("corner\nr1\n", ["no column labels"]),
    "duplicate_column": (",a,a\nr1,1,2\n", ["column label 'a' appears twice"]),
    "duplicate_row": (",a,b\nr1,1,2\nr1,3,4\n", ["row label 'r1' appears twice"]),
    "empty_row_label": (",a,b\n,1,2\n", ["row label is empty"]),
    # Python's float() reads these; a payoff CSV must not.
    "underscore_separator": (",a,b\nr1,1_000,2\nr2,3,4\n", ["line 2", "column 'a'", "'1_000'", "plain decimal"]),
    "full_width_digits": (",a,b\nr1,1,2\nr2,3,\uff14\n", ["line 3", "column 'b'", "plain decimal"]),
    "arabic_indic_digits": (",a,b\nr1,\u0661,2\nr2,3,4\n", ["column 'a'", "plain decimal"]),
    # Without labels the first numbers silently became labels.
    "no_labels_at_all": (
        "0.5,0.25,0.75\n0.75,0.5,0.25\n0.25,0.75,0.5\n",
        ["line 1", "'0.5'", "no label row or column"],
    ),
    "no_label_row": ("r1,0.5,0.25\nr2,0.75,0.5\nr3,0.1,0.2\n", ["column labels seem to be missing"]),
    "no_label_column": (",a,b\n0.5,0.25\n0.75,0.5\n", ["line 2", "label column missing"]),
    "no_label_column_square": ("x,a,b\n1,0.5,0.25\n2,0.75,0.5\n", ["row labels seem to be missing"]),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_payoff_csv(tmp_path, case):
    text, fragments = MALFORMED[case]
    path = write(tmp_path / f"{case}.csv", text)
    with pytest.raises(MatrixFileError) as info:
        MatrixGame.from_csv(path)
    message = str(info.value)
    assert str(path) in message
    for fragment in fragments:
        assert fragment in message, message


GOOD = ",a,b\nr1,0.5,0.25\nr2,0.75,0.5\n"
STD_CASES = {
    "shape": (",a,b\nr1,0.1,0.1\n", ["1x2", "2x2"]),
    "row_label": (",a,b\nr1,0.1,0.1\nrX,0.1,0.1\n", ["row 2 is labelled 'rX'", "'r2'"]),
    "col_label": (",a,c\nr1,0.1,0.1\nr2,0.1,0.1\n", ["column 2 is labelled 'c'", "'b'"]),
    "negative": (",a,b\nr1,0.1,0.1\nr2,0.1,-0.2\n", ["row 'r2'", "column 'b'", "negative"]),
    "nan": (",a,b\nr1,0.1,NaN\nr2,0.1,0.1\n", ["'r1'", "column 'b'", "finite"]),
}


@pytest.mark.parametrize("case", sorted(STD_CASES))
def test_malformed_std_csv(tmp_path, case):
    text, fragments = STD_CASES[case]
    payoffs = write(tmp_path / "p.csv", GOOD)
    std = write(tmp_path / f"std_{case}.csv", text)
    with pytest.raises(MatrixFileError) as info:
        MatrixGame.from_csv(payoffs, std_path=std)
    message = str(info.value)
    assert str(std) in message
    for fragment in fragments:
        assert fragment in message, message


def test_missing_file_is_a_gamelp_error(tmp_path):
    with pytest.raises(GamelpError, match="cannot read"):
        MatrixGame.from_csv(tmp_path / "absent.csv")


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"payoffs": [[1.0, np.nan]]}, "is nan"),
        ({"payoffs": [[1.0, 2.0]], "row_labels": ["a", "b"]}, "row labels: 2 labels for 1 entries"),
        ({"payoffs": [[1.0, 2.0]], "col_labels": ["a", "a"]}, "column labels: label 'a' appears twice"),
        ({"payoffs": [[1.0, 2.0]], "std": [[0.1]]}, "shape"),
        ({"payoffs": [[1.0, 2.0]], "std": [[0.1, -0.1]]}, "non-negative"),
        ({"payoffs": []}, "non-empty"),
        ({"payoffs": [1.0, 2.0]}, r"non-empty 2-d matrix, got shape \(2,\)"),
        ({"payoffs": np.zeros((0, 2))}, r"non-empty 2-d matrix, got shape \(0, 2\)"),
    ],
)
def test_constructor_errors(kwargs, fragment):
    with pytest.raises(MatrixGameError, match=fragment):
        MatrixGame(**kwargs)


def test_iterated_dominance_order_and_result():
    payoffs = np.array([[3.0, 1.0, 4.0], [2.0, 0.0, 5.0], [1.0, -1.0, 0.0]])
    game = MatrixGame(payoffs, ["r0", "r1", "r2"], ["c0", "c1", "c2"], std=np.ones((3, 3)))
    reduced, rows, cols = game.reduce_dominated()
    # Pass 1: r2 (below r0 everywhere); over rows r0, r1 column c1 = (1, 0) is below c0 = (3, 2) and
    # c2 = (4, 5).  Pass 2: over column c1 alone r1 (0) is below r0 (1).
    assert rows == ["r2", "r1"]
    assert cols == ["c0", "c2"]
    assert reduced.row_labels == ("r0",) and reduced.col_labels == ("c1",)
    assert reduced.payoffs.tolist() == [[1.0]] and reduced.std.shape == (1, 1)


def test_weak_dominance_is_kept():
    game = MatrixGame([[1.0, 1.0], [1.0, 0.0]])
    reduced, rows, cols = game.reduce_dominated()
    assert rows == [] and cols == []  # r1 <= r0 and c1 <= c0, but with a tie: not strict
    assert reduced.shape == (2, 2)


def test_appendix_b_reduction_keeps_the_equilibrium_support():
    reduced, rows, cols = MatrixGame.from_csv(ESCHE).reduce_dominated()
    assert reduced.shape == (16, 16)
    assert len(rows) == len(cols) == 17
    assert {"0C40L", "8C28L", "8C32L"} <= set(reduced.row_labels)
    assert "0C56L" in rows and "8C48L" in cols


def test_robust_dominance_needs_the_whole_box():
    # r1 is below r0 by 1 in each column: dominated nominally and for R < 0.5 with unit deviations
    # (the box is [c - R, c + R]), no longer at R = 0.5, where r1's top meets r0's bottom.
    game = MatrixGame([[2.0, 3.0], [1.0, 2.0]], ["r0", "r1"], ["c0", "c1"], std=np.ones((2, 2)))
    assert game.reduce_dominated(radius=0.49)[1] == ["r1"]
    assert game.reduce_dominated(radius=0.5)[1:] == ([], [])
    with pytest.raises(MatrixGameError, match="standard deviations"):
        MatrixGame([[1.0]]).reduce_dominated(radius=1.0)


def _binomial_deviations(tmp_path):
    """Appendix B with the deviations of win rates estimated from 200 games each."""
    game = MatrixGame.from_csv(ESCHE)
    std = np.sqrt(game.payoffs * (1 - game.payoffs) / 200)
    MatrixGame(game.payoffs, game.row_labels, game.col_labels, std=std).to_csv(
        tmp_path / "p.csv", std_path=tmp_path / "s.csv"
    )
    return tmp_path / "p.csv", tmp_path / "s.csv"


@pytest.mark.parametrize(
    "kind, radius, backend, value, removed",
    [
        # Nominal reduction (17 rows, 17 columns) gave 0.476906 and 0.467670 here: wrong.
        ("ellipsoidal", 2.0, "cvxpy:CLARABEL", 0.477434, 0),
        ("ellipsoidal", 3.0, "cvxpy:CLARABEL", 0.468997, 0),
        ("ellipsoidal", 0.5, "cvxpy:CLARABEL", 0.492071, 6),
        ("interval", 1.0, "highs", 0.464645, 2),
    ],
)
def test_robust_value_is_the_same_with_and_without_reduction(tmp_path, capsys, kind, radius, backend, value, removed):
    from gamelp.cli import main

    payoffs, std = _binomial_deviations(tmp_path)
    results = []
    for extra in ([], ["--no-reduce"]):
        assert (
            main(
                [
                    "matrix",
                    "solve",
                    str(payoffs),
                    "--robust",
                    kind,
                    "--radius",
                    str(radius),
                    "--std",
                    str(std),
                    "--backend",
                    backend,
                    "--json",
                    *extra,
                ]
            )
            == 0
        )
        results.append(json.loads(capsys.readouterr().out))
    reduced, full = results
    assert full["value"] == pytest.approx(value, abs=5e-7)
    assert reduced["value"] == pytest.approx(full["value"], abs=1e-6)
    assert len(reduced["removed"]["rows"]) == len(reduced["removed"]["columns"]) == removed


def test_a_named_pipe_is_refused_instead_of_waiting_forever(tmp_path):
    import os

    pipe = tmp_path / "payoffs.csv"
    os.mkfifo(pipe)
    with pytest.raises(MatrixFileError, match="payoffs.csv: cannot read, it is a named pipe"):
        MatrixGame.from_csv(pipe)


def test_a_long_label_list_is_shown_short_and_csv_files_go_into_new_directories(tmp_path):
    game = MatrixGame(np.arange(10.0).reshape(5, 2))
    assert "rows=r0, r1, r2, ... (5), cols=c0, c1)" in repr(game)
    path = tmp_path / "new" / "deeper" / "m.csv"
    game.to_csv(path)
    assert MatrixGame.from_csv(path).payoffs.tolist() == game.payoffs.tolist()


# ----------------------------------------------------------------------------- shipped matrices by name
def test_the_shipped_matrices_load_by_name_with_their_deviations():
    from gamelp.matrix import shipped_matrices

    names = shipped_matrices()
    assert "esche_8c" in names and "mtg_exact_33" in names and names == tuple(sorted(names))
    by_name, by_path = MatrixGame.load("esche_8c"), MatrixGame.from_csv(ESCHE)
    assert np.array_equal(by_name.payoffs, by_path.payoffs) and by_name.row_labels == by_path.row_labels
    assert by_name.std is None  # esche_8c ships no deviations
    data = resources.files("gamelp.games").joinpath("data")
    exact = MatrixGame.from_csv(data / "mtg_exact_33_payoffs.csv", data / "mtg_exact_33_std.csv")
    loaded = MatrixGame.load("mtg_exact_33")
    assert np.array_equal(loaded.payoffs, exact.payoffs) and np.array_equal(loaded.std, exact.std)


def test_the_shipped_list_is_read_from_the_data_folder(tmp_path, monkeypatch):
    """A NAME_payoffs.csv planted in the data folder is listed and loaded as NAME; other files are not listed."""
    import gamelp.matrix

    write(tmp_path / "tiny_payoffs.csv", ",x,y\na,1,0\nb,0,1\n")
    write(tmp_path / "tiny_std.csv", ",x,y\na,0.5,0\nb,0,0.5\n")
    write(tmp_path / "kuhn.json", "{}")
    write(tmp_path / "notes_std.csv", ",x\na,1\n")
    monkeypatch.setattr(gamelp.matrix, "shipped_data", lambda: tmp_path)
    assert gamelp.matrix.shipped_matrices() == ("tiny",)
    monkeypatch.chdir(tmp_path)  # "tiny" is no file here: the name is looked up
    tiny = MatrixGame.load("tiny")
    assert tiny.row_labels == ("a", "b") and tiny.std[0, 0] == 0.5
    replaced = MatrixGame.load("tiny", std_path=write(tmp_path / "other.csv", ",x,y\na,1,1\nb,1,1\n"))
    assert np.array_equal(replaced.std, np.ones((2, 2)))  # given deviations win over the shipped ones


def test_a_path_that_exists_wins_over_a_shipped_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "esche_8c", ",x,y\na,1,0\nb,0,1\n")
    assert MatrixGame.load("esche_8c").shape == (2, 2)
    assert MatrixGame.load(tmp_path / "esche_8c").shape == (2, 2)
    assert MatrixGame.load(ESCHE).shape == (33, 33)  # a path to the shipped file still works


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("Esche_8c", "esche_8c"),
        ("esche8c", "esche_8c"),
        ("elsewhere/esche_8c_payoffs.csv", "esche_8c"),  # a shipped file's name, not found here
        ("mtg_exact33", "mtg_exact_33"),
        ("rock_paper_scissors", None),
    ],
)
def test_an_unknown_name_is_refused_in_one_line_naming_the_shipped_ones(tmp_path, monkeypatch, typed, meant):
    from gamelp.matrix import shipped_matrices

    monkeypatch.chdir(tmp_path)
    with pytest.raises(MatrixFileError) as info:
        MatrixGame.load(typed)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{typed}: no such file or shipped matrix")
    assert message.endswith(f"(shipped: {', '.join(shipped_matrices())})")
    if meant:
        assert f"; did you mean {meant!r}? (shipped" in message
    else:
        assert "did you mean" not in message


def test_the_cli_solves_a_shipped_matrix_by_name(tmp_path, monkeypatch, capsys):
    from gamelp.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["matrix", "solve", "esche_8c", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["file"] == "esche_8c" and out["value"] == pytest.approx(0.5, abs=1e-9) and out["shape"] == [33, 33]
    # --robust on a shipped matrix uses its shipped deviations: the same as naming both files
    data = resources.files("gamelp.games").joinpath("data")
    robust = ["--robust", "interval", "--radius", "0.5", "--json"]
    assert main(["matrix", "solve", "mtg_exact_15cells", *robust]) == 0
    by_name = json.loads(capsys.readouterr().out)
    payoffs, std = data / "mtg_exact_15cells_payoffs.csv", data / "mtg_exact_15cells_std.csv"
    assert main(["matrix", "solve", str(payoffs), "--std", str(std), *robust]) == 0
    by_path = json.loads(capsys.readouterr().out)
    assert by_name["value"] == pytest.approx(by_path["value"], abs=1e-12) and by_name["strategy"] == by_path["strategy"]


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["esche8c"], "esche8c: no such file or shipped matrix; did you mean 'esche_8c'? (shipped: esche_8c, "),
        (["esche_8c", "--robust", "interval", "--radius", "1"], "--robust needs --std STD.csv: esche_8c has no"),
    ],
)
def test_the_cli_refuses_a_bad_name_in_one_line(tmp_path, monkeypatch, capsys, argv, line):
    from gamelp.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["matrix", "solve", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1 and line in captured.err


def test_a_gambit_nfg_loads_by_its_suffix(tmp_path):
    """MatrixGame.load reads a .nfg through the registered reader, a .csv as a CSV."""
    path = tmp_path / "pennies.nfg"
    path.write_text('NFG 1 R "pennies" { "P1" "P2" } { 2 2 }\n\n1 -1 -1 1 -1 1 1 -1\n')
    game = MatrixGame.load(path)
    assert game.payoffs.tolist() == [[1.0, -1.0], [-1.0, 1.0]]

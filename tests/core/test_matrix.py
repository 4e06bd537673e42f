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

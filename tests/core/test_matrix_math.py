"""Iterated strict dominance against a brute-force reference, nominal and over the box of radius R."""

import numpy as np
import pytest

from gamelp.errors import MatrixFileError
from gamelp.matrix import MatrixGame


def brute_force_reduction(C, std, radius):
    """Pairwise: drop every row some row beats in all columns (on the box's worst cases), then columns; repeat."""
    spread = radius * std if radius > 0 else np.zeros_like(C)
    lower, upper = C - spread, C + spread
    rows, cols = list(range(C.shape[0])), list(range(C.shape[1]))
    removed_rows, removed_cols = [], []
    while True:
        dead_rows = [i for i in rows if any(all(lower[k, j] > upper[i, j] for j in cols) for k in rows if k != i)]
        rows = [i for i in rows if i not in dead_rows]
        dead_cols = [j for j in cols if any(all(upper[i, m] < lower[i, j] for i in rows) for m in cols if m != j)]
        cols = [j for j in cols if j not in dead_cols]
        removed_rows += dead_rows
        removed_cols += dead_cols
        if not dead_rows and not dead_cols:
            return rows, cols, removed_rows, removed_cols


def layered_game(rng, m, n):
    """Random payoffs with dominated rows and columns planted (copies shifted by a margin), 40 columns wide."""
    C = rng.uniform(size=(m, n))
    for i in range(0, m, 3):
        C[i] = C[(i + 1) % m] - rng.uniform(0.01, 0.3)
    for j in range(0, n, 7):
        C[:, j] = C[:, (j + 1) % n] + rng.uniform(0.01, 0.3)
    return C


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("radius", [0.0, 1.0, 3.0])
def test_reduce_dominated_against_brute_force(seed, radius):
    rng = np.random.default_rng(seed)
    C = layered_game(rng, 9, 40)  # 40 columns: the candidate filter runs over three chunks of 16
    std = rng.uniform(0.0, 0.03, size=C.shape)
    game = MatrixGame(C, std=std)
    reduced, removed_rows, removed_cols = game.reduce_dominated(radius)
    rows, cols, expected_rows, expected_cols = brute_force_reduction(C, std, radius)
    assert removed_rows == [game.row_labels[i] for i in expected_rows]
    assert removed_cols == [game.col_labels[j] for j in expected_cols]
    assert list(reduced.row_labels) == [game.row_labels[i] for i in rows]
    assert list(reduced.col_labels) == [game.col_labels[j] for j in cols]
    assert reduced.payoffs == pytest.approx(C[np.ix_(rows, cols)])
    assert reduced.std == pytest.approx(std[np.ix_(rows, cols)])
    if radius == 0.0:
        assert removed_rows and removed_cols  # the planted ones, at least


def test_dominance_is_strict_and_needs_every_column():
    # Row b equals a in the first column: not strictly dominated. Row c is below a everywhere: dominated.
    C = [[1.0, 2.0, 3.0], [1.0, 1.0, 1.0], [0.5, 1.5, 2.5]]
    reduced, rows, cols = MatrixGame(C, ["a", "b", "c"], ["x", "y", "z"]).reduce_dominated()
    assert rows == ["c"]  # b stays: a tie in one column is not strict dominance
    # Columns: x is below y and z in row a but equal to them in row b, so no column goes.
    assert cols == [] and reduced.row_labels == ("a", "b")
    shifted, _, cols = MatrixGame(np.array(C) + [[0, 0, 0], [0, 0.5, 0.5], [0, 0, 0]]).reduce_dominated()
    assert cols == ["c1", "c2"] and shifted.payoffs.tolist() == [[1.0], [1.0]]


def test_repr_and_label_layout_message(tmp_path):
    assert (
        repr(MatrixGame(np.zeros((2, 3))))
        == "MatrixGame(shape=2x3, payoffs=0..0, std=False, rows=r0, r1, cols=c0, c1, c2)"
    )
    assert repr(MatrixGame(np.zeros((3, 1)), std=np.zeros((3, 1)))).startswith(
        "MatrixGame(shape=3x1, payoffs=0..0, std=True"
    )
    path = tmp_path / "no_header.csv"
    path.write_text("r1,0.5,0.25\nr2,0.75,0.5\nr3,0.1,0.2\n")
    with pytest.raises(MatrixFileError, match=r"every column label is a number .* but the row labels are not"):
        MatrixGame.from_csv(path)
    path.write_text("x,a,b\n1,0.5,0.25\n2,0.75,0.5\n")
    with pytest.raises(MatrixFileError, match=r"every row label is a number .* but the column labels are not"):
        MatrixGame.from_csv(path)


@pytest.mark.parametrize("radius", [-0.5, float("inf"), float("nan")])
def test_a_dominance_radius_that_is_not_finite_and_non_negative_is_refused(radius):
    from gamelp.errors import MatrixGameError

    game = MatrixGame([[1.0, 0.0], [0.0, 1.0]], std=[[0.1, 0.1], [0.1, 0.1]])
    with pytest.raises(MatrixGameError, match=rf"^the radius must be finite and non-negative, got {radius}$"):
        game.reduce_dominated(radius)


def test_a_removed_column_can_make_a_row_dominated_in_the_next_pass():
    """No row is dominated at first (a beats b against x, b beats a against y); column x is (the column player
    pays more in every row); without x, row a is: a second pass removes it."""
    game = MatrixGame([[5.0, 0.0], [4.0, 1.0]], ["a", "b"], ["x", "y"])
    reduced, rows, cols = game.reduce_dominated()
    assert (rows, cols) == (["a"], ["x"])
    assert reduced.row_labels == ("b",) and reduced.col_labels == ("y",) and reduced.payoffs.tolist() == [[1.0]]


def test_csv_messages_name_what_is_wrong_exactly(tmp_path):
    path, std = tmp_path / "payoffs.csv", tmp_path / "std.csv"
    path.write_text("r1,1,2,3,4,5\nr2,0.75,0.5,1,1,1\nr3,0.1,0.2,1,1,1\n")  # no label row: 5 numbers as labels
    with pytest.raises(MatrixFileError) as error:
        MatrixGame.from_csv(path)
    assert str(error.value) == (
        f"{path}: every column label is a number (1, 2, 3, ...) but the row labels are not: the column labels "
        "seem to be missing; the first row must hold the column labels and the first column the row labels"
    )
    path.write_text(",a,b,c\nx,1,2,3\ny,4,5,6\n")
    std.write_text(",a,b\nx,1,2\ny,4,5\nz,7,8\n")
    with pytest.raises(MatrixFileError) as error:
        MatrixGame.from_csv(path, std)
    assert str(error.value) == f"{std}: deviations have shape 3x2, the payoffs in {path} are 2x3"
    path.write_text(",a,\nx,1,2\n")
    with pytest.raises(MatrixFileError, match=rf"^{path}: a column label is empty \(line 1\)$"):
        MatrixGame.from_csv(path)
    path.write_text(",a,b\nx,1,2\n ,3,4\n")
    with pytest.raises(MatrixFileError, match=rf"^{path}: a row label is empty$"):
        MatrixGame.from_csv(path)


def test_a_payoff_with_separators_is_refused_naming_the_cell_and_the_rule(tmp_path):
    path = tmp_path / "payoffs.csv"
    path.write_text(",a,b\nx,1_000,2\n")
    with pytest.raises(MatrixFileError) as error:
        MatrixGame.from_csv(path)
    assert str(error.value) == (
        f"{path}: line 2, row 'x', column 'a': '1_000' is not a plain decimal number (digits 0-9, '.', an exponent; "
        "no '_' separators or non-ASCII digits)"
    )

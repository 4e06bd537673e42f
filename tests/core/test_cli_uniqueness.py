"""``--unique`` answers in the input's units and about the optimum it prints (issue 41, item 3).

A 3 x 3 matrix game whose row player has a segment of optima (largest payoff 4, value 1), and the same game
times 1e3, times 1e-3 and shifted: ``gamelp matrix solve FILE --unique --json`` must give the Python API's
verdict and numbers (:func:`~gamelp.models.uniqueness.check_uniqueness` on
:func:`~gamelp.models.nash.solve_matrix_nash`), the value as the objective in the CSV's units, and a second
optimum that differs from the printed one and guarantees the value against every column (checked with numpy on
the payoffs written to the file).  Kuhn poker in other units does the same for ``gamelp solve --unique``.
"""

import json

import numpy as np
import pytest
from scipy.optimize import linprog

from gamelp.cli import main
from gamelp.game import SequenceFormGame
from gamelp.matrix import MatrixGame
from gamelp.models.nash import solve_matrix_nash
from gamelp.models.uniqueness import check_game_uniqueness, check_uniqueness

# Row r1 guarantees 1; so does every mix of r1 with the half-half mix of r2 and r3 (column c1 holds it to 1).
NOT_UNIQUE = np.array([[1.0, 1.0, 1.0], [4.0, 0.0, 2.0], [2.0, 2.0, 0.0]])
# Rock-paper-scissors with other stakes (each row a rotation of (0, 4, -2)): value 2/3, the uniform mix, unique.
UNIQUE = np.array([[0.0, 4.0, -2.0], [-2.0, 0.0, 4.0], [4.0, -2.0, 0.0]])
LABELS = (("r1", "r2", "r3"), ("c1", "c2", "c3"))
# (name, payoffs from the base ones, value from the base value)
UNITS = [
    ("x1", lambda C: C, lambda v: v),
    ("x1e3", lambda C: C * 1e3, lambda v: v * 1e3),
    ("x1e-3", lambda C: C * 1e-3, lambda v: v * 1e-3),
    ("shifted", lambda C: C - 2.5, lambda v: v - 2.5),
]


def write_csv(tmp_path, name: str, payoffs: np.ndarray) -> str:
    path = tmp_path / f"{name}.csv"
    MatrixGame(payoffs, *LABELS).to_csv(path)
    return str(path)


def run_json(capsys, *argv: str) -> dict:
    """The command's standard output, which must be exactly one JSON document."""
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def guarantee(payoffs: np.ndarray, p: np.ndarray) -> float:
    """What the row mix ``p`` secures against every column, by plain numpy."""
    return float((payoffs.T @ p).min())


@pytest.mark.parametrize(("name", "payoffs_of", "value_of"), UNITS, ids=[u[0] for u in UNITS])
def test_matrix_unique_answers_in_the_csv_units(tmp_path, capsys, name, payoffs_of, value_of):
    payoffs = payoffs_of(NOT_UNIQUE)
    value = value_of(1.0)
    path = write_csv(tmp_path, name, payoffs)
    printed = run_json(capsys, "matrix", "solve", path, "--unique")
    result = solve_matrix_nash(MatrixGame.from_csv(path))
    api = check_uniqueness(result.model, result.solution)
    tol = 1e-9 * np.abs(payoffs).max()

    assert printed["unique"] is False and api.unique is False
    assert printed["value"] == pytest.approx(value, abs=tol)
    # The objectives are the value in the CSV's units, not the payoffs divided by their range.
    assert printed["objective"] == pytest.approx(value, abs=tol)
    assert printed["second_objective"] == pytest.approx(value, abs=tol)
    assert printed["second_point"]["v"] == pytest.approx([value], abs=tol)
    # The Python API gives the same numbers.
    assert printed["objective"] == pytest.approx(api.objective, abs=tol)
    assert printed["step"] == pytest.approx(api.step, rel=1e-9)
    for key, got in (("second_point", api.second_point), ("direction", api.direction)):
        assert {block: pytest.approx(values, abs=1e-9) for block, values in printed[key].items()} == {
            block: values.tolist() for block, values in got.items()
        }

    first = np.array(list(printed["strategy"].values()))
    second = np.array(printed["second_point"]["x"])
    assert first == pytest.approx(result.strategy, abs=1e-9)  # the tested optimum is the printed one
    assert np.abs(second - first).max() > 0.1  # another optimum, not the printed one
    assert second == pytest.approx(first + printed["step"] * np.array(printed["direction"]["x"]), abs=1e-9)
    assert second.min() >= -1e-12 and second.sum() == pytest.approx(1.0, abs=1e-12)
    assert guarantee(payoffs, second) == pytest.approx(value, abs=tol)  # optimal: it guarantees the value
    assert guarantee(payoffs, first) == pytest.approx(value, abs=tol)
    # The same game in any units has the same second optimum (r1 moved to the half-half mix of r2 and r3).
    assert second == pytest.approx([0.0, 0.5, 0.5], abs=1e-9)


@pytest.mark.parametrize(("name", "payoffs_of", "value_of"), UNITS[:3], ids=[u[0] for u in UNITS[:3]])
def test_matrix_unique_text_shows_the_value_as_the_objective(tmp_path, capsys, name, payoffs_of, value_of):
    path = write_csv(tmp_path, name, payoffs_of(NOT_UNIQUE))
    capsys.readouterr()
    assert main(["matrix", "solve", path, "--unique"]) == 0
    verdict = capsys.readouterr().out.splitlines()[-1]
    value = f"{value_of(1.0):.10g}"
    assert verdict == f"verdict: NOT unique; second optimum at step 1, objective {value} (first {value})"


@pytest.mark.parametrize(("name", "payoffs_of", "value_of"), UNITS[:3], ids=[u[0] for u in UNITS[:3]])
def test_thesis_form_unique_answers_in_the_csv_units(tmp_path, capsys, name, payoffs_of, value_of):
    """The thesis's LP (min e^T x s.t. C^T x >= e): its objective is 1 / value and x = p / value."""
    payoffs = payoffs_of(NOT_UNIQUE)
    value = value_of(1.0)
    path = write_csv(tmp_path, name, payoffs)
    printed = run_json(capsys, "matrix", "solve", path, "--unique", "--form", "thesis")
    result = solve_matrix_nash(MatrixGame.from_csv(path), form="thesis")
    api = check_uniqueness(result.model, result.solution)
    assert printed["unique"] is api.unique is False
    assert printed["objective"] == pytest.approx(1 / value, rel=1e-9) == printed["second_objective"]
    assert printed["second_point"]["x"] == pytest.approx(api.second_point["x"].tolist(), rel=1e-9)
    scaled = np.array(printed["second_point"]["x"])
    assert scaled.sum() == pytest.approx(1 / value, rel=1e-9)
    second = scaled / scaled.sum()
    assert guarantee(payoffs, second) == pytest.approx(value, rel=1e-9)
    assert np.abs(second - np.array(list(printed["strategy"].values()))).max() > 0.1


@pytest.mark.parametrize(("name", "payoffs_of", "value_of"), UNITS, ids=[u[0] for u in UNITS])
def test_a_unique_game_is_unique_on_both(tmp_path, capsys, name, payoffs_of, value_of):
    path = write_csv(tmp_path, f"unique_{name}", payoffs_of(UNIQUE))
    printed = run_json(capsys, "matrix", "solve", path, "--unique")
    result = solve_matrix_nash(MatrixGame.from_csv(path))
    api = check_uniqueness(result.model, result.solution)
    assert printed["unique"] is True and api.unique is True
    assert printed["second_point"] is None and printed["step"] is None
    assert printed["objective"] == pytest.approx(value_of(2 / 3), abs=1e-9 * np.abs(payoffs_of(UNIQUE)).max())


def scaled_kuhn(kuhn_dict, factor: float, tmp_path) -> tuple[str, SequenceFormGame]:
    data = json.loads(json.dumps(kuhn_dict))
    for entry in data["utility_pl1"]:
        entry["value"] *= factor
    game = SequenceFormGame.from_dict(data)
    path = tmp_path / f"kuhn_x{factor:g}.json"
    game.save(path)
    return str(path), game


def best_response_value(game: SequenceFormGame, x: np.ndarray) -> float:
    """Player 1's strategy ``x`` against player 2's best response: an LP over player 2's polytope (scipy)."""
    pl2 = game.pl2
    response = linprog(
        game.A.T @ x, A_eq=pl2.F.toarray(), b_eq=pl2.f, bounds=[(0, None)] * pl2.num_sequences, method="highs"
    )
    assert response.status == 0
    return float(response.fun)


@pytest.mark.parametrize("factor", [1.0, 1e3, 1e-3])
def test_sequence_form_unique_answers_in_the_game_units(kuhn_dict, tmp_path, capsys, factor):
    path, game = scaled_kuhn(kuhn_dict, factor, tmp_path)
    value = -factor / 18
    printed = run_json(capsys, "solve", path, "--unique")
    api = check_game_uniqueness(game, 1)
    assert printed["unique"] is api.unique is False
    assert printed["value"] == pytest.approx(value, rel=1e-9)
    assert printed["objective"] == pytest.approx(value, rel=1e-9) == printed["second_objective"]
    assert printed["objective"] == pytest.approx(api.objective, rel=1e-9)
    assert printed["second_point"]["x"] == pytest.approx(api.second_point["x"].tolist(), abs=1e-9)
    first = np.array(list(printed["strategy"].values()))
    second = np.array(printed["second_point"]["x"])
    assert np.abs(second - first).max() > 1e-3
    assert game.pl1.infeasibility(second) < 1e-9
    assert best_response_value(game, second) == pytest.approx(value, rel=1e-7)  # another equilibrium strategy
    assert run_json(capsys, "solve", path, "--unique", "--player", "2")["unique"] is True

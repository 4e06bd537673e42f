"""scripts/mutation_score.py: its mutation operators, pragmas and refusals (the score itself is a benchmark)."""

import pytest
from conftest import load_script

SOURCE = '''
def f(a, b):
    """Docstring: not mutated."""
    if a < b and not a:
        return -a + b * 2
    return a >= 0.5  # pragma: no mutate: a test of the pragma
'''


@pytest.fixture(scope="module")
def score():
    return load_script("mutation_score.py")


def test_operators_and_pragma(score):
    points, pragmad = score.mutants(SOURCE)
    whats = [p.what for p in points]
    assert whats == [
        "If condition inverted",
        "And -> Or",
        "Lt -> LtE",
        "not x -> x",
        "return value -> None",
        "Add -> Sub",
        "-x -> x",
        "Mult -> Div",
        "2 -> 3",
    ]
    assert pragmad == 3  # return -> None, >= -> >, 0.5 -> 1.5 on the pragma line
    assert "return a - b * 2" not in score.mutate(SOURCE, 5) and "return -a - b * 2" in score.mutate(SOURCE, 5)
    assert "return a + b * 2" in score.mutate(SOURCE, 6)
    assert "return None" in score.mutate(SOURCE, 4)
    assert "if not (a < b and (not a))" in score.mutate(SOURCE, 0) or "if not (a < b and not a)" in score.mutate(
        SOURCE, 0
    )


def test_negative_literals_are_one_constant(score):
    points, _ = score.mutants("x.reshape(-1)\n")
    assert [p.what for p in points] == ["-1 -> 0", "-1 -> 1"]
    assert score.mutate("x.reshape(-1)\n", 0).strip() == "x.reshape(0)"


@pytest.mark.parametrize("args, message", [(["--sample", "0"], "--sample"), (["--module", "x.py"], "--module")])
def test_refusals(score, args, message, capsys):
    with pytest.raises(SystemExit) as refused:
        score.build_parser().parse_args(args)
    assert refused.value.code == 2 and message in capsys.readouterr().err

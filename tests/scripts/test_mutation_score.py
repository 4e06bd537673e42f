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


def test_a_mutant_is_placed_on_the_first_line_of_its_statement(score):
    source = "def f(a,\n      b):\n    x = (a +\n         b)\n    if (a <\n            b):\n        return 1\n"
    points, _ = score.mutants(source)
    assert [(p.what, p.line, p.statement) for p in points] == [
        ("Add -> Sub", 3, 3),
        ("If condition inverted", 5, 5),
        ("Lt -> LtE", 5, 5),
        ("return value -> None", 7, 7),
        ("1 -> 2", 7, 7),
    ]
    points, _ = score.mutants("y = f(1,\n      2 * 3)\n")
    assert [(p.line, p.statement) for p in points] == [(1, 1), (2, 1), (2, 1), (2, 1)]


def test_tests_chosen_from_coverage_contexts(score):
    own = ["tests/a.py", "tests/b.py"]
    lines = {
        1: {""},  # run at import: every test of the module
        2: {"tests/a.py::t1|call", "tests/c.py::t9|call"},  # another module's test file does not count
        3: {"tests/b.py::t2|setup"},  # a fixture: the whole file
        4: {"tests/c.py::t9|call"},  # run by no own test: nothing to run (the mutant survives)
    }
    assert score._tests_of_contexts(lines, own) == {1: own, 2: ["tests/a.py::t1"], 3: ["tests/b.py"]}


def test_the_quickest_tests_run_first_and_whole_files_last(score):
    """pytest -x stops at the first failure: a mutant that every test kills costs only the quickest one."""
    lines = {1: {"tests/a.py::slow|call", "tests/a.py::quick|call", "tests/b.py::t|setup", "tests/a.py::new|call"}}
    seconds = {"tests/a.py::slow": 3.0, "tests/a.py::quick": 0.1, "tests/a.py::new": 0.5}
    chosen = score._tests_of_contexts(lines, ["tests/a.py", "tests/b.py"], seconds)
    assert chosen == {1: ["tests/a.py::quick", "tests/a.py::new", "tests/a.py::slow", "tests/b.py"]}


def test_a_module_with_no_mutant_run_scores_nothing(score):
    """A run that ran nothing (mutmut failing to map its tests, say) must fall below any floor, not pass it."""
    assert score.Score("models/nash.py").share == 0.0
    assert score.Score("models/nash.py", run=4, killed=3).share == 75.0

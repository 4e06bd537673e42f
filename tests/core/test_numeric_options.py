"""Every numeric option of every command and script is range-checked; hostile numbers are refused in one line.

The options are found from the parsers (the ``gamelp`` tree with every
simulator group loaded, and each script's ``build_parser()``), so a new
option with a bare ``type=int`` or ``type=float`` fails here.  Each numeric
option is then fed hostile values (negative, non-finite, absurdly large,
not a number); each must be refused by the parser with exit status 2 and a
one-line message, or accepted as a finite number in range.
"""

from __future__ import annotations

import argparse
import math

import pytest
from conftest import SCRIPTS, load_script

from gamelp.cli import build_parser

HOSTILE = ["-1", "-1e999", "1e999", "inf", "-inf", "nan", "1e400", "9" * 5000, "0x10", "1_000", "", "two"]


def _numeric_options(parser: argparse.ArgumentParser, path: tuple[str, ...]):
    """(command path, option string, action, parser) for every option whose type parses numbers."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _numeric_options(sub, (*path, name))
        elif action.option_strings and (
            action.type in (int, float) or getattr(action.type, "__name__", "") in ("integer", "number")
        ):
            yield path, action.option_strings[-1], action, parser


def _all_numeric_options():
    found = list(_numeric_options(build_parser([]), ("gamelp",)))
    for path in sorted(SCRIPTS.rglob("*.py")):
        if "def build_parser" not in path.read_text():
            continue
        module = load_script(str(path.relative_to(SCRIPTS)))
        found += _numeric_options(module.build_parser(), (str(path.relative_to(SCRIPTS)),))
    return found


OPTIONS = _all_numeric_options()


def test_the_walk_finds_the_numeric_options():
    names = {(path[-1], option) for path, option, _, _ in OPTIONS}
    assert len(OPTIONS) > 100
    assert {("solve", "--iterations"), ("sweep", "--games"), ("train", "--seed"), ("tournament", "--matches")} <= names


def test_no_numeric_option_takes_a_bare_int_or_float():
    bare = [(path, option) for path, option, action, _ in OPTIONS if action.type in (int, float) and not action.choices]
    assert bare == []


@pytest.mark.parametrize("path, option, action, parser", OPTIONS, ids=lambda v: v if isinstance(v, str) else None)
def test_hostile_numbers_are_refused_in_one_line_or_read_in_range(path, option, action, parser):
    for text in HOSTILE:
        try:
            value = action.type(text)
        except argparse.ArgumentTypeError as exc:
            assert "\n" not in str(exc) and str(exc), (option, text)
            continue
        except ValueError:  # a bare type with choices: argparse turns this into a one-line usage error
            assert action.choices, (option, text)
            continue
        assert isinstance(value, int | float) and math.isfinite(value), (path, option, text, value)


@pytest.mark.parametrize("text", ["1e308", "inf", "nan", "-1", "33"])
def test_an_averaging_exponent_that_would_overflow_is_refused(text):
    from gamelp.cli.solve import averaging_weights

    with pytest.raises(argparse.ArgumentTypeError, match="exponent from 0 to 32"):
        averaging_weights(text)


def test_a_list_option_with_a_huge_range_is_refused_before_it_is_built():
    from gamelp.cli.args import MAX_LIST, int_list

    assert int_list("0:60:4") == list(range(0, 61, 4))
    with pytest.raises(argparse.ArgumentTypeError, match=f"at most {MAX_LIST:,} values"):
        int_list("0:1000000000000")

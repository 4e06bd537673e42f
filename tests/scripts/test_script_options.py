"""Every script's options say what they are: each argparse option of each script has help text."""

import argparse
from pathlib import Path

import pytest
from conftest import load_script

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
PATHS = sorted(str(path.relative_to(SCRIPTS)) for path in SCRIPTS.rglob("*.py"))


def _parsers(parser, path=()):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, (*path, name))


def test_every_script_is_checked():
    assert len(PATHS) >= 30 and "hw2/hw2_2_3_kdeterminism.py" in PATHS


@pytest.mark.parametrize("relative", PATHS)
def test_every_option_of_the_script_has_help(relative):
    parser = load_script(relative).build_parser()
    for path, each in _parsers(parser):
        for action in each._actions:
            if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
                continue
            assert action.help, f"{relative} {' '.join(path)} {action.option_strings or action.dest} has no help"
        each.format_help()  # a stray % in a help text fails here

"""Shared fixtures: the built-in games, loaded once per session."""

import copy
import json
from importlib import resources

import pytest

from gamelp.game import load_game


@pytest.fixture(scope="session")
def rps():
    return load_game("rps")


@pytest.fixture(scope="session")
def kuhn():
    return load_game("kuhn")


@pytest.fixture(scope="session")
def leduc():
    return load_game("leduc")


@pytest.fixture
def kuhn_dict():
    """A fresh, mutable copy of the Kuhn game file's JSON object."""
    text = resources.files("gamelp.games").joinpath("data", "kuhn.json").read_text()
    return copy.deepcopy(json.loads(text))

"""gamelp's layers, checked on the source files: the core < the models < the games < the command line and scripts.

A module may import modules of its own layer and the layers below, never
above: the core (``gamelp.*``) imports no model, game or command; the models
(``gamelp.models``) no game or command; the games (``gamelp.games``) no
command.  Inside the core, the imports form no cycle (the model calls the
backends, the backends read the flat form).  Checked with ``ast``: imports
inside functions and ``importlib.import_module`` calls with a constant name
count too; imports under ``if TYPE_CHECKING:`` do not (they never run).
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[2]
# Source folder -> the package it installs as (pyproject.toml's package-dir).
LAYERS = {"gamelp": "gamelp", "models": "gamelp.models", "games": "gamelp.games"}
CLI = "gamelp.cli"


def _module_name(path: Path, folder: str) -> str:
    parts = path.relative_to(ROOT / folder).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((LAYERS[folder], *parts))


def _runtime_nodes(tree: ast.AST):
    """Every node of ``tree`` except those under ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            test = getattr(child, "test", None) if isinstance(child, ast.If) else None
            if test is not None and getattr(test, "id", getattr(test, "attr", None)) == "TYPE_CHECKING":
                stack.extend(child.orelse)
                continue
            stack.append(child)


def imported_modules(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every module ``source`` (the text of ``module``) imports when it runs, relative imports made absolute."""
    package = module if is_package else module.rpartition(".")[0]
    found = set()
    for node in _runtime_nodes(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call) and _names_a_module(node.func) and node.args:
            first = node.args[0]
            # A package's own data read by its module (gamelp.game reads gamelp's schema) imports nothing new: the
            # package is imported before its modules.
            if isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value != package:
                found.add(first.value)
    return found


def _names_a_module(func: ast.expr) -> bool:
    """Whether a call of ``func`` takes a module name first: ``import_module``, ``__import__``, ``resources.files``."""
    name = getattr(func, "attr", getattr(func, "id", None))
    if name in ("import_module", "__import__"):
        return True
    owner = getattr(func, "value", None)
    return name == "files" and (
        isinstance(func, ast.Name) or getattr(owner, "attr", getattr(owner, "id", None)) == "resources"
    )


def _imports_cli(names: set[str]) -> list[str]:
    return sorted(n for n in names if n == CLI or n.startswith(CLI + "."))


def _lower_layer_files():
    for folder in LAYERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if not path.is_relative_to(ROOT / "gamelp" / "cli"):
                yield folder, path


def test_no_lower_layer_imports_the_command_line():
    files = list(_lower_layer_files())
    assert len(files) > 40  # the walk found the core, the models and the games
    offenders = {}
    for folder, path in files:
        module = _module_name(path, folder)
        names = imported_modules(path.read_text(encoding="utf-8"), module, path.name == "__init__.py")
        if _imports_cli(names):
            offenders[str(path.relative_to(ROOT))] = _imports_cli(names)
    assert offenders == {}


@pytest.mark.parametrize(
    "source, module",
    [
        ("from gamelp.cli.args import integer", "gamelp.games.mtg.sweep"),
        ("import gamelp.cli", "gamelp.matrix"),
        ("from gamelp import cli", "gamelp.models.nash"),
        ("def f():\n    from . import cli", "gamelp.io"),
        ("from ..cli import main", "gamelp.backends.highs"),
        ("import importlib\nimportlib.import_module('gamelp.cli.mtg')", "gamelp.games.runner"),
    ],
)
def test_the_check_sees_every_form_of_import(source, module):
    assert _imports_cli(imported_modules(source, module)) != []


def test_the_check_passes_imports_of_other_modules():
    source = "from gamelp.client import x\nimport gamelp.clique\nfrom . import matrix\nfrom gamelp import errors"
    assert _imports_cli(imported_modules(source, "gamelp.io")) == []


# ----------------------------------------------------------------------------- every pair of layers
LAYER_NAMES = ("the core", "the models", "the games", "the command line")


def layer_of(module: str) -> int | None:
    """0 core, 1 models, 2 games, 3 command line; None for a module outside gamelp."""
    if module != "gamelp" and not module.startswith("gamelp."):
        return None
    for level, prefix in ((3, "gamelp.cli"), (2, "gamelp.games"), (1, "gamelp.models")):
        if module == prefix or module.startswith(prefix + "."):
            return level
    return 0


def upward_imports(module: str, names: set[str]) -> list[str]:
    """The imports of ``module`` that reach a layer above its own."""
    own = layer_of(module)
    return sorted(n for n in names if (layer_of(n) or 0) > own) if own is not None else []


def _project_modules():
    for folder in LAYERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            module = _module_name(path, folder)
            yield module, imported_modules(path.read_text(encoding="utf-8"), module, path.name == "__init__.py")


def test_every_module_imports_only_its_layer_and_below():
    offenders = {module: upward_imports(module, names) for module, names in _project_modules()}
    assert {module: found for module, found in offenders.items() if found} == {}


def test_the_core_imports_form_no_cycle():
    modules = dict(_project_modules())
    graph = nx.DiGraph()
    for module, names in modules.items():
        if layer_of(module) == 0:
            graph.add_node(module)
            graph.add_edges_from((module, n) for n in names if n in modules and layer_of(n) == 0 and n != module)
    assert len(graph) > 15
    assert list(nx.simple_cycles(graph)) == []


@pytest.mark.parametrize(
    "source, module",
    [
        ("from gamelp.models.nash import solve_nash", "gamelp.matrix"),  # core -> models
        ("import gamelp.games.gambit", "gamelp.game"),  # core -> games
        ("def f():\n    from gamelp.cli.args import integer", "gamelp.backends.highs"),  # core -> command line
        ("from gamelp.games.mtg import play_game", "gamelp.models.robust"),  # models -> games
        ("from ..cli import main", "gamelp.models.nash"),  # models -> command line (relative)
        ("import importlib\nimportlib.import_module('gamelp.cli.mtg')", "gamelp.games.runner"),  # games -> command line
        # names in strings: the data of the games read by the core (gamelp.io and gamelp.game once did), a module
        # imported by its name, in each spelling
        ("from importlib import resources\nresources.files('gamelp.games').joinpath('data')", "gamelp.io"),
        ("import importlib.resources\nimportlib.resources.files('gamelp.games')", "gamelp.game"),
        ("from importlib.resources import files\nfiles('gamelp.games').joinpath('kuhn.json')", "gamelp.matrix"),
        ("from importlib import import_module\nimport_module('gamelp.games.gambit')", "gamelp.game"),
        ("def f():\n    return __import__('gamelp.models.nash')", "gamelp.units"),
    ],
)
def test_a_planted_upward_import_is_caught_at_every_level(source, module):
    assert upward_imports(module, imported_modules(source, module)) != []


def test_imports_for_type_checking_only_and_downward_imports_pass():
    source = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from gamelp.games.runner import Execution\n"
        "from gamelp.models.nash import solve_nash\nfrom gamelp.matrix import MatrixGame"
    )
    assert upward_imports("gamelp.games.mtg.sweep", imported_modules(source, "gamelp.games.mtg.sweep")) == []
    assert "gamelp.models.nash" in upward_imports("gamelp.model", imported_modules(source, "gamelp.model"))


def test_strings_that_name_no_module_are_not_imports():
    source = (
        "from importlib import resources\nresources.files('gamelp').joinpath('game.schema.json')\n"
        "files = {}\nfiles.get('gamelp.games')\nimport_module(name)\nprint('gamelp.games.gambit')"
    )
    assert imported_modules(source, "gamelp.game") == {"importlib", "importlib.resources"}


def test_a_planted_cycle_in_the_core_is_caught():
    graph = nx.DiGraph([("gamelp.model", "gamelp.backends"), ("gamelp.backends", "gamelp.model")])
    assert list(nx.simple_cycles(graph)) != []

"""The command line is the top layer: no module of the core, the models or the games imports ``gamelp.cli``.

Checked on the source files with ``ast`` (imports inside functions and
``importlib.import_module`` calls with a constant name count too), so a new
import of the command line from below fails here before it makes a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

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


def imported_modules(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every module ``source`` (the text of ``module``) imports, relative imports made absolute."""
    package = module if is_package else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None))
              in ("import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant)):
            found.add(str(node.args[0].value))
    return found


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


@pytest.mark.parametrize("source, module", [
    ("from gamelp.cli.args import integer", "gamelp.games.mtg.sweep"),
    ("import gamelp.cli", "gamelp.matrix"),
    ("from gamelp import cli", "gamelp.models.nash"),
    ("def f():\n    from . import cli", "gamelp.io"),
    ("from ..cli import main", "gamelp.backends.highs"),
    ("import importlib\nimportlib.import_module('gamelp.cli.mtg')", "gamelp.games.runner"),
])
def test_the_check_sees_every_form_of_import(source, module):
    assert _imports_cli(imported_modules(source, module)) != []


def test_the_check_passes_imports_of_other_modules():
    source = "from gamelp.client import x\nimport gamelp.clique\nfrom . import matrix\nfrom gamelp import errors"
    assert _imports_cli(imported_modules(source, "gamelp.io")) == []

"""Every code block of the documentation site (docs/) and of the README runs, and shows what it shows.

Collected with sybil (MyST and Markdown code blocks):

* ```` ```python ```` blocks run in one namespace per page; those written as a session (``>>>``) are doctests,
  their shown output compared (``...`` stands for what changes from run to run, such as timings);
* ```` ```console ```` blocks run each ``$ `` command in a fresh directory that holds the repository's
  ``docs``, ``games`` and ``scripts`` (by symbolic links) and compare its standard output with the lines
  shown under it, with the same ``...`` rule;
* ```` ```shell ```` blocks are the full-scale commands of the reproductions, hours long: each is parsed by
  the parser of the command or script it names, so a renamed or removed option fails here; the scripts
  themselves run at a tiny scale in tests/scripts/.

The quick-start notebook (docs/quickstart.md) is run by test_quickstart_notebook.py.
"""

from __future__ import annotations

import doctest
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

sybil = pytest.importorskip("sybil")
from sybil.parsers.markdown import CodeBlockParser as MarkdownCodeBlockParser  # noqa: E402
from sybil.parsers.markdown import PythonCodeBlockParser as MarkdownPythonParser  # noqa: E402
from sybil.parsers.myst import CodeBlockParser, PythonCodeBlockParser  # noqa: E402

ROOT = Path(__file__).parents[2]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
_CHECKER = doctest.OutputChecker()


def _commands(source: str) -> list[tuple[str, str]]:
    """The ``$ command`` lines of a console block, each with the output shown under it."""
    runs: list[tuple[str, list[str]]] = []
    for line in source.splitlines():
        if line.startswith("$ "):
            runs.append((line[2:], []))
        elif runs:
            runs[-1][1].append(line)
    return [(command, "\n".join(shown).strip() + "\n") for command, shown in runs]


def _argv(command: str) -> tuple[dict[str, str], list[str]]:
    """Leading ``NAME=value`` words as environment, the rest as the command's words."""
    words = shlex.split(command.replace("\\\n", " "))
    env = {}
    while words and "=" in words[0] and not words[0].startswith("-"):
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    if words[:2] == ["nice", "-n"]:  # a lower priority changes nothing the command does
        words = words[3:]
    return env, words


def _workdir() -> Path:
    """A fresh directory holding the repository's docs, games and scripts, where the examples' files land."""
    work = Path(tempfile.mkdtemp(prefix="gamelp-docs-"))
    for name in ("docs", "games", "scripts"):
        (work / name).symlink_to(ROOT / name)
    (work / "out").mkdir()
    return work


def run_console(example) -> str | None:
    """Run each command of a console block; a difference from the shown output fails the example."""
    work = _workdir()
    for command, shown in _commands(example.parsed):
        env, words = _argv(command)
        if words[0] == "pip":  # installing is what the test environment already did
            continue
        if words[0] == "python":
            words[0] = sys.executable
        elif words[0] == "gamelp":
            words = [sys.executable, "-m", "gamelp.cli", *words[1:]]
        done = subprocess.run(
            words,
            cwd=work,
            env={**os.environ, "MPLBACKEND": "Agg", "GAMELP_CACHE": str(work / "cache"), **env},
            capture_output=True,
            text=True,
            timeout=600,
        )
        printed = done.stdout if done.stdout or done.returncode == 0 else done.stderr  # a refusal is shown as printed
        if not _CHECKER.check_output(shown, printed, FLAGS):
            return (
                f"`{command}` (exit {done.returncode}) printed:\n{printed}\n"
                f"stderr:\n{done.stderr[-2000:]}\nthe page shows:\n{shown}"
            )
    return None


def parse_full_scale(example) -> str | None:
    """Parse each command of a shell block with the parser of the command or script it names."""
    from conftest import load_script

    from gamelp.cli import build_parser

    source = example.parsed.replace("\\\n", " ")
    work = _workdir()
    for command in (line.strip() for line in source.splitlines()):
        if not command or command.startswith("#"):
            continue
        _, words = _argv(command.split("  #")[0])
        if words[0] == "gamelp":
            parser, argv = build_parser(words[1:]), words[1:]
        elif words[0] == "python" and words[1].startswith("scripts/"):
            parser, argv = load_script(words[1].removeprefix("scripts/")).build_parser(), words[2:]
        else:
            return f"not a gamelp command or script: {command}"
        here = Path.cwd()
        os.chdir(work)
        try:
            parser.parse_args(argv)
        except SystemExit:
            return f"the parser refuses: {command}"
        finally:
            os.chdir(here)
    return None


MYST = sybil.Sybil(
    parsers=[
        PythonCodeBlockParser(doctest_optionflags=FLAGS),
        CodeBlockParser(language="console", evaluator=run_console),
        CodeBlockParser(language="shell", evaluator=parse_full_scale),
    ]
)
MARKDOWN = sybil.Sybil(
    parsers=[
        MarkdownPythonParser(doctest_optionflags=FLAGS),
        MarkdownCodeBlockParser(language="console", evaluator=run_console),
    ]
)
# The notebook has its own test; the scaling page is a benchmark's generated report.
PAGES = sorted(p for p in (ROOT / "docs").rglob("*.md") if p.name not in ("quickstart.md", "scaling.md"))


def _run(document) -> int:
    """Evaluate every example of a parsed page in order (one namespace per page); the number run."""
    here = Path.cwd()
    os.chdir(ROOT)
    try:
        examples = list(document)
        for example in examples:
            example.evaluate()
    finally:
        os.chdir(here)
    return len(examples)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT / "docs")))
def test_every_example_of_the_page_runs_as_shown(page):
    _run(MYST.parse(page))


def test_every_example_of_the_readme_runs_as_shown():
    assert _run(MARKDOWN.parse(ROOT / "README.md")) >= 3


def test_every_code_block_of_the_site_is_checked():
    """A fenced block in a language not run above is shown to readers unchecked: only data and directives may be."""
    shown = {"python", "console", "shell"}
    data = {
        "json",
        "text",
        "{toctree}",
        "{eval-rst}",
        "{literalinclude}",
        "{gamelp-backends}",
        "{gamelp-backend-families}",
    }
    for page in PAGES:
        opening = True
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.lstrip().startswith("```"):
                if opening:
                    assert (line.lstrip()[3:].split() or [""])[0] in shown | data, (page.name, line)
                opening = not opening


def test_a_changed_output_fails_its_example(tmp_path):
    """The checks above can fail: a page whose shown output differs from what the code prints is caught."""
    from sybil.example import SybilFailure

    page = tmp_path / "page.md"
    page.write_text(
        "```python\n>>> from gamelp.models.nash import solve_nash\n>>> from gamelp import load_game\n"
        ">>> round(solve_nash(load_game('kuhn')).value, 4)\n-0.0556\n```\n\n"
        "```console\n$ gamelp validate docs/guide/pennies.json\n"
        "docs/guide/pennies.json: valid; player 1: 2 decision points\n```\n",
        encoding="utf-8",
    )
    *session, console = MYST.parse(page)
    for example in session:
        example.evaluate()  # as shown
    with pytest.raises(SybilFailure, match="1 decision points"):
        console.evaluate()  # the page says 2 decision points; the command prints 1
    page.write_text(page.read_text(encoding="utf-8").replace("-0.0556", "-0.0555"), encoding="utf-8")
    *session, _ = MYST.parse(page)
    with pytest.raises(SybilFailure, match="-0.0556"):
        for example in session:
            example.evaluate()

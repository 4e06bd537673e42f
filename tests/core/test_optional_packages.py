"""Optional packages: a missing one is reported in one line naming the extra, never a traceback.

Each optional package is hidden in turn, in a subprocess (so the hiding is
clean), by a meta-path finder placed first on ``sys.meta_path`` that raises
``ModuleNotFoundError`` for it and its submodules: ``import`` fails as if it
were not installed, and so does ``importlib.util.find_spec`` (which gamelp
asks without importing).  Then ``gamelp backends`` and ``gamelp solve leduc``
must run, and the commands that need the package must refuse in one line on
stderr, exit status 2, naming ``pip install "gamelp[extra]"``.

Also: no backend module imports another backend's module or library (read
from their source with ``ast``), and solutions say which solver made them.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import gamelp
from gamelp.backends import FAMILIES, MissingBackend, available_backends, get, refresh, registered_backends, solve
from gamelp.backends.registry import families, registered, usage
from gamelp.deps import install_hint, installed, packages, require
from gamelp.errors import MissingDependency

REPO = Path(__file__).resolve().parents[2]
BACKENDS_DIR = REPO / "gamelp" / "backends"

# A -c preamble: hide the comma-separated top-level modules of argv[1], then run the gamelp command in argv[2:].
HIDE = """
import sys
class Hide:
    names = set(sys.argv[1].split(","))
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in self.names:
            raise ModuleNotFoundError(f"No module named {name!r} (hidden by the test)", name=name)
        return None
sys.meta_path.insert(0, Hide())
"""
RUN_CLI = HIDE + "from gamelp.cli import main\nsys.exit(main(sys.argv[2:]))\n"
RUN_SCRIPT = HIDE + "import runpy\nsys.argv = sys.argv[2:]\nrunpy.run_path(sys.argv[0], run_name='__main__')\n"


def run_hidden(hidden: str, *command, script: bool = False, env=None, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", RUN_SCRIPT if script else RUN_CLI, hidden, *map(str, command)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=cwd,
    )


def refused_in_one_line(done: subprocess.CompletedProcess, extra: str) -> str:
    """The one stderr line of a refusal that names ``pip install "gamelp[extra]"`` (no traceback)."""
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert f'pip install "gamelp[{extra}]"' in lines[0], lines[0]
    return lines[0]


def json_of(done: subprocess.CompletedProcess):
    """The JSON document on stdout (from its first ``{`` or ``[`` line: a solver banner may precede it)."""
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line[:1] in "{[")
    return json.loads("\n".join(lines[start:]))


# ----------------------------------------------------------------------------- the helper
def test_require_names_the_extra_and_installed_never_imports(monkeypatch):
    monkeypatch.setitem(sys.modules, "clarabel", None)  # import clarabel now raises ImportError
    assert not installed("clarabel") and not installed("no_such_package_xyz") and installed("numpy")
    assert not installed("no_such_package_xyz.sub")  # a missing parent: find_spec raises, we say missing
    with pytest.raises(
        MissingDependency,
        match=r"^backend cvxpy:CLARABEL needs clarabel, which is not installed "
        r'here; pip install "gamelp\[cvxpy\]"$',
    ):
        require("clarabel", "backend cvxpy:CLARABEL")
    assert install_hint("sklearn.ensemble") == 'pip install "gamelp[mtg]"'
    assert isinstance(MissingDependency("x"), gamelp.GamelpError)


def test_every_optional_package_belongs_to_a_declared_extra():
    """The extras the optional packages name (the backend families' among them) exist in pyproject.toml and list
    the package; a family without an extra is a core dependency."""
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    core = " ".join(project["dependencies"]).lower()
    assert all(family.library in packages() or family.distribution.lower() in core for family in families())
    for module, (distribution, extra) in packages().items():
        assert extra in extras, (module, extra)
        named = " ".join(extras[extra]).lower().replace("_", "-")
        base = distribution.lower().replace("_", "-")
        assert base in named or (base == "distributed" and "dask[distributed]" in named), (module, extra)


# ----------------------------------------------------------------------------- backend modules stay apart
BACKEND_LIBRARIES = {name: {family.library} for name, family in FAMILIES.items()}
# pyomo:highs and pyomo:appsi_highs drive HiGHS through highspy: the Pyomo backend may import it inside a
# function (to check HiGHS options), never at module level.
LAZY_ALLOWED = {"pyomo": {"highspy"}}


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(imported module, at module level?) for every import in ``path``; relative imports resolved."""
    tree = ast.parse(path.read_text(), str(path))
    top_level = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, id(node) in top_level) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(["gamelp", "backends"][: 3 - node.level] + ([base] if base else []))
            found.append((base, id(node) in top_level))
            found += [(f"{base}.{alias.name}", id(node) in top_level) for alias in node.names]
    return found


def test_no_backend_module_imports_another_backend_or_its_library():
    """A backend module imports no other backend module and no other backend's library (but LAZY_ALLOWED);
    a shared module (base, scaling, gurobi_licence, ...) imports no backend module, and a solver library
    only inside a function, so importing it never loads a solver."""
    modules = {path.stem: path for path in BACKENDS_DIR.glob("*.py")}
    assert set(BACKEND_LIBRARIES) <= set(modules)
    every_library = set().union(*BACKEND_LIBRARIES.values())
    for name, path in modules.items():
        own = BACKEND_LIBRARIES.get(name, set())
        for module, top in _imports(path):
            parts = module.split(".")
            if parts[:2] == ["gamelp", "backends"] and len(parts) > 2:
                assert parts[2] not in BACKEND_LIBRARIES or parts[2] == name, f"{path.name} imports {module}"
            library = parts[0]
            if library in every_library and library not in own:
                allowed = name not in BACKEND_LIBRARIES or library in LAZY_ALLOWED.get(name, set())
                assert not top and allowed, f"{path.name} imports {module}, another backend's library"


def test_listing_backends_imports_no_backend_library():
    """``available_backends()`` asks find_spec: in a fresh process it imports no optional family's library
    (cvxpy, pyomo, gurobipy, pyscipopt, ...) beyond what the backends it constructs need; with them hidden it still
    answers."""
    optional = sorted(family.library for family in families() if family.extra is not None)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            HIDE
            + (
                "import gamelp\nnames = [b.name for b in gamelp.available_backends()]\n"
                f"print(names, sorted(m for m in {optional!r} if m in sys.modules))"
            ),
            ",".join(optional),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "['highs'] []"


def test_gamelp_backends_imports_no_solver_package():
    """``gamelp backends`` lists every backend, installed ones with versions, and imports no solver package."""
    probe = (
        "import contextlib, io, json, sys\n"
        "from gamelp.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    assert main(['backends', '--json']) == 0\n"
        "rows = json.loads(out.getvalue())\n"
        f"solvers = {tuple(family.library for family in families()) + ('clarabel', 'scs', 'ecos')!r}\n"
        "loaded = sorted({m.split('.')[0] for m in sys.modules} & set(solvers))\n"
        "print(len(rows), sum(r['installed'] for r in rows), loaded)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    listed, installed_here, imported = done.stdout.strip().split(" ", 2)
    assert int(listed) == len(registered_backends()) and int(installed_here) >= 1 and imported == "[]"


def test_the_listing_agrees_with_the_backends_themselves():
    """What ``gamelp backends`` says without importing (the registry's table, find_spec, metadata) is what each
    backend whose library is installed here says of itself once imported."""
    from gamelp.backends import listing

    for row, backend in zip(listing(), registered_backends(), strict=True):
        assert row["name"] == backend.name
        if isinstance(backend, MissingBackend):
            assert not row["installed"] and row["install"] and row["solver_version"] is None
            continue
        assert row["capabilities"] == backend.capabilities.names(), backend.name
        assert row["installed"] == bool(backend.available()), backend.name
        if row["installed"]:
            assert row["solver_version"] == backend.version(), backend.name


def test_registered_backends_of_a_missing_library_are_placeholders(monkeypatch):
    import gamelp.backends as backends

    monkeypatch.setattr(backends, "installed", lambda module: module != "cvxpy")
    listed = {b.name: b for b in registered_backends()}
    assert isinstance(listed["cvxpy:CLARABEL"], MissingBackend) and not listed["cvxpy:CLARABEL"].available()
    assert not isinstance(listed["highs"], MissingBackend)


def test_refresh_forgets_which_backends_are_installed(monkeypatch):
    """Whether a backend is installed is asked once per process; after :func:`refresh` it is asked again."""
    import gamelp.backends as backends

    before = {b.name for b in available_backends()}
    assert "cvxpy:CLARABEL" in before
    monkeypatch.setattr(backends, "installed", lambda module: module != "cvxpy")
    try:
        assert {b.name for b in available_backends()} == before  # remembered from the first time
        refresh()
        after = {b.name for b in available_backends()}
        assert after == {name for name in before if not name.startswith("cvxpy:")} and "highs" in after
    finally:
        monkeypatch.undo()
        refresh()
    assert {b.name for b in available_backends()} == before


def test_one_descriptor_per_family_generates_the_registry_and_the_texts():
    """Each family is declared once: its backend strings are the registry's, in the order of their ranks, and the
    help and error texts name it as its descriptor writes it."""
    from gamelp.backends import REGISTERED
    from gamelp.cli.args import BACKEND_HELP
    from gamelp.errors import BackendError

    assert tuple(registered()) == REGISTERED
    assert sorted(REGISTERED) == sorted(name for family in families() for name in family.solvers)
    assert all(name.partition(":")[0] == family.name for family in families() for name in family.solvers)
    ranks = [entry.rank for family in families() for entry in family.solvers.values()]
    assert len(set(ranks)) == len(ranks)  # auto's order is never a tie
    with pytest.raises(BackendError) as info:
        get("no_such_family")
    for text in (str(info.value), BACKEND_HELP):
        assert all(name in text for name in usage())


# ----------------------------------------------------------------------------- which solver produced a result
def test_a_solution_carries_its_solver_version():
    from gamelp.model import Model

    m = Model("tiny")
    x = m.add_variables("x", 2, lb=0, ub=1)
    m.set_objective({x: [1.0, 2.0]}, sense="max")
    sol = solve(m, "highs")
    assert sol.solver_version == f"highspy {metadata.version('highspy')}"
    assert f"solver_version='highspy {metadata.version('highspy')}'" in repr(sol)
    expected = {
        "gurobi": f"gurobipy {metadata.version('gurobipy')}",
        "cvxpy:CLARABEL": f"cvxpy {metadata.version('cvxpy')} / CLARABEL {metadata.version('clarabel')}",
        "pyomo:appsi_highs": f"pyomo {metadata.version('pyomo')} / appsi_highs (highspy {metadata.version('highspy')})",
    }
    for backend, version in expected.items():
        if get(backend).available():
            assert solve(m, backend).solver_version == version


@pytest.mark.slow
@pytest.mark.parametrize(
    "command, backend, version",
    [
        (["solve", "kuhn", "--player", "1"], "highs", "highspy"),
        (["solve", "kuhn", "--player", "1", "--backend", "cvxpy:CLARABEL"], "cvxpy:CLARABEL", "cvxpy/clarabel"),
        (["matrix", "solve", str(REPO / "games" / "data" / "esche_8c_payoffs.csv")], "highs", "highspy"),
        (["kdet", "kuhn", "--player", "1", "--k", "1"], "highs", "highspy"),
        (["kdet", "kuhn", "--player", "1", "--sweep", "--quiet"], "highs", "highspy"),
        (["kdet", "kuhn", "--player", "1", "--sweep", "--method", "mip", "--quiet"], "highs", "highspy"),
    ],
)
def test_json_outputs_say_which_solver_produced_them(command, backend, version):
    payload = json_of(run_hidden("", *command, "--json"))
    rows = payload if isinstance(payload, list) else [payload]
    if "/" in version:
        wrapper, solver = version.split("/")
        expected = f"{wrapper} {metadata.version(wrapper)} / {solver.upper()} {metadata.version(solver)}"
    else:
        expected = f"{version} {metadata.version(version)}"
    assert rows and all(row["backend"] == backend and row["solver_version"] == expected for row in rows)


def test_regret_json_names_the_method_and_no_solver():
    payload = json_of(run_hidden("", "solve", "kuhn", "--method", "cfr+", "--iterations", "20", "--json"))
    assert payload["backend"] == "cfr+" and payload["solver_version"] is None
    exact = json_of(
        run_hidden(
            "",
            "matrix",
            "solve",
            REPO / "games" / "data" / "esche_8c_payoffs.csv",
            "--method",
            "pcfr+",
            "--exact",
            "--json",
        )
    )
    assert exact["backend"] == "pcfr+" and exact["lp_backend"] == "highs"
    assert exact["solver_version"] == f"highspy {metadata.version('highspy')}"


def test_backends_json_gives_each_installed_backends_version():
    rows = {row["name"]: row for row in json_of(run_hidden("", "backends", "--json"))}
    assert rows["highs"]["solver_version"] == f"highspy {metadata.version('highspy')}"
    assert all(row["solver_version"] is None for row in rows.values() if not row["installed"])


# ----------------------------------------------------------------------------- each optional package hidden
# Hidden modules -> (extra named in the refusal, [commands that must refuse]).
HIDDEN = {
    "cvxpy": (
        "cvxpy",
        [["solve", "leduc", "--backend", "cvxpy:CLARABEL"], ["solve", "leduc", "--backend", "cvxpy:SCS"]],
    ),
    "clarabel": ("cvxpy", [["solve", "leduc", "--backend", "cvxpy:CLARABEL"]]),
    "scs": ("cvxpy", [["solve", "leduc", "--backend", "cvxpy:SCS"]]),
    "pyomo": ("pyomo", [["solve", "leduc", "--backend", "pyomo:highs"]]),
    "gurobipy": ("gurobi", [["solve", "leduc", "--backend", "gurobi"]]),
    "sklearn": ("mtg", [["mtg", "train-forest", "--games", "2", "--quiet"]]),
    "pyspiel": ("openspiel", [["solve", "openspiel:kuhn_poker", "--player", "1"]]),
    "torch": ("rl", [["locm", "train", "--episodes", "1", "--out", "{tmp}/train"]]),
    "dask,distributed": (
        "dist",
        [
            [
                "locm",
                "tournament",
                "--drafters",
                "random,max-attack",
                "--matches",
                "2",
                "--sets",
                "2",
                "--scheduler",
                "tcp://127.0.0.1:1",
                "--out",
                "{tmp}/tour",
                "--quiet",
            ]
        ],
    ),
    "matplotlib": (
        "plot",
        [
            ["kdet", "kuhn", "--player", "1", "--k", "1", "--plot", "{tmp}/k.png"],
            [
                "locm",
                "tournament",
                "--drafters",
                "random,max-attack",
                "--matches",
                "2",
                "--sets",
                "2",
                "--out",
                "{tmp}/tour",
                "--quiet",
            ],
        ],
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("hidden", sorted(HIDDEN))
def test_a_hidden_optional_package_is_one_line_naming_its_extra(hidden, tmp_path, monkeypatch):
    monkeypatch.setenv("GAMELP_CACHE", str(tmp_path / "cache"))  # no cached forest: the forest must be trained
    import os

    env = {**os.environ, "MPLBACKEND": "Agg"}
    listed = run_hidden(hidden, "backends", "--json", env=env)
    rows = {row["name"]: row for row in json_of(listed)}
    assert rows["highs"]["installed"]
    extra, commands = HIDDEN[hidden]
    if hidden in ("cvxpy", "pyomo", "gurobipy"):
        family = {"cvxpy": "cvxpy:", "pyomo": "pyomo:", "gurobipy": "gurobi"}[hidden]
        for row in (row for name, row in rows.items() if name.startswith(family)):
            assert not row["installed"] and row["install"] == f'pip install "gamelp[{extra}]"'
    solved = json_of(run_hidden(hidden, "solve", "leduc", "--json", env=env))
    assert solved["status"] == "optimal" and solved["backend"] == "highs"
    for command in commands:
        refused_in_one_line(run_hidden(hidden, *(word.format(tmp=tmp_path) for word in command), env=env), extra)


def test_hidden_statsmodels_stops_the_yugioh_script_in_one_line(tmp_path):
    done = run_hidden(
        "statsmodels",
        REPO / "scripts" / "giotta" / "giotta_yugioh.py",
        "--games",
        "10",
        "--cell-games",
        "2",
        "--workers",
        "1",
        "--quiet",
        "--out",
        tmp_path,
        script=True,
    )
    refused_in_one_line(done, "yugioh")
    from gamelp.games import yugioh  # noqa: F401 - importable without statsmodels: it is asked for by the fits

"""Mutation score of the mathematical core: the share of mutants each module's own tests kill.

A mutant changes one thing in one module: a comparison (< and <=, > and >=, == and !=, is and is not, in and
not in), an arithmetic operator (+ and -, * and /, // and /, % and *, ** and *, @ and *), a numeric constant
(n -> n + 1, negative literals included) or a boolean constant, a sign (-x -> x), a condition (if / while /
conditional expression inverted, `not x` -> x, and <-> or), or a returned value (-> None). Each mutant is run
against the module's own fast tests (MODULES below) with `pytest -x -q` in a fresh interpreter that
imports the mutated source in place of the module; a failing run or one past the per-mutant timeout kills it.
Only the tests that run the mutated statement are run, the quickest first (coverage.py, per test, from one run
of all the unmutated tests shared among the workers; a statement run at import or by a fixture's set-up runs all
the tests of the files concerned, and one no test runs in-process, perhaps run by a command a test starts, all of
them).
A line carrying the comment `# pragma: no mutate` (with its reason) is not mutated, and its would-be mutants are
counted as pragma'd.

    python scripts/mutation_score.py                     # sampled: 20 seeded mutants per module, 2 workers
    python scripts/mutation_score.py --full              # every mutant (hours; before a release)
    python scripts/mutation_score.py --module models/robust.py --sample 40 --seed 3 --survivors
    python scripts/mutation_score.py --floor 90          # exit 1 if a module kills fewer than 90 %
    python scripts/mutation_score.py --mutmut --sample 20    # mutmut 3 ([tool.mutmut]): a sample of its mutants

The table (stdout) gives per module: mutants run, killed (timeouts included), survived, pragma'd, the killed
share, the wall time and the test processes' CPU time (what the run takes on an idle machine, summed over
the workers). `--mutmut` runs mutmut on a staged copy of the tree in the installed layout
(src/gamelp with models/ and games/ inside it, as package-dir installs them), since mutmut names mutants by
file path and the tests import gamelp.models; it needs the mutmut package.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import ctypes
import importlib.abc
import importlib.util
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRAGMA = "# pragma: no mutate"

# The results' summaries, tables and pictures (gamelp.display) are tested here.
DISPLAY = "tests/core/test_display.py"
# module file -> (import name, its own fast tests).
MODULES: dict[str, tuple[str, list[str]]] = {
    "models/nash.py": (
        "gamelp.models.nash",
        [
            "tests/models/test_nash_math.py",
            "tests/models/test_results.py",
            "tests/models/test_sequence_nash.py",
            "tests/models/test_select.py",
            DISPLAY,
        ],
    ),
    "models/determinism.py": (
        "gamelp.models.determinism",
        [
            "tests/models/test_determinism_math.py",
            "tests/models/test_determinism.py",
            "tests/models/test_determinism_grains.py",
            DISPLAY,
        ],
    ),
    "models/kdet_search.py": (
        "gamelp.models.kdet_search",
        [
            "tests/models/test_determinism_math.py",
            "tests/models/test_determinism.py",
            "tests/models/test_kdet_envelope.py",  # runs the sweep the envelope feeds
        ],
    ),
    "models/kdet_envelope.py": (
        "gamelp.models.kdet_envelope",
        ["tests/models/test_kdet_envelope.py", DISPLAY],
    ),
    "models/robust.py": (
        "gamelp.models.robust",
        ["tests/models/test_robust_math.py", "tests/models/test_robust.py", DISPLAY],
    ),
    "models/uniqueness.py": (
        "gamelp.models.uniqueness",
        ["tests/models/test_uniqueness_math.py", "tests/models/test_uniqueness.py", DISPLAY],
    ),
    "models/matrix_first_order.py": (
        "gamelp.models.matrix_first_order",
        ["tests/core/test_matrix_first_order_math.py", "tests/core/test_matrix_first_order.py", DISPLAY],
    ),
    "gamelp/regret/simplex.py": (
        "gamelp.regret.simplex",
        ["tests/core/test_regret_math.py", "tests/core/test_regret.py"],
    ),
    "gamelp/regret/cfr.py": ("gamelp.regret.cfr", ["tests/core/test_regret_math.py", "tests/core/test_regret.py"]),
    "gamelp/regret/_kernels_numpy.py": ("gamelp.regret._kernels_numpy", ["tests/core/test_regret_kernels.py"]),
    "gamelp/regret/selfplay.py": (
        "gamelp.regret.selfplay",
        [
            "tests/core/test_regret_math.py",
            "tests/core/test_regret.py",
            "tests/core/test_matrix_first_order.py",  # the float32 products of large matrices
            DISPLAY,
        ],
    ),
    "gamelp/treeplex.py": (
        "gamelp.treeplex",
        ["tests/core/test_treeplex_math.py", "tests/core/test_game_loading.py", "tests/core/test_regret.py", DISPLAY],
    ),
    "gamelp/matrix.py": (
        "gamelp.matrix",
        ["tests/core/test_matrix_math.py", "tests/core/test_matrix.py", "tests/models/test_matrix_nash.py", DISPLAY],
    ),
}

_COMPARE = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}
_ARITH = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Mod: ast.Mult,
    ast.Pow: ast.Mult,
    ast.MatMult: ast.Mult,
}


@dataclass(frozen=True)
class Mutant:
    """The index-th mutation point of a module, its line and what it changes."""

    index: int
    line: int
    what: str
    statement: int = 0  # the first line of the statement holding it: the line coverage reports as run


class _Mutator(ast.NodeTransformer):
    """Walks a module, numbering its mutation points; replaces the target-th one (target -1: none, only list)."""

    def __init__(self, pragma_lines: set[int], target: int = -1, statements: dict[int, int] | None = None):
        self.pragma_lines = pragma_lines
        self.target = target
        self.statements = statements or {}
        self.points: list[Mutant] = []
        self.pragmad = 0

    def _point(self, node: ast.AST, what: str) -> bool:
        line = getattr(node, "lineno", 0)
        if line in self.pragma_lines:
            self.pragmad += 1
            return False
        self.points.append(Mutant(len(self.points), line, what, self.statements.get(line, line)))
        return len(self.points) - 1 == self.target

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        if isinstance(node.value, ast.Constant):  # docstrings and bare constants
            return node
        return self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        for k, op in enumerate(node.ops):
            swap = _COMPARE.get(type(op))
            if swap is not None and self._point(node, f"{type(op).__name__} -> {swap.__name__}"):
                node.ops[k] = swap()
                return node
        return self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        swap = _ARITH.get(type(node.op))
        if swap is not None and self._point(node, f"{type(node.op).__name__} -> {swap.__name__}"):
            node.op = swap()
            return node
        return self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        swap = _ARITH.get(type(node.op))
        if swap is not None and self._point(node, f"{type(node.op).__name__}= -> {swap.__name__}="):
            node.op = swap()
            return node
        return self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        value = node.value
        if isinstance(value, bool):
            if self._point(node, f"{value} -> {not value}"):
                return ast.copy_location(ast.Constant(not value), node)
        elif isinstance(value, int | float) and self._point(node, f"{value!r} -> {value + 1!r}"):
            return ast.copy_location(ast.Constant(value + 1), node)
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        operand = node.operand
        if isinstance(node.op, ast.USub) and isinstance(operand, ast.Constant) and type(operand.value) in (int, float):
            value = -operand.value  # a negative literal is one constant: -1 -> 0, and its sign flip
            if self._point(node, f"{value!r} -> {value + 1!r}"):
                return ast.copy_location(ast.Constant(value + 1), node)
            if self._point(node, f"{value!r} -> {-value!r}"):
                return operand
            return node
        if isinstance(node.op, ast.USub) and self._point(node, "-x -> x"):
            return node.operand
        if isinstance(node.op, ast.Not) and self._point(node, "not x -> x"):
            return node.operand
        return self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        swap = ast.Or if isinstance(node.op, ast.And) else ast.And
        if self._point(node, f"{type(node.op).__name__} -> {swap.__name__}"):
            node.op = swap()
            return node
        return self.generic_visit(node)

    def _invert_test(self, node: ast.If | ast.While | ast.IfExp) -> ast.AST:
        if self._point(node, f"{type(node).__name__} condition inverted"):
            node.test = ast.UnaryOp(ast.Not(), node.test)
            return node
        return self.generic_visit(node)

    visit_If = visit_While = visit_IfExp = _invert_test

    def visit_Return(self, node: ast.Return) -> ast.AST:
        returns_value = node.value is not None and not (
            isinstance(node.value, ast.Constant) and node.value.value is None
        )
        if returns_value and self._point(node, "return value -> None"):
            node.value = ast.Constant(None)
            return node
        return self.generic_visit(node)

    # Annotations are not run (the modules use postponed evaluation).
    def visit_arg(self, node: ast.arg) -> ast.AST:
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        if node.value is not None:
            node.value = self.visit(node.value)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.args = self.visit(node.args)
        node.body = [self.visit(stmt) for stmt in node.body]
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        return node


def _pragma_lines(source: str) -> set[int]:
    return {n for n, text in enumerate(source.splitlines(), 1) if PRAGMA in text}


def _statement_lines(tree: ast.AST) -> dict[int, int]:
    """Each line of the module -> the first line of the innermost statement spanning it."""
    first: dict[int, int] = {}
    for node in ast.walk(tree):  # breadth first: an inner statement overwrites the one around it
        if isinstance(node, ast.stmt):
            body_start = min((child.lineno for child in _bodies(node)), default=(node.end_lineno or node.lineno) + 1)
            for line in range(node.lineno, min(node.end_lineno or node.lineno, body_start - 1) + 1):
                first[line] = node.lineno
    return first


def _bodies(node: ast.stmt) -> list[ast.stmt]:
    return [child for name in ("body", "orelse", "finalbody", "handlers") for child in getattr(node, name, [])]


def mutants(source: str) -> tuple[list[Mutant], int]:
    """The mutation points of a module's source and the number excluded by pragmas."""
    tree = ast.parse(source)
    walker = _Mutator(_pragma_lines(source), statements=_statement_lines(tree))
    walker.visit(tree)
    return walker.points, walker.pragmad


def mutate(source: str, index: int) -> str:
    """The module's source with its index-th mutation applied."""
    walker = _Mutator(_pragma_lines(source), index)
    tree = walker.visit(ast.parse(source))
    return ast.unparse(ast.fix_missing_locations(tree))


@dataclass
class Score:
    """One module's tally."""

    module: str
    total: int = 0
    run: int = 0
    killed: int = 0
    timeouts: int = 0
    pragmad: int = 0
    seconds: float = 0.0
    cpu: float = 0.0  # the test processes' CPU time (user + system): the wall time on an otherwise idle machine
    survivors: list[Mutant] = field(default_factory=list)

    @property
    def share(self) -> float:
        return 100.0 * self.killed / self.run if self.run else 0.0  # no mutant run proves nothing


def _run_mutant(module: str, source: str, index: int, timeout: float, workdir: Path, tests: list[str]) -> str:
    """'killed', 'timeout' or 'survived' for one mutant run against ``tests``."""
    name = MODULES[module][0]
    path = workdir / f"{name}.{index}.py"
    path.write_text(mutate(source, index))
    try:
        return _run_pytest([name, str(path), str(ROOT / module)], ["-x", "-q", *tests], timeout)
    finally:
        path.unlink(missing_ok=True)


class _Workers:
    """The test processes running now, in sessions of their own (Ctrl-C does not reach them): ``stop()`` kills
    them and refuses new ones, so an interrupted run ends at once instead of after its running tests."""

    def __init__(self) -> None:
        self.lock, self.stopped = threading.Lock(), False
        self.live: set[subprocess.Popen] = set()

    def start(self, argv: list[str], env: dict[str, str]) -> subprocess.Popen | None:
        with self.lock:
            if self.stopped:
                return None
            proc = subprocess.Popen(
                argv,
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                preexec_fn=_die_with(os.getpid()),
            )
            self.live.add(proc)
            return proc

    def end(self, proc: subprocess.Popen) -> None:
        with self.lock:
            self.live.discard(proc)

    def stop(self) -> None:
        with self.lock:
            self.stopped = True
            for proc in self.live:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)


WORKERS = _Workers()


@contextlib.contextmanager
def _stopped_on_interrupt(pool: ThreadPoolExecutor):
    """Inside a pool: on Ctrl-C (or any error), cancel the queued runs and kill the running ones."""
    try:
        yield
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        WORKERS.stop()
        raise


def _run_pytest(mutant: list[str], pytest_args: list[str], timeout: float) -> str:
    """Run pytest in a worker (``mutant``: its name, mutated file and original file, or none): its outcome."""
    # One process a worker (-n 0: the workers are the parallelism), every selected test kept (--full).
    cmd = [sys.executable, __file__, "--worker", *(mutant or ["-", "-", "-"]), "--", "-p", "no:cacheprovider"]
    cmd += ["-n", "0", "--full"]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", MPLBACKEND="Agg")
    proc = WORKERS.start([*cmd, *pytest_args], env)
    if proc is None:
        return "interrupted"
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return "timeout"
    finally:
        WORKERS.end(proc)
    return "survived" if code == 0 else "killed"


def score_module(
    module: str, sample: int | None, seed: int, jobs: int, timeout: float, tests_of: dict[int, list[str]]
) -> Score:
    """Run a module's mutants (a seeded sample of them, or all), each against the tests that run its statement."""
    source = (ROOT / module).read_text()  # read once: edits made during the run do not shift the mutants
    points, pragmad = mutants(source)
    chosen = points
    if sample is not None and sample < len(points):
        chosen = sorted(random.Random(f"{seed}:{module}").sample(points, sample), key=lambda m: m.index)
    result = Score(module, total=len(points), run=len(chosen), pragmad=pragmad)
    began, cpu = time.monotonic(), _children_cpu()
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(jobs) as pool, _stopped_on_interrupt(pool):

        def outcome_of(mutant: Mutant) -> str:
            # A statement no test runs in-process may still run in a command a test starts: every test then.
            tests = tests_of.get(mutant.statement) or MODULES[module][1]
            return _run_mutant(module, source, mutant.index, timeout, Path(tmp), tests)

        outcomes = pool.map(outcome_of, chosen)
        for mutant, outcome in zip(chosen, outcomes):
            print(f"{module}:{mutant.line} {mutant.what}: {outcome}", file=sys.stderr, flush=True)
            if outcome == "survived":
                result.survivors.append(mutant)
            else:
                result.killed += 1
                result.timeouts += outcome == "timeout"
    result.seconds, result.cpu = time.monotonic() - began, _children_cpu() - cpu
    return result


def tests_by_line(modules: list[str], jobs: int, timeout: float) -> dict[str, dict[int, list[str]]]:
    """Run the modules' tests once, unmutated, under coverage: per module, each line run -> the tests that run it.

    The test files are shared out among ``jobs`` runs.  A line run by a test's call names that test; one run by
    a set-up or tear-down (a fixture, perhaps shared by the tests after it) names all the tests of that file, and
    one run at import all the module's tests.  Every run must pass: a suite that fails unmutated kills nothing.
    """
    files = sorted({test for module in modules for test in MODULES[module][1]})
    shares = [files[k::jobs] for k in range(min(jobs, len(files)))]
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(jobs) as pool, _stopped_on_interrupt(pool):
        data_files = [Path(tmp) / f"coverage.{k}" for k in range(len(shares))]
        runs = [["-q", "--coverage", str(data), *share] for data, share in zip(data_files, shares)]
        for share, outcome in zip(shares, pool.map(lambda args: _run_pytest([], args, timeout * 20), runs)):
            if outcome != "survived":
                sys.exit(f"mutation_score: the tests fail without a mutant ({outcome}): {' '.join(share)}")
        import coverage

        contexts_of: dict[str, dict[int, set[str]]] = {module: {} for module in modules}
        seconds: dict[str, float] = {}
        for data_file in data_files:
            data = coverage.CoverageData(str(data_file))
            data.read()
            for module in modules:
                for line, contexts in (data.contexts_by_lineno(str(ROOT / module)) or {}).items():
                    contexts_of[module].setdefault(line, set()).update(contexts)
            seconds.update(json.loads(Path(f"{data_file}.seconds").read_text()))
    return {module: _tests_of_contexts(lines, MODULES[module][1], seconds) for module, lines in contexts_of.items()}


def _tests_of_contexts(
    lines: dict[int, set[str]], tests: list[str], seconds: dict[str, float] | None = None
) -> dict[int, list[str]]:
    """Line -> the module's tests to run for it, from coverage's contexts (``node id|phase``, or none: import).

    The quickest tests come first (``seconds``: node id -> its call's duration), whole files last: the run stops
    at the first failure, so a mutant most tests kill costs the quickest of them.
    """
    seconds = seconds or {}
    by_line = {}
    for line, contexts in lines.items():
        chosen: set[str] = set()
        for context in contexts:
            test, _, phase = context.rpartition("|")
            if not test:
                chosen.update(tests)
            elif test.split("::")[0] not in tests:
                continue  # another module's test file: not this module's own tests
            elif phase == "call":
                chosen.add(test)
            else:
                chosen.add(test.split("::")[0])
        if chosen:
            by_line[line] = sorted(chosen, key=lambda test: ("::" not in test, seconds.get(test, 0.0), test))
    return by_line


def _die_with(parent: int):
    """A worker's pre-exec step: the kernel kills it when this process dies (Linux), so kill -9 leaves none."""

    def preexec() -> None:
        if sys.platform.startswith("linux"):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:
            os._exit(1)

    return preexec


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _table(scores: list[Score]) -> None:
    print(
        f"{'module':32} {'mutants':>7} {'run':>5} {'killed':>6} {'(t/o)':>5} {'surv.':>5} {'pragma':>6} "
        f"{'killed %':>8} {'time s':>7} {'cpu s':>7}"
    )
    for s in scores:
        print(
            f"{s.module:32} {s.total:7d} {s.run:5d} {s.killed:6d} {s.timeouts:5d} {len(s.survivors):5d} "
            f"{s.pragmad:6d} {s.share:8.1f} {s.seconds:7.0f} {s.cpu:7.0f}"
        )
    run, killed = sum(s.run for s in scores), sum(s.killed for s in scores)
    print(
        f"{'all':32} {sum(s.total for s in scores):7d} {run:5d} {killed:6d} {sum(s.timeouts for s in scores):5d} "
        f"{run - killed:5d} {sum(s.pragmad for s in scores):6d} {100.0 * killed / max(run, 1):8.1f} "
        f"{sum(s.seconds for s in scores):7.0f} {sum(s.cpu for s in scores):7.0f}"
    )


class _MutantLoader(importlib.abc.Loader):
    def __init__(self, mutated: Path, original: str):
        self.mutated, self.original = mutated, original

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        exec(compile(self.mutated.read_text(), self.original, "exec"), module.__dict__)


class _MutantFinder(importlib.abc.MetaPathFinder):
    def __init__(self, name: str, mutated: Path, original: str):
        self.name, self.loader, self.original = name, _MutantLoader(mutated, original), original

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        return importlib.util.spec_from_file_location(fullname, self.original, loader=self.loader)


def _per_test_contexts(cov, pytest, seconds: dict[str, float]):
    """A pytest plugin naming coverage's context after each test and phase: ``node id|setup``, ``|call``...;
    ``seconds`` gets each test call's duration."""

    def phase(name: str):
        @pytest.hookimpl(wrapper=True)
        def hook(item):
            cov.switch_context(f"{item.nodeid}|{name}")
            began = time.perf_counter()
            try:
                return (yield)
            finally:
                cov.switch_context("")
                if name == "call":
                    seconds[item.nodeid] = time.perf_counter() - began

        return hook

    return type(
        "PerTestContexts",
        (),
        {f"pytest_runtest_{name}": staticmethod(phase(name)) for name in ("setup", "call", "teardown")},
    )()


def _worker(name: str, mutated: str, original: str, pytest_args: list[str]) -> int:
    """Run pytest with the module ``name`` imported from the mutated file (``-``: none); ``--coverage FILE``
    records which test runs which line of the modules."""
    if name != "-":
        sys.meta_path.insert(0, _MutantFinder(name, Path(mutated), original))
    import pytest

    plugins, cov, data_file = [], None, ""
    seconds: dict[str, float] = {}
    if "--coverage" in pytest_args:
        import coverage

        at = pytest_args.index("--coverage")
        data_file = pytest_args[at + 1]
        cov = coverage.Coverage(data_file=data_file, include=[str(ROOT / module) for module in MODULES])
        pytest_args = pytest_args[:at] + pytest_args[at + 2 :]
        plugins.append(_per_test_contexts(cov, pytest, seconds))
        cov.start()
    code = int(pytest.main(pytest_args, plugins=plugins))
    if cov is not None:
        cov.stop()
        cov.save()
        Path(f"{data_file}.seconds").write_text(json.dumps(seconds))
    return code


ALSO_COPY = ("docs", "scripts")  # what the tests read beside the package (documented examples, scripts)
MUTMUT = [sys.executable, "-m", "mutmut"]  # this interpreter's mutmut, whatever PATH holds
_MUTMUT_LINE = re.compile(r"^\s*(?P<mutant>(?P<name>[\w.]+)\.x\w*__mutmut_\d+): (?P<status>.+)$")


def _mutmut_listing(stage: Path) -> list[re.Match]:
    listing = subprocess.run([*MUTMUT, "results", "--all", "true"], cwd=stage, capture_output=True, text=True)
    return [match for line in listing.stdout.splitlines() if (match := _MUTMUT_LINE.match(line))]


def _mutmut(modules: list[str], stage: Path, jobs: int, sample: int | None, seed: int) -> list[Score]:
    """Run mutmut on a staged copy in the installed layout (every mutant, or a seeded sample of each module's
    mutmut mutants) against each module's own tests; the tally per module from its results."""
    if importlib.util.find_spec("mutmut") is None:
        sys.exit("mutation_score: --mutmut needs the mutmut package (pip install mutmut)")
    shutil.rmtree(stage, ignore_errors=True)
    shutil.copytree(ROOT / "gamelp", stage / "src" / "gamelp", ignore=shutil.ignore_patterns("__pycache__"))
    for sub in ("models", "games"):
        shutil.copytree(ROOT / sub, stage / "src" / "gamelp" / sub, ignore=shutil.ignore_patterns("__pycache__"))
    for sub in ("tests", *ALSO_COPY):
        shutil.copytree(ROOT / sub, stage / sub, ignore=shutil.ignore_patterns("__pycache__"))
    # The staged [tool.mutmut] mutates the chosen modules only, against their own tests (as the sampled mode).
    chosen = ", ".join(f'"src/gamelp/{m.removeprefix("gamelp/")}"' for m in modules)
    tests = ", ".join(sorted({f'"{t}"' for m in modules for t in MODULES[m][1]}))
    config = re.sub(
        r"^only_mutate = \[[^\]]*\]", f"only_mutate = [{chosen}]", (ROOT / "pyproject.toml").read_text(), flags=re.M
    )
    config = re.sub(
        r"^pytest_add_cli_args_test_selection = \[[^\]]*\]",
        f"pytest_add_cli_args_test_selection = [{tests}]",
        config,
        flags=re.M,
    )
    also = ", ".join(f'"{sub}"' for sub in ALSO_COPY)
    config = re.sub(r"^\[tool\.mutmut\]$", f"[tool.mutmut]\nalso_copy = [{also}]", config, flags=re.M)
    (stage / "pyproject.toml").write_text(config)
    run = [*MUTMUT, "run", "--max-children", str(jobs)]
    began, cpu = time.monotonic(), _children_cpu()
    if sample is None:
        subprocess.run(run, cwd=stage, check=False, stdout=sys.stderr)
    else:  # a first run that matches no mutant generates them all and maps the tests; then the sample runs
        subprocess.run([*run, "none.x_none__mutmut_0"], cwd=stage, check=False, stdout=sys.stderr)
        names: dict[str, list[str]] = {}
        for match in _mutmut_listing(stage):
            names.setdefault(match["name"], []).append(match["mutant"])
        picked = [
            name
            for module in modules
            for mutants_of in [names.get(MODULES[module][0], [])]
            for name in random.Random(f"{seed}:{module}").sample(mutants_of, min(sample, len(mutants_of)))
        ]
        subprocess.run([*run, *picked], cwd=stage, check=False, stdout=sys.stderr)
    seconds, cpu = time.monotonic() - began, _children_cpu() - cpu
    scores = {m: Score(m) for m in modules}
    by_name = {MODULES[m][0]: scores[m] for m in modules}
    for match in _mutmut_listing(stage):
        score = by_name.get(match["name"])
        if score is None:
            continue
        status = match["status"]
        score.total += 1
        if status in ("killed", "timeout"):
            score.run += 1
            score.killed += 1
            score.timeouts += status == "timeout"
        elif status in ("survived", "no tests"):
            score.run += 1
            score.survivors.append(Mutant(score.total, 0, match.group(0).strip()))
    for score in scores.values():
        score.pragmad = sum(PRAGMA in text for text in (ROOT / score.module).read_text().splitlines())
        score.seconds, score.cpu = seconds / len(scores), cpu / len(scores)  # one run for all: shared out
    return list(scores.values())


def build_parser() -> argparse.ArgumentParser:
    # Imported here: a worker must install its mutant before anything imports gamelp.
    from gamelp.cli.args import OneLineParser, finite_float, integer

    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", action="append", choices=sorted(MODULES), help="only this module (repeatable)")
    parser.add_argument("--sample", type=integer(1), default=20, help="mutants per module (default 20)")
    parser.add_argument("--full", action="store_true", help="every mutant of every module")
    parser.add_argument("--seed", type=integer(0), default=0, help="the sample's seed (default 0)")
    parser.add_argument("--jobs", type=integer(1), default=2, help="mutants run at once (default 2)")
    parser.add_argument(
        "--timeout", type=finite_float(0.0, strict=True), default=240.0, help="seconds per mutant; past it: killed"
    )
    parser.add_argument(
        "--floor", type=finite_float(0.0), help="exit 1 if a module's killed share is below this percentage"
    )
    parser.add_argument("--survivors", action="store_true", help="list the surviving mutants after the table")
    parser.add_argument(
        "--mutmut", action="store_true", help="run mutmut 3 instead (its own operators; --sample and --full apply)"
    )
    parser.add_argument(
        "--stage",
        type=Path,
        default=Path(tempfile.gettempdir()) / "gamelp-mutmut",
        help="where --mutmut stages its copy of the tree",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        name, mutated, original, _, *rest = argv[1:]
        return _worker(name, mutated, original, rest)
    args = build_parser().parse_args(argv)
    modules = args.module or list(MODULES)
    if args.mutmut:
        scores = _mutmut(modules, args.stage, args.jobs, None if args.full else args.sample, args.seed)
    else:
        sample = None if args.full else args.sample
        began = time.monotonic()
        tests_of = tests_by_line(modules, args.jobs, args.timeout)
        print(f"coverage of the unmutated tests: {time.monotonic() - began:.0f} s", file=sys.stderr, flush=True)
        scores = [score_module(m, sample, args.seed, args.jobs, args.timeout, tests_of[m]) for m in modules]
    _table(scores)
    if args.survivors:
        for s in scores:
            for m in s.survivors:
                print(f"survived {s.module}:{m.line} {m.what}")
    below = [s.module for s in scores if args.floor is not None and s.share < args.floor]
    if below:
        print(f"mutation_score: below {args.floor:g} % killed: {', '.join(below)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:  # a mutant's worker: gamelp must not be imported before the mutant is
        sys.exit(main())
    from gamelp.cli.args import run_script  # one-line errors, and Ctrl-C as "interrupted" with status 130

    run_script(main)

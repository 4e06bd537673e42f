"""Interactive views: short reprs of every public result, game and model whatever the game's size, notebook HTML,
pandas tables and the model's algebra.

The repr test discovers its classes by walking the public modules of gamelp, gamelp.models and gamelp.games:
every public dataclass of the core and the models, and in the games a result by its name (``...Result``,
``...Sweep``, ``...Point``), by the GameResult protocol or by deriving from a core type; the test fails until a
new one has a builder here (and then until its repr is short).
"""

from __future__ import annotations

import dataclasses
import html
import importlib
import inspect
import json
import pkgutil
import re
import types
from functools import cached_property

import numpy as np
import pytest

import gamelp
import gamelp.games
import gamelp.models
from gamelp.backends import registry
from gamelp.binary import game_arrays
from gamelp.display import Summarised, number
from gamelp.game import SequenceFormGame, load_game
from gamelp.matrix import MatrixGame
from gamelp.model import Model
from gamelp.solution import Solution
from gamelp.treeplex import Treeplex

MAX_REPR = 500
CORE_TYPES = (Model, Solution, SequenceFormGame, MatrixGame, Treeplex, Summarised)
RESULT_SUFFIXES = ("Result", "Sweep", "Point")


def public_modules() -> list[types.ModuleType]:
    """gamelp, gamelp.models and gamelp.games with every submodule (command-line entry points aside)."""
    modules = []
    for package in (gamelp, gamelp.models, gamelp.games):
        modules.append(package)
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if not info.name.endswith("__main__") and not any(part.startswith("_") for part in info.name.split(".")):
                modules.append(importlib.import_module(info.name))
    return modules


def in_scope(cls: type) -> bool:
    """A result, a game, a model or their parts: what a session displays (protocols and the mixin itself aside)."""
    if cls is Summarised or getattr(cls, "_is_protocol", False):
        return False
    core_or_models = not cls.__module__.startswith("gamelp.games")
    if (core_or_models and dataclasses.is_dataclass(cls)) or issubclass(cls, CORE_TYPES):
        return True
    if cls.__name__.endswith(RESULT_SUFFIXES):
        return True
    return callable(getattr(cls, "to_dict", None)) and hasattr(cls, "strategy")


def discovered() -> set[type]:
    found = set()
    for module in public_modules():
        for name, cls in vars(module).items():
            public = inspect.isclass(cls) and not name.startswith("_") and cls.__module__ == module.__name__
            if public and not issubclass(cls, (Exception, type)) and in_scope(cls):
                found.add(cls)
    return found


class World:
    """The objects of one size: Leduc with a 33 x 33 matrix game, or 13-rank 4-suit Leduc with a 400 x 400 one."""

    def __init__(self, size: str):
        from gamelp.games import poker

        self.size = size
        if size == "leduc":
            self.game, n = load_game("leduc"), 33
        else:
            self.game, n = SequenceFormGame.from_dict(poker.leduc(ranks=13, suits=4), "leduc_r13_s4"), 400
        rng = np.random.default_rng(31)
        labels = [f"deck with a long descriptive name {i}" for i in range(n)]
        self.matrix = MatrixGame(rng.uniform(0.1, 0.9, (n, n)), labels, labels, std=rng.uniform(0.01, 0.05, (n, n)))

    @cached_property
    def nash(self):
        from gamelp.models.nash import solve_nash

        return solve_nash(self.game, 1)


def _batch(world: World):
    from gamelp.games.mtg.sweep import BatchResult, PairStats

    names = world.matrix.row_labels
    n = len(names)
    pairs = tuple(PairStats(names[i], names[j], 100, 60, 38, 2, 0, 0.6, 0.05) for i in range(n) for j in range(i))
    return BatchResult(world.matrix, pairs, tuple((names[i], names[i - 1]) for i in range(1, n)))


def _tournament(world: World):
    from gamelp.games.locm.tournament import TournamentResult

    n = world.matrix.shape[0]
    seats = np.full((n, n, 2), 10, dtype=np.int64)
    return TournamentResult(
        world.matrix.row_labels, "max-attack", world.matrix, seats // 2, seats, np.ones((n, 13)), np.eye(n), 20 * n * n
    )


def _training(world: World):
    from gamelp.games.locm.drafters import make_drafter
    from gamelp.games.locm.policy import PolicyDrafter
    from gamelp.games.locm.train import TrainingResult

    drafter = make_drafter("immediate")
    assert isinstance(drafter, PolicyDrafter)
    return TrainingResult(drafter, [(1000 * e, seat, 0.5) for e in range(1000) for seat in (0, 1)])


def _first_order(world: World):
    from gamelp.models.matrix_first_order import solve_matrix_first_order

    return solve_matrix_first_order(world.matrix, iterations=20)


def _kdet(world: World):
    from gamelp.models.determinism import solve_kdet

    return solve_kdet(world.game, 1, 0, time_limit=120)


def _sweep(world: World):
    """A sweep of the game's size (a real one of 13-rank Leduc takes hours): every k at the Nash strategy."""
    from gamelp.models.determinism import KSweep, SweepPoint, determinism

    own, nash = world.game.pl1, world.nash
    strategy, held = nash.strategy_dict(), determinism(own, nash.strategy)
    points = [SweepPoint(k, nash.value, nash.value, k == 0, held, strategy) for k in range(own.num_decision_points + 1)]
    return KSweep(1, points, 1, 0, nash.solution.wall_time, backend="highs", solver_version="highspy")


def _robust(world: World):
    from gamelp.models.robust import solve_robust

    return solve_robust(world.matrix, "interval", 0.5)


def _uniqueness(world: World):
    """The test on Leduc; on 13-rank Leduc (its rank is a dense SVD of hours) a verdict with its many active rows."""
    from dataclasses import replace

    from gamelp.models.uniqueness import check_game_uniqueness

    verdict = check_game_uniqueness(load_game("leduc"), 1)
    if world.size == "leduc":
        return verdict
    rows = tuple(f"best_response[{label}]" for label in world.game.pl2.labels)
    return replace(verdict, K=rows, L=rows, notes=[verdict.summary()] * 100)


def _matrix_nash(world: World):
    from gamelp.models.nash import solve_matrix_nash

    return solve_matrix_nash(world.matrix)


def _active_set(world: World):
    """The active set of the LP's own point (every zero sequence, every tight row): its summary only."""
    from gamelp.models.select import ActiveSet

    form = world.nash.model.matrix_form()
    zero = np.zeros(form.c.size, dtype=bool)
    zero[form.variable_slices["x"]] = world.nash.strategy <= 0
    return ActiveSet(form, zero, form.row_sense == "=")


def _exact_lp(world: World):
    """The first stage of Dresher's procedure for player 1 (every opponent sequence open), with its exact data."""
    from gamelp.models.proper import dresher_lp

    return dresher_lp(world.game, 1, np.full(world.game.pl2.num_sequences, None, dtype=object))


def _selection(world: World):
    """A selection's record, its strategy the LP's own (its summary and JSON, without solving a QP)."""
    from gamelp.models.select import Selection

    return Selection("min-norm", world.nash.strategy, world.nash.solution, False, "the QP's point: a builder", 0.01)


def _regret(world: World):
    from gamelp.regret import solve_regret

    return solve_regret(world.game, "cfr+", 20)


def _openspiel(world: World):
    pytest.importorskip("pyspiel")
    return load_game("openspiel:leduc_poker")


def _raw(world: World):
    from gamelp.backends import get
    from gamelp.backends.base import Options

    return get("highs").solve(world.nash.model.matrix_form(), Options(time_limit=1.0))


def _cones(world: World):
    from gamelp.models.robust import robust_lp

    return next(iter(robust_lp(world.matrix, "ellipsoidal", 0.5).cones.values()))


def _changes(world: World):
    from gamelp.models.nash import sequence_form_lp

    model = sequence_form_lp(world.game, 1)
    revision = model.revision
    model.set_rhs("polytope", world.game.pl1.f)
    model.set_bounds("x", ub=2.0)
    return model.changes_since(revision)


def _options(world: World):
    from gamelp.backends.base import Options

    return Options(time_limit=1, start=np.zeros(world.nash.model.num_variables), extra={"presolve": "off"})


def _session(world: World):
    from gamelp.models.nash import sequence_form_lp

    model = sequence_form_lp(world.game, 1)
    model.solve("highs", persistent=True, time_limit=1)
    return model.sessions["highs"]


def _scaling(world: World):
    from gamelp.backends.scaling import scale

    return scale(world.nash.model.matrix_form())[1]


def _uncertainty(world: World):
    from gamelp.models.robust import ellipsoidal_set

    return ellipsoidal_set(world.matrix.shape, 0.5, scope="column")


def _capabilities(world: World):
    from gamelp.backends import get

    return get("highs").capabilities


def _method(world: World):
    from gamelp.regret import METHODS

    return METHODS["pdcfr+"]


def _certificate(world: World):
    from gamelp.models.exact import certify_equilibrium

    nash = world.nash
    return certify_equilibrium(world.game, nash.strategy, nash.opponent_strategy, model=nash.model)


def _exact_matrix(world: World):
    from gamelp.models.exact import ExactMatrix

    return ExactMatrix.from_floats(world.matrix.payoffs)


def _evaluation(world: World):
    from gamelp.models.evaluate import evaluate

    return evaluate(world.game, world.nash.strategy, 1)


def _optimal_basis(world: World):
    from gamelp.models.exact import OptimalBasis

    return OptimalBasis.of(world.nash.model)


def _refined(world: World):
    from gamelp.models.refine import solve_refined

    return solve_refined(load_game("kuhn"))  # Leduc's takes half a minute, its 13 x 4 variant far longer


def _equilibrium(world: World):
    from gamelp.models.nash import solve_equilibrium

    return solve_equilibrium(world.game)


def _envelope(world: World):
    """An envelope of the game's size (a real one of Leduc takes minutes): one line and the Nash strategy."""
    from gamelp.models.determinism import determinism
    from gamelp.models.kdet_envelope import Envelope, EnvelopePoint

    own, nash = world.game.pl1, world.nash
    point = EnvelopePoint(nash.value, determinism(own, nash.strategy), nash.strategy)
    return Envelope(1, own.num_decision_points, [(0.0, nash.value)], [point], 1, nash.solution.wall_time)


def _mtg_game(world: World):
    from gamelp.games.mtg.match import GameResult

    return GameResult(winner=0, turns=12, nodes=10**9, evaluations=10**8, mismatch=False, first=1, verified=True)


def _locm_match(world: World):
    from gamelp.games.locm.match import MatchResult

    return MatchResult(1, 40, (tuple(range(100, 130)), tuple(range(130, 160))))


def _gambit_matrix(world: World):
    from fractions import Fraction

    from gamelp.games.gambit import GambitMatrixGame

    m = world.matrix
    return GambitMatrixGame(m.payoffs, m.row_labels, m.col_labels, Fraction(3))


# The class's qualified name -> how to build one from a World.
BUILDERS = {
    "gamelp.games.gambit.GambitMatrixGame": _gambit_matrix,
    "gamelp.model.Model": lambda w: w.nash.model,
    "gamelp.solution.Solution": lambda w: w.nash.solution,
    "gamelp.game.SequenceFormGame": lambda w: w.game,
    "gamelp.treeplex.Treeplex": lambda w: w.game.pl2,
    "gamelp.binary.ArrayTreeplex": lambda w: SequenceFormGame.from_arrays(game_arrays(w.game)).pl2,
    "gamelp.treeplex.Point": lambda w: w.game.pl2.points[w.game.pl2.decision_points[-1]],
    "gamelp.matrix.MatrixGame": lambda w: w.matrix,
    "gamelp.backends.base.RawResult": _raw,
    "gamelp.backends.base.Options": _options,
    "gamelp.backends.base.Session": _session,
    "gamelp.backends.registry.Capabilities": _capabilities,
    "gamelp.backends.registry.BackendFamily": lambda w: registry.family("cvxpy"),
    "gamelp.backends.registry.Listed": lambda w: registry.family("highs").solvers["highs"],
    "gamelp.backends.scaling.Scaling": _scaling,
    "gamelp.model.VarBlock": lambda w: w.nash.model.variables["x"],
    "gamelp.model.ConstraintBlock": lambda w: w.nash.model.constraints["best_response"],
    "gamelp.form.ConeBlock": _cones,
    "gamelp.form.MatrixForm": lambda w: w.nash.model.matrix_form(),
    "gamelp.form.Changes": _changes,
    "gamelp.regret.selfplay.Method": _method,
    "gamelp.models.robust.UncertaintyBlock": lambda w: _uncertainty(w).blocks[0],
    "gamelp.models.robust.ConicUncertainty": _uncertainty,
    "gamelp.models.nash.NashResult": lambda w: w.nash,
    "gamelp.regret.simplex.LocalRule": lambda w: _method(w).local,
    "gamelp.models.nash.Equilibrium": _equilibrium,
    "gamelp.models.exact.Certificate": _certificate,
    "gamelp.models.evaluate.Evaluation": _evaluation,
    "gamelp.models.evaluate.PlayerEvaluation": lambda w: _evaluation(w).players[0],
    "gamelp.models.exact.ExactMatrix": _exact_matrix,
    "gamelp.models.exact.OptimalBasis": _optimal_basis,
    "gamelp.models.refine.RefinedEquilibrium": _refined,
    "gamelp.models.nash.MatrixNashResult": _matrix_nash,
    "gamelp.models.select.Selection": _selection,
    "gamelp.models.select.ActiveSet": _active_set,
    "gamelp.models.refine.ExactLP": _exact_lp,
    "gamelp.models.determinism.KdetResult": _kdet,
    "gamelp.models.determinism.KSweep": _sweep,
    "gamelp.models.determinism.SweepPoint": lambda w: _sweep(w).points[-1],
    "gamelp.models.kdet_envelope.Envelope": _envelope,
    "gamelp.models.kdet_envelope.EnvelopePoint": lambda w: _envelope(w).points[0],
    "gamelp.models.robust.RobustResult": _robust,
    "gamelp.models.uniqueness.UniquenessResult": _uniqueness,
    "gamelp.models.matrix_first_order.FirstOrderResult": _first_order,
    "gamelp.regret.selfplay.RegretResult": _regret,
    "gamelp.games.openspiel.OpenSpielGame": _openspiel,
    "gamelp.games.mtg.sweep.BatchResult": _batch,
    "gamelp.games.mtg.match.GameResult": _mtg_game,
    "gamelp.games.locm.tournament.TournamentResult": _tournament,
    "gamelp.games.locm.match.MatchResult": _locm_match,
    "gamelp.games.locm.train.TrainingResult": _training,
}


def qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def test_every_result_game_and_model_class_has_a_builder():
    found = {qualified(cls) for cls in discovered()}
    assert {"gamelp.models.nash.NashResult", "gamelp.models.determinism.KSweep", "gamelp.model.Model"} <= found
    missing = found - set(BUILDERS)
    assert not missing, f"public classes with no repr check here (add a builder and a short repr): {sorted(missing)}"
    assert not set(BUILDERS) - found, "builders for classes the walk no longer finds"


@pytest.fixture(scope="module", params=["leduc", "leduc_r13_s4"])
def world(request) -> World:
    return World(request.param)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_repr_is_short_whatever_the_size(world, name):
    obj = BUILDERS[name](world)
    assert qualified(type(obj)) == name
    text = repr(obj)
    assert len(text) < MAX_REPR, text
    assert text.startswith(type(obj).__name__ + "(")
    if isinstance(obj, Summarised):
        page = obj._repr_html_()
        assert len(page) < 10_000 and type(obj).__name__ in page
        if hasattr(obj, "strategy_dict"):  # a result lists its strategy's entries below the summary
            caption, pairs = obj._entries()
            assert f"{html.escape(caption)}: " in page and f" of {len(list(pairs))} entries</p>" in page


# Summary keys that are not an attribute of the object they describe (counts, shapes, the solution's fields...).
DERIVED_KEYS = {
    "approach", "backend", "bounds", "checkpoints", "cols", "columns", "decision_points", "depth", "entries",
    "episodes", "gap", "k", "kind", "last_win_rate", "names", "nonzeros", "observation_points", "payoff_nonzeros",
    "player", "robust", "rows", "sense", "sequences", "shape", "sizes", "solver_version", "status", "variables",
}  # fmt: skip


@pytest.mark.parametrize("world", ["leduc"], indirect=True)
@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_a_summary_names_its_fields_and_shows_their_values(world, name):
    """Every key of a summary is a field of the object (with its value) or a known derived quantity."""
    obj = BUILDERS[name](world)
    if not isinstance(obj, Summarised):
        return
    for key, shown in obj._summary().items():
        assert hasattr(obj, key) or key in DERIVED_KEYS, f"{name}: unknown summary key {key!r}"
        field = getattr(obj, key, None)
        if isinstance(field, float) and isinstance(shown, str):  # a time or a gap, to 3 significant digits
            assert float(shown) == pytest.approx(field, rel=5e-3), f"{name}.{key}"
        elif isinstance(field, (bool, int, float, str)) and isinstance(shown, (bool, int, float, str)):
            assert shown == field, f"{name}.{key}"


# JSON keys that are not an attribute of the object (the solution's fields, the other player's strategy...).
DERIVED_JSON_KEYS = {
    "backend", "decision_problem_pl1", "decision_problem_pl2", "deterministic", "equalities", "gap",
    "guaranteed_value", "mip_gap", "opponent_strategy", "player", "robust", "solver_version", "status",
    "utility_pl1", "variables", "wall_time",
}  # fmt: skip


@pytest.mark.parametrize("world", ["leduc"], indirect=True)
@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_a_json_document_names_its_fields_and_gives_their_values(world, name):
    """``to_dict`` (what ``--json`` prints): JSON-ready, each key a field (with its value) or a known derived one."""
    obj = BUILDERS[name](world)
    if not callable(getattr(obj, "to_dict", None)) or inspect.signature(obj.to_dict).parameters:
        return
    document = obj.to_dict()
    json.dumps(document, allow_nan=False)
    for key, given in document.items():
        assert hasattr(obj, key) or key in DERIVED_JSON_KEYS, f"{name}: unknown JSON key {key!r}"
        field = getattr(obj, key, None)
        if isinstance(field, (bool, int, float, str)):
            assert given == field, f"{name}.{key}"


@pytest.mark.parametrize("world", ["leduc"], indirect=True)
def test_an_equilibrium_table_lists_player_1s_strategy(world):
    equilibrium = BUILDERS["gamelp.models.nash.Equilibrium"](world)
    caption, pairs = equilibrium._entries()
    assert caption.startswith("player 1's strategy")
    assert dict(pairs) == equilibrium.strategy_dict(1) != equilibrium.strategy_dict(2)


@pytest.mark.parametrize("world", ["leduc"], indirect=True)
def test_a_regret_run_table_lists_player_1s_average_strategy(world):
    run = BUILDERS["gamelp.regret.selfplay.RegretResult"](world)
    caption, pairs = run._entries()
    assert caption == "player 1's average strategy"
    assert dict(pairs) == run.strategy_dict() == run.strategy_dict(1) != run.strategy_dict(2)
    assert run.to_dict() == run.to_dict(1) != run.to_dict(2)  # player 1's side by default
    assert run.to_frame()["label"].tolist() == list(run.labels_x) != run.to_frame(2)["label"].tolist()
    assert run.strategy is run.x  # player 1's average strategy, as for every result
    assert not run.converged and run._summary()["status"] == "iteration_limit" == run.to_dict()["status"]
    from gamelp.regret import solve_regret

    done = solve_regret(world.game, "cfr+", 10_000, target_gap=1e-2)
    assert done.converged and done._summary()["status"] == "converged" == done.to_dict()["status"]


def test_the_repr_names_what_matters(world):
    text = repr(world.nash)
    for part in (world.game.name, "player=1", "value=", "gap=", "status='optimal'", "backend='highs'"):
        assert part in text
    assert f"{world.nash.value:.10g}" in text
    game = repr(world.game)
    assert f"sequences={world.game.pl1.num_sequences}/{world.game.pl2.num_sequences}" in game
    assert f"constraints={world.nash.model.num_constraints} in 2 blocks" in repr(world.nash.model)


def test_html_lists_the_largest_entries_and_says_how_many_there_are(world):
    page = world.nash._repr_html_()
    strategy = world.nash.strategy_dict()
    largest = max(strategy, key=lambda label: strategy[label])
    nonzero = sum(1 for p in strategy.values() if abs(p) > 1e-12)
    assert largest in page and f"12 largest of {nonzero} nonzero of {len(strategy)} entries" in page
    smallest_shown = sorted((p for p in strategy.values() if p > 1e-12), reverse=True)[11]
    assert page.count("<tr>") == len(repr(world.nash).split(", ")) + 12 and f"{smallest_shown:.6g}" in page


# ----------------------------------------------------------------------------- the model's algebra
def _terms(expression: str) -> dict[str, float]:
    """``1/6 x[a] - v[b]`` back into {name: coefficient}."""
    from fractions import Fraction

    terms: dict[str, float] = {}
    for sign, term in re.findall(r"(^-?|[+-] )([^+-]+?)(?= [+-] |$)", expression):
        coefficient, _, name = term.strip().rpartition(" ")
        value = float(Fraction(coefficient)) if coefficient else 1.0
        terms[name] = -value if sign.strip() == "-" else value
    return terms


@pytest.mark.parametrize("name", ["kuhn", "rps"])
def test_the_printed_algebra_is_the_model(name):
    """Every printed row, read back, has the model's coefficients, sense and right-hand side."""
    from gamelp.models.nash import sequence_form_lp

    model = sequence_form_lp(load_game(name), 1)
    text = str(model)
    form = model.matrix_form()
    columns = [f"{b.name}[{label}]" for b in model.variables.values() for label in b.labels]
    lines = text.splitlines()
    assert (
        lines[1] == "maximise  v[root]"
        and "subject to" in lines
        and lines[-2:] == [f"  x >= 0 ({model.variables['x'].size})", f"  v free ({model.variables['v'].size})"]
    )
    for block in model.constraints.values():
        start = lines.index(f"  {block.name} ({block.size} rows):") + 1
        for i, line in enumerate(lines[start : start + block.size]):
            label, expression = (part.strip() for part in line.strip().split("  ", 1))
            assert label == f"[{block.labels[i]}]"
            left, sense, rhs = expression.rsplit(" ", 2)
            assert sense == {"==": "=", ">=": ">=", "<=": "<="}[block.sense] and float(rhs) == block.rhs[i]
            expected = {columns[j]: c for j, c in zip(form.A[block.start + i].indices, form.A[block.start + i].data)}
            got = _terms(left)
            assert got.keys() == expected.keys()
            assert all(abs(got[k] - expected[k]) <= 1e-12 for k in got)


def test_kuhn_reads_like_the_homework_lp(kuhn):
    from gamelp.models.nash import sequence_form_lp

    text = str(sequence_form_lp(kuhn, 1))
    assert (
        "  polytope (7 rows):\n    [root]       x[∅] = 1\n    [dJ_pl1]     -x[∅] + x[dJ_pl1:k] + x[dJ_pl1:b] = 0"
        in text
    )
    assert "[dJ/k_pl2:k]  1/6 x[dQ_pl1:k] + 1/6 x[dK_pl1:k] - v[dJ/k_pl2] >= 0" in text


def test_a_large_model_prints_a_summary_as_highs_reports_it(leduc, capsys):
    from gamelp.models.determinism import kdet_mip

    model = kdet_mip(leduc, 1, 10)
    model.pprint()
    text = capsys.readouterr().out
    form = model.matrix_form()
    assert text.startswith(f"{model.name}: MIP, {form.A.shape[1]} variables, {form.A.shape[0]} constraints")
    for block in model.constraints.values():
        assert re.search(rf"\n  {re.escape(block.name)} +{block.size} rows .* {block.matrix.nnz} nonzeros", text)
    data = np.abs(form.A.data[form.A.data != 0])
    assert f"  Matrix [{data.min():.0e}, {data.max():.0e}]" in text
    assert re.search(r"\n  z +\d+ binary +0 or 1\n", text)
    assert len(text.splitlines()) < 30
    model.pprint(full=True)
    assert len(capsys.readouterr().out.splitlines()) > form.A.shape[0]


# ----------------------------------------------------------------------------- tables
def test_kuhn_equilibrium_as_a_table(kuhn):
    from gamelp.models.nash import solve_nash

    result = solve_nash(kuhn, 1)
    table = result.to_frame()
    own = kuhn.pl1
    assert list(table.columns) == ["information set", "action", "probability", "reach probability"]
    assert len(table) == own.num_sequences - 1
    # reach probabilities are the sequence-form strategy; probabilities sum to 1 at each information set
    assert np.allclose(table["reach probability"], result.strategy[1:])
    assert np.allclose(table.groupby("information set")["probability"].sum(), 1.0)
    behaviour = own.to_behavioural(result.strategy)
    for row in table.itertuples(index=False):
        assert row[2] == pytest.approx(behaviour[row[0]][row[1]])
    bet_with_jack = table.set_index(["information set", "action"]).loc[("dJ_pl1", "b"), "probability"]
    assert 0 <= bet_with_jack <= 1 / 3 + 1e-9  # Kuhn's family of equilibria: bluff with the jack at most 1/3


def test_both_players_equilibrium_as_one_table_with_each_players_single_table(kuhn):
    """Equilibrium.to_frame: a player column, then each player's rows exactly as NashResult.to_frame lists them."""
    from gamelp.models.nash import solve_equilibrium

    both = solve_equilibrium(kuhn)
    table = both.to_frame()
    assert list(table.columns) == ["player", "information set", "action", "probability", "reach probability"]
    assert table["player"].tolist() == [1] * (kuhn.pl1.num_sequences - 1) + [2] * (kuhn.pl2.num_sequences - 1)
    assert table.index.tolist() == list(range(len(table)))
    for player in (1, 2):
        own, strategy = kuhn.player(player), both.strategy_of(player)
        rows = table[table["player"] == player].drop(columns="player").reset_index(drop=True)
        assert rows.equals(own.to_frame(strategy))  # the single-player table, unchanged
        assert np.array_equal(rows["reach probability"].to_numpy(), strategy[1:])  # values of the solution
        behaviour = own.to_behavioural(strategy)
        assert rows["probability"].tolist() == [
            behaviour[j][a] for j, a in zip(rows["information set"], rows["action"])
        ]
        assert np.allclose(rows.groupby("information set")["probability"].sum(), 1.0)
    x, y = (np.r_[1.0, table.loc[table["player"] == p, "reach probability"]] for p in (1, 2))
    assert kuhn.saddle_point_gap(x, y) < 1e-9  # the table's two strategies are the equilibrium
    assert kuhn.utility(x, y) == pytest.approx(both.value, abs=1e-12)


def test_k_sweep_points_as_a_table(kuhn):
    from gamelp.models.determinism import k_sweep

    sweep = k_sweep(kuhn, 1)
    table = sweep.to_frame()
    assert list(table.columns) == ["k", "value", "bound", "gap", "status", "source", "seconds", "determinism"]
    assert table["k"].tolist() == list(range(kuhn.pl1.num_decision_points + 1))
    assert np.allclose(table["value"], sweep.values)
    assert set(table["status"]) == {"optimal", "implied"}  # no time limit: every point proven
    assert table["status"].tolist() == [p.status for p in sweep.points]
    assert (table["seconds"] >= 0).all() and table.loc[table["status"] == "implied", "seconds"].eq(0).all()
    assert table["seconds"].sum() <= sweep.wall_time + 1e-9
    assert table["source"].tolist() == [p.source for p in sweep.points]


def test_matrix_tables(kuhn):
    from gamelp.models.nash import solve_matrix_nash

    game = MatrixGame([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], ["R", "P", "S"], ["r", "p", "s"], std=np.full((3, 3), 0.1))
    result = solve_matrix_nash(game)
    table = result.to_frame()
    assert table.to_dict("records")[0] == {"player": "row", "action": "R", "probability": pytest.approx(1 / 3)}
    assert table.groupby("player")["probability"].sum().tolist() == pytest.approx([1.0, 1.0])
    payoffs = game.to_frame()
    assert len(payoffs) == 9 and list(payoffs.columns) == ["row", "col", "payoff", "std"]
    assert payoffs.set_index(["row", "col"]).loc[("R", "p"), "payoff"] == -1
    from gamelp.models.matrix_first_order import solve_matrix_first_order

    first_order = solve_matrix_first_order(game, target_gap=1e-9).to_frame()
    assert list(first_order.columns) == ["player", "action", "probability"]
    assert first_order["action"].tolist() == ["R", "P", "S", "r", "p", "s"]
    assert first_order["probability"].tolist() == pytest.approx([1 / 3] * 6, abs=1e-8)


def test_tables_without_pandas_are_refused_in_one_line_naming_the_extra(kuhn, monkeypatch):
    import sys

    from gamelp.errors import MissingDependency
    from gamelp.models.nash import solve_nash

    result = solve_nash(kuhn, 1)
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(MissingDependency, match=r'^a strategy table needs pandas.*pip install "gamelp\[notebook\]"$'):
        result.to_frame()
    assert "value=" in repr(result) and "<table>" in result._repr_html_()  # no pandas needed for these
    from gamelp.models.nash import solve_equilibrium

    with pytest.raises(
        MissingDependency, match=r'^an equilibrium table needs pandas.*pip install "gamelp\[notebook\]"$'
    ):
        solve_equilibrium(kuhn).to_frame()


# ----------------------------------------------------------------------------- pictures
def test_kuhn_tree_picture(kuhn, tmp_path):
    pytest.importorskip("matplotlib")
    from gamelp.models.nash import solve_nash
    from gamelp.plots import _drawing_tree, plot_strategy_tree, strategy_tree_figure

    result = solve_nash(kuhn, 1)
    tree, _root, _levels = _drawing_tree(kuhn.pl1, result.strategy, None)
    actions = {(u, d["label"]): d["probability"] for u, _, d in tree.edges(data=True) if "probability" in d}
    assert len(actions) == kuhn.pl1.num_sequences - 1  # one edge per action, probabilities as the table's
    table = result.to_frame().set_index(["information set", "action"])["probability"]
    assert all(actions[key] == pytest.approx(table[key]) for key in actions)
    texts = {t.get_text() for t in strategy_tree_figure(kuhn.pl1, result.strategy).axes[0].texts}
    assert {"J", "Q", "K"} <= texts and f"b {table[('dK_pl1', 'b')]:.2f}" in texts
    path = plot_strategy_tree(kuhn.pl1, result.strategy, tmp_path / "tree.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_leduc_tree_is_cut_at_the_depth(leduc):
    pytest.importorskip("matplotlib")
    from gamelp.plots import _drawing_tree

    tree, _, levels = _drawing_tree(leduc.pl1, leduc.pl1.uniform_strategy(), 3)
    assert max(levels.values()) == 3 and len(tree) < 60
    assert any(kind == "cut" for _, kind in tree.nodes(data="kind"))


def test_matrix_heat_map_outlines_the_support(tmp_path):
    pytest.importorskip("matplotlib")
    from gamelp.models.nash import solve_matrix_nash
    from gamelp.plots import matrix_figure

    game = MatrixGame([[3, 0, 2], [0, 3, 2], [1, 1, 0]], ["a", "b", "c"], ["x", "y", "z"])
    result = solve_matrix_nash(game)
    figure = matrix_figure(game, result.row_strategy, result.col_strategy)
    support = np.count_nonzero(result.row_strategy > 1e-9) + np.count_nonzero(result.col_strategy > 1e-9)
    assert len(figure.axes[0].patches) == support
    assert next(t.get_text() for t in figure.axes[0].get_yticklabels()) == f"a ({result.row_strategy[0]:.2f})"


# ----------------------------------------------------------------------------- pictures from the command line
def test_solve_plot_writes_the_tree_and_prints_the_same(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    from gamelp.cli import main

    assert main(["solve", "kuhn"]) == 0
    plain = capsys.readouterr().out
    picture = tmp_path / "tree.png"
    assert main(["solve", "kuhn", "--plot", str(picture)]) == 0
    assert capsys.readouterr().out == plain  # the picture changes nothing on standard output
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["solve", "leduc", "--plot", str(tmp_path / "leduc.svg"), "--plot-depth", "3"]) == 0
    assert "<svg" in (tmp_path / "leduc.svg").read_text()


def test_matrix_solve_plot_writes_the_heat_map(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    from gamelp.cli import main

    payoffs = tmp_path / "rps.csv"
    MatrixGame([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], ["R", "P", "S"], ["R", "P", "S"]).to_csv(payoffs)
    picture = tmp_path / "heat.pdf"
    assert main(["matrix", "solve", str(payoffs), "--plot", str(picture), "--json"]) == 0
    assert picture.read_bytes()[:5] == b"%PDF-"


@pytest.mark.parametrize("command", [["solve", "kuhn"], ["matrix", "solve", "p.csv"]])
def test_a_plot_into_a_missing_directory_is_refused_before_solving(capsys, tmp_path, command):
    pytest.importorskip("matplotlib")
    from gamelp.cli import main

    with pytest.raises(SystemExit) as exit_:
        main([*command, "--plot", str(tmp_path / "missing" / "tree.png")])
    assert exit_.value.code == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "does not exist" in error and "--plot" in error


def test_a_cone_model_prints_its_cones_constants_and_bounds():
    model = Model("toy")
    x = model.add_variables("x", 3, lb=0, labels=["a", "b", "c"])
    y = model.add_variables("y", 2, lb=[-1, 0], ub=[1, 5])
    model.add_constraints("budget", {x: [[1, 0.1, 0.25]], y: [[0, -1]]}, "<=", 1)
    model.add_cone("norm", {x: [[0, 0, 0], [1, 0, 0], [0, 1 / 3, 0]]}, constant=[1, 0, -2])
    model.set_objective({x: [1, 2, 3]}, sense="max", constant=-1.5)
    assert str(model) == (
        "toy: SOCP, 5 variables, 1 constraint, 1 cone, 4 nonzeros\n"
        "maximise  x[a] + 2 x[b] + 3 x[c] - 1.5\n"
        "subject to\n"
        "  budget (1 row):\n"
        "    [0]  x[a] + 0.1 x[b] + 0.25 x[c] - y[1] <= 1\n"
        "  norm (second-order cone, u[0] >= ||u[1:]||, 3 rows):\n"
        "    u[0] = 1\n"
        "    u[1] = x[a]\n"
        "    u[2] = 1/3 x[b] - 2\n"
        "bounds\n"
        "  x >= 0 (3)\n"
        "  -1 <= y[0] <= 1\n"
        "  0 <= y[1] <= 5"
    )
    assert repr(model) == (
        "Model(name='toy', kind='SOCP', sense='max', variables=5 in 2 blocks, constraints=1 in 1 block, "
        "cones=1, nonzeros=4)"
    )


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (3.0, "3"),
        (-2.0, "-2"),
        (0.25, "0.25"),
        (0.6 - 0.05, "0.55"),  # rounding noise does not turn a short decimal into 11/20
        (1 / 6, "1/6"),
        (-2 / 7, "-2/7"),
        (1e-05, "1e-05"),
        (0.123456789, "0.123457"),
        (1e15 + 0.5, "1e+15"),
    ],
)
def test_a_coefficient_reads_as_written(value, shown):
    assert number(value) == shown

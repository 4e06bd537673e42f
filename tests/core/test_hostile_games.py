"""Issue 45's hostile games and options: each test fails on the code before its fix.

Labels with ``$`` in every plot, a 20,000-deep chain of observation points, trees and games too large to draw or
hold, subnormal and overflowing payoffs, strict JSON, one check of export's and kdet's ``--k``, the
``--target-gap`` unit, the ``pyomo:`` solver names that may run a program, and the Gurobi licence message.
"""

from __future__ import annotations

import io
import json
from types import SimpleNamespace

import numpy as np
import pytest

from gamelp.cli import main
from gamelp.game import SequenceFormGame

MATHTEXT = r"$\frac$"  # two dollars: matplotlib would parse it as mathematics, and fail


def _drawn(fig) -> None:
    """Draw ``fig`` (to memory): every text object is laid out, so a label parsed as mathtext fails here."""
    fig.savefig(io.BytesIO(), format="png")


def _dollar_game(kuhn_dict) -> SequenceFormGame:
    data = json.loads(json.dumps(kuhn_dict).replace('"k"', json.dumps(MATHTEXT)))
    return SequenceFormGame.from_dict(data, "a$b$.json")


# ---------------------------------------------------------------- 1. labels are text, not mathtext
def test_every_figure_draws_dollar_labels_literally(kuhn_dict):
    from gamelp.games.locm.tournament import plot_mana_curves, plot_similarity
    from gamelp.matrix import MatrixGame
    from gamelp.plots import k_sweep_figure, literal, matrix_figure, strategy_tree_figure

    game = _dollar_game(kuhn_dict)
    tree = strategy_tree_figure(game.pl1, game.pl1.uniform_strategy(), title=f"{MATHTEXT}: strategy")
    _drawn(tree)
    texts = [t.get_text() for t in tree.findobj(lambda a: hasattr(a, "get_text"))]
    assert any(MATHTEXT.replace("$", r"\$") in t for t in texts)
    _drawn(k_sweep_figure({MATHTEXT: [{"k": 0, "value": 0.0, "bound": 1.0}]}, title=MATHTEXT))
    matrix = MatrixGame(np.array([[1.0, -1.0], [-1.0, 1.0]]), [MATHTEXT, "$^$"], ["a$", "$b$"])
    _drawn(matrix_figure(matrix, [0.5, 0.5], [0.5, 0.5], title=MATHTEXT))
    assert literal(r"a\$b") == r"a\\$b"  # already escaped: still drawn as written
    result = SimpleNamespace(
        drafters=[MATHTEXT, "$^$"],
        mana_curves=np.ones((2, 13)),
        battler=MATHTEXT,
        similarity=np.eye(2),
    )
    from unittest import mock

    with mock.patch("gamelp.plots.save_figure", side_effect=lambda fig, path: _drawn(fig)):
        plot_mana_curves(result, "unused.png")
        plot_similarity(result, "unused.png")


def test_solve_plot_with_dollar_actions_writes_the_picture(kuhn_dict, tmp_path, capsys):
    path = tmp_path / "$x^$.json"
    path.write_text(json.dumps(json.loads(json.dumps(kuhn_dict).replace('"k"', json.dumps(MATHTEXT)))))
    assert main(["solve", str(path), "--plot", str(tmp_path / "tree.png")]) == 0
    assert (tmp_path / "tree.png").stat().st_size > 0


# ---------------------------------------------------------------- 2. a deep chain of observation points
def _chain(length: int, player: int = 1) -> list[dict]:
    """Observation points in a chain, each with a decision point hanging from its second signal."""
    nodes: list[dict] = []
    for i in range(length):
        edge = None if i == 0 else [f"o{i - 1}", "on"]
        nodes.append({"id": f"o{i}", "type": "observation", "signals": ["on", "off"], "parent_edge": edge})
    for i in range(length):
        nodes.append(
            {
                "id": f"d{i}",
                "type": "decision",
                "actions": ["a", "b"],
                "parent_edge": [f"o{i}", "off"],
                "parent_sequence": None,
            }
        )
    return nodes


def test_the_loader_walks_a_chain_once(monkeypatch):
    import networkx as nx

    from gamelp.treeplex import Treeplex

    calls = []
    predecessors = nx.DiGraph.predecessors
    monkeypatch.setattr(nx.DiGraph, "predecessors", lambda self, n: calls.append(n) or predecessors(self, n))
    nodes = _chain(2_000)
    Treeplex.from_nodes(nodes, 1)
    assert len(calls) <= len(nodes)  # the walk up the chain for every decision point made 2,003,000
    monkeypatch.undo()
    deep = Treeplex.from_nodes(_chain(20_000), 1)  # 100 s before: quadratic
    assert deep.num_decision_points == 20_000
    assert deep.parents.max() == 0  # every decision point's last own sequence is the empty one


def test_a_chain_below_an_action_keeps_that_action_as_parent_sequence():
    from gamelp.errors import GameFileError
    from gamelp.treeplex import Treeplex

    nodes = [{"id": "r", "type": "decision", "actions": ["x", "y"], "parent_edge": None, "parent_sequence": None}]
    nodes += [dict(n, id="c" + n["id"]) for n in _chain(3)]
    for n in nodes[1:]:
        if n["parent_edge"] is None:
            n["parent_edge"] = ["r", "x"]
        else:
            n["parent_edge"] = ["c" + n["parent_edge"][0], n["parent_edge"][1]]
        if n["type"] == "decision":
            n["parent_sequence"] = ["r", "x"]
    tp = Treeplex.from_nodes(nodes, 1)
    assert set(tp.parents[1:]) == {tp.index[("r", "x")]}
    nodes[-1]["parent_sequence"] = None
    with pytest.raises(GameFileError, match=r"last own sequence on its path is \['r', 'x'\]"):
        Treeplex.from_nodes(nodes, 1)


# ---------------------------------------------------------------- 3. trees too large to draw, no file left behind
def _wide_game(actions: int) -> dict:
    """Player 1 picks one of ``actions`` actions at its only decision point; player 2 picks x or y."""
    names = [f"a{i}" for i in range(actions)]
    return {
        "decision_problem_pl1": [
            {"id": "r1", "type": "decision", "actions": names, "parent_edge": None, "parent_sequence": None}
        ],
        "decision_problem_pl2": [
            {"id": "r2", "type": "decision", "actions": ["x", "y"], "parent_edge": None, "parent_sequence": None}
        ],
        "utility_pl1": [
            {"sequence_pl1": ["r1", a], "sequence_pl2": ["r2", "xy"[i % 2]], "value": 1.0} for i, a in enumerate(names)
        ],
    }


def test_solve_plot_refuses_a_tree_too_large_before_solving(tmp_path, capsys, monkeypatch):
    from gamelp.plots import MAX_DRAWN_EDGES

    path = tmp_path / "wide.json"
    path.write_text(json.dumps(_wide_game(100_000)))
    monkeypatch.setattr("gamelp.models.nash.solve_nash", lambda *a, **k: pytest.fail("solved before refusing"))
    assert main(["solve", str(path), "--plot", str(tmp_path / "wide.png")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"100,000 actions and signals, more than the {MAX_DRAWN_EDGES:,}" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["wide.json"]


def test_drawn_edges_are_the_pictures_edges_and_the_refusal_names_a_depth_that_fits(leduc):
    from gamelp.errors import OutputError
    from gamelp.plots import _drawing_tree, check_drawable, drawn_edges

    for depth in (None, 1, 3, 4, 6):
        tree, _, _ = _drawing_tree(leduc.pl2, leduc.pl2.uniform_strategy(), depth)
        assert sum(drawn_edges(leduc.pl2, depth)) == tree.number_of_edges()
    check_drawable(leduc.pl2)  # the whole of Leduc (486 edges) is still drawn
    with mock_limit(100), pytest.raises(OutputError, match=r"to depth 6: it has 288 .*; depth 4 \(--plot-depth 4\)"):
        check_drawable(leduc.pl2, 6)


def mock_limit(limit: int):
    from unittest import mock

    return mock.patch("gamelp.plots.MAX_DRAWN_EDGES", limit)


def test_a_drawing_stopped_by_sigterm_leaves_no_file(tmp_path):
    import signal
    import subprocess
    import sys

    script = (
        "import sys, time\n"
        "from matplotlib.figure import Figure\n"
        "from gamelp.plots import save_figure\n"
        "def slow(self, *args, **kwargs):\n"
        "    print('drawing', flush=True)\n"
        "    time.sleep(60)\n"
        "Figure.savefig = slow\n"
        "save_figure(Figure(), sys.argv[1])\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path / "tree.png")], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout.readline() == "drawing\n"
        child.send_signal(signal.SIGTERM)
        child.wait(timeout=30)
    finally:
        child.kill()
    assert list(tmp_path.iterdir()) == []  # no empty temporary .tree.tmp-*.png


# ---------------------------------------------------------------- 5. subnormal payoffs, overflowing sums, strict JSON
@pytest.fixture
def rps_dict():
    from importlib import resources

    return json.loads(resources.files("gamelp.games").joinpath("data", "rps.json").read_text())


def test_validate_refuses_a_subnormal_payoff_naming_the_entry(rps_dict, tmp_path, capsys):
    rps_dict["utility_pl1"][3]["value"] = -2e-310
    path = tmp_path / "subnormal.json"
    path.write_text(json.dumps(rps_dict))
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "utility_pl1 entry 3: value -2e-310 is subnormal" in err
    assert main(["export", str(path), "-o", str(tmp_path / "model.lp")]) == 2
    assert not (tmp_path / "model.lp").exists()


def test_validate_refuses_duplicates_that_add_up_past_the_largest_float(rps_dict, tmp_path, capsys):
    entry = rps_dict["utility_pl1"][0]
    rps_dict["utility_pl1"] += [dict(entry, value=1.7e308), dict(entry, value=1.7e308)]
    path = tmp_path / "overflow.json"
    path.write_text(json.dumps(rps_dict))
    for command in (["validate"], ["export-game", "-o", str(tmp_path / "again.json")]):
        assert main([*command, str(path), "--sum-duplicates"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "(d1_pl1:r, d1_pl2:p) add up to inf" in err
    assert not (tmp_path / "again.json").exists()


def test_json_output_is_strict_or_refused(capsys):
    from gamelp.cli.output import print_json
    from gamelp.errors import GamelpError

    print_json({"value": np.float64(0.5), "points": [{"bound": 1.0}]})
    assert json.loads(capsys.readouterr().out, parse_constant=pytest.fail) == {"value": 0.5, "points": [{"bound": 1.0}]}
    with pytest.raises(GamelpError, match=r"result's points\[1\]\.bound is inf, which JSON cannot write"):
        print_json({"value": 0.5, "points": [{"bound": 1.0}, {"bound": np.inf}]})
    assert capsys.readouterr().out == ""


# ---------------------------------------------------------------- 6. one check of k
@pytest.mark.parametrize("command", [["kdet"], ["export", "--model", "kdet"]])
def test_export_and_kdet_refuse_the_same_k(command, tmp_path, capsys):
    output = ["-o", str(tmp_path / "kdet.lp")] if command[0] == "export" else []
    assert main([*command, "kuhn", "--k", "999", *output]) == 2
    err = capsys.readouterr().err
    assert err == "gamelp: error: k must be between 0 and 6 (player 1's decision points), got 999\n"
    assert list(tmp_path.iterdir()) == []
    assert main([*command, "kuhn", "--k", "6", "--player", "2", *output]) == 0


# ---------------------------------------------------------------- 9. the Gurobi licence message
def test_the_size_refusal_says_something_true_when_the_variable_is_already_set(monkeypatch):
    from gamelp.backends.gurobi_licence import UNRESTRICTED_ENV_VAR, size_refusal

    form = SimpleNamespace(name="big", c=np.zeros(3000), A=np.zeros((10, 3000)), cones=[], quadratic=None)
    monkeypatch.delenv(UNRESTRICTED_ENV_VAR, raising=False)
    assert f"or set {UNRESTRICTED_ENV_VAR}=1 with a full licence" in size_refusal(form, "gurobi")
    monkeypatch.setenv(UNRESTRICTED_ENV_VAR, "1")
    message = size_refusal(form, "gurobi")
    assert f"set {UNRESTRICTED_ENV_VAR}=1" not in message
    assert f"{UNRESTRICTED_ENV_VAR} is set, but the licence Gurobi found is the size-limited one" in message


# ---------------------------------------------------------------- 8. pyomo: names that may run a program
@pytest.mark.parametrize("solver", ["asl:{program}", "sh", "{program}", "neos", "gams", "appsi_higs"])
def test_pyomo_refuses_names_outside_the_allow_list_and_runs_nothing(solver, tmp_path, capsys):
    pytest.importorskip("pyomo")
    ran = tmp_path / "ran"
    program = tmp_path / "solver.sh"
    program.write_text(f"#!/bin/sh\ntouch {ran}\n")
    program.chmod(0o755)
    assert main(["solve", "rps", "--backend", "pyomo:" + solver.format(program=program)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "use one of appsi_cbc, appsi_cplex" in err
    assert not ran.exists()


def test_the_pyomo_allow_list_is_the_documented_one():
    import re
    from pathlib import Path

    from gamelp.backends.pyomo import ALLOWED_SOLVERS
    from gamelp.backends.registry import PYOMO

    guide = (Path(__file__).parents[2] / "docs" / "guide" / "backends.md").read_text()
    section = guide.split("## Which Pyomo solver names run")[1].split("\n## ")[0]
    table = [line for line in section.splitlines() if line.startswith("| ") and "`" in line]
    assert {name for line in table for name in re.findall(r"`([a-z_0-9]+)`", line)} == ALLOWED_SOLVERS
    assert {name.removeprefix("pyomo:") for name in PYOMO.solvers} <= ALLOWED_SOLVERS


# ---------------------------------------------------------------- 4. games too large for memory
def test_a_game_too_large_for_the_memory_left_is_refused_before_it_is_built(kuhn_dict, monkeypatch):
    from gamelp.errors import GameFileError

    built = []
    monkeypatch.setattr("gamelp.memory.memory_budget", lambda: (10**6, "the 1 MB of this test"))
    monkeypatch.setattr("gamelp.treeplex.Treeplex.from_nodes", lambda *a: built.append(a))
    many = {**kuhn_dict, "utility_pl1": kuhn_dict["utility_pl1"] * 1000}
    with pytest.raises(
        GameFileError,
        match=r"its 17 nodes, 36 actions and signals and 30,000 utility entries would need about 11 MiB .* 1 MB",
    ):
        SequenceFormGame.from_dict(many, "many.json")
    assert built == []


def test_the_memory_budget_is_the_process_limit_where_that_is_smaller(tmp_path):
    import subprocess
    import sys

    script = (
        "import resource\n"
        "from gamelp.memory import _status_bytes, memory_budget\n"
        "limit = _status_bytes('VmSize') + 200 * 2**20\n"
        "resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))\n"
        "budget, why = memory_budget()\n"
        "assert 150 * 2**20 < budget <= 200 * 2**20, budget\n"
        "print(why)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "left under this process's limit" in done.stdout and "(ulimit -v)" in done.stdout


def test_a_memory_error_anywhere_in_the_cli_is_one_line(monkeypatch, capsys):
    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(SequenceFormGame, "from_dict", exhausted)
    assert main(["validate", "kuhn"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("gamelp: error: out of memory")


# ---------------------------------------------------------------- 7. what --target-gap is relative to
def test_target_gap_is_relative_to_the_chance_weighted_range_as_help_and_docs_say(capsys):
    from pathlib import Path

    from gamelp.cli import build_parser
    from gamelp.game import load_game
    from gamelp.regret import solve_regret
    from gamelp.units import payoff_range

    pytest.importorskip("pyspiel")
    built_in, openspiel = load_game("leduc"), load_game("openspiel:leduc_poker")
    assert payoff_range(built_in.A) == pytest.approx(13 / 15)  # one game, chance split two ways
    assert payoff_range(openspiel.A) == pytest.approx(13 / 120)
    for game in (built_in, openspiel):
        run = solve_regret(game, "dcfr", 5000, target_gap=1e-3, track_last=False)
        assert run.converged and run.gap <= 1e-3 * payoff_range(game.A)
    with pytest.raises(SystemExit):
        build_parser(["solve"]).parse_args(["solve", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "largest entry of the game's payoff matrix, where payoffs are weighted by chance" in shown
    assert "the largest payoff magnitude" not in shown.split("--target-gap")[1].split("--averaging")[0]
    guide = (Path(__file__).parents[2] / "docs" / "guide" / "regret.md").read_text()
    assert "0.867" in guide and "0.108" in guide

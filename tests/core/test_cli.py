"""The gamelp command: JSON outputs, exports, and one-line errors with a non-zero exit."""

import json
import subprocess
import sys

import numpy as np
import pytest

from gamelp.backends.registry import usage
from gamelp.cli import main


def run_cli(*args):
    """Run the real console entry point in a fresh interpreter."""
    return subprocess.run([sys.executable, "-m", "gamelp.cli", *map(str, args)], capture_output=True, text=True)


def cli_json(capsys, *args):
    assert main([*map(str, args), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_solve_json_has_value_strategy_and_solver_free_gap(capsys):
    out = cli_json(capsys, "solve", "leduc")
    assert {"value", "status", "backend", "player", "strategy", "gap"} <= set(out)
    assert out["value"] == pytest.approx(-0.0856, abs=1e-4)
    assert out["status"] == "optimal" and out["backend"] == "highs" and out["player"] == 1
    assert out["gap"] < 1e-6
    assert len(out["strategy"]) == 337 and out["strategy"]["∅"] == 1.0


def test_solve_player_two_on_another_backend(capsys):
    out = cli_json(capsys, "solve", "kuhn", "--player", "2", "--backend", "gurobi")
    assert out["value"] == pytest.approx(1 / 18, abs=1e-9)
    assert out["backend"] == "gurobi" and out["gap"] < 1e-6


@pytest.mark.parametrize("method", ["lp", "pdcfr+"])
def test_solve_both_players_from_one_run(capsys, leduc, method):
    out = cli_json(
        capsys,
        "solve",
        "leduc",
        "--player",
        "both",
        "--method",
        method,
        "--target-gap",
        "1e-6",
        "--iterations",
        "100000",
    )
    assert out["player"] == "both" and out["value"] == pytest.approx(-0.0856, abs=1e-4)
    x, y = (np.array(list(out[key].values())) for key in ("strategy", "opponent_strategy"))
    assert len(x) == leduc.pl1.num_sequences and len(y) == leduc.pl2.num_sequences
    # The printed strategies (rounded to 12 digits) are an equilibrium pair, checked by best responses.
    assert leduc.saddle_point_gap(x, y) < (1e-9 if method == "lp" else 1e-5)
    assert leduc.guaranteed_value(2, y) == pytest.approx(-out["value"], abs=1e-5)
    assert main(["solve", "leduc", "--player", "both", "--behavioural"]) == 0
    text = capsys.readouterr().out
    assert "leduc: player 1 value -0.0856" in text and "leduc: player 2 value 0.0856" in text
    assert "_pl2: " in text  # player 2's behavioural strategy is printed too


def test_solve_both_players_refuses_one_player_models(capsys):
    for option in ("--deterministic", "--unique"):
        assert main(["solve", "kuhn", "--player", "both", option]) == 2
        assert "--player both" in capsys.readouterr().err


def test_solve_deterministic_and_unique(capsys):
    out = cli_json(capsys, "solve", "kuhn", "--deterministic")
    assert out["value"] == pytest.approx(-1 / 6, abs=1e-9)
    assert set(out["strategy"].values()) <= {0.0, 1.0}
    out = cli_json(capsys, "solve", "rps", "--unique")
    assert out["unique"] is True
    out = cli_json(capsys, "solve", "kuhn", "--unique")
    assert out["unique"] is False


def test_solve_with_cfr_plus_agrees_with_the_lp(capsys):
    out = cli_json(capsys, "solve", "kuhn", "--method", "cfr+", "--iterations", "3000", "--target-gap", "1e-4")
    assert out["gap"] <= 1e-4
    assert out["value"] == pytest.approx(-1 / 18, abs=out["gap"])


def test_kdet_sweep_json(capsys, tmp_path):
    plot = tmp_path / "kuhn.png"
    rows = cli_json(capsys, "kdet", "kuhn", "--player", "1", "--sweep", "--plot", plot)
    assert [r["k"] for r in rows] == list(range(7))
    assert rows[0]["value"] == pytest.approx(-1 / 18) and rows[-1]["value"] == pytest.approx(-1 / 6)
    assert all("mip_gap" in r for r in rows)
    assert plot.stat().st_size > 1000
    single = cli_json(capsys, "kdet", "kuhn", "--player", "1", "--k", "6")
    assert len(single) == 1 and single[0]["k"] == 6 and single[0]["mip_gap"] == pytest.approx(0.0, abs=1e-9)
    assert single[0]["value"] == pytest.approx(-1 / 6, abs=1e-9) and single[0]["player"] == 1


@pytest.mark.parametrize("fmt", ["lp", "mps"])
def test_export(tmp_path, fmt, capsys):
    target = tmp_path / f"kuhn_kdet.{fmt}"
    assert main(["export", "kuhn", "--model", "kdet", "--k", "3", "--format", fmt, "-o", str(target)]) == 0
    text = target.read_text()
    # The model's labels name rows and columns (made LP-safe); unlabelled blocks are numbered.
    assert "at_least_k_0" in text and "determinism_link_11" in text
    assert "z(dK_kb_pl1.c)" in text and "x(empty)" in text and "best_response(dJ_k_pl2.b)" in text
    # HiGHS reads the file back under the same names and finds the same optimum as the CLI's solve.
    import highspy

    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    assert highs.readModel(str(target)) == highspy.HighsStatus.kOk
    names = highs.getLp().col_names_
    assert len(set(names)) == len(names) == 13 + 7 + 12 and "x(dJ_pl1.k)" in names
    highs.run()
    capsys.readouterr()
    single = cli_json(capsys, "kdet", "kuhn", "--player", "1", "--k", "3")
    assert highs.getInfo().objective_function_value == pytest.approx(single[0]["value"], abs=1e-9)


def test_validate_summarises_a_good_file():
    done = run_cli("validate", "kuhn")
    assert done.returncode == 0
    assert done.stdout.splitlines() == [
        "kuhn: valid; player 1: 6 decision points, 13 sequences; "
        "player 2: 6 decision points, 13 sequences; 30 utility entries",
        "actions: k = check, b = bet, c = call, f = fold",
    ]


def test_validate_json_is_one_document_with_the_sizes_and_the_action_names():
    done = run_cli("validate", "leduc", "--json")
    assert done.returncode == 0 and done.stderr == ""
    out = json.loads(done.stdout)  # the whole of stdout: exactly one JSON document
    assert out == {
        "file": "leduc",
        "valid": True,
        "players": {str(p): {"decision_points": 144, "sequences": 337} for p in (1, 2)},
        "utility_entries": 966,
        "action_names": {"k": "check", "r": "bet or raise", "c": "call", "f": "fold"},
    }
    refused = run_cli("validate", "nosuch.json", "--json")
    assert refused.returncode == 2 and refused.stdout == "" and len(refused.stderr.splitlines()) == 1


def test_action_names_are_checked_kept_and_optional(tmp_path, capsys):
    from gamelp import load_game

    data = load_game("kuhn").to_dict()
    assert data["action_names"]["f"] == "fold"
    path = tmp_path / "named.json"
    path.write_text(json.dumps({**data, "action_names": {"k": "check", "x": "?"}}))
    assert main(["validate", str(path)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"gamelp: error: {path}: action_names names 'x', which no node has as action or signal"
    )
    del data["action_names"]
    path.write_text(json.dumps(data))
    assert main(["validate", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["action_names"] == {}
    assert main(["export-game", "kuhn", "-o", str(tmp_path / "again.json")]) == 0
    assert load_game(tmp_path / "again.json").action_names == load_game("kuhn").action_names


@pytest.mark.parametrize("command", ["validate", "solve"])
def test_broken_file_gives_one_line_and_non_zero_exit(tmp_path, command):
    broken = tmp_path / "broken.json"
    broken.write_text('{"decision_problem_pl1": []')
    done = run_cli(command, broken)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "broken.json" in lines[0] and "not valid JSON" in lines[0]
    assert "Traceback" not in done.stderr


def test_missing_file_and_bad_k_are_one_line_errors(tmp_path):
    done = run_cli("solve", tmp_path / "absent.json")
    assert done.returncode != 0 and len(done.stderr.strip().splitlines()) == 1
    done = run_cli("kdet", "kuhn", "--player", "1", "--k", "99")
    assert done.returncode != 0 and "between 0 and 6" in done.stderr


def test_refused_backend_is_a_one_line_error():
    done = run_cli("solve", "kuhn", "--backend", "nosuch")
    assert done.returncode != 0
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(
        "gamelp: error: unknown backend 'nosuch'; use one of auto, highs, gurobi, pyomo:<solver>, cvxpy:<SOLVER>"
    )  # then any other registered family, as its descriptor writes it
    assert line.endswith(f"{', '.join(usage())} (`gamelp backends` lists them)")


def test_a_misspelled_backend_gets_a_did_you_mean_in_the_cli_and_from_python():
    done = run_cli("solve", "kuhn", "--backend", "higs")
    assert done.returncode == 2
    assert done.stderr.splitlines() == ["gamelp: error: unknown backend 'higs'; did you mean 'highs'?"]
    from gamelp import load_game
    from gamelp.errors import BackendError
    from gamelp.models.nash import sequence_form_lp

    model = sequence_form_lp(load_game("kuhn"), 1)
    for typo, meant in (("higs", "highs"), ("pyomo-highs", "pyomo:highs"), ("gurobii", "gurobi")):
        with pytest.raises(BackendError, match=rf"^unknown backend '{typo}'; did you mean '{meant}'\?$"):
            model.solve(typo)


def test_export_into_a_missing_directory_is_refused_before_highs_writes(tmp_path):
    """HiGHS's writer segfaulted (exit 139) on a missing directory; the path is checked first."""
    done = run_cli("export", "kuhn", "-o", tmp_path / "missing" / "kuhn.lp")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"gamelp: error: {tmp_path / 'missing' / 'kuhn.lp'}: cannot write, "
        f"the directory {str(tmp_path / 'missing')!r} does not exist"
    ]
    assert not (tmp_path / "missing").exists()


def one_line_error(capsys, argv):
    """Run in-process; return the single stderr line of a refused command (exit 2)."""
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse refusals
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["--log-level", "bogus", "validate", "kuhn"], "argument --log-level: unknown level 'bogus'"),
        (
            ["solve", "kuhn", "--method", "cfr", "--iterations", "1e30"],
            "--iterations: must be between 1 and 1000000000",
        ),
        (["solve", "kuhn", "--method", "cfr", "--iterations", "1" + "0" * 30], "must be between 1 and 1000000000"),
        (["solve", "kuhn", "--method", "mwu", "--eta", "inf"], "--eta: must be a finite number > 0"),
        (
            ["solve", "kuhn", "--method", "mwu", "--eta", "3e307", "--iterations", "50"],
            "mwu diverged: the strategies became non-finite",
        ),
        (["kdet", "kuhn", "--player", "1", "--sweep", "--plot", "x.xyz"], "--plot: cannot write a plot as 'x.xyz'"),
        (["kdet", "kuhn", "--player", "1", "--mip-gap", "nan", "--k", "1"], "--mip-gap: must be a finite number >= 0"),
        (["mtg", "play", "--seed", "-1"], "--seed: must be at least 0, got -1"),
        (["mtg", "sweep", "--seed", "-3"], "--seed: must be at least 0"),
        (["mtg", "train-forest", "--games", "-1"], "--games: must be between 1 and 1000000, got -1"),
        (
            ["matrix", "solve", "p.csv", "--robust", "ellipsoidal", "--radius", "inf", "--std", "s.csv"],
            "--radius: must be a finite number >= 0, got inf",
        ),
        (["export", "kuhn", "-o", "model.lp", "--format", "mps"], "has the extension .lp, but --format mps"),
        (["solve", "kuhn", "--player", "3"], "argument --player: invalid choice"),
    ],
)
def test_bad_command_lines_are_one_line_errors(capsys, argv, fragment):
    assert fragment in one_line_error(capsys, argv)


def test_out_that_is_a_file_or_under_a_file_is_refused(capsys, tmp_path):
    existing = tmp_path / "existing"
    existing.write_text("keep me")
    assert "exists and is not a directory" in one_line_error(capsys, ["mtg", "sweep", "--out", str(existing)])
    line = one_line_error(capsys, ["mtg", "tournament", "--out", str(existing / "sub")])
    assert f"{existing} is not a directory" in line
    assert existing.read_text() == "keep me"


def test_version_lists_the_installed_solvers_without_importing_them():
    """``gamelp --version``: gamelp's version, then one line per solver package installed, read from metadata."""
    from importlib import metadata

    done = run_cli("--version")
    assert done.returncode == 0
    lines = done.stdout.strip().splitlines()
    assert lines[0] == f"gamelp {metadata.version('gamelp')}" and lines[1] == "solvers:"
    listed = dict(line.split() for line in lines[2:])
    for name in ("highspy", "cvxpy", "pyomo", "gurobipy", "clarabel", "scs"):
        assert listed[name] == metadata.version(name)
    probe = (
        "import sys; from gamelp.cli import main\ntry: main(['--version'])\nexcept SystemExit: pass\n"
        "print(sorted(m for m in ('cvxpy', 'pyomo', 'gurobipy', 'clarabel', 'scs') if m in sys.modules), "
        "file=sys.stderr)"
    )
    imported = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert imported.stderr.strip().splitlines()[-1] == "[]"


def test_regret_method_says_when_it_stopped_at_its_iteration_limit(capsys):
    assert main(["solve", "kuhn", "--method", "cfr", "--iterations", "50", "--target-gap", "1e-9"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("stopped at the iteration limit (50 iterations) before reaching the target gap 1e-09")
    assert main(["solve", "kuhn", "--method", "cfr+", "--iterations", "5000", "--target-gap", "1e-2"]) == 0
    assert "iteration limit" not in capsys.readouterr().out


def test_kdet_sweep_passes_the_absolute_gap_to_either_method(monkeypatch, capsys):
    """``--abs-gap`` reaches the MIP sweep (default: the solver's own) and the search (default 1e-9), both called
    by :func:`gamelp.models.kdet_search.sweep_kdet`."""
    import gamelp.models.kdet_search as kdet_search

    asked = []
    sweeps = {"mip": (kdet_search, "k_sweep"), "search": (kdet_search, "search_sweep")}
    for method, (module, name) in sweeps.items():
        real = getattr(module, name)

        def spy(*args, real=real, method=method, **options):
            asked.append((method, options["abs_gap"]))
            return real(*args, **options)

        monkeypatch.setattr(module, name, spy)
    for method in sweeps:
        for extra in ([], ["--abs-gap", "0.002"]):
            assert main(["kdet", "kuhn", "--player", "1", "--sweep", "--method", method, "--quiet", *extra]) == 0
    capsys.readouterr()
    assert asked == [("mip", None), ("mip", 0.002), ("search", 1e-9), ("search", 0.002)]


def test_single_kdet_says_what_it_is_solving(capsys):
    assert main(["kdet", "kuhn", "--player", "2", "--k", "2"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "kuhn: solving player 2's k-determinism MIP at k=2...\n"
    assert captured.out.startswith("k=   2")


def test_kdet_player_defaults_to_one_as_solve_does(capsys):
    from gamelp.cli import build_parser

    assert main(["kdet", "kuhn", "--k", "1"]) == 0
    assert capsys.readouterr().err == "kuhn: solving player 1's k-determinism MIP at k=1...\n"
    parsers = dict(_all_parsers(build_parser()))
    helps = [
        next(a.help for a in parsers[("gamelp", name)]._actions if "--player" in a.option_strings)
        for name in ("solve", "kdet")
    ]
    assert all(h.startswith("whose strategy: 1 (default)") for h in helps), helps


def test_export_infers_the_format_from_the_extension(tmp_path, capsys):
    assert main(["export", "kuhn", "-o", str(tmp_path / "k.mps")]) == 0
    assert (tmp_path / "k.mps").read_text().startswith("NAME")
    assert main(["export", "kuhn", "-o", str(tmp_path / "bare")]) == 0
    assert (tmp_path / "bare.lp").exists()


def _all_parsers(parser, path=("gamelp",)):
    import argparse

    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _all_parsers(sub, path + (name,))


def test_every_option_has_help_and_no_help_has_markup():
    import argparse

    from gamelp.cli import build_parser

    parsers = list(_all_parsers(build_parser()))
    assert len(parsers) >= 11  # gamelp, solve, kdet, validate, export, matrix (solve), mtg (play, sweep, tournament)
    for path, parser in parsers:
        for action in parser._actions:
            if not isinstance(action, argparse._SubParsersAction):
                assert action.help, f"{' '.join(path)} {action.option_strings or action.dest} has no help"
        text = parser.format_help()
        assert "``" not in text and ":func:" not in text and ":class:" not in text, " ".join(path)


def test_solve_loads_no_simulator_and_no_progress_bar():
    """`gamelp solve` registers the simulator command groups without importing them (nor tqdm)."""
    probe = (
        "import contextlib, io, sys\n"
        "from gamelp.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['--log-level', 'ERROR', 'solve', 'kuhn']) == 0\n"
        "print(sorted(m for m in sys.modules if m.startswith(('gamelp.games.', 'tqdm'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_top_level_help_lists_every_command_with_its_summary():
    """`gamelp --help` names every registered command in its description and lists each with its summary."""
    import argparse
    import re

    from gamelp.cli import build_parser

    parser = build_parser(["--help"])
    (commands,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    summaries = {c.dest: c.help for c in commands._choices_actions}
    assert set(summaries) == set(commands.choices) and len(summaries) >= 9
    done = run_cli("--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())  # argparse wraps the summaries: compare word by word
    description = text[text.index(" ".join(parser.description.split())) :].split(" positional arguments:")[0]
    for name, summary in summaries.items():
        assert summary, f"{name} has no summary"
        assert re.search(rf"[ (]{re.escape(name)}[,)]", description), f"the description omits {name}"
        assert f" {name} {' '.join(summary.split())} " in text, f"--help does not list {name} with its summary"


def test_the_sweep_bar_counts_values_of_k_and_shows_no_thousands_rate(capsys):
    """tqdm's rate of a unit "k" read as thousands ("96.80k/s"); the bar counts values of k instead."""
    from gamelp.cli.output import sweep_progress

    update = sweep_progress()
    for done in (3, 7):
        update(done, 7)
    shown = [line.strip() for line in capsys.readouterr().err.replace("\r", "\n").splitlines() if line.strip()]
    assert any(line.startswith("k-sweep: 3/7 values of k |") for line in shown), shown
    assert not any("/s" in line for line in shown), shown

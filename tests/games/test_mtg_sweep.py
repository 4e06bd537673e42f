"""Deck sweeps and tournaments: matrix shape and symmetry, worker/executor independence, resume, CLI."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from gamelp.cli import main
from gamelp.cli.args import int_list
from gamelp.cli.mtg import tournament_json
from gamelp.errors import GamelpError
from gamelp.games.mtg import sweep
from gamelp.games.mtg.deck import analysed_decks
from gamelp.games.mtg.match import GameResult, GameSettings
from gamelp.games.runner import Execution, round_robin
from gamelp.matrix import MatrixGame

SLEEP = 0.0  # seconds per fake game; the kill test's subprocess raises it


def fake_game(
    deck1,
    deck2,
    player1="perfect",
    player2="perfect",
    *,
    seed=0,
    first=0,
    settings=GameSettings(),
):
    """Deterministic stand-in for play_game: more bolts and going first help; some draws and mismatches."""
    time.sleep(SLEEP)
    rng = np.random.default_rng(seed)
    strength = {name: int(name.split("C")[1].rstrip("L")) / 40 for name in (deck1, deck2)}
    skill = {"perfect": 0.3, "aggressive": 0.1, "random": -0.3}
    edge = strength[deck1] - strength[deck2] + skill.get(player1, 0) - skill.get(player2, 0)
    edge += 0.1 if first == 0 else -0.1
    u = rng.random()
    winner = None if u < 0.05 else int(rng.random() > 0.5 + edge / 2)
    return GameResult(
        winner, int(rng.integers(5, 20)), int(rng.integers(100)), int(rng.integers(50)), bool(0.05 <= u < 0.08), first
    )


GRID = {"creatures": (0, 4), "bolts": (20, 32, 60)}  # 5 decks (4C60L is over 60 cards)
FAST = {"games": 12, "repeats": 2, "seed": 7, "game_fn": fake_game}


def quiet(**options) -> Execution:
    """How the test sweeps run: no progress bar, one game a task unless told otherwise."""
    return Execution(**{"progress": False, "batch_size": 1, **options})


def stored_rows(out: Path) -> list[tuple]:
    with sqlite3.connect(out / sweep.STORE_NAME) as db:
        return db.execute("SELECT * FROM matches ORDER BY pair, match").fetchall()


def stored_count(out: Path) -> int:
    """Rows stored so far by a run in another process (0 before its store has its table)."""
    try:
        return len(stored_rows(out))
    except sqlite3.OperationalError:
        return 0


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted serial sweep of the fake game."""
    out = tmp_path_factory.mktemp("reference")
    return out, sweep.run_sweep(**GRID, **FAST, out=out, execution=quiet())


@pytest.fixture(scope="module")
def dask_scheduler():
    distributed = pytest.importorskip("dask.distributed")
    # ":0" picks a free port (None still bound the default 8787, clashing with any running dashboard).
    with distributed.LocalCluster(
        n_workers=2, processes=False, threads_per_worker=1, dashboard_address=":0"
    ) as cluster:
        assert not cluster.dashboard_link.endswith(":8787/status")
        yield cluster.scheduler_address


def test_grid_and_seeds():
    assert len(sweep.deck_grid()) == 45  # the thesis's 45 decks, 1035 pairs with mirrors
    assert len(round_robin(45, mirror=True)) == 1035
    assert len(analysed_decks(8)) == 33 and len(analysed_decks(16)) == 55
    assert [str(d) for d in sweep.deck_grid((0, 8), (48, 52, 56))] == ["0C48L", "0C52L", "0C56L", "8C48L", "8C52L"]
    assert sweep.game_seed(1, 0, 2, 3) == sweep.game_seed(1, 0, 2, 3) != sweep.game_seed(1, 0, 2, 4)
    with pytest.raises(sweep.SweepError, match="at most 60"):
        sweep.deck_grid((40,), (24,))


def test_matrix_is_a_symmetric_win_rate_game(reference):
    out, result = reference
    c = result.matrix.payoffs
    assert list(result.matrix.row_labels) == ["0C20L", "0C32L", "0C60L", "4C20L", "4C32L"]
    assert c.shape == (5, 5)
    np.testing.assert_allclose(c + c.T, 1.0)
    assert np.all((c >= 0) & (c <= 1))
    np.testing.assert_array_equal(np.diag(c), 0.5)
    assert result.matrix.std.shape == (5, 5) and np.all(np.diag(result.matrix.std) == 0)
    assert result.matrix.std[0, 2] > 0
    # per pair: every game is counted once, as a win, loss, draw or mismatch
    assert len(result.pairs) == 10
    assert all(p.games == 24 == p.wins + p.losses + p.draws + p.mismatches for p in result.pairs)
    assert result.games == 240 and result.draws + result.mismatches > 0
    assert len(stored_rows(out)) == 240
    written = MatrixGame.from_csv(out / "payoffs.csv", std_path=out / "std.csv")
    np.testing.assert_array_equal(written.payoffs, c)
    np.testing.assert_array_equal(written.std, result.matrix.std)
    assert (out / "pairs.csv").read_text().count("\n") == 11


def test_entry_and_std_match_a_hand_count(reference):
    """0C20L v 0C60L recomputed from the fake game with the documented seed derivation."""
    _, result = reference
    rates = []
    for r in range(2):
        games = [
            fake_game("0C20L", "0C60L", seed=sweep.game_seed(7, r, 0, 20, 0, 60, g), first=g % 2) for g in range(12)
        ]
        decided = [g.winner for g in games if g.winner is not None and not g.mismatch]
        rates.append(decided.count(0) / len(decided))
    assert result.matrix.payoffs[0, 2] == pytest.approx(np.mean(rates))
    assert result.matrix.payoffs[2, 0] == pytest.approx(1 - np.mean(rates))
    assert result.matrix.std[0, 2] == pytest.approx(np.std(rates, ddof=1))


def test_single_repeat_uses_binomial_error_and_mirror_fills_diagonal(tmp_path):
    result = sweep.run_sweep(
        (0,), (20, 60), games=40, repeats=1, seed=3, mirror=True, execution=quiet(), game_fn=fake_game
    )
    p = {(s.row, s.col): s for s in result.pairs}
    assert set(p) == {("0C20L", "0C20L"), ("0C20L", "0C60L"), ("0C60L", "0C60L")}
    off = p["0C20L", "0C60L"]
    n = off.wins + off.losses
    assert off.std == pytest.approx(np.sqrt(off.rate * (1 - off.rate) / n))
    assert result.matrix.payoffs[0, 0] == pytest.approx(p["0C20L", "0C20L"].rate)
    assert result.matrix.payoffs[0, 0] != 0.5  # a measured mirror, not the filled-in value


def test_two_workers_give_the_same_matrix(reference, tmp_path):
    out, expected = reference
    result = sweep.run_sweep(**GRID, **FAST, out=tmp_path, execution=quiet(workers=2))
    np.testing.assert_array_equal(result.matrix.payoffs, expected.matrix.payoffs)
    np.testing.assert_array_equal(result.matrix.std, expected.matrix.std)
    assert stored_rows(tmp_path) == stored_rows(out)


def test_dask_cluster_gives_the_same_matrix(reference, dask_scheduler, tmp_path):
    _, expected = reference
    result = sweep.run_sweep(**GRID, **FAST, out=tmp_path, execution=quiet(scheduler=dask_scheduler))
    np.testing.assert_array_equal(result.matrix.payoffs, expected.matrix.payoffs)
    np.testing.assert_array_equal(result.matrix.std, expected.matrix.std)


def test_interrupted_sweep_resumes_without_loss_or_repeat(reference, tmp_path):
    out, expected = reference
    seen = []

    def stop_after_50(batch, rows):
        seen.extend((batch.pair, m) for m in batch.matches)
        if len(seen) == 50:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sweep.run_sweep(**GRID, **FAST, out=tmp_path, execution=quiet(workers=2, on_batch=stop_after_50))
    assert len(stored_rows(tmp_path)) == 50
    assert not (tmp_path / "payoffs.csv").exists()
    replayed = []
    result = sweep.run_sweep(
        **GRID,
        **FAST,
        out=tmp_path,
        execution=quiet(workers=2, on_batch=lambda b, rows: replayed.extend((b.pair, m) for m in b.matches)),
    )
    assert len(replayed) == 190 and not set(replayed) & set(seen)
    assert stored_rows(tmp_path) == stored_rows(out)
    np.testing.assert_array_equal(result.matrix.payoffs, expected.matrix.payoffs)


def test_killed_process_resumes(reference, tmp_path):
    """SIGKILL a sweep running in its own process group (pool workers included), then resume here."""
    out, expected = reference
    module = sys.modules[fake_game.__module__]
    script = textwrap.dedent(f"""
        import importlib.util, sys
        spec = importlib.util.spec_from_file_location({fake_game.__module__!r}, {module.__file__!r})
        fake = importlib.util.module_from_spec(spec)
        sys.modules[{fake_game.__module__!r}] = fake
        spec.loader.exec_module(fake)
        fake.SLEEP = 0.01
        from gamelp.games.mtg import sweep
        sweep.run_sweep(**fake.GRID, **fake.FAST, out={str(tmp_path)!r}, execution=fake.quiet(workers=2))
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
            if stored_count(tmp_path) >= 30:
                break
        assert proc.poll() is None, "the sweep ended before it could be killed"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    interrupted_rows = stored_rows(tmp_path)
    assert 30 <= len(interrupted_rows) < 240
    result = sweep.run_sweep(**GRID, **FAST, out=tmp_path, execution=quiet(workers=2))
    rows = stored_rows(tmp_path)
    assert len(rows) == len({r[:3] for r in rows}) == 240
    assert rows == stored_rows(out)
    np.testing.assert_array_equal(result.matrix.payoffs, expected.matrix.payoffs)


def test_resume_with_other_arguments_is_refused(reference, tmp_path):
    out, _ = reference
    sweep.run_sweep(**GRID, **{**FAST, "games": 2}, out=tmp_path, execution=quiet())
    with pytest.raises(GamelpError, match=r"games: stored 2, asked 12"):
        sweep.run_sweep(**GRID, **FAST, out=tmp_path, execution=quiet())
    with pytest.raises(GamelpError, match=r"seed: stored 7, asked 8"):
        sweep.run_sweep(**GRID, **{**FAST, "seed": 8}, out=out, execution=quiet())
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / sweep.STORE_NAME).write_text("not a database" * 100)
    with pytest.raises(GamelpError, match="not a usable match store"):
        sweep.run_sweep(**GRID, **FAST, out=tmp_path / "junk", execution=quiet())


def test_bad_arguments_are_refused():
    for bad in ({"games": 0}, {"repeats": 0}, {"seed": -1}):
        with pytest.raises(GamelpError):
            sweep.run_sweep(**GRID, **{**FAST, **bad})
    with pytest.raises(GamelpError, match="single deck"):
        sweep.run_sweep((0,), (20,), **FAST)
    with pytest.raises(GamelpError, match="workers"):
        sweep.run_sweep(**GRID, **FAST, execution=quiet(workers=0))
    with pytest.raises(GamelpError, match="evaluation cap must be at least 1, got 0"):
        sweep.run_sweep(**GRID, **FAST, settings=sweep.GameSettings(eval_cap=0))
    with pytest.raises(GamelpError, match="at least 1 sample, got 0"):
        sweep.run_tournament(["perfect", "imperfect"], ["8C28L"], settings=sweep.GameSettings(imperfect_samples=0))


def test_game_settings_reach_the_game_function_and_the_store(tmp_path):
    seen = []

    def recording_game(*args, settings, **options):
        seen.append(settings.options())
        return fake_game(*args, settings=settings, **options)

    settings = sweep.GameSettings(evaluation="life", eval_cap=77, life_threshold=8, verify=True, imperfect_samples=3)
    sweep.run_tournament(
        ["perfect", "imperfect"],
        ["8C28L"],
        games=2,
        repeats=1,
        settings=settings,
        out=tmp_path,
        execution=quiet(),
        game_fn=recording_game,
    )
    expected = {"evaluation": "life", "eval_cap": 77, "life_threshold": 8, "verify": True, "imperfect_samples": 3}
    assert len(seen) == 2 and all(options.items() >= expected.items() for options in seen)
    with sqlite3.connect(tmp_path / sweep.STORE_NAME) as db:
        params = json.loads(db.execute("SELECT params FROM run").fetchone()[0])
    assert params.items() >= expected.items()


def test_tournament_rates(tmp_path):
    result = sweep.run_tournament(
        ["perfect", "aggressive", "random"],
        ["0C20L", "4C32L"],
        games=30,
        repeats=3,
        seed=1,
        game_fn=fake_game,
        execution=quiet(workers=2),
        out=tmp_path,
    )
    c = result.matrix.payoffs
    np.testing.assert_allclose(c + c.T, 1.0)
    # the fake gives perfect a 0.6 edge over random: it must win most decided games
    assert c[0, 2] > 0.7 and c[1, 2] > 0.6
    assert np.all(result.matrix.std[~np.eye(3, dtype=bool)] > 0)
    decks = {(r[3], r[4]) for r in stored_rows(tmp_path)}
    assert len(decks) == 4  # both decks drawn independently for every game
    data = tournament_json(result)
    assert data["players"] == ["perfect", "aggressive", "random"] and data["games"] == 270


def test_int_list_parsing():
    assert int_list("0,4,8") == [0, 4, 8]
    assert int_list("0:12:4,20") == [0, 4, 8, 12, 20]
    for bad in ("", "a", "0:8:0"):
        with pytest.raises(argparse.ArgumentTypeError):
            int_list(bad)


@pytest.mark.parametrize("argv", [["--help"], ["play", "--help"], ["sweep", "--help"], ["tournament", "--help"]])
def test_cli_help(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["mtg", *argv])
    assert exit_.value.code == 0
    assert "usage: gamelp mtg" in capsys.readouterr().out


def test_cli_reports_bad_input_in_one_line(tmp_path, capsys):
    assert main(["mtg", "sweep", "--creatures", "40", "--bolts", "40", "--out", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("gamelp: error:") and "\n" not in err


def test_cli_sweep_with_the_real_engine(tmp_path, capsys):
    argv = [
        "sweep",
        "--creatures",
        "0,8",
        "--bolts",
        "24,32",
        "--games",
        "6",
        "--repeats",
        "2",
        "--seed",
        "5",
        "--player",
        "aggressive",
        "--evaluation",
        "life",
        "--eval-cap",
        "1000",
        "--out",
        str(tmp_path),
        "--workers",
        "2",
        "--quiet",
    ]
    assert main(["mtg", *argv]) == 0
    assert "72 games over 6 pairs" in capsys.readouterr().out
    game = MatrixGame.from_csv(tmp_path / "payoffs.csv", std_path=tmp_path / "std.csv")
    assert list(game.row_labels) == ["0C24L", "0C32L", "8C24L", "8C32L"]
    np.testing.assert_allclose(game.payoffs + game.payoffs.T, 1.0)
    assert len(stored_rows(tmp_path)) == 72
    assert main(["mtg", *argv]) == 2  # the directory holds a run: continued only when asked
    assert "pass --resume" in capsys.readouterr().err
    assert main(["mtg", *argv, "--resume"]) == 0  # resumes: nothing left to play, same files
    np.testing.assert_array_equal(MatrixGame.from_csv(tmp_path / "payoffs.csv").payoffs, game.payoffs)
    argv[argv.index("--games") + 1] = "7"
    assert main(["mtg", *argv, "--resume"]) == 2
    assert "games: stored 6, asked 7" in capsys.readouterr().err


def test_cli_play_and_tournament_with_the_real_engine(capsys):
    assert (
        main(
            [
                "mtg",
                "play",
                "--deck1",
                "8C28L",
                "--deck2",
                "0C40L",
                "--player1",
                "aggressive",
                "--player2",
                "defensive",
                "--seed",
                "3",
                "--evaluation",
                "life",
                "--verbose",
            ]
        )
        == 0
    )
    shown = capsys.readouterr().out
    assert "turn 1" in shown and "wins after" in shown
    assert (
        main(
            [
                "mtg",
                "tournament",
                "--players",
                "aggressive,defensive,random",
                "--decks",
                "8C28L,0C40L",
                "--games",
                "6",
                "--repeats",
                "2",
                "--evaluation",
                "life",
                "--workers",
                "1",
                "--json",
                "--quiet",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    rates = np.array(data["win_rate"])
    assert data["players"] == ["aggressive", "defensive", "random"] and data["games"] == 36
    np.testing.assert_allclose(rates + rates.T, 1.0)
    assert all(p["games"] == 12 for p in data["pairs"])


def test_unknown_engine_arguments_are_refused():
    with pytest.raises(GamelpError, match="unknown player kind 'nobody'"):
        sweep.run_sweep(**GRID, games=2, player="nobody")
    with pytest.raises(GamelpError, match="unknown evaluation 'oracle'"):
        sweep.run_tournament(["aggressive", "random"], ["8C28L"], settings=sweep.GameSettings(evaluation="oracle"))


def test_stored_games_name_the_decks(reference, tmp_path):
    out, result = reference
    games = sweep.stored_games(out)
    assert len(games) == 240 and games[0][:4] == ("0C20L", "0C32L", 0, 0)
    first = result.pairs[0]
    mine = [g for g in games if g[:2] == (first.row, first.col)]
    assert sum(1 for g in mine if g[4] == 0 and not g[5]) == first.wins
    assert {g[2] for g in mine} == {0, 1} and {g[3] for g in mine} == set(range(12))
    assert [g.first for g in mine] == [g.game % 2 for g in mine]  # seats alternate game by game
    with pytest.raises(GamelpError, match="not a readable game store|cannot open"):
        sweep.stored_games(tmp_path)


def ruled_game(*args, rules="real", **kwargs):
    return fake_game(*args, **kwargs)


def test_a_partial_game_function_resumes_by_its_arguments(tmp_path):
    """A rule-changed game function (a new functools.partial on every run) resumes; other rules are refused."""
    import functools

    def sweep_with(rules):
        game_fn = functools.partial(ruled_game, rules=rules)
        return sweep.run_sweep(**GRID, **{**FAST, "game_fn": game_fn}, out=tmp_path, execution=quiet())

    first = sweep_with("life 3")
    rows = stored_rows(tmp_path)
    with sqlite3.connect(tmp_path / sweep.STORE_NAME) as db:
        name = json.loads(db.execute("SELECT params FROM run").fetchone()[0])["game_fn"]
    assert name == f"{ruled_game.__module__}.ruled_game(rules='life 3')"  # no memory address: another process resumes
    again = sweep_with("life 3")
    assert stored_rows(tmp_path) == rows
    np.testing.assert_array_equal(first.matrix.payoffs, again.matrix.payoffs)
    with pytest.raises(GamelpError, match=r"game_fn: stored .*rules='life 3'.*asked .*rules='life 6'"):
        sweep_with("life 6")


SMALL_SWEEP = ["mtg", "sweep", "--creatures", "0", "--bolts", "20,24", "--games", "2", "--repeats", "1"]
SMALL_SWEEP += ["--evaluation", "life", "--workers", "1", "--quiet"]


def test_a_misspelt_scheduler_leaves_no_store_and_the_plain_retry_runs(tmp_path, capsys):
    """Issue 45, item 3: the refused start used to leave an empty store, and the retry was refused as an earlier run."""
    pytest.importorskip("dask.distributed")
    argv = [*SMALL_SWEEP[:-3], "--quiet", "--out", str(tmp_path)]
    assert main([*argv, "--scheduler", "tpc://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown address scheme 'tpc'" in err
    assert list(tmp_path.iterdir()) == []
    assert main([*argv, "--workers", "1"]) == 0
    assert len(stored_rows(tmp_path)) == 2


def test_output_links_are_replaced_not_written_through(tmp_path, capsys):
    """A dangling link at an output file is replaced by the file, inside --out; the store's link out is refused."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "payoffs.csv").symlink_to(elsewhere / "payoffs.csv")
    assert main([*SMALL_SWEEP, "--out", str(out)]) == 0
    assert not (out / "payoffs.csv").is_symlink() and MatrixGame.from_csv(out / "payoffs.csv").payoffs.shape == (2, 2)
    (out / sweep.STORE_NAME).unlink()
    (out / sweep.STORE_NAME).symlink_to(elsewhere / sweep.STORE_NAME)
    capsys.readouterr()
    assert main([*SMALL_SWEEP, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "outside the output directory" in err
    assert list(elsewhere.iterdir()) == []

"""The shared match runner: batching, executor independence, workers dying with their parent, store validation."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import alive, kill_leaves_no_worker

from gamelp.cli import main
from gamelp.errors import GamelpError
from gamelp.games import runner
from gamelp.games.errors import RunError

SLEEP = 0.0  # seconds per toy match; the kill test's subprocess raises it


class CoinGame(runner.Experiment):
    """Toy experiment: pair p's first entrant wins with probability 0.3 + 0.2 p; a second column counts up to 9."""

    columns = (runner.Column("winner", 0, 1, nullable=True), runner.Column("value", 0, 9))

    def __init__(self, n_pairs: int = 3, n_matches: int = 40, seed: int = 1):
        self.params = {"game": "coin", "n_pairs": n_pairs, "n_matches": n_matches, "seed": seed}
        self.n_pairs, self.n_matches, self.seed = n_pairs, n_matches, seed

    def match_seed(self, pair, match):
        return runner.derive_seed(self.seed, match)  # common random numbers: the pair does not enter

    def play(self, pair, match):
        time.sleep(SLEEP)
        rng = np.random.default_rng(self.match_seed(pair, match))
        u = rng.random()
        winner = None if u > 0.95 else int(u > 0.3 + 0.2 * pair)
        return winner, int(rng.integers(10))


def run(out, experiment=None, **options):
    experiment = experiment or CoinGame()
    _, store = runner.open_store(out, "store.sqlite", experiment)
    try:
        runner.run_matches(store, runner.Execution(progress=False, **options))
        return store.table()
    finally:
        store.close()


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("reference")
    return out, run(out)


def test_batches_split_pairs_and_respect_the_size():
    todo = [(1, 4), (0, 0), (0, 1), (0, 2), (1, 3), (0, 5)]
    assert list(runner.batches(todo, 2)) == [runner.Batch(0, (0, 1)), runner.Batch(0, (2, 5)), runner.Batch(1, (3, 4))]
    assert len(list(runner.batches(todo, 100))) == 2


@pytest.mark.parametrize("workers, batch_size", [(1, 7), (2, 1), (2, 16)])
def test_rows_do_not_depend_on_workers_or_batches(reference, tmp_path, workers, batch_size):
    _, expected = reference
    rows = run(tmp_path, workers=workers, batch_size=batch_size)
    np.testing.assert_array_equal(rows, expected)
    assert rows.shape == (120, 5)
    # common random numbers: match m has the same seed in every pair
    seeds = rows[:, 2].reshape(3, 40)
    assert (seeds == seeds[0]).all() and len(set(seeds[0])) == 40


def test_interrupted_run_resumes_without_loss_or_repeat(reference, tmp_path):
    _, expected = reference
    seen = []

    def stop(batch, rows):
        seen.extend(batch.matches)
        if len(seen) >= 30:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(tmp_path, workers=2, batch_size=10, on_batch=stop)
    played = []
    rows = run(tmp_path, batch_size=10, on_batch=lambda b, r: played.extend((b.pair, m) for m in b.matches))
    assert len(played) == 120 - len(seen) and len(set(played)) == len(played)
    np.testing.assert_array_equal(rows, expected)


def test_rate_matrix_and_group_deviation():
    pair = np.array([0, 0, 0, 0, 0, 0])
    group = np.array([0, 0, 1, 1, 1, 1])
    kind = np.array([0, 1, 0, 0, 1, 2])  # group 0: 1/2, group 1: 2/3 (one draw left out)
    rate, std, counts = runner.rates_by_group(pair, group, kind, n_pairs=1, n_groups=2, n_kinds=3)
    assert rate[0] == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert std[0] == pytest.approx(np.std([1 / 2, 2 / 3], ddof=1))
    assert counts.tolist() == [[3, 2, 1]]
    game = runner.rate_matrix(
        ["a", "b", "c"], [(0, 1), (0, 2), (1, 2)], np.array([0.6, 0.7, 0.2]), np.array([0.01, 0.02, 0.03])
    )
    np.testing.assert_allclose(game.payoffs + game.payoffs.T, 1.0)
    assert game.payoffs[2, 1] == pytest.approx(0.8) and game.std[2, 1] == 0.03


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigkill_of_the_main_process_takes_the_workers_with_it(tmp_path):
    here = Path(__file__).parent
    script = textwrap.dedent(f"""
        import sys
        sys.path[:0] = [{str(here)!r}, {str(here.parent)!r}]  # this module, and the conftest it imports
        import {Path(__file__).stem} as toy
        toy.SLEEP = 0.05
        toy.run({str(tmp_path)!r}, toy.CoinGame(n_matches=400), workers=2)
    """)
    kill_leaves_no_worker([sys.executable, "-c", script], cwd=tmp_path)


def test_the_watchdog_alone_ends_an_orphan():
    """Without prctl (as on another OS) a worker whose parent dies exits: a grandchild outlives its parent."""
    read, write = os.pipe()
    ready_read, ready_write = os.pipe()
    child = os.fork()
    if child == 0:
        parent = os.getpid()
        grandchild = os.fork()
        if grandchild == 0:
            sys.platform = "darwin"  # this process only: skip prctl, leave the watchdog thread
            runner._die_with_parent(parent)
            os.write(ready_write, b"1")  # the watchdog runs: now let the parent die
            time.sleep(30)
            os._exit(0)
        os.read(ready_read, 1)
        os.write(write, str(grandchild).encode())
        os._exit(0)
    os.close(ready_write)
    os.close(ready_read)
    os.close(write)
    grandchild = int(os.read(read, 32))
    os.close(read)
    os.waitpid(child, 0)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and alive(grandchild):
        time.sleep(0.05)
    orphaned = alive(grandchild)
    if orphaned:
        os.kill(grandchild, signal.SIGKILL)
    assert not orphaned, "the orphaned worker kept running"


# ----------------------------------------------------------------------------- store validation


def _store(out: Path) -> Path:
    return out / "store.sqlite"


def _edit(out: Path, *statements: str) -> None:
    with sqlite3.connect(_store(out)) as db:
        for statement in statements:
            db.execute(statement)


def test_a_finished_store_is_reused_without_playing(reference):
    out, expected = reference
    played = []
    rows = run(out, on_batch=lambda b, r: played.append(b))
    assert not played
    np.testing.assert_array_equal(rows, expected)


@pytest.mark.parametrize(
    "damage, message",
    [
        (["UPDATE matches SET pair = 3 WHERE pair = 0 AND match = 5"], r"1 rows lie outside .* \(pair 3, match 5\)"),
        (["UPDATE matches SET match = -1 WHERE pair = 0 AND match = 5"], r"outside this run's 3 pairs x 40 matches"),
        (
            ["UPDATE matches SET winner = 2 WHERE pair = 1 AND match = 7"],
            r"row \(pair 1, match 7\): winner = 2 is outside \[0, 1\] or NULL",
        ),
        (
            ["UPDATE matches SET value = NULL WHERE pair = 2 AND match = 0"],
            r"\(pair 2, match 0\) holds a value that is not an integer$",
        ),
        (
            ["UPDATE matches SET value = 'x' WHERE pair = 2 AND match = 1"],
            r"\(pair 2, match 1\) holds a value that is not",
        ),
        (['UPDATE run SET params = \'{"game": "coin", \''], r"stored run parameters are not valid JSON"),
        (["UPDATE run SET params = '[1, 2]'"], r"not a JSON object"),
        (
            ['UPDATE run SET params = \'{"game": "coin", "n_pairs": 3, "n_matches": 40, "seed": 2, "schema": 2}\''],
            r"seed: stored 2, asked 1",
        ),
        (["DELETE FROM run"], r"120 match rows but no run parameters"),
        (
            ["ALTER TABLE matches ADD COLUMN extra INTEGER"],
            r"the matches table has columns pair, match, seed, winner, "
            r"value, extra",
        ),
        (
            ["UPDATE matches SET seed = seed + 1 WHERE pair = 1 AND match = 3"],
            r"1 rows were played with other seeds than this run's \(first: pair 1, match 3",
        ),
        (
            ["CREATE TRIGGER spy AFTER INSERT ON matches BEGIN DELETE FROM run; END"],
            r"holds a trigger 'spy' gamelp never makes",
        ),
        (["CREATE VIEW peek AS SELECT * FROM matches"], r"holds a view 'peek' gamelp never makes"),
        (["CREATE TABLE extra (x INTEGER)"], r"holds a table 'extra' gamelp never makes"),
    ],
)
def test_damaged_stores_are_refused_in_one_line(reference, tmp_path, damage, message):
    out, _ = reference
    _store(tmp_path).write_bytes(_store(out).read_bytes())
    _edit(tmp_path, *damage)
    with pytest.raises(RunError, match=message) as refused:
        run(tmp_path)
    assert "\n" not in str(refused.value) and str(_store(tmp_path)) in str(refused.value)


def test_a_resume_under_another_seed_cannot_mix_seeds(reference, tmp_path):
    """The run row deleted and rewritten by a run under seed 2: the rows of seed 1 are refused by their seeds."""
    out, _ = reference
    _store(tmp_path).write_bytes(_store(out).read_bytes())
    _edit(tmp_path, "DELETE FROM run")
    with pytest.raises(RunError, match="no run parameters"):
        run(tmp_path, CoinGame(seed=2))
    _edit(
        tmp_path,
        'INSERT INTO run VALUES (1, \'{"game": "coin", "n_pairs": 3, "n_matches": 40, "seed": 2, "schema": 2}\')',
    )
    with pytest.raises(RunError, match="120 rows were played with other seeds"):
        run(tmp_path, CoinGame(seed=2))


def test_corrupt_bytes_are_refused(reference, tmp_path):
    out, _ = reference
    data = bytearray(_store(out).read_bytes())
    assert len(data) > 8192
    data[4096:8192] = np.random.default_rng(0).bytes(4096)  # the second page: a table b-tree page
    _store(tmp_path).write_bytes(bytes(data))
    with pytest.raises(RunError, match="corrupt|not a usable match store"):
        run(tmp_path)
    _store(tmp_path).write_bytes(b"SQLite format 3\x00" + np.random.default_rng(1).bytes(3000))
    with pytest.raises(RunError, match="corrupt|not a usable match store"):
        run(tmp_path)


def test_a_read_only_store_is_refused(reference, tmp_path, monkeypatch):
    out, _ = reference
    _store(tmp_path).write_bytes(_store(out).read_bytes())
    if os.geteuid() == 0:  # root writes through file modes: open the file read-only as SQLite would for a user
        connect = sqlite3.connect
        monkeypatch.setattr(runner.sqlite3, "connect", lambda where: connect(f"file:{where}?mode=ro", uri=True))
    else:
        _store(tmp_path).chmod(0o444)
    with pytest.raises(RunError, match="the match store is read-only"):
        run(tmp_path)


def test_the_cli_refuses_a_damaged_sweep_store_with_exit_2(tmp_path, capsys):
    argv = [
        "sweep",
        "--creatures",
        "0",
        "--bolts",
        "24,32",
        "--games",
        "2",
        "--player",
        "random",
        "--evaluation",
        "life",
        "--out",
        str(tmp_path),
        "--workers",
        "1",
        "--quiet",
    ]
    assert main(["mtg", *argv]) == 0
    with sqlite3.connect(tmp_path / "games.sqlite") as db:
        db.execute("UPDATE matches SET winner = 7")
    capsys.readouterr()
    assert main(["mtg", *argv, "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gamelp: error:") and err.count("\n") == 1 and "winner = 7" in err


def test_bad_run_options_are_refused(tmp_path):
    for bad in ({"workers": 0}, {"batch_size": 0}):
        with pytest.raises(GamelpError):
            run(tmp_path, **bad)
    (tmp_path / "file").write_text("")
    with pytest.raises(RunError, match="is a file"):
        runner.open_store(tmp_path / "file", "store.sqlite", CoinGame())


def test_params_round_trip_through_json(tmp_path):
    run(tmp_path, CoinGame(n_pairs=1, n_matches=2))
    with sqlite3.connect(_store(tmp_path)) as db:
        stored = json.loads(db.execute("SELECT params FROM run").fetchone()[0])
    assert stored == {"schema": runner.SCHEMA_VERSION, "game": "coin", "n_pairs": 1, "n_matches": 2, "seed": 1}


def test_a_run_too_large_for_the_machine_is_refused_before_anything_is_made(tmp_path):
    """A count the parser allows (a billion matches a pair) is refused up front with the memory it would need."""
    with pytest.raises(RunError, match=r"would need about [\d,.]+ GiB of memory, more than half of this machine"):
        run(tmp_path / "run", CoinGame(n_pairs=10, n_matches=10**9))
    assert not (tmp_path / "run").exists()


# ----------------------------------------------------------------------------- a full disk, refused starts, links


def test_a_full_disk_stops_the_run_in_one_line_keeping_every_committed_batch(reference, tmp_path, disk_full):
    """Issue 45, item 3: SQLite's "disk full" (here EFBIG past a 64 kB file size) is a RunError, not a traceback."""
    _, expected = reference
    committed = []
    with pytest.raises(RunError) as stopped, disk_full(64 * 1024):
        run(tmp_path, CoinGame(n_matches=400), batch_size=5, on_batch=lambda batch, rows: committed.append(len(rows)))
    message = str(stopped.value)
    assert "\n" not in message and message.startswith(f"{_store(tmp_path)}: cannot store a batch of 5 finished matches")
    assert message.endswith(
        f"the {sum(committed):,} matches stored before are kept: make room, then rerun with --resume"
    )
    assert sum(committed) > 0
    with sqlite3.connect(_store(tmp_path)) as db:
        assert db.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == sum(committed)
    rows = run(tmp_path, CoinGame(n_matches=400), batch_size=50)  # with room, the resume plays the rest
    assert rows.shape == (1200, 5)
    np.testing.assert_array_equal(rows[rows[:, 1] < 40].reshape(3, 40, 5), expected.reshape(3, 40, 5))


def _start(out, resume=False, **options):
    """A run as the commands start one: a store already in ``out`` is refused unless ``resume``."""
    _, store = runner.open_store(out, "store.sqlite", CoinGame(), resume)
    try:
        runner.run_matches(store, runner.Execution(progress=False, **options))
        return store.table()
    finally:
        store.close()


def test_a_refused_start_leaves_no_store_and_the_plain_retry_runs(reference, tmp_path):
    """A run that stores no match (a bad option, a misspelt --scheduler) removes its store: the retry is accepted."""
    with pytest.raises(RunError, match="workers must be at least 1"):
        _start(tmp_path, workers=0)
    assert list(tmp_path.iterdir()) == []
    np.testing.assert_array_equal(_start(tmp_path), reference[1])


def test_an_empty_store_is_no_earlier_run(reference, tmp_path):
    """A store with no match (left by a kill before the first commit) is taken over, whatever parameters it holds."""
    _start(tmp_path)
    _edit(tmp_path, "DELETE FROM matches", 'UPDATE run SET params = \'{"game": "other"}\'')
    np.testing.assert_array_equal(_start(tmp_path), reference[1])
    with pytest.raises(RunError, match="holds an earlier run"):
        _start(tmp_path)


@pytest.mark.parametrize("link", ["store.sqlite", "store.sqlite-wal", "store.sqlite-journal"])
def test_a_link_out_of_the_output_directory_is_refused(tmp_path, link):
    """Issue 45, item 3: a dangling link at the store (or beside it) would create the file wherever it points."""
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / link).symlink_to(elsewhere / link)
    with pytest.raises(RunError) as refused:
        _start(out)
    assert str(refused.value) == (
        f"{out / link}: a symbolic link to {elsewhere / link}, outside the output directory {out}; "
        "remove it or choose another output directory"
    )
    assert list(elsewhere.iterdir()) == [] and [p.name for p in out.iterdir()] == [link]


def test_a_link_inside_the_output_directory_is_followed(reference, tmp_path):
    (tmp_path / "store.sqlite").symlink_to("runs/first.sqlite")  # dangling until the run makes it
    (tmp_path / "runs").mkdir()
    np.testing.assert_array_equal(_start(tmp_path), reference[1])
    assert (tmp_path / "store.sqlite").is_symlink() and (tmp_path / "runs" / "first.sqlite").is_file()
    with pytest.raises(RunError, match="holds an earlier run"):
        _start(tmp_path)


def test_a_real_full_tmpfs_is_reported_as_sqlite_says_it(tmp_path, small_tmpfs):
    """On a real 64 KiB file system (where mounting is allowed): "database or disk is full", one line, no traceback."""
    committed = []
    with pytest.raises(RunError, match=r"\(database or disk is full\); the [\d,]+ matches stored before are kept"):
        run(small_tmpfs, CoinGame(n_matches=400), batch_size=5, on_batch=lambda b, rows: committed.append(len(rows)))
    if committed:
        with sqlite3.connect(f"file:{_store(small_tmpfs)}?mode=ro", uri=True) as db:
            assert db.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == sum(committed)
    else:  # the disk filled before the first commit: the store is removed, as after any start that stored nothing
        assert list(small_tmpfs.iterdir()) == []


@pytest.mark.parametrize("address", ["tls://127.0.0.1:8786", "TLS://[::1]:8786", "wss://example.org:8786"])
def test_a_secure_scheduler_address_is_refused_in_one_line(tmp_path, capsys, address):
    """Issue 45: a tls:// scheduler was a TypeError traceback from distributed (no security settings are passed)."""
    with pytest.raises(RunError, match=f"--scheduler {re.escape(address)}: a .*needs TLS security settings"):
        runner.Execution(scheduler=address)
    argv = ["locm", "tournament", "--drafters", "icebox,random", "--matches", "1", "--sets", "2"]
    assert main([*argv, "--out", str(tmp_path / "out"), "--scheduler", address, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs TLS security settings" in err
    assert not (tmp_path / "out" / "store.sqlite").exists()

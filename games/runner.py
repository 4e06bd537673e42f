"""Resumable, batched runs of simulated matches: the task set, the SQLite store, the executors, the win rates.

Every simulator that estimates a win-rate matrix by Monte Carlo (the mini
Magic deck sweep of Esche (2018), Section 3.1, the drafter tournaments of
Vieira (2020), Section 5.2) runs the same job: for each of ``n_pairs`` pairs
of entrants, play matches ``0 .. n_matches - 1``, each from its own seed,
and keep one row of integers per match.  A game describes that job as an
``Experiment`` (its parameters, result columns, per-match seed and how to
play one match); ``run_matches`` does the rest:

* Tasks are batches ``(pair, match indices)`` of up to ``batch_size``
  matches of one pair, so a match that takes milliseconds is not dominated
  by the cost of sending it to a worker.
* Execution (:class:`Execution`): ``workers=1`` plays in this process;
  ``workers>1`` uses a local ``ProcessPoolExecutor`` whose workers die with their parent (Linux
  ``prctl(PR_SET_PDEATHSIG, SIGKILL)``, plus a watchdog thread that exits
  when the parent process changes); ``scheduler="tcp://host:port"`` sends
  the batches to a Dask distributed cluster (``tls://`` and ``wss://`` addresses are refused: they need
  security settings, which gamelp does not pass).  The experiment travels to
  each worker once, then only the batches do.  At most a few batches per
  worker are in flight.
* Every finished batch is committed to SQLite at once (``MatchStore``: a
  ``run`` row holding the parameters and a ``matches`` row per match keyed
  by (pair, match)).  A rerun plays only what is missing, so a killed run
  loses at most the batches in flight.
* Opening a store validates it and refuses, with one line, a file that is
  not SQLite or is corrupt, is read-only, has another schema, has no or
  unparsable parameters, was made with other parameters, or holds a row
  outside the task set, with a value out of its column's range or with a
  seed other than the one this run derives for that match.
* A store that holds no match is no earlier run: a run that ends before
  storing its first match (a refused start, a misspelt ``--scheduler``)
  removes the store it created, and a store left empty (by a kill, say) is
  taken over by the next run, with its parameters.
* A full disk (or any write SQLite refuses) stops the run with one
  ``RunError`` line; every batch committed before stays, for ``--resume``.
* The store is ``out/NAME`` where a symbolic link there (or at SQLite's
  ``-wal``, ``-shm`` and ``-journal`` files beside it) is followed only when
  it ends inside ``out``, and refused otherwise; the output files written
  beside it are replaced atomically, never written through a link.
* A tqdm bar counts matches (``progress=False`` silences it).

Results never depend on the number of workers or the executor: each
match's seed is a function of the experiment's parameters and the match's
key only, and summaries read the store sorted by key.

``rates_by_group`` and ``rate_matrix`` turn per-match outcomes into the
constant-sum win-rate matrix c_ij = rate of entrant i against j, c_ji = 1 - c_ij,
with the standard deviation of each entry across groups of matches (repeats,
sets).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import sqlite3
import sys
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor
from concurrent.futures import wait as wait_futures
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from gamelp.deps import require
from gamelp.games.errors import RunError
from gamelp.matrix import MatrixGame
from gamelp.memory import refuse_unless_it_fits

SCHEMA_VERSION = 2
IN_FLIGHT_PER_WORKER = 4
_PR_SET_PDEATHSIG = 1
_WATCHDOG_SECONDS = 0.5
_SQLITE_INT_MAX = 2**63 - 1


def derive_seed(*key: int) -> int:
    """A 63-bit seed derived from integers (a run seed and a match's key) by ``numpy.random.SeedSequence``."""
    state = np.random.SeedSequence(list(key)).generate_state(1, np.uint64)[0]
    return int(state >> np.uint64(1))


@dataclass(frozen=True)
class Column:
    """One integer result column of a match row, with its inclusive range; ``nullable`` allows NULL."""

    name: str
    low: int = 0
    high: int = _SQLITE_INT_MAX
    nullable: bool = False


@dataclass(frozen=True)
class Batch:
    """One task: matches of one pair, played in order by one worker."""

    pair: int
    matches: tuple[int, ...]


class Experiment(ABC):
    """A set of matches to play: what a game hands to ``run_matches``.

    Subclasses set ``params`` (JSON-able; a store made with other parameters
    is refused), ``n_pairs``, ``n_matches`` (matches per pair) and
    ``columns``, and define ``match_seed`` and ``play``.  The object must be
    picklable: workers receive it once.
    """

    params: dict[str, Any]
    n_pairs: int
    n_matches: int
    columns: tuple[Column, ...]

    @abstractmethod
    def match_seed(self, pair: int, match: int) -> int:
        """The seed of one match, a function of the parameters and the key only (stored and checked)."""

    @abstractmethod
    def play(self, pair: int, match: int) -> tuple[int | None, ...]:
        """Play one match (in a worker) and return its values for ``columns``, in order."""

    def play_batch(self, batch: Batch) -> list[tuple[int | None, ...]]:
        """Play the matches of ``batch``, in order; override when a batch can share work."""
        return [self.play(batch.pair, m) for m in batch.matches]

    def column(self, rows: np.ndarray, name: str) -> np.ndarray:
        """One result column of a ``MatchStore.table()`` array."""
        return rows[:, 3 + [c.name for c in self.columns].index(name)]

    def expected_seeds(self, pair: np.ndarray, match: np.ndarray) -> np.ndarray:
        """The seeds of the matches ``(pair[i], match[i])``: a resume checks only the stored ones, not the whole run."""
        return np.array([self.match_seed(int(p), int(m)) for p, m in zip(pair, match, strict=True)], dtype=np.int64)


# ----------------------------------------------------------------------------- the store


class MatchStore:
    """SQLite store of one run: its parameters and one row (pair, match, seed, columns...) per finished match.

    ``path=None`` keeps the store in memory.  Opening checks everything
    listed in the module docstring and raises ``RunError`` naming the file
    and the first fault.  ``table()`` returns the rows as an int64 array
    sorted by (pair, match), NULL read as -1.
    """

    def __init__(self, path: str | os.PathLike | None, experiment: Experiment):
        self.path = None if path is None else Path(path)
        self.experiment = experiment
        self.params = json.loads(json.dumps({"schema": SCHEMA_VERSION, **experiment.params}))
        self.names = ("pair", "match", "seed", *(c.name for c in experiment.columns))
        self._where = ":memory:" if self.path is None else str(self.path)
        existed = self.path is not None and self.path.exists()
        self._created = self.path is not None and not existed
        try:
            self._db = sqlite3.connect(self._where)
        except sqlite3.Error as exc:
            raise RunError(f"{self._where}: cannot open the match store ({exc})") from exc
        try:
            self._open(existed)
        except sqlite3.DatabaseError as exc:
            self.close()
            if _refused_write(exc):
                raise RunError(f"{self._where}: cannot write the match store ({exc})") from exc
            if "readonly" in str(exc) or "read-only" in str(exc):
                raise RunError(
                    f"{self._where}: the match store is read-only; make it writable or write to another directory"
                ) from exc
            raise RunError(f"{self._where}: not a usable match store ({exc})") from exc
        except RunError:
            self.close()
            raise

    def _fail(self, message: str) -> None:
        raise RunError(f"{self._where}: {message}")

    def _open(self, existed: bool) -> None:
        db = self._db
        if existed:
            verdict = db.execute("PRAGMA quick_check").fetchone()[0]
            if verdict != "ok":
                self._fail(f"the match store is corrupt ({verdict}); delete it or write to another directory")
            # Only the two tables this module makes: a trigger or a view would run code of the file's on our writes.
            unknown = db.execute(
                "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' "
                "AND NOT (type = 'table' AND name IN ('run', 'matches'))"
            ).fetchall()
            if unknown:
                kind, name = unknown[0]
                self._fail(f"the match store holds a {kind} {name!r} gamelp never makes; write to another directory")
        with db:  # a write: fails at once on a read-only file or directory
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        value_columns = "".join(f", {c.name} INTEGER" for c in self.experiment.columns)
        with db:
            db.execute("CREATE TABLE IF NOT EXISTS run (id INTEGER PRIMARY KEY CHECK (id = 1), params TEXT NOT NULL)")
            db.execute(
                "CREATE TABLE IF NOT EXISTS matches (pair INTEGER NOT NULL, match INTEGER NOT NULL, "
                f"seed INTEGER NOT NULL{value_columns}, PRIMARY KEY (pair, match))"
            )
        found = tuple(row[1] for row in db.execute("PRAGMA table_info(matches)"))
        if found != self.names:
            self._fail(
                f"the matches table has columns {', '.join(found)}, this run writes {', '.join(self.names)}; "
                "write to another directory"
            )
        stored = db.execute("SELECT params FROM run").fetchall()
        n_rows = db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        if not stored:
            if n_rows:
                self._fail(
                    f"{n_rows} match rows but no run parameters (the run row was deleted), so nothing "
                    "says which run made them; write to another directory"
                )
            with db:
                db.execute("INSERT INTO run (id, params) VALUES (1, ?)", (json.dumps(self.params, sort_keys=True),))
            return
        if not n_rows:  # an empty store is no earlier run (module docstring): it takes this run's parameters
            with db:
                db.execute("UPDATE run SET params = ? WHERE id = 1", (json.dumps(self.params, sort_keys=True),))
            return
        try:
            params = json.loads(stored[0][0])
        except (TypeError, ValueError, RecursionError) as exc:
            self._fail(f"the stored run parameters are not valid JSON ({exc})")
        if not isinstance(params, dict):
            self._fail(f"the stored run parameters are not a JSON object: {stored[0][0][:80]!r}")
        self._check_params(params)
        self._check_rows()

    def _check_params(self, stored: dict[str, Any]) -> None:
        if stored == self.params:
            return
        keys = sorted(set(stored) | set(self.params))
        diffs = [
            f"{k}: stored {stored.get(k)!r}, asked {self.params.get(k)!r}"
            for k in keys
            if stored.get(k) != self.params.get(k)
        ]
        self._fail(
            f"the store was made with other arguments ({'; '.join(diffs)}); "
            "resume with the same arguments or write to another directory"
        )

    def _check_rows(self) -> None:
        """Refuse non-integer values, keys outside the task set, values out of range and foreign seeds."""
        exp = self.experiment
        allowed = {False: "'integer'", True: "'integer', 'null'"}
        typed = " OR ".join(
            [f"typeof({n}) != 'integer'" for n in ("pair", "match", "seed")]
            + [f"typeof({c.name}) NOT IN ({allowed[c.nullable]})" for c in exp.columns]
        )
        bad = self._db.execute(f"SELECT pair, match FROM matches WHERE {typed} LIMIT 1").fetchone()
        if bad is not None:
            self._fail(f"row (pair {bad[0]!r}, match {bad[1]!r}) holds a value that is not an integer")
        rows = self.table()
        if rows.size == 0:
            return
        pair, match, seed = rows[:, 0], rows[:, 1], rows[:, 2]
        outside = (pair < 0) | (pair >= exp.n_pairs) | (match < 0) | (match >= exp.n_matches)
        if outside.any():
            i = int(np.flatnonzero(outside)[0])
            self._fail(
                f"{int(outside.sum())} rows lie outside this run's {exp.n_pairs} pairs x {exp.n_matches} "
                f"matches, the first (pair {pair[i]}, match {match[i]})"
            )
        for k, column in enumerate(exp.columns, start=3):
            values = rows[:, k]
            null = self._null_mask(column.name) if column.nullable else np.zeros(len(rows), dtype=bool)
            wrong = ((values < column.low) | (values > column.high)) & ~null
            if wrong.any():
                i = int(np.flatnonzero(wrong)[0])
                self._fail(
                    f"row (pair {pair[i]}, match {match[i]}): {column.name} = {values[i]} is outside "
                    f"[{column.low}, {column.high}]{' or NULL' if column.nullable else ''}"
                )
        expected = exp.expected_seeds(pair, match)
        foreign = seed != expected
        if foreign.any():
            i = int(np.flatnonzero(foreign)[0])
            self._fail(
                f"{int(foreign.sum())} rows were played with other seeds than this run's (first: pair "
                f"{pair[i]}, match {match[i]}, seed {seed[i]}, expected {expected[i]}); write to another "
                "directory"
            )

    def _null_mask(self, name: str) -> np.ndarray:
        flags = self._db.execute(f"SELECT {name} IS NULL FROM matches ORDER BY pair, match").fetchall()
        return np.asarray(flags, dtype=bool).reshape(-1)

    def done(self) -> set[tuple[int, int]]:
        """The (pair, match) keys already stored."""
        return set(self._db.execute("SELECT pair, match FROM matches").fetchall())

    def add(self, batch: Batch, seeds: Sequence[int], rows: Sequence[Sequence[int | None]]) -> None:
        """Write one finished batch in one transaction."""
        width = len(self.names)
        records = [(batch.pair, m, s, *r) for m, s, r in zip(batch.matches, seeds, rows, strict=True)]
        if any(len(r) != width for r in records):
            raise RunError(f"{self._where}: the experiment returned rows that do not have {width - 3} values")
        try:
            with self._db:
                self._db.executemany(
                    f"INSERT INTO matches ({', '.join(self.names)}) VALUES ({', '.join('?' * width)})", records
                )
        except sqlite3.IntegrityError as exc:
            raise RunError(
                f"{self._where}: a match of pair {batch.pair} is already stored; is another run writing to this store?"
            ) from exc
        except sqlite3.DatabaseError as exc:  # "database or disk is full", "disk I/O error": the batch is rolled back
            stored = self._db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
            raise RunError(
                f"{self._where}: cannot store a batch of {len(records)} finished matches ({exc}); the {stored:,} "
                "matches stored before are kept: make room, then rerun with --resume"
            ) from exc

    def table(self) -> np.ndarray:
        """All rows sorted by (pair, match), int64 of shape (n, 3 + columns), NULL as -1."""
        select = ", ".join(f"COALESCE({n}, -1)" for n in self.names)
        rows = self._db.execute(f"SELECT {select} FROM matches ORDER BY pair, match").fetchall()
        return np.asarray(rows, dtype=np.int64).reshape(-1, len(self.names))

    def close(self) -> None:
        """Close the database connection; a store this run created and stored no match in is removed."""
        try:
            empty = self._created and self._db.execute("SELECT 1 FROM matches LIMIT 1").fetchone() is None
        except sqlite3.Error:  # no matches table: the store was refused or could not be written as it was made
            empty = self._created
        self._db.close()
        if empty:
            assert self.path is not None
            for leftover in _store_files(self.path):
                with contextlib.suppress(FileNotFoundError):
                    leftover.unlink()
            self._created = False


def _refused_write(exc: sqlite3.DatabaseError) -> bool:
    """Whether SQLite failed because the disk refused a write (full, over quota, past the size limit, failing)."""
    text = str(exc)
    return "full" in text or "disk I/O error" in text


def _store_files(path: Path) -> tuple[Path, ...]:
    """The store and the files SQLite keeps beside it."""
    return (path, *(path.with_name(path.name + suffix) for suffix in ("-wal", "-shm", "-journal")))


def store_path(out: Path, name: str) -> Path:
    """``out/name`` with symbolic links followed; refused in one line if it would end outside ``out``.

    So would the files SQLite keeps beside it: a dangling link at any of them would create a file wherever it points.
    """
    inside = out.resolve()
    path = (out / name).resolve()
    for file in _store_files(path):
        target = file.resolve()
        if not target.is_relative_to(inside):
            link = out / name if file == path else file
            raise RunError(
                f"{link}: a symbolic link to {target}, outside the output directory {out}; "
                "remove it or choose another output directory"
            )
    return path


# Memory a run takes per match it holds: the set of stored keys (a Python tuple each), every match's seed, and the
# summary's rows of 64-bit integers, with their copies.  A run that would need more than half of the machine's
# memory is refused before anything is written, with the estimate.
BYTES_PER_MATCH = 256


def check_size(experiment: Experiment) -> None:
    """Refuse a run whose matches would not fit in half of this machine's memory, saying how much they would need."""
    matches = experiment.n_pairs * experiment.n_matches
    refuse_unless_it_fits(
        matches * BYTES_PER_MATCH,
        f"{matches:,} matches ({experiment.n_pairs:,} pairs x {experiment.n_matches:,})",
        RunError,
        "play fewer matches per pair or fewer pairs",
    )


def open_store(
    out: str | os.PathLike | None, name: str, experiment: Experiment, resume: bool = True
) -> tuple[Path | None, MatchStore]:
    """Create ``out`` when needed and open (or start) ``out/name``; ``out=None`` keeps the store in memory.

    With ``resume=False`` a store already at ``out/name`` is refused instead of continued.  A run too large for
    this machine is refused first (:func:`check_size`), before anything is created.
    """
    check_size(experiment)
    if out is None:
        return None, MatchStore(None, experiment)
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise RunError(f"{out}: the output directory is a file")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunError(f"{out}: cannot create the output directory ({exc.strerror})") from exc
    path = store_path(out, name)
    if not resume and _holds_matches(path):
        raise RunError(
            f"{out / name} holds an earlier run: pass --resume to continue it, or choose another output directory"
        )
    return out, MatchStore(path, experiment)


def _holds_matches(path: Path) -> bool:
    """Whether the file at ``path`` is anything but a store without matches (read-only; unreadable counts as held)."""
    if not path.exists():
        return False
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error:
        return True
    try:
        return db.execute("SELECT EXISTS (SELECT 1 FROM matches)").fetchone()[0] != 0
    except sqlite3.Error:
        return True
    finally:
        db.close()


# ----------------------------------------------------------------------------- workers


_WORKER_EXPERIMENT: Experiment | None = None


def _die_with_parent(parent: int) -> None:
    """In a pool worker: be killed when the parent dies (Linux prctl), and exit if it already has or later does."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_WATCHDOG_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="gamelp-parent-watchdog", daemon=True).start()


def process_pool(workers: int, mp_context=None) -> ProcessPoolExecutor:
    """A local process pool whose workers die with this process, as the match runs' do (:func:`_die_with_parent`).

    For every pool of gamelp's that plays or computes in worker processes, so
    that a ``kill -9`` of the command leaves no worker running.
    """
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=mp_context, initializer=_die_with_parent, initargs=(os.getpid(),)
    )


def _init_worker(parent: int, experiment: Experiment) -> None:
    global _WORKER_EXPERIMENT
    _die_with_parent(parent)
    _WORKER_EXPERIMENT = experiment


def _play_in_worker(batch: Batch) -> list[tuple[int | None, ...]]:
    assert _WORKER_EXPERIMENT is not None, "the pool initializer did not run"
    return _WORKER_EXPERIMENT.play_batch(batch)


def _play_on_dask(experiment: Experiment, batch: Batch) -> list[tuple[int | None, ...]]:
    return experiment.play_batch(batch)


class _Serial:
    """Plays each batch in this process when it is submitted (``workers=1``)."""

    window = 1

    class _Done:
        def __init__(self, value):
            self._value = value

        def result(self):
            return self._value

    def __init__(self, experiment: Experiment):
        self._experiment = experiment

    def submit(self, batch: Batch):
        return self._Done(self._experiment.play_batch(batch))

    @staticmethod
    def wait_any(pending):
        return set(pending)

    def close(self, interrupted: bool) -> None:
        pass


class _Local:
    """A local process pool; the experiment is installed in every worker by the initializer."""

    def __init__(self, experiment: Experiment, workers: int):
        self.window = workers * IN_FLIGHT_PER_WORKER
        self._pool = ProcessPoolExecutor(
            max_workers=workers, initializer=_init_worker, initargs=(os.getpid(), experiment)
        )

    def submit(self, batch: Batch):
        return self._pool.submit(_play_in_worker, batch)

    @staticmethod
    def wait_any(pending):
        return wait_futures(pending, return_when=FIRST_COMPLETED).done

    def close(self, interrupted: bool) -> None:
        self._pool.shutdown(wait=True, cancel_futures=interrupted)


class _Dask:
    """A Dask distributed cluster reached through its scheduler address; the experiment is scattered once."""

    def __init__(self, experiment: Experiment, address: str):
        check_scheduler_address(address)
        for module in ("dask", "distributed"):  # the [dist] extra
            require(module, "--scheduler (a Dask cluster)")
        from dask.distributed import Client

        try:
            self._client = Client(address, timeout="20s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise RunError(f"cannot reach the Dask scheduler at {address}: {exc}") from exc
        self.window = max(1, sum(self._client.nthreads().values())) * IN_FLIGHT_PER_WORKER
        self._experiment = self._client.scatter(experiment, broadcast=True)

    def submit(self, batch: Batch):
        return self._client.submit(_play_on_dask, self._experiment, batch, pure=False)

    @staticmethod
    def wait_any(pending):
        from dask.distributed import wait

        return wait(list(pending), return_when="FIRST_COMPLETED").done

    def close(self, interrupted: bool) -> None:
        self._client.close()


def _executor(experiment: Experiment, workers: int, scheduler: str | None):
    if scheduler:
        return _Dask(experiment, scheduler)
    return _Serial(experiment) if workers == 1 else _Local(experiment, workers)


# ----------------------------------------------------------------------------- running


def batches(todo: Sequence[tuple[int, int]], batch_size: int) -> Iterator[Batch]:
    """Consecutive runs of up to ``batch_size`` sorted (pair, match) keys of one pair."""
    current: list[int] = []
    pair = None
    for p, m in sorted(todo):
        if current and (p != pair or len(current) == batch_size):
            yield Batch(pair, tuple(current))
            current = []
        pair = p
        current.append(m)
    if current:
        yield Batch(pair, tuple(current))


BatchHook = Callable[[Batch, list[tuple[int | None, ...]]], None]


@dataclass(frozen=True)
class Execution:
    """How a run plays its matches, whatever the game: where, in what batches, and what it reports.

    ``workers`` local processes (1: in this process) or the Dask cluster at
    ``scheduler``; ``batch_size`` matches per task (None: :func:`auto_batch_size`);
    a progress bar unless ``progress=False``; ``resume``: continue a store
    found in the output directory (False: refuse it, so that a run is never
    mixed into another by mistake); ``on_batch(batch, rows)`` is called after
    each batch is committed (a hook for callers and tests; an exception raised
    there stops the run, keeping what was stored).  The results do not depend
    on ``workers``, ``scheduler`` or ``batch_size``: every match has its own seed.
    """

    workers: int = 1
    scheduler: str | None = None
    batch_size: int | None = None
    progress: bool = True
    resume: bool = True
    on_batch: BatchHook | None = None

    def __post_init__(self) -> None:
        if self.scheduler:
            check_scheduler_address(self.scheduler)


# Dask's address schemes that need security settings (certificates, an ssl.SSLContext); gamelp passes none, and
# without them the Dask client fails with a TypeError deep inside distributed.
SECURE_SCHEMES = ("tls", "wss")


def check_scheduler_address(address: str) -> None:
    """Refuse, in one line, a scheduler address whose scheme needs security settings gamelp does not pass."""
    scheme = address.partition("://")[0].lower() if "://" in address else ""
    if scheme in SECURE_SCHEMES:
        raise RunError(
            f"--scheduler {address}: a {scheme}:// scheduler needs TLS security settings (certificates), which "
            "gamelp does not pass; use a tcp:// address (through an SSH tunnel or a private network, say)"
        )


MAX_AUTO_BATCH = 50  # matches per task at most when the batch size is chosen: a task's results are committed together
TASKS_PER_SLOT = 4  # tasks per worker slot when the batch size is chosen: enough to balance uneven matches


def auto_batch_size(matches: int, slots: int) -> int:
    """Matches per task for ``matches`` left on ``slots`` worker slots.

    About ``TASKS_PER_SLOT`` tasks a slot, between 1 and ``MAX_AUTO_BATCH`` (long runs commit progress at least every 50
    matches a task).
    """
    return max(1, min(MAX_AUTO_BATCH, matches // (TASKS_PER_SLOT * max(slots, 1))))


def run_matches(store: MatchStore, execution: Execution = Execution(), *, unit: str = "match") -> int:
    """Play the store's experiment's matches not yet stored, committing each batch; returns how many were played."""
    workers, batch_size = execution.workers, execution.batch_size
    if workers < 1:
        raise RunError(f"workers must be at least 1, got {workers}")
    if batch_size is not None and batch_size < 1:
        raise RunError(f"the batch size must be at least 1, got {batch_size}")
    experiment = store.experiment
    total = experiment.n_pairs * experiment.n_matches
    done = store.done()
    todo = [(p, m) for p in range(experiment.n_pairs) for m in range(experiment.n_matches) if (p, m) not in done]
    if not todo:
        return 0
    executor = _executor(experiment, workers, execution.scheduler)
    queue = batches(todo, batch_size or auto_batch_size(len(todo), executor.window // IN_FLIGHT_PER_WORKER))
    pending: dict[Any, Batch] = {}
    bar = tqdm(total=total, initial=total - len(todo), unit=unit, disable=not execution.progress, smoothing=0.05)
    interrupted = True
    try:
        while True:
            for batch in queue:
                pending[executor.submit(batch)] = batch
                if len(pending) >= executor.window:
                    break
            if not pending:
                break
            for future in executor.wait_any(pending):
                batch = pending.pop(future)
                rows = future.result()
                store.add(batch, [experiment.match_seed(batch.pair, m) for m in batch.matches], rows)
                bar.update(len(batch.matches))
                if execution.on_batch is not None:
                    execution.on_batch(batch, rows)
        interrupted = False
    finally:
        bar.close()
        executor.close(interrupted)
    return len(todo)


# ----------------------------------------------------------------------------- win rates


def rates_by_group(
    pair: np.ndarray, group: np.ndarray, kind: np.ndarray, n_pairs: int, n_groups: int, n_kinds: int = 2
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-pair win rate, its deviation across groups, and the counts of each outcome kind.

    ``kind`` is 0 for a win of the pair's first entrant, 1 for a loss, and
    2 .. n_kinds - 1 for outcomes left out of the rate (draws, ...).  The
    rate is the mean over groups of the per-group rates (groups with no
    decided match skipped; 0.5 when none decided).  Its deviation is the
    sample standard deviation (ddof=1) of the per-group rates when at least
    two groups decided matches, else the binomial standard error
    sqrt(c (1 - c) / n) of the n decided matches.  Returns (rate, std,
    counts of shape (n_pairs, n_kinds)).
    """
    counts = np.zeros((n_groups, n_pairs, n_kinds), dtype=np.int64)
    np.add.at(counts, (group, pair, kind), 1)
    wins, decided = counts[..., 0], counts[..., 0] + counts[..., 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        per_group = np.where(decided > 0, wins / decided, np.nan)
    ran = np.isfinite(per_group)
    n_ran = ran.sum(axis=0)
    rate = np.where(n_ran > 0, np.nansum(per_group, axis=0) / np.maximum(n_ran, 1), 0.5)
    dev = np.where(ran, per_group - rate, 0.0)
    sample_std = np.sqrt((dev**2).sum(axis=0) / np.maximum(n_ran - 1, 1))
    total_decided = decided.sum(axis=0)
    binomial_se = np.sqrt(rate * (1 - rate) / np.maximum(total_decided, 1)) * (total_decided > 0)
    std = np.where(n_ran >= 2, sample_std, binomial_se)
    return rate, std, counts.sum(axis=0)


def rate_matrix(
    labels: Sequence[str], pairs: Sequence[tuple[int, int]], rate: np.ndarray, std: np.ndarray
) -> MatrixGame:
    """The constant-sum win-rate game: c_ij = rate, c_ji = 1 - rate, deviations mirrored, 0.5 where unplayed."""
    n = len(labels)
    payoffs, deviations = np.full((n, n), 0.5), np.zeros((n, n))
    rows = np.array([p[0] for p in pairs], dtype=int)
    cols = np.array([p[1] for p in pairs], dtype=int)
    payoffs[cols, rows] = 1.0 - rate
    payoffs[rows, cols] = rate
    deviations[cols, rows] = std
    deviations[rows, cols] = std
    return MatrixGame(payoffs, list(labels), list(labels), std=deviations)


def round_robin(n: int, mirror: bool = False) -> list[tuple[int, int]]:
    """Pairs (i, j) with i < j (i <= j with ``mirror``), row-major."""
    return [(i, j) for i in range(n) for j in range(i if mirror else i + 1, n)]

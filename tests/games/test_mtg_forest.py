"""The random-forest evaluation stored as data: numpy traversal, safe loading, the trusted cache and its lock."""

import multiprocessing
import os
import pickle
import re
import subprocess
import sys
import time

import numpy as np
import pytest

from gamelp.games.mtg import forest as forest_module
from gamelp.games.mtg.engine import Game
from gamelp.games.mtg.forest import (
    FEATURE_NAMES,
    Forest,
    ForestError,
    cache_name,
    collect_positions,
    features,
    train_forests,
    trusted_dir,
)


@pytest.fixture(scope="module")
def training():
    return collect_positions(8, thresholds=(12, 8), seed=3, label_cap=20_000)


@pytest.fixture(scope="module")
def fitted():
    from sklearn.ensemble import RandomForestClassifier

    rng = np.random.default_rng(0)
    X = rng.integers(-5, 30, size=(400, len(FEATURE_NAMES))).astype(float)
    y = (X[:, 0] + X[:, 7] - X[:, 20] + rng.normal(0, 4, size=400) > 12).astype(int)
    model = RandomForestClassifier(n_estimators=9, max_features="sqrt", random_state=1).fit(X, y)
    return model, rng.integers(-5, 30, size=(300, len(FEATURE_NAMES))).astype(float)


def python_training_game(g: int, thresholds, seed, max_creatures) -> dict:
    """The training game of ``forest._training_game`` re-played by the Python search (no cap)."""
    from gamelp.games.mtg.deck import analysed_decks
    from gamelp.games.mtg.engine import at_cutoff, is_over
    from gamelp.games.mtg.search import Searcher

    rng = np.random.default_rng(np.random.SeedSequence([seed, g]))
    decks = analysed_decks(max_creatures)
    game, state = Game.deal(*[decks[i] for i in rng.integers(len(decks), size=2)], rng, g % 2)
    searcher, recorded = Searcher(game, None, threshold=0, cap=None), {}
    for t in thresholds:
        while not is_over(state) and not at_cutoff(state, t):
            state = game.step(state, searcher.best_move(state)[0])
        if is_over(state):
            break
        recorded[t] = (features(game, state), 1 if searcher.value(state) > 0 else 0)
    return recorded


def test_training_positions_and_labels_of_the_c_search_are_the_python_searchs():
    """Bolt-only and 4-creature decks keep the Python search to seconds."""
    data = collect_positions(16, thresholds=(12, 8, 4), seed=5, label_cap=None, max_creatures=4)
    python = [python_training_game(g, (12, 8, 4), 5, 4) for g in range(16)]
    for t in (12, 8, 4):
        expected = [game[t] for game in python if t in game]
        assert len(expected) == len(data.y[t]) > 0
        np.testing.assert_array_equal(data.X[t], np.array([row for row, _ in expected], dtype=float))
        np.testing.assert_array_equal(data.y[t], [label for _, label in expected])


def test_training_records_the_first_positions_at_12_and_8_life(training):
    X12, y12, X8 = training.X[12], training.y[12], training.X[8]
    assert X12.shape[1] == 60 and 0 < len(y12) <= 8 and 0 < y12.mean() < 1
    life = np.array([FEATURE_NAMES.index("p1_life"), FEATURE_NAMES.index("p2_life")])
    assert np.all(X12[:, life].min(axis=1) <= 12) and np.all(X12[:, life].min(axis=1) > 8)
    assert np.all(X8[:, life].min(axis=1) <= 8)
    assert len(X8) <= len(X12) + training.capped


def test_numpy_traversal_equals_sklearn(fitted):
    model, X_test = fitted
    forest = Forest.from_sklearn(model)
    np.testing.assert_allclose(forest.predict_proba(X_test), model.predict_proba(X_test)[:, 1], rtol=0, atol=1e-12)
    assert np.array_equal(forest.predict(X_test), model.predict(X_test))
    assert 0 < forest.predict(X_test).mean() < 1  # both classes occur, so the check can fail


def test_saved_forest_round_trips_and_single_positions_agree(training, tmp_path):
    model = forest_module.train_forest(training.X[12], training.y[12], trees=9, seed=0)
    forest = Forest.from_sklearn(model, 12)
    forest.save(tmp_path / "f.npz")
    loaded = Forest.load(tmp_path / "f.npz")
    assert np.array_equal(loaded.predict_proba(training.X[12]), model.predict_proba(training.X[12])[:, 1])
    rng = np.random.default_rng(5)
    for _ in range(20):
        game, state = Game.deal("8C28L", "4C20L", rng, 0)
        expected = model.predict_proba([features(game, state)])[0, 1]
        assert loaded(game, state) == (1.0 if expected > 0.5 else -1.0 if expected < 0.5 else 0.0)
    assert not list(tmp_path.glob("*.tmp"))  # the atomic write left no temporary file


class _Planted:
    def __reduce__(self):
        return (os.system, (f"touch {os.environ['PLANTED_MARKER']}",))


def test_planted_pickle_and_object_arrays_are_never_executed(tmp_path, monkeypatch, fitted):
    marker = tmp_path / "pwned"
    monkeypatch.setenv("PLANTED_MARKER", str(marker))
    cache = trusted_dir(tmp_path / "mtg")
    planted = cache / cache_name(12, 1000, 0, 9)
    planted.write_bytes(pickle.dumps({"model": _Planted()}))
    with pytest.raises(ForestError, match="not a saved mtg forest"):
        Forest.load(planted)
    # an .npz whose arrays are objects (pickled inside) is refused too
    arrays = {name: getattr(Forest.from_sklearn(fitted[0]), name) for name in forest_module._ARRAYS}
    arrays["win"] = np.array([_Planted()], dtype=object)
    with open(planted, "wb") as handle:
        np.savez(handle, life=12, features=np.array(FEATURE_NAMES), **arrays)
    with pytest.raises(ForestError, match="not a saved mtg forest"):
        Forest.load(planted)
    assert not marker.exists()
    # the cache path of play/sweep refuses it as well, and never trains over it silently
    monkeypatch.setattr(forest_module, "_FORESTS", {})
    for t in (8, 4):
        Forest.from_sklearn(fitted[0], t).save(cache / cache_name(t, 1000, 0, 9))
    with pytest.raises(ForestError, match=str(planted.name)):
        train_forests(directory=cache)
    assert not marker.exists()


def test_inconsistent_tree_arrays_are_refused(fitted, tmp_path):
    forest = Forest.from_sklearn(fitted[0])
    forest.children_left = forest.children_left.copy()
    forest.children_left[0] = 0  # a loop back to the root would never end
    forest.save(tmp_path / "loop.npz")
    with pytest.raises(ForestError, match="inconsistent"):
        Forest.load(tmp_path / "loop.npz")


def test_cache_writable_by_others_is_refused_in_one_line(tmp_path):
    shared = tmp_path / "shared" / "mtg"
    shared.mkdir(parents=True)
    shared.chmod(0o777)
    with pytest.raises(ForestError, match="writable by group or others"):
        trusted_dir(shared)
    env = dict(os.environ, GAMELP_CACHE=str(tmp_path / "shared"))
    done = subprocess.run(
        [sys.executable, "-m", "gamelp.cli", "mtg", "train-forest", "--games", "2", "--quiet"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") == 0 and "writable by group or others" in done.stderr


def _train_in_process(directory, log):
    def logged(games, thresholds, seed, **options):  # synthetic positions: the lock is under test
        with open(log, "a") as handle:
            handle.write(f"{os.getpid()}\n")
        time.sleep(1.0)  # long enough for the other process to reach the lock
        rng = np.random.default_rng(seed)
        X = rng.integers(0, 20, size=(60, len(FEATURE_NAMES))).astype(float)
        return forest_module.TrainingSet({12: X}, {12: (X[:, 0] > X[:, 9]).astype(int)}, games)

    forest_module.collect_positions = logged
    forests = train_forests(games=8, seed=1, trees=3, thresholds=(12,), directory=directory, progress=False)
    np.save(os.path.join(directory, f"out-{os.getpid()}.npy"), forests[12].win)


def test_two_processes_train_one_forest(tmp_path):
    directory = trusted_dir(tmp_path / "mtg")
    log = tmp_path / "trained.log"
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_train_in_process, args=(str(directory), str(log))) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
        assert w.exitcode == 0
    assert len(log.read_text().split()) == 1  # one trained, the other waited on the lock and loaded
    outputs = [np.load(p) for p in sorted(directory.glob("out-*.npy"))]
    assert len(outputs) == 2 and np.array_equal(outputs[0], outputs[1])


def test_training_shows_progress(tmp_path, monkeypatch, capsys):
    """The first play or sweep that needs a forest trains it for minutes: a progress bar must show."""
    rng = np.random.default_rng(0)

    def quick_game(g, thresholds, **options):  # synthetic positions: the bar is under test
        row = rng.integers(0, 20, size=len(FEATURE_NAMES)).astype(float)
        return {t: (list(row), int(g % 2)) for t in thresholds}

    monkeypatch.setattr(forest_module, "_training_game", quick_game)
    train_forests(games=20, seed=0, trees=3, thresholds=(12,), directory=tmp_path / "mtg")
    err = capsys.readouterr().err
    assert "training games" in err and "20/20" in err


# ---- hostile forest files (issue 23, items 11 and 15) ----
def chain_forest(depth: int, life: int = 12) -> Forest:
    """One tree, a chain of ``depth`` splits on p1_life: at split k, life <= k + 0.5 goes to a leaf of share k % 2.

    So a position with p1_life = L < depth gets the share L % 2, and the end of the chain (share 1) otherwise."""
    n = 2 * depth + 1
    left, right = np.full(n, -1), np.full(n, -1)
    feature, threshold, win = np.zeros(n, dtype=int), np.full(n, -2.0), np.ones(n)
    for k in range(depth):
        left[2 * k], right[2 * k], threshold[2 * k] = 2 * k + 1, 2 * k + 2, k + 0.5
        win[2 * k + 1] = k % 2
    return Forest(left, right, feature, threshold, win, [0], life)


def test_a_forest_cache_entry_on_a_full_disk_is_refused_leaving_nothing_behind(tmp_path, disk_full):
    """Issue 45, item 3: the refused entry leaves neither a partial file nor its temporary; an older entry stays."""
    from gamelp.errors import OutputError

    cache = trusted_dir(tmp_path / "mtg")
    entry = cache / cache_name(12, 1000, 0, 9)
    chain_forest(3).save(entry)
    before = entry.read_bytes()
    with pytest.raises(OutputError) as refused, disk_full(4096):
        chain_forest(2000).save(entry)  # some 200 kB of arrays
    assert str(refused.value) == f"{entry}: cannot write (File too large); the old file is unchanged"
    assert sorted(p.name for p in cache.iterdir()) == [entry.name]
    assert entry.read_bytes() == before and Forest.load(entry).life == 12
    with pytest.raises(OutputError, match="nothing was written"), disk_full(4096):
        chain_forest(2000).save(cache / "new.npz")
    assert sorted(p.name for p in cache.iterdir()) == [entry.name]


def _rows(lives):
    rows = np.zeros((len(lives), len(FEATURE_NAMES)))
    rows[:, FEATURE_NAMES.index("p1_life")] = lives
    return rows


@pytest.mark.parametrize("depth", [3, 300, forest_module.MAX_TREE_DEPTH])
def test_deep_trees_load_and_evaluate_without_generated_code(tmp_path, depth):
    """A 300-deep tree once raised IndentationError in the generated source; the arrays are now walked."""
    chain_forest(depth).save(tmp_path / "deep.npz")
    forest = Forest.load(tmp_path / "deep.npz")
    lives = np.array([0, 1, 2, depth - 1, depth, depth + 5])
    expected = np.where(lives < depth, lives % 2, 1)
    np.testing.assert_array_equal(forest.predict_proba(_rows(lives)), expected)
    assert [forest.votes(list(row)) for row in _rows(lives)] == list(expected)


def test_a_tree_deeper_than_the_limit_is_refused(tmp_path):
    chain_forest(forest_module.MAX_TREE_DEPTH + 1).save(tmp_path / "deeper.npz")
    with pytest.raises(ForestError, match=f"more than {forest_module.MAX_TREE_DEPTH} splits deep"):
        Forest.load(tmp_path / "deeper.npz")


def _changed(forest, **arrays):
    for name, change in arrays.items():
        value = getattr(forest, name).copy()
        change(value)
        setattr(forest, name, value)
    return forest


@pytest.mark.parametrize(
    "change, fault",
    [
        ({"threshold": lambda t: t.__setitem__(2, np.inf)}, "a threshold that is not finite, at index 2"),
        ({"threshold": lambda t: t.__setitem__(0, -np.inf)}, "a threshold that is not finite, at index 0"),
        ({"threshold": lambda t: t.__setitem__(4, np.nan)}, "a threshold that is not finite, at index 4"),
        ({"children_right": lambda c: c.__setitem__(0, 4)}, "node 2 has 0 parents"),  # node 4 shared by 0 and 2
        ({"children_left": lambda c: c.__setitem__(2, 4)}, "node 3 has 0 parents"),  # node 4 twice a child of 2
        ({"children_left": lambda c: c.__setitem__(2, 9)}, "a left child out of range"),
        ({"children_right": lambda c: c.__setitem__(0, 0)}, "a right child out of range or not after its parent"),
        ({"children_right": lambda c: c.__setitem__(1, 3)}, "a right child at a leaf, at index 1"),
        ({"feature": lambda f: f.__setitem__(0, 60)}, "a feature out of range, at index 0"),
        ({"win": lambda w: w.__setitem__(3, np.nan)}, "a win share that is not in [0, 1], at index 3"),
        ({"roots": lambda r: r.__setitem__(0, 2)}, "node 0 has 0 parents"),  # node 0 is in no tree
    ],
)
def test_inconsistent_trees_are_refused_naming_the_fault(tmp_path, change, fault):
    _changed(chain_forest(3), **change).save(tmp_path / "bad.npz")  # 7 nodes: 0 -> (1, 2), 2 -> (3, 4), 4 -> (5, 6)
    with pytest.raises(
        ForestError, match=re.escape(f"{tmp_path / 'bad.npz'}: the tree arrays are inconsistent")
    ) as error:
        Forest.load(tmp_path / "bad.npz")
    assert fault in str(error.value)


def _saved_arrays(forest):
    return {
        "life": np.int64(forest.life),
        "features": np.array(FEATURE_NAMES),
        **{name: getattr(forest, name) for name in forest_module._ARRAYS},
    }


@pytest.mark.parametrize(
    "change, fault",
    [
        (lambda a: a.pop("threshold"), "not a saved mtg forest (no array 'threshold')"),
        (lambda a: a.update(life=np.array([12, 8])), "'life' must be one life threshold"),
        (lambda a: a.update(life=np.array(1e300)), "'life' must be one life threshold"),
        (lambda a: a.update(threshold=np.array(["1"] * 7)), "array 'threshold' is not a 1-d float64 array"),
        (
            lambda a: a.update(children_left=a["children_left"].astype(float)),
            "array 'children_left' is not a 1-d int64",
        ),
        (lambda a: a.update(features=np.arange(60)), "trained on different features"),
        (lambda a: a.update(win=np.ones(3)), "of different lengths"),
    ],
)
def test_malformed_forest_files_are_refused(tmp_path, change, fault):
    arrays = _saved_arrays(chain_forest(3))
    change(arrays)
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(ForestError, match=re.escape(f"{tmp_path / 'bad.npz'}: ")) as error:
        Forest.load(tmp_path / "bad.npz")
    assert fault in str(error.value)


def test_a_forest_header_declaring_terabytes_is_refused_before_loading(tmp_path):
    import zipfile

    path = tmp_path / "huge.npz"
    arrays = _saved_arrays(chain_forest(3))
    del arrays["win"]
    np.savez(path, **arrays)
    header = repr({"descr": "<f8", "fortran_order": False, "shape": (7 << 37,)}).encode()  # 7 TiB of float64
    header += b" " * (-(len(header) + 11) % 64) + b"\n"
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("win.npy", b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + b"\0" * 8)
    with pytest.raises(
        ForestError,
        match=re.escape(f"{path}: not a saved mtg forest (array 'win': its header declares ({7 << 37},) float64"),
    ):
        Forest.load(path)


def _play_with_cache(cache_root, timeout=60):
    env = dict(os.environ, GAMELP_CACHE=str(cache_root))
    return subprocess.run(
        [sys.executable, "-m", "gamelp.cli", "mtg", "play", "--seed", "1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )  # a hang raises TimeoutExpired


@pytest.mark.parametrize("planted", ["entry", "lock"])
def test_a_fifo_in_the_cache_is_refused_in_one_line(tmp_path, fitted, planted):
    """A named pipe as a cache entry (read by np.load) or as the lock file (opened to append) blocked forever."""
    cache = trusted_dir(tmp_path / "mtg")
    for t in (12, 8, 4):
        Forest.from_sklearn(fitted[0], t).save(cache / cache_name(t, 1000, 0, 9))
    target = cache / (cache_name(12, 1000, 0, 9) if planted == "entry" else "forest_g1000_s0_n9.lock")
    target.unlink(missing_ok=True)
    os.mkfifo(target)
    done = _play_with_cache(tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr and done.stderr.count("\n") == 1
    assert str(target) in done.stderr and ("named pipe" in done.stderr or "not a regular file" in done.stderr)


@pytest.mark.slow
def test_play_reads_a_deep_forest_from_the_cache(tmp_path):
    cache = trusted_dir(tmp_path / "mtg")
    for t in (12, 8, 4):
        chain_forest(300, t).save(cache / cache_name(t, 1000, 0, 9))
    done = _play_with_cache(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "wins after" in done.stdout or "draw" in done.stdout

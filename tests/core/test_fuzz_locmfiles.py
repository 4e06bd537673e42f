"""Fuzzing the LOCM files, policies and forest caches: hostile files are refused in one line or answered rightly.

The surfaces of issue 23, items 7, 9, 11, 12, 13 and 15: ``locm replay FILE``
(referee records mutated token by token, pipes, devices, an xz bomb),
``file:POLICY.npz`` drafters (arrays changed, removed, forged headers) and
the mtg forest cache (tree arrays changed, forged headers, pipes).  Each case
runs the command, in-process under the watchdog of :func:`test_fuzz.run` or as a
subprocess with a timeout, and must end in a one-line refusal (exit 2) or a
right answer: exit 0 (or 1 for ``locm replay``, which reports the matches
that differ) with a result on stdout.  Set ``GAMELP_FUZZ_LOG=FILE`` to append
each case's outcome to FILE (the closing note's table counts them).
"""

import io
import json
import lzma
import os
import re
import subprocess
import sys
import zipfile
from importlib import resources

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_fuzz import FUZZ, check_contract, run

from gamelp.games.mtg import forest as forest_module
from gamelp.games.mtg.forest import FEATURE_NAMES, Forest, cache_name

SUBPROCESS_SECONDS = 60


def _log(surface, argv, code):
    if os.environ.get("GAMELP_FUZZ_LOG"):
        with open(os.environ["GAMELP_FUZZ_LOG"], "a") as handle:
            handle.write(
                json.dumps(
                    {
                        "surface": surface,
                        "outcome": "refusal" if code == 2 else "answer",
                        "argv": [str(a)[:80] for a in argv],
                    }
                )
                + "\n"
            )


def _gamelp(*argv, cwd, env=None):
    """Run ``gamelp argv`` as a subprocess; a hang raises TimeoutExpired, a crash gives a negative status."""
    done = subprocess.run(
        [sys.executable, "-m", "gamelp.cli", *map(str, argv)],
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_SECONDS,
        cwd=cwd,
        env=env,
    )
    assert done.returncode >= 0, done
    return done


# ---------------------------------------------------------------------- locm replay
def _dev_lines(count=1):
    raw = resources.files("gamelp.games.locm").joinpath("data", "consistency-v1.2-dev.txt.xz").read_bytes()
    return lzma.decompress(raw).decode().splitlines()[:count]


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|[{}\[\],:]')
_RECORD_REPLACEMENTS = [
    '"0"',
    '"1"',
    '"errors"',
    '"outputs"',
    '"scores"',
    "null",
    "true",
    "0",
    "-1",
    "1e400",
    "1.5",
    "9" * 400,
    "[]",
    "{}",
    '["x"]',
    '"PASS"',
    '"SUMMON 99999999999999999999 1"',
    '"PICK 7"',
    ",",
    ":",
    '"\\u0000"',
    "[" * 3000,
    '"draftChoicesSeed=-99999999999999999999"',
]


@st.composite
def broken_records(draw):
    """The first dev match (its JSON cut to a few frames, to replay fast) with one to three tokens changed,
    then its seeds, themselves possibly changed; sometimes the line is cut short."""
    line = _dev_lines()[0]
    end = line.rfind("}")
    record = json.loads(line[: end + 1])
    frames = draw(st.integers(0, 12))
    for key in ("errors", "outputs"):
        for player in ("0", "1"):
            record[key][player] = record[key][player][:frames]
    text = json.dumps({k: record[k] for k in ("errors", "outputs", "scores")})
    for _ in range(draw(st.integers(1, 3))):
        tokens = list(_JSON_TOKEN.finditer(text))
        target = draw(st.sampled_from(tokens))
        new = draw(st.sampled_from(_RECORD_REPLACEMENTS + ["", target.group() + "," + target.group()]))
        text = text[: target.start()] + new + text[target.end() :]
    huge_seeds = " draftChoicesSeed=99999999999999999999999 shufflePlayer0Seed=-1 shufflePlayer1Seed=0"
    seeds = draw(
        st.sampled_from(
            [
                line[end + 1 :],
                " draftChoicesSeed=1 shufflePlayer0Seed=2",
                "",
                huge_seeds,
                line[end + 1 :].replace("=", "=" + "9" * 5000, 1),
            ]
        )
    )
    text += seeds
    if draw(st.booleans()):
        text = text[: draw(st.integers(0, len(text)))]  # a truncated line
    return text


@settings(FUZZ, max_examples=150)
@given(record=broken_records(), compressed=st.booleans())
def test_broken_replay_records(tmp_path, capsys, record, compressed):
    path = tmp_path / ("m.txt.xz" if compressed else "m.txt")
    data = (record + "\n").encode()
    path.write_bytes(lzma.compress(data) if compressed else data)
    argv = ["locm", "replay", str(path), "--json"]
    code, out, _ = run(capsys, argv, answers=(0, 1))
    _check_replay_report(code, out)
    _log("replay", argv, code)


def _check_replay_report(code, out):
    """``locm replay`` exits 1 when a match differs from its record: a right answer, checked from its report."""
    if code in (0, 1):
        report = json.loads(out)
        assert (report["consistent"] == report["matches"]) == (code == 0)
        assert len(report["mismatches"]) == report["matches"] - report["consistent"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "case",
    [
        "fifo",
        "dev_zero",
        "dev_urandom",
        "directory",
        "xz_bomb",
        "xz_truncated",
        "binary",
        "empty",
        "no_newline",
        "crlf",
        "bom",
    ],
)
def test_hostile_replay_files(tmp_path, case):
    line = _dev_lines()[0]
    path = tmp_path / "matches.txt"
    if case == "fifo":
        os.mkfifo(path)
    elif case.startswith("dev_"):
        path = "/dev/" + case[4:]
    elif case == "directory":
        path = tmp_path
    elif case == "xz_bomb":  # 65 MiB of newlines in 10 kB, over the 64 MiB limit
        path = tmp_path / "bomb.txt.xz"
        path.write_bytes(lzma.compress(b"\n" * (65 << 20), preset=0))
    elif case == "xz_truncated":
        path = tmp_path / "m.txt.xz"
        path.write_bytes(lzma.compress(line.encode())[:500])
    elif case == "binary":
        path.write_bytes(bytes(range(256)) * 10)
    elif case == "empty":
        path.write_bytes(b"")
    else:
        text = {"no_newline": line, "crlf": line + "\r\n", "bom": "\ufeff" + line + "\n"}[case]
        path.write_bytes(text.encode())
    argv = ["locm", "replay", path, "--json"]
    done = _gamelp(*argv, cwd=tmp_path)
    check_contract(argv, done.returncode, done.stderr, answers=(0, 1))
    _check_replay_report(done.returncode, done.stdout)
    if case in ("no_newline", "crlf"):
        assert done.returncode == 0 and json.loads(done.stdout)["consistent"] == 1
    elif case == "bom":
        assert done.returncode in (0, 2)
    else:
        assert done.returncode == 2
    _log("replay", argv, done.returncode)


# ---------------------------------------------------------------------- npz files: shared mutations
def _forged_npy(shape, dtype="<f8", data=b""):
    """A .npy member whose header declares ``shape`` and ``dtype``, then ``data`` (which may disagree)."""
    header = repr({"descr": dtype, "fortran_order": False, "shape": tuple(shape)}).encode("latin1")
    header += b" " * (-(len(header) + 11) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + data


_VALUES = [np.nan, np.inf, -np.inf, -1, -2, 0, 1, 2, 59, 60, 1e300, 2**62, 0.5]
_MUTATIONS = [
    "delete",
    "value",
    "dtype:int64",
    "dtype:float16",
    "dtype:bool",
    "dtype:complex128",
    "dtype:str",
    "dtype:uint8",
    "reshape:2d",
    "reshape:0d",
    "truncate",
    "extend",
    "empty",
    "transpose",
    "forge:huge",
    "forge:short",
    "forge:long",
    "forge:object",
    "forge:negative",
    "corrupt",
]


@st.composite
def npz_mutations(draw, keys):
    """One to three (key, mutation, value, position) changes to an .npz file's arrays."""
    return draw(
        st.lists(
            st.tuples(
                st.sampled_from(keys), st.sampled_from(_MUTATIONS), st.sampled_from(_VALUES), st.integers(0, 10_000)
            ),
            min_size=1,
            max_size=3,
        )
    )


def _write_mutated(path, arrays, mutations):
    """Write ``arrays`` to ``path`` as an .npz with ``mutations`` applied; forged members are written raw."""
    arrays = {key: np.array(value) for key, value in arrays.items()}
    forged = {}
    for key, how, value, at in mutations:
        if key not in arrays and how != "delete":
            continue
        array = arrays.get(key)
        if how == "delete":
            arrays.pop(key, None)
        elif how == "value" and array is not None and array.size and array.dtype.kind in "iuf":
            array = array.astype(np.float64) if not np.isfinite(value) or isinstance(value, float) else array
            array.flat[at % array.size] = value
            arrays[key] = array
        elif how.startswith("dtype:"):
            try:
                with np.errstate(invalid="ignore", over="ignore"):
                    arrays[key] = array.astype(how[6:])
            except (ValueError, OverflowError):
                arrays[key] = np.array("not a number")
        elif how == "reshape:2d":
            arrays[key] = array.reshape(1, -1)
        elif how == "reshape:0d":
            arrays[key] = array.ravel()[0] if array.size else np.array(0)
        elif how == "truncate":
            arrays[key] = array.ravel()[:-1] if array.ndim else array
        elif how == "extend":
            arrays[key] = np.concatenate([array.ravel(), array.ravel()[:1]]) if array.ndim else array
        elif how == "empty":
            arrays[key] = array.ravel()[:0]
        elif how == "transpose":
            arrays[key] = array.T
        elif how.startswith("forge:"):
            arrays.pop(key)
            forged[key] = {
                "huge": _forged_npy((7 << 37,), "<f8", b"\0" * 64),  # a header declaring 7 TiB
                "short": _forged_npy((1000,), "<f8", b"\0" * 80),
                "long": _forged_npy((2,), "<f8", b"\0" * 4096),
                "object": _forged_npy((2,), "|O", b"\0" * 16),
                "negative": _forged_npy((-4, -2), "<f8", b"\0" * 64),
            }.get(how[6:], b"\x93NUMPY\x09")
    np.savez(path, **arrays)
    if forged:
        with zipfile.ZipFile(path, "a") as archive:
            for key, member in forged.items():
                archive.writestr(f"{key}.npy", member)
    if any(how == "corrupt" for _, how, _, _ in mutations):
        data = bytearray(path.read_bytes())
        at = mutations[0][3] % len(data)
        data[at : at + 8] = b"\xff" * 8
        path.write_bytes(bytes(data))


# ---------------------------------------------------------------------- file:POLICY.npz
def _policy_arrays():
    """The arrays of the shipped LSTM policy (both seats)."""
    path = resources.files("gamelp.games.locm").joinpath("data", "policy-lstm-max-attack.npz")
    with np.load(io.BytesIO(path.read_bytes()), allow_pickle=False) as data:
        return {key: data[key] for key in data.files}


_POLICY_KEYS = sorted(_policy_arrays())


@settings(FUZZ, max_examples=120)
@given(mutations=npz_mutations(_POLICY_KEYS), seat=st.sampled_from([0, 1]))
def test_broken_policy_files(tmp_path, capsys, mutations, seat):
    path = tmp_path / "policy.npz"
    _write_mutated(path, _policy_arrays(), mutations)
    drafters = [f"file:{path}", "random"] if seat == 0 else ["random", f"file:{path}"]
    argv = ["locm", "play", "--drafters", ",".join(drafters), "--seed", "3", "--json"]
    code, out, _ = run(capsys, argv)
    if code == 0:
        assert json.loads(out)["winner"] in (0, 1)
    _log("policy", argv, code)


@pytest.mark.slow
@pytest.mark.parametrize("command", ["play", "tournament"])
@pytest.mark.parametrize("case", ["fifo", "dev_zero", "directory", "missing", "empty", "zip_of_text"])
def test_hostile_policy_paths(tmp_path, case, command):
    path = tmp_path / "policy.npz"
    if case == "fifo":
        os.mkfifo(path)
    elif case == "dev_zero":
        path = "/dev/zero"
    elif case == "directory":
        path = tmp_path
    elif case == "empty":
        path.write_bytes(b"")
    elif case == "zip_of_text":
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("format.npy", "hello")
    argv = ["locm", command, "--drafters", f"file:{path},random"]
    if command == "tournament":  # the drafters' files are hashed into the store: read them only once checked
        argv += ["--matches", "2", "--out", tmp_path / "out", "--quiet"]
    done = _gamelp(*argv, cwd=tmp_path)
    check_contract(argv, done.returncode, done.stderr)
    assert done.returncode == 2
    _log("policy", argv, done.returncode)


# ---------------------------------------------------------------------- mtg forest caches
_FOREST_KEYS = sorted((*forest_module._ARRAYS, "life", "features"))


def _small_forest_arrays():
    from sklearn.ensemble import RandomForestClassifier

    rng = np.random.default_rng(0)
    X = rng.integers(-5, 30, size=(200, len(FEATURE_NAMES))).astype(float)
    y = (X[:, 0] + X[:, 7] - X[:, 20] > 12).astype(int)
    forest = Forest.from_sklearn(
        RandomForestClassifier(n_estimators=3, max_features="sqrt", random_state=1).fit(X, y), 12
    )
    return {
        "life": np.int64(12),
        "features": np.array(FEATURE_NAMES),
        **{name: getattr(forest, name) for name in forest_module._ARRAYS},
    }


@pytest.fixture(scope="module")
def small_forest():
    return _small_forest_arrays()


def _cache_with(root, arrays_12, mutations):
    """A trusted cache under ``root`` whose 12-life forest has ``mutations``; the 8- and 4-life ones are sound."""
    cache = forest_module.trusted_dir(root / "mtg")
    for t in (8, 4):
        np.savez(cache / cache_name(t, 1000, 0, 9), **{**arrays_12, "life": np.int64(t)})
    _write_mutated(cache / cache_name(12, 1000, 0, 9), arrays_12, mutations)
    return cache


@settings(FUZZ, max_examples=100)
@given(mutations=npz_mutations(_FOREST_KEYS))
def test_broken_forest_caches(tmp_path_factory, capsys, monkeypatch, small_forest, mutations):
    root = tmp_path_factory.mktemp("cache")
    _cache_with(root, small_forest, mutations)
    monkeypatch.setenv("GAMELP_CACHE", str(root))
    monkeypatch.setattr(forest_module, "_FORESTS", {})
    argv = ["mtg", "play", "--seed", "1"]
    code, out, _ = run(capsys, argv)
    if code == 0:
        assert "wins after" in out or "draw" in out
    _log("forest", argv, code)


@pytest.mark.slow
@pytest.mark.parametrize(
    "case",
    [
        "entry_fifo",
        "lock_fifo",
        "entry_directory",
        "lock_directory",
        "entry_dev_zero",
        "deep_300",
        "deep_over_limit",
        "threshold_inf",
        "cache_fifo",
    ],
)
def test_hostile_forest_caches(tmp_path, small_forest, case):
    if case == "cache_fifo":
        os.mkfifo(tmp_path / "pipe")
        argv = ["mtg", "play", "--seed", "1"]
        done = _gamelp(*argv, cwd=tmp_path, env=dict(os.environ, GAMELP_CACHE=str(tmp_path / "pipe")))
        check_contract(argv, done.returncode, done.stderr)
        assert done.returncode == 2 and "not a directory" in done.stderr
        _log("forest", argv, done.returncode)
        return
    cache = _cache_with(tmp_path, small_forest, [])
    entry, lock = cache / cache_name(12, 1000, 0, 9), cache / "forest_g1000_s0_n9.lock"
    if case.startswith("entry_"):
        entry.unlink()
    if case.endswith("_fifo"):
        os.mkfifo(entry if case.startswith("entry") else lock)
    elif case.endswith("_directory"):
        (entry if case.startswith("entry") else lock).mkdir()
    elif case == "entry_dev_zero":
        entry.symlink_to("/dev/zero")
    elif case.startswith("deep"):
        depth = 300 if case == "deep_300" else forest_module.MAX_TREE_DEPTH + 1
        n = 2 * depth + 1  # a chain: split k sends p1_life <= k + 0.5 to a leaf
        left, right = np.full(n, -1), np.full(n, -1)
        left[0:-1:2], right[0:-1:2] = np.arange(1, n, 2), np.arange(2, n, 2)
        threshold = np.where(left != -1, np.arange(n) / 2 + 0.5, -2.0)
        win = np.arange(n) % 4 == 1
        Forest(left, right, np.zeros(n, dtype=int), threshold, win.astype(float), [0], 12).save(entry)
    elif case == "threshold_inf":
        _write_mutated(entry, small_forest, [("threshold", "value", np.inf, 0)])
    argv = ["mtg", "play", "--seed", "1"]
    done = _gamelp(*argv, cwd=tmp_path, env=dict(os.environ, GAMELP_CACHE=str(tmp_path)))
    check_contract(argv, done.returncode, done.stderr)
    assert done.returncode == (0 if case == "deep_300" else 2), done.stderr
    _log("forest", argv, done.returncode)

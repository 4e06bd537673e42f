"""The binary game file (gamelp.binary): the same game as its JSON, through every command, and hostile files refused."""

import dataclasses
import io
import json
import re
import zipfile

import numpy as np
import pytest

from gamelp.binary import ArrayTreeplex, game_arrays, read_binary, save_arrays
from gamelp.cli import main
from gamelp.errors import GameFileError
from gamelp.game import load_game


@pytest.mark.parametrize("name", ["rps", "kuhn", "leduc", "leduc:3x2x3"])
def test_a_game_written_and_read_back_is_the_same_game(name, tmp_path):
    game = load_game(name)
    path = tmp_path / "game.npz"
    game.save(path)
    back = load_game(path)
    assert isinstance(back.pl1, ArrayTreeplex) and isinstance(back.pl2, ArrayTreeplex)
    assert back.to_json() == game.to_json()
    assert back.pl1.labels == game.pl1.labels and back.pl2.labels == game.pl2.labels
    for ours, theirs in ((back.pl1, game.pl1), (back.pl2, game.pl2)):
        assert np.array_equal(ours.parents, theirs.parents) and np.array_equal(ours.starts, theirs.starts)
        assert ours.decision_points == theirs.decision_points and ours.actions == theirs.actions
        assert ours.points == theirs.points
    assert (back.A != game.A).nnz == 0 and back.action_names == game.action_names
    # a game read from a binary file writes the same file again
    again = tmp_path / "again.npz"
    back.save(again)
    assert again.read_bytes() == path.read_bytes()


def test_the_summary_of_an_array_treeplex_matches_the_node_lists(tmp_path):
    game = load_game("leduc")
    game.save(tmp_path / "leduc.npz")
    back = load_game(tmp_path / "leduc.npz")
    assert back.pl1._summary() == game.pl1._summary() and back.pl2._summary() == game.pl2._summary()


def test_every_command_that_takes_a_game_reads_the_binary_file(tmp_path, capsys):
    path = tmp_path / "kuhn.npz"
    assert main(["export-game", "kuhn", "-o", str(path)]) == 0
    assert capsys.readouterr().out == f"wrote {path}: player 1 13 sequences, player 2 13, 30 utility entries\n"
    assert main(["validate", str(path)]) == 0
    assert "valid; player 1: 6 decision points, 13 sequences" in capsys.readouterr().out
    assert main(["solve", str(path), "--json"]) == 0
    solved = json.loads(capsys.readouterr().out)
    assert main(["solve", "kuhn", "--json"]) == 0
    built_in = json.loads(capsys.readouterr().out)
    assert solved["value"] == built_in["value"] and solved["strategy"] == built_in["strategy"]
    assert main(["export-game", str(path), "-o", str(tmp_path / "kuhn.json")]) == 0
    assert load_game(tmp_path / "kuhn.json").to_json() == load_game("kuhn").to_json()


# ---------------------------------------------------------------------------------------------------- hostile files
def _arrays(name="kuhn"):
    return game_arrays(load_game(name))


def _forged_npy(shape, dtype="<f8", data=b""):
    """A .npy member whose header declares ``shape`` and ``dtype``, then ``data`` (which may disagree)."""
    header = repr({"descr": dtype, "fortran_order": False, "shape": tuple(shape)}).encode("latin1")
    header += b" " * (-(len(header) + 11) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + data


def _with_member(path, arrays, name, raw: bytes):
    """Write ``arrays`` to ``path`` with the member ``name`` replaced by the bytes ``raw``."""
    buffer = io.BytesIO()
    np.savez(buffer, **{k: v for k, v in arrays.items() if k != name})
    with zipfile.ZipFile(buffer, "a") as archive:
        archive.writestr(f"{name}.npy", raw)
    path.write_bytes(buffer.getvalue())


def _changed(**changes):
    def make(path):
        arrays = _arrays()
        for key, value in changes.items():
            if value is None:
                del arrays[key]
            else:
                arrays[key] = value(arrays[key]) if callable(value) else value
        save_arrays(arrays, path)

    return make


def _truncated(path):
    save_arrays(_arrays(), path)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _pickled(path):
    arrays = _arrays()
    arrays["pl1_parent"] = np.array([{"__reduce__": "os.system"}, 1], dtype=object)
    np.savez(path, **arrays)


def _declared_beyond_data(path):
    _with_member(path, _arrays(), "utility_values", _forged_npy((10**6,), "<f8", b"\0" * 8))


def _wrong_version(path):
    save_arrays(_arrays() | {"version": np.array(2, dtype=np.int64)}, path)


def _swap(i, j):
    def swap(a):
        a = a.copy()
        a[[i, j]] = a[[j, i]]
        return a

    return swap


def _set(index, value):
    def set_(a):
        a = a.copy()
        a[index] = value
        return a

    return set_


HOSTILE = {
    "not a zip": (lambda p: p.write_bytes(b"hello"), "not a binary game file (File is not a zip file)"),
    "truncated": (_truncated, "not a binary game file ("),
    "wrong dtype": (
        _changed(pl1_parent=lambda a: a.astype(np.float64)),
        "array 'pl1_parent' is 1-d float64, expected 1-d int64",
    ),
    "declared beyond the data": (
        _declared_beyond_data,
        "its header declares 8,000,000 bytes of data, the file holds 8",
    ),
    "pickle-bearing object array": (_pickled, "array 'pl1_parent': it holds pickled objects, refused unread"),
    "missing arrays": (_changed(utility_values=None, pl2_kind=None), "no array 'utility_values', 'pl2_kind'"),
    "wrong format": (_changed(format=np.array("something else")), "format 'something else'"),
    "wrong version": (_wrong_version, "binary game file version 2; gamelp reads 1"),
    "2-d array": (_changed(pl2_edge=lambda a: a.reshape(1, -1)), "array 'pl2_edge' is 2-d int64"),
    "short array": (_changed(pl1_edge=lambda a: a[:-1]), "array pl1_edge has 6 entries for 7 nodes"),
    "unknown kind": (_changed(pl1_kind=_set(2, 7)), "node 'dJ/kb_pl1' has unknown kind 7"),
    "two roots": (
        _changed(pl1_parent=_set(3, -1)),
        "expected exactly one root (parent -1), the first node; found ['o_pl1', 'dQ_pl1']",
    ),
    "child before parent": (_changed(pl2_parent=_set(1, 5)), "node 'oJ_pl2' comes before its parent (position 5)"),
    "edge beyond the parent's outcomes": (
        _changed(pl1_edge=_set(1, 3)),
        "node 'dJ_pl1' hangs from outcome 3 of 'o_pl1', which has 3",
    ),
    "two nodes on one edge": (
        _changed(pl1_edge=_set(3, 0)),
        "nodes 'dJ_pl1' and 'dQ_pl1' both hang from edge ('o_pl1', 'J')",
    ),
    "duplicate id": (
        _changed(pl1_ids_utf8=lambda a: np.frombuffer(a.tobytes().replace(b"dQ_pl1", b"dJ_pl1"), np.uint8).copy()),
        "duplicate node id 'dJ_pl1' (positions 1 and 3)",
    ),
    "ids not UTF-8": (_changed(pl1_ids_utf8=_set(0, 0xFF)), "decision_problem_pl1: node ids: not UTF-8 text (byte 0)"),
    "ids ending beyond the data": (
        _changed(pl1_ids_ends=_set(-1, 10**6)),
        "the texts end at byte 1000000, the data holds",
    ),
    "no outcomes": (_changed(pl1_outcome_ends=_set(0, 0)), "node 'o_pl1' has 0 actions or signals"),
    "repeated outcome": (_changed(pl1_outcomes=_set(1, 0)), "lists 'J' twice among its outcomes"),
    "outcome beyond the names": (
        _changed(pl1_outcomes=_set(0, 99)),
        "node 'o_pl1' names outcome 99, not in the 7 names",
    ),
    "payoff column beyond the sequences": (
        _changed(utility_indices=_set(0, 13)),
        "entry 0 has column 13, not a sequence of player 2 (1..12)",
    ),
    "payoff repeated": (
        _changed(utility_indices=_swap(0, 1)),
        "entry 1 (dJ_pl1:k, dQ/k_pl2:k) comes after a larger column",
    ),
    "payoff pair twice": (
        _changed(utility_indices=_set(1, 5)),
        "entry 1 (dJ_pl1:k, dQ/k_pl2:k) repeats in its row; each pair once",
    ),
    "payoff not finite": (_changed(utility_values=_set(4, np.nan)), "has value nan, not a finite normal number"),
    "payoff subnormal": (_changed(utility_values=_set(4, 1e-310)), "has value 1e-310, not a finite normal number"),
    "payoff rows short": (_changed(utility_indptr=lambda a: a[:-1]), "utility_indptr has 13 entries, expected 14"),
    "payoff on the empty sequence": (_changed(utility_indptr=_set(1, 1)), "a payoff on player 1's empty sequence"),
    "action names unknown": (_changed(action_names_keys=np.array(["k", "b", "c", "x"])), "action_names names 'x'"),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_binary_file_is_refused_in_one_line_naming_the_file_and_the_fault(case, tmp_path):
    make, fault = HOSTILE[case]
    path = tmp_path / "game.npz"
    make(path)
    with pytest.raises(GameFileError) as refused:
        load_game(path)
    message = str(refused.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    assert fault in message, message


def test_a_member_beyond_the_size_limit_is_refused_before_its_data_is_read(tmp_path):
    path = tmp_path / "game.npz"
    save_arrays(_arrays("leduc"), path)
    with pytest.raises(GameFileError, match=re.escape(f"{path}: not a binary game file (array ")) as refused:
        read_binary(path, max_bytes=2**14)
    assert "more than the" in str(refused.value) and "bytes left of the limit" in str(refused.value)
    huge = tmp_path / "huge.npz"  # a header declaring 2^40 payoffs is refused under the documented limit itself
    _with_member(huge, _arrays(), "utility_values", _forged_npy((2**40,), "<f8", b"\0" * 8))
    with pytest.raises(GameFileError, match="8,796,093,022,208 bytes, more than the"):
        load_game(huge)


def test_the_command_line_refuses_a_hostile_binary_file_in_one_line(tmp_path, capsys):
    path = tmp_path / "game.npz"
    _pickled(path)
    assert main(["solve", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0 and f"{path}: not a binary game file" in err and "Traceback" not in err


def test_a_payoff_on_an_empty_sequence_cannot_be_written(tmp_path):
    game = load_game("kuhn")
    A = game.A.tolil()
    A[0, 1] = 1.0
    with pytest.raises(GameFileError, match="a payoff on the empty sequence cannot be written"):
        dataclasses.replace(game, A=A.tocsr()).save(tmp_path / "bad.npz")
    assert not (tmp_path / "bad.npz").exists()

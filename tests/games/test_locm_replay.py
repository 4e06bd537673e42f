"""Fidelity to the official referee: replaying its recorded LOCM 1.2 matches turn by turn."""

import dataclasses
import json
import lzma
from importlib import resources

import pytest

from gamelp.cli import main
from gamelp.errors import LocmError
from gamelp.games.locm.replay import read_consistency_file, replay_file, replay_match


def test_all_sixty_dev_matches_are_consistent():
    report = replay_file()
    assert (report.matches, report.consistent, report.mismatches) == (60, 60, [])
    assert report.turns_checked == 4450  # every recorded turn of both players, draft and battle


def test_a_changed_recorded_input_is_caught_at_its_turn():
    match = read_consistency_file()[0]
    index = 40  # a battle turn
    player, text, reply = match.turns[index]
    corrupted = text.replace("30 ", "29 ", 1)
    turns = match.turns[:index] + ((player, corrupted, reply),) + match.turns[index + 1:]
    checked, mismatch = replay_match(dataclasses.replace(match, turns=turns))
    assert checked == index + 1 and mismatch["player"] == player
    assert mismatch["expected"] == corrupted and mismatch["got"].rstrip() == text.rstrip()


def test_a_wrong_shuffle_seed_is_caught_in_the_first_battle_turn():
    match = read_consistency_file()[0]
    checked, mismatch = replay_match(dataclasses.replace(match, shuffle_seeds=(2, 1)))
    assert mismatch is not None and mismatch["turn"] == 30


def test_cli_replay_json(tmp_path, capsys):
    raw = resources.files("gamelp.games.locm").joinpath("data", "consistency-v1.2-dev.txt.xz").read_bytes()
    path = tmp_path / "two.txt"
    path.write_text("\n".join(lzma.decompress(raw).decode().splitlines()[:2]) + "\n")
    assert main(["locm", "replay", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report == {"matches": 2, "consistent": 2, "turns_checked": report["turns_checked"], "mismatches": []}
    assert report["turns_checked"] > 100


@pytest.mark.parametrize("content, fault", [
    ("hello\n", "line 1: not a referee match record"),
    ('{"errors": {}}\n', "line 1: not a referee match record"),
    ('{"errors": {"0": [], "1": []}, "outputs": {"0": [], "1": []}, "scores": {"0": 1, "1": 0}}\n',
     "line 1: missing draftChoicesSeed"),
])
def test_a_file_that_is_not_a_consistency_file_is_refused(tmp_path, capsys, content, fault):
    path = tmp_path / "bad.txt"
    path.write_text(content)
    with pytest.raises(LocmError, match=str(path)):
        read_consistency_file(path)
    assert main(["locm", "replay", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert fault in err and str(path) in err and len(err.splitlines()) == 1

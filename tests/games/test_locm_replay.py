"""Fidelity to the official referee: replaying its recorded LOCM 1.2 matches turn by turn."""

import dataclasses
import json
import lzma
import os
import re
from importlib import resources

import pytest

from gamelp.cli import main
from gamelp.games.errors import LocmError
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
    turns = match.turns[:index] + ((player, corrupted, reply),) + match.turns[index + 1 :]
    checked, mismatch = replay_match(dataclasses.replace(match, turns=turns))
    assert checked == index + 1 and mismatch["player"] == player
    assert mismatch["expected"] == corrupted and mismatch["got"].rstrip() == text.rstrip()


def test_a_wrong_shuffle_seed_is_caught_in_the_first_battle_turn():
    match = read_consistency_file()[0]
    _checked, mismatch = replay_match(dataclasses.replace(match, shuffle_seeds=(2, 1)))
    assert mismatch is not None and mismatch["turn"] == 30


def test_cli_replay_json(tmp_path, capsys):
    raw = resources.files("gamelp.games.locm").joinpath("data", "consistency-v1.2-dev.txt.xz").read_bytes()
    path = tmp_path / "two.txt"
    path.write_text("\n".join(lzma.decompress(raw).decode().splitlines()[:2]) + "\n")
    assert main(["locm", "replay", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report == {"matches": 2, "consistent": 2, "turns_checked": report["turns_checked"], "mismatches": []}
    assert report["turns_checked"] > 100


@pytest.mark.parametrize(
    "content, fault",
    [
        ("hello\n", "line 1: not a referee match record"),
        ('{"errors": {}}\n', "line 1: not a referee match record"),
        (
            '{"errors": {"0": [], "1": []}, "outputs": {"0": [], "1": []}, "scores": {"0": 1, "1": 0}}\n',
            "line 1: missing draftChoicesSeed",
        ),
    ],
)
def test_a_file_that_is_not_a_consistency_file_is_refused(tmp_path, capsys, content, fault):
    path = tmp_path / "bad.txt"
    path.write_text(content)
    with pytest.raises(LocmError, match=str(path)):
        read_consistency_file(path)
    assert main(["locm", "replay", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert fault in err and str(path) in err and len(err.splitlines()) == 1


def test_referee_recorded_matches_with_items_deck_outs_and_illegal_actions_are_consistent(monkeypatch):
    # Recorded from the official referee, with random bots that play items (the dev file never does).
    from gamelp.games.locm import engine
    from gamelp.games.locm.cards import locm12_cards

    types = locm12_cards().type
    applied, skipped, runes_lost = [], [], []
    apply, play, lose_rune = engine.State.apply, engine.State.play, engine.State._lose_rune

    def counting_apply(state, action):
        applied.append(types[state.base[action[1]]] if action[0] == engine.USE else -action[0])
        apply(state, action)

    def counting_play(state, action):
        done = play(state, action)
        if not done and action[0] != engine.PASS:
            skipped.append(action)
        return done

    def counting_lose_rune(state, player):
        runes_lost.append(player)
        lose_rune(state, player)

    monkeypatch.setattr(engine.State, "apply", counting_apply)
    monkeypatch.setattr(engine.State, "play", counting_play)
    monkeypatch.setattr(engine.State, "_lose_rune", counting_lose_rune)
    report = replay_file(resources.files("gamelp.games.locm") / "data" / "consistency-v1.2-items.txt.xz")
    assert (report.matches, report.consistent, report.mismatches) == (50, 50, [])
    assert all(applied.count(colour) >= 50 for colour in (1, 2, 3)), "green, red and blue items used"
    assert len(skipped) > 1000 and len(runes_lost) > 20


# ---- hostile files (issue 23, items 9 and 12) ----
_FRAMES = '"errors": {"0": ["x"], "1": []}, "outputs": {"0": ["PASS"], "1": []}'
_SEEDS = " draftChoicesSeed=1 shufflePlayer0Seed=2 shufflePlayer1Seed=3"


@pytest.mark.parametrize(
    "record, fault",
    [
        (
            '{"errors": {"0": 5, "1": []}, "outputs": {"0": [], "1": []}, "scores": {"0": 1, "1": 0}}',
            "errors['0'] must be a list of strings or nulls",
        ),
        (
            '{"errors": {"0": [5], "1": []}, "outputs": {"0": [], "1": []}, "scores": {"0": 1, "1": 0}}',
            "errors['0'] must be a list of strings or nulls",
        ),
        (
            '{"errors": {"0": ["x"], "1": []}, "outputs": {"0": [7], "1": []}, "scores": {"0": 1, "1": 0}}',
            "outputs['0'] must be a list of strings or nulls",
        ),
        ('{"errors": {"0": ["x"], "1": []}, "outputs": {"1": []}, "scores": {"0": 1, "1": 0}}', "no outputs['0']"),
        ("{" + _FRAMES + ', "scores": {"0": 1e400, "1": 0}}', "bad scores"),
        ("{" + _FRAMES + ', "scores": {"0": "a", "1": 0}}', "bad scores"),
        ("{" + _FRAMES + ', "scores": [1, 0]}', "bad scores"),
        ("{" + _FRAMES + "}", "bad scores"),
        ('{"errors": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
        ("{" + _FRAMES + ', "scores": {"0": 1, "1": 0', "not a referee match record"),  # a truncated line
        (
            "{" + _FRAMES + ', "scores": {"0": 1, "1": 0}}' + _SEEDS.replace("=1 ", "=" + "9" * 5000 + " "),
            "draftChoicesSeed='99999",
        ),
        (
            "{" + _FRAMES + ', "scores": {"0": 1, "1": 0}}' + _SEEDS.replace("=2 ", "=-9223372036854775809 "),
            "shufflePlayer0Seed='-9223372036854775809' is not a Java long",
        ),
        # Issue 45: an integer of more digits than Python converts was a ValueError traceback.
        ("{" + _FRAMES + ', "scores": {"0": ' + "9" * 5000 + ', "1": 0}}', "not a referee match record (Exceeds"),
    ],
)
def test_malformed_records_are_refused_in_one_line_naming_file_and_line(tmp_path, capsys, record, fault):
    path = tmp_path / "bad.txt"
    good = (
        lzma.decompress(
            resources.files("gamelp.games.locm").joinpath("data", "consistency-v1.2-dev.txt.xz").read_bytes()
        )
        .decode()
        .splitlines()[0]
    )
    path.write_text(good + "\n" + record + ("" if "Seed=" in record else _SEEDS) + "\n")
    with pytest.raises(LocmError, match=re.escape(f"{path}, line 2: ")) as error:
        read_consistency_file(path)
    assert fault in str(error.value)
    assert main(["locm", "replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{path}, line 2: " in err and fault in err


def test_a_fifo_or_a_device_is_refused_unread(tmp_path, capsys):
    os.mkfifo(tmp_path / "pipe.txt")  # opening it would wait for a writer forever
    for path, what in (
        (tmp_path / "pipe.txt", "a named pipe"),
        ("/dev/zero", "a special file"),
        (tmp_path, "a directory"),
    ):
        with pytest.raises(LocmError, match=re.escape(f"{path}: cannot read, it is {what}, not a regular file")):
            read_consistency_file(path)
        assert main(["locm", "replay", str(path)]) == 2
        assert capsys.readouterr().err.count("\n") == 1


def test_an_xz_bomb_is_refused_at_the_expanded_size_limit(tmp_path, monkeypatch):
    from gamelp.games.locm import replay

    monkeypatch.setattr(replay, "MAX_REPLAY_BYTES", 1 << 20)
    bomb = tmp_path / "bomb.txt.xz"
    bomb.write_bytes(lzma.compress(b"x" * (4 << 20)))  # 4 MiB in 600 bytes: one line, no newline
    with pytest.raises(LocmError, match=re.escape(f"{bomb}: more than 1 MiB of text once decompressed")):
        read_consistency_file(bomb)
    lines = tmp_path / "lines.txt.xz"
    lines.write_bytes(lzma.compress(b"\n" * (2 << 20)))  # blank lines: counted too
    with pytest.raises(LocmError, match="more than 1 MiB of text"):
        read_consistency_file(lines)
    plain = tmp_path / "plain.txt"
    plain.write_bytes(b"y" * ((1 << 20) + 1))
    with pytest.raises(LocmError, match=re.escape(f"{plain}: more than 1 MiB of text;")):
        read_consistency_file(plain)


def test_a_file_at_the_limit_is_read_and_a_bad_xz_file_is_refused(tmp_path, monkeypatch):
    from gamelp.games.locm import replay

    raw = resources.files("gamelp.games.locm").joinpath("data", "consistency-v1.2-dev.txt.xz").read_bytes()
    monkeypatch.setattr(replay, "MAX_REPLAY_BYTES", len(lzma.decompress(raw)))
    path = tmp_path / "dev.txt.xz"
    path.write_bytes(raw)
    assert len(read_consistency_file(path)) == 60
    path.write_bytes(raw[:1000])  # truncated
    with pytest.raises(LocmError, match=re.escape(f"{path}: cannot read the consistency file")):
        read_consistency_file(path)
    path.write_bytes(b"\xff\xfe not xz")
    with pytest.raises(LocmError, match=re.escape(f"{path}: cannot read the consistency file")):
        read_consistency_file(path)

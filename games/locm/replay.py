"""Replay the official referee's recorded matches and compare our input text with its, turn by turn.

A consistency file holds one match per line: the referee's JSON record, then
its seeds (``draftChoicesSeed=… shufflePlayer0Seed=… shufflePlayer1Seed=…``).
``errors["0"]``/``errors["1"]`` hold, frame by frame, the text the referee
sent each player (``null`` or empty where it sent none), ``outputs`` the
player's reply in the same frame.  We rebuild the draft offers and both
shuffles from the seeds, play every recorded reply (skipping illegal
actions as the referee does) and, at every turn, render the input for the
player to move and compare it with the recorded one (trailing whitespace at
the very end ignored: the recorder strips it); at the end, the winner must
be the recorded one.

Turns are numbered as the referee's game turns: 0..29 for the draft, then
30, 31, … for the battle turns of both players in order.
"""

from __future__ import annotations

import json
import lzma
import math
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from gamelp.errors import shown
from gamelp.games.errors import LocmError
from gamelp.games.locm.cards import ABILITY_STRINGS, CardTable, locm12_cards
from gamelp.games.locm.draft import DRAFT_TURNS, draft_offers, shuffled_deck
from gamelp.games.locm.engine import State, parse_actions
from gamelp.io import open_regular
from gamelp.players import other_seat

_SEED_PATTERN = re.compile(r"(draftChoicesSeed|shufflePlayer0Seed|shufflePlayer1Seed)=(-?\d+)")
MAX_REPLAY_BYTES = 64 << 20
"""Most text a consistency file may hold (decompressed): a referee match takes about 35 kB, so this is some
1,900 matches, and it bounds what an .xz file can expand to (an "xz bomb" of a few kB could otherwise fill the
memory). Lines are parsed as they are read; the JSON of one line may take some fifteen times its size in
memory, so this keeps a hostile file under about 1 GB."""
_CHUNK_BYTES = 1 << 20
_TEXT_LINE = re.compile(rb"^[ \t\r\f\v]*[^\s][^\n]*", re.MULTILINE)  # a line that is not blank (no backtracking)


@dataclass(frozen=True)
class RecordedMatch:
    """One referee match: its seeds and, per player, the (input, output) of each turn in order."""

    draft_seed: int
    shuffle_seeds: tuple[int, int]
    turns: tuple[tuple[int, str, str], ...]  # (player, input text, output text), in play order
    winner: int


@dataclass
class ReplayReport:
    """``consistent`` counts matches equal at every turn; ``mismatches`` the first differing turn of each other."""

    matches: int = 0
    consistent: int = 0
    turns_checked: int = 0
    mismatches: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        """The report as a JSON-ready dictionary."""
        return {
            "matches": self.matches,
            "consistent": self.consistent,
            "turns_checked": self.turns_checked,
            "mismatches": self.mismatches,
        }


def parse_match_line(line: str, where: str) -> RecordedMatch:
    """Parse one line of a consistency file; ``where`` names file and line in errors."""
    end = line.rfind("}")
    if end < 0:
        raise LocmError(f"{where}: not a referee match record (no JSON object)")
    try:
        record = json.loads(line[: end + 1])
    except (ValueError, RecursionError) as exc:  # ValueError: also an integer of more digits than Python converts
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc).splitlines()[0]
        raise LocmError(f"{where}: not a referee match record ({reason})") from None
    frames = [(_texts(record, "errors", p, where), _texts(record, "outputs", p, where)) for p in ("0", "1")]
    seeds = dict(_SEED_PATTERN.findall(line[end + 1 :]))
    if len(seeds) != 3:
        raise LocmError(f"{where}: missing draftChoicesSeed, shufflePlayer0Seed or shufflePlayer1Seed after the JSON")
    for key, digits in seeds.items():  # the referee's seeds are Java longs
        if len(digits) > 20 or not -(2**63) <= int(digits) < 2**63:
            raise LocmError(f"{where}: {key}={shown(digits)} is not a Java long (64-bit) seed")
    turns = []
    for index in range(max(len(frames[0][0]), len(frames[1][0]))):
        for player in (0, 1):
            inputs, replies = frames[player]
            text = inputs[index] if index < len(inputs) else None
            if text:
                reply = replies[index] if index < len(replies) else None
                turns.append((player, text, reply or ""))
    scores = record.get("scores")
    points = [scores.get(p) if isinstance(scores, dict) else None for p in ("0", "1")]
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in points):
        raise LocmError(f'{where}: bad scores {shown(scores)} (expected {{"0": number, "1": number}})')
    winner = 0 if points[0] > points[1] else 1
    return RecordedMatch(
        int(seeds["draftChoicesSeed"]),
        (int(seeds["shufflePlayer0Seed"]), int(seeds["shufflePlayer1Seed"])),
        tuple(turns),
        winner,
    )


def _texts(record: dict, key: str, player: str, where: str) -> list:
    """``record[key][player]``: the frames' texts, each a string or null; anything else is refused."""
    entry = record.get(key)
    if not isinstance(entry, dict) or player not in entry:
        raise LocmError(f"{where}: not a referee match record (no {key}[{player!r}])")
    texts = entry[player]
    if not isinstance(texts, list) or not all(t is None or isinstance(t, str) for t in texts):
        raise LocmError(f"{where}: {key}[{player!r}] must be a list of strings or nulls, got {shown(texts)}")
    return texts


def read_consistency_file(path: str | Path | None = None) -> list[RecordedMatch]:
    """Every match of a consistency file (``.xz`` read compressed); None reads the shipped dev file.

    Only a regular file is read (a pipe or a device could block or never end), line by line, and at most
    :data:`MAX_REPLAY_BYTES` of text (after decompression) is accepted.
    """
    if path is None:
        name = "consistency-v1.2-dev.txt"
        raw = resources.files("gamelp.games.locm").joinpath("data", "consistency-v1.2-dev.txt.xz").open("rb")
        compressed = True
    else:
        raw = open_regular(path, LocmError, "rb")
        name, compressed = str(path), str(path).endswith(".xz")
    with raw:
        stream = lzma.LZMAFile(raw) if compressed else raw  # noqa: SIM115 (closes with raw)
        try:
            matches = [parse_match_line(line, f"{name}, line {n}") for n, line in _lines(stream, name) if line.strip()]
        except (OSError, EOFError, lzma.LZMAError) as exc:
            raise LocmError(f"{name}: cannot read the consistency file ({exc})") from None
    if not matches:
        raise LocmError(f"{name}: no matches")
    return matches


def _lines(stream, name: str):
    """(number, text) of each line of ``stream`` that is not blank, refusing more than :data:`MAX_REPLAY_BYTES`.

    Read in chunks; blank lines are skipped by a regular expression, so a file of millions of them costs no
    more than one of a few long lines.
    """
    total, number, buffer = 0, 1, bytearray()
    while True:
        chunk = stream.read(_CHUNK_BYTES)
        total += len(chunk)
        if total > MAX_REPLAY_BYTES:
            raise LocmError(
                f"{name}: more than {MAX_REPLAY_BYTES >> 20} MiB of text"
                f"{' once decompressed' if name.endswith('.xz') else ''}; refused (split the file)"
            )
        if chunk:  # complete lines only: up to the chunk's last newline (searched in the chunk, not the buffer)
            end = len(buffer) + chunk.rfind(b"\n") + 1 if b"\n" in chunk else 0
        else:  # the end of the file: the last line, without a newline
            end = len(buffer)
        buffer += chunk
        start = 0
        for found in _TEXT_LINE.finditer(buffer, 0, end):
            number += buffer.count(b"\n", start, found.start())
            start = found.start()
            try:
                yield number, found.group().decode("utf-8")
            except UnicodeDecodeError:
                raise LocmError(f"{name}, line {number}: not text (not valid UTF-8)") from None
        if not chunk:
            return
        if end:
            number += buffer.count(b"\n", start, end)
            del buffer[:end]


def render_draft_input(cards: CardTable, player: int, turn: int, offer) -> str:
    """The referee's draft-turn text (``DraftPhase.getMockPlayersInput`` and the three cards)."""
    lines = [f"30 0 {turn} 25 0", f"30 0 {turn if player == 0 else turn + 1} 25 0", "0 0", "3"]
    for card_id in offer:
        i = cards.index(int(card_id))
        lines.append(
            f"{card_id} -1 0 {cards.type[i]} {cards.cost[i]} {cards.attack[i]} {cards.defense[i]} "
            f"{ABILITY_STRINGS[cards.abilities[i]]} {cards.player_hp[i]} {cards.enemy_hp[i]} "
            f"{cards.card_draw[i]} -1 "
        )
    return "\n".join(lines) + "\n"


def _draft_choice(reply: str, offer) -> int:
    """``PICK n``, ``PASS`` (the first card) or ``CHOOSE id`` as an index into the offer."""
    words = reply.split()
    if words and words[0] == "PASS":
        return 0
    if len(words) >= 2 and words[0] == "PICK" and words[1] in ("0", "1", "2"):
        return int(words[1])
    if len(words) >= 2 and words[0] == "CHOOSE" and words[1].lstrip("-").isdigit() and int(words[1]) in offer:
        return list(offer).index(int(words[1]))
    raise ValueError(f"invalid draft action {reply.strip()!r}")


def replay_match(match: RecordedMatch, cards: CardTable | None = None) -> tuple[int, dict | None]:
    """Replay one match; returns (turns checked, the first mismatch or None)."""
    cards = cards or locm12_cards()
    offers = draft_offers(match.draft_seed).tolist()
    decks: tuple[list[int], list[int]] = ([], [])
    picks_made = [0, 0]
    state = None
    checked = 0
    winner = -1
    for player, expected, reply in match.turns:
        if picks_made[player] < DRAFT_TURNS:
            turn = picks_made[player]
            got = render_draft_input(cards, player, turn, offers[turn])
        else:
            if state is None:
                state = State.new(*(shuffled_deck(decks[p], match.shuffle_seeds[p]) for p in (0, 1)), cards=cards)
            state.start_turn()
            turn = DRAFT_TURNS + state.turn
            got = state.render() if state.current == player else f"(player {state.current} to move)"
        checked += 1
        if got.rstrip() != expected.rstrip():
            return checked, {"turn": turn, "player": player, "expected": expected, "got": got}
        if state is None:
            try:
                choice = _draft_choice(reply, offers[turn])
            except ValueError:  # the referee ends the match: the player loses
                winner = other_seat(player)
                break
            decks[player].append(offers[turn][choice])
            picks_made[player] += 1
            continue
        try:
            actions = parse_actions(reply)
        except ValueError:  # the referee ends the match: the player loses
            winner = other_seat(player)
            break
        for action in actions:
            if state.winner >= 0:  # decided at the turn's start, or by the previous action
                break
            state.play(action)
        winner = state.winner
        if winner >= 0:
            break
    if winner != match.winner:
        return checked, {
            "turn": "end",
            "player": match.winner,
            "expected": f"winner {match.winner}",
            "got": f"winner {winner}",
        }
    return checked, None


def replay_file(path: str | Path | None = None, cards: CardTable | None = None) -> ReplayReport:
    """Replay every match of a consistency file (None: the shipped dev file) with ``cards`` (None: LOCM 1.2's)."""
    report = ReplayReport()
    for number, match in enumerate(read_consistency_file(path)):
        checked, mismatch = replay_match(match, cards)
        report.matches += 1
        report.turns_checked += checked
        if mismatch is None:
            report.consistent += 1
        else:
            report.mismatches.append({"match": number, **mismatch})
    return report

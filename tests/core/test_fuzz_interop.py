"""Fuzzing the interop surfaces: Gambit ``.nfg``/``.efg`` files and OpenSpiel game strings (issue 23).

Three kinds of cases, each ending in a one-line refusal (exit 2) or a right answer, within a time limit:

* hostile files and game strings by hand (:data:`CASES`), each run as a subprocess with a timeout, where a hang,
  a segfault or a traceback would show, with the outcome it must have and, for an answer, the value;
* generated ``.nfg``/``.efg`` files: seed games with one to four tokens replaced, deleted or repeated, run
  in-process under the watchdog of :mod:`test_fuzz`; an answer is checked against Gambit's own LP (pygambit)
  when Gambit reads the file too, and is finite otherwise;
* generated OpenSpiel game strings from names, parameters and brackets, in-process likewise.

With ``GAMELP_FUZZ_TALLY=FILE`` each case appends its outcome to FILE (the closing note's table).
"""

import json
import math
import os
import re
import subprocess
import sys
import time
from fractions import Fraction

import pytest
from conftest import deep_efg
from hypothesis import given, settings
from hypothesis import strategies as st
from test_fuzz import FUZZ, check_contract, run  # tests/core is on the path: pytest prepends the test's directory

from gamelp.games.gambit import _TOKEN

TIME_LIMIT = 60  # seconds a subprocess case may take before it counts as a hang


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


HAS_OPENSPIEL, HAS_PYGAMBIT = _has("pyspiel"), _has("pygambit")


def tally(outcome: str, case: str) -> None:
    if os.environ.get("GAMELP_FUZZ_TALLY"):
        with open(os.environ["GAMELP_FUZZ_TALLY"], "a", encoding="utf-8") as out:
            out.write(f"{outcome}\t{case[:100]!r}\n")


# ---------------------------------------------------------------------- seeds
PENNIES_NFG = 'NFG 1 R "pennies" { "P1" "P2" } { 2 2 }\n""\n1 -1 -1 1 -1 1 1 -1\n'
OUTCOME_NFG = (
    'NFG 1 R "outcomes" { "P1" "P2" } { { "a" "b" } { "x" "y" "z" } }\n""\n'
    '{ { "" 1, -1 } { "" -1/2, 1/2 } { "" 2 -2 } }\n1 2 3 0 2 1\n'
)
# Chance deals High or Low; player 1 sees it and bets or folds; player 2 calls or folds a bet (value 8/9 with
# the ante of 1 on the deal node).  Every terminal spells out its outcome, as Gambit itself requires.
BLUFF_EFG = """EFG 2 R "Bluff" { "Player 1" "Player 2" }
""
c "deal" 1 "" { "High" 1/3 "Low" 2/3 } 1 "ante" { 1, -1 }
p "" 1 1 "H" { "bet" "fold" } 0
p "" 2 1 "facing a bet" { "call" "fold" } 0
t "" 2 "win 2" { 2, -2 }
t "" 3 "win 1" { 1, -1 }
t "" 4 "lose 1" { -1, 1 }
p "" 1 2 "L" { "bet" "fold" } 0
p "" 2 1 "facing a bet" { "call" "fold" } 0
t "" 5 "lose 2" { -2, 2 }
t "" 3 "win 1" { 1, -1 }
t "" 4 "lose 1" { -1, 1 }
"""


def _efg(*nodes: str, players: str = '"a" "b"') -> str:
    return f'EFG 2 R "" {{ {players} }}\n""\n' + "\n".join(nodes) + "\n"


def _nfg(strategies: str, body: str, players: str = '"a" "b"') -> str:
    return f'NFG 1 R "" {{ {players} }} {strategies}\n""\n{body}\n'


_P1 = 'p "" 1 1 "" { "x" "y" } 0'
_P2 = 'p "" 2 1 "" { "u" } 0'

# (id, kind, content, expected): kind "nfg"/"efg" is a file's text (or "fifo", "directory", "device"), kind
# "openspiel" a game string for `solve`, "export" a game string for `export-game -o x.efg`.  expected is
# "refusal" or a value (player 1's, to 1e-6 relative); for export, "answer" (the file reads back).
CASES = [
    ("nfg 1e400", "nfg", _nfg("{ 1 1 }", "1e400 -1e400"), "refusal"),
    ("nfg 1e999999999", "nfg", _nfg("{ 1 1 }", "1e999999999 -1e999999999"), "refusal"),
    ("nfg -1e999999999", "nfg", _nfg("{ 1 1 }", "-1e999999999 1e999999999"), "refusal"),
    ("nfg nan", "nfg", _nfg("{ 1 1 }", "nan nan"), "refusal"),
    ("nfg inf", "nfg", _nfg("{ 1 1 }", "inf -inf"), "refusal"),
    ("nfg 400 digits", "nfg", _nfg("{ 1 1 }", "9" * 400 + " -" + "9" * 400), "refusal"),
    ("nfg 5000 digits", "nfg", _nfg("{ 1 1 }", "1" * 5000 + " -" + "1" * 5000), "refusal"),
    ("nfg 5000-digit exponent", "nfg", _nfg("{ 1 1 }", "1e" + "9" * 5000 + " 0"), "refusal"),
    ("nfg outcome 1e999999999", "nfg", _nfg("{ 1 1 }", '{ { "" 1e999999999, -1e999999999 } }\n1'), "refusal"),
    ("nfg 100000 x 100000", "nfg", _nfg("{ 100000 100000 }", "1 -1"), "refusal"),
    ("nfg 3000 x 3000, 2 payoffs", "nfg", _nfg("{ 3000 3000 }", "1 -1"), "refusal"),
    ("nfg 2000 x 2000 outcomes, 3 numbers", "nfg", _nfg("{ 2000 2000 }", '{ { "" 1 -1 } }\n1 1 1'), "refusal"),
    ("nfg 5000-digit strategy count", "nfg", _nfg("{ 1" + "0" * 5000 + " 1 }", "1 -1"), "refusal"),
    ("nfg 1/0", "nfg", _nfg("{ 1 1 }", "1/0 0"), "refusal"),
    ("nfg 1_000", "nfg", _nfg("{ 1 1 }", "1_000 -1_000"), "refusal"),
    ("nfg one player", "nfg", _nfg("{ 1 }", "1", players='"solo"'), "refusal"),
    ("nfg three players", "nfg", _nfg("{ 1 1 1 }", "0 0 0", players='"a" "b" "c"'), "refusal"),
    ("nfg general-sum", "nfg", _nfg("{ 1 2 }", "1 1 0 0"), "refusal"),
    ("nfg constant-sum", "nfg", _nfg("{ 1 2 }", "3 1 2 2"), 2.0),  # issue 45: u1 + u2 = 4; the value with it
    ("nfg strategies named alike", "nfg", _nfg('{ { "" "" } { "1" "1" } }', "0 0 0 0 0 0 0 0"), 0.0),
    ("nfg truncated", "nfg", PENNIES_NFG[:40], "refusal"),
    ("nfg empty", "nfg", "", "refusal"),
    ("nfg not UTF-8", "nfg", b"NFG 1 R \xff\xfe", "refusal"),
    ("nfg named pipe", "fifo", ".nfg", "refusal"),
    ("nfg directory", "directory", ".nfg", "refusal"),
    ("nfg /dev/zero", "device", ".nfg", "refusal"),
    ("nfg zeros with huge exponents", "nfg", _nfg("{ 1 2 }", "0e999999999 0 1e-999999999 -1e-999999999"), 0.0),
    ("nfg 1.5e300", "nfg", _nfg("{ 1 1 }", "1.5e300 -15e299"), 1.5e300),
    ("nfg pennies", "nfg", PENNIES_NFG, 0.0),
    ("nfg outcome version", "nfg", OUTCOME_NFG, 0.25),  # by hand: both mix halves (x and z for player 2)
    ("efg 1e400", "efg", _efg(_P1, _P2, 't "" 1 "" { 1e400, -1e400 }', 't "" 0'), "refusal"),
    ("efg 1e999999999", "efg", _efg(_P1, _P2, 't "" 1 "" { 1e999999999, -1e999999999 }', 't "" 0'), "refusal"),
    ("efg nan", "efg", _efg(_P1, _P2, 't "" 1 "" { nan, nan }', 't "" 0'), "refusal"),
    ("efg chance 1e999999999", "efg", _efg('c "" 1 "" { "x" 1e999999999 } 0', 't "" 0'), "refusal"),
    (
        "efg chance 1e-999999999",
        "efg",
        _efg(
            'c "" 1 "" { "x" 1e-999999999 "y" 1 } 0',
            _P1,
            _P2,
            't "" 1 "" { 5, -5 }',
            't "" 0',
            _P1,
            _P2,
            't "" 2 "" { 1, -1 }',
            't "" 0',
        ),
        1.0,
    ),
    (
        "efg path sum beyond float",
        "efg",
        _efg('p "" 1 1 "" { "x" } 1 "" { 1e308, -1e308 }', 'p "" 2 1 "" { "u" } 1', 't "" 1'),
        "refusal",
    ),
    ("efg 5000-digit infoset number", "efg", _efg('p "" 1 1' + "0" * 5000 + ' "" { "x" } 0', 't "" 0'), "refusal"),
    ("efg deep 5000", "efg", deep_efg(5000), 5000.0),
    ("efg deep chance 3000", "efg", deep_efg(3000, chance=True), 1.0),
    ("efg deep 100000 braces", "efg", _efg("{ " * 100_000), "refusal"),
    ("efg one player", "efg", _efg('p "" 1 1 "" { "x" } 0', 't "" 1 "" { 1 }', players='"solo"'), "refusal"),
    ("efg no players", "efg", _efg('t "" 0', players=""), "refusal"),
    ("efg three players", "efg", _efg('t "" 0', players='"a" "b" "c"'), "refusal"),
    ("efg player 2 never acts", "efg", _efg(_P1, 't "" 1 "" { 1, -1 }', 't "" 0'), "refusal"),
    (
        "efg imperfect recall",
        "efg",
        _efg(_P1, 'p "" 1 2 "" { "u" "v" } 0', 't "" 0', 't "" 0', 'p "" 1 2 "" { "u" "v" } 0', 't "" 0', 't "" 0'),
        "refusal",
    ),
    ("efg infoset before its actions", "efg", _efg('p "" 1 1 "" 0', 't "" 0'), "refusal"),
    ("efg outcome before its payoffs", "efg", _efg(_P1, _P2, 't "" 7', 't "" 0'), "refusal"),
    ("efg not a distribution", "efg", _efg('c "" 1 "" { "x" 1/2 "y" 1/3 } 0', 't "" 0', 't "" 0'), "refusal"),
    ("efg negative probability", "efg", _efg('c "" 1 "" { "x" -1 "y" 2 } 0', 't "" 0', 't "" 0'), "refusal"),
    ("efg truncated", "efg", BLUFF_EFG[:300], "refusal"),
    ("efg text after the tree", "efg", BLUFF_EFG + 't "" 0\n', "refusal"),
    ("efg named pipe", "fifo", ".efg", "refusal"),
    ("efg /dev/zero", "device", ".efg", "refusal"),
    ("efg bluff", "efg", BLUFF_EFG, 8 / 9),
]
OPENSPIEL_CASES = [
    ("openspiel chess", "openspiel", "chess", "refusal"),
    ("openspiel go", "openspiel", "go", "refusal"),
    ("openspiel oshi_zumo", "openspiel", "oshi_zumo", "refusal"),
    ("openspiel goofspiel 10^6 cards", "openspiel", "goofspiel(num_cards=1000000)", "refusal"),
    ("openspiel liars_dice 10^6 dice", "openspiel", "liars_dice(numdice=1000000)", "refusal"),
    (
        "openspiel 3000 nested games",
        "openspiel",
        "turn_based_simultaneous_game(game=" * 3_000 + "matrix_rps" + ")" * 3_000,
        "refusal",
    ),  # argv holds 128 kB
    ("openspiel unknown game", "openspiel", "no_such_game", "refusal"),
    ("openspiel empty", "openspiel", "", "refusal"),
    ("openspiel three players", "openspiel", "kuhn_poker(players=3)", "refusal"),
    ("openspiel bad parameter", "openspiel", "kuhn_poker(players=x)", "refusal"),
    ("openspiel unclosed", "openspiel", "kuhn_poker((", "refusal"),
    ("openspiel general-sum", "openspiel", "first_sealed_auction", "refusal"),
    ("openspiel efg from a pipe", "openspiel", "efg_game(filename={fifo})", "refusal"),
    ("openspiel efg from /dev/zero", "openspiel", "efg_game(filename=/dev/zero)", "refusal"),
    ("openspiel nfg from /dev/zero", "openspiel", "nfg_game(filename=/dev/zero)", "refusal"),
    ("openspiel nfg_game without a file", "openspiel", "nfg_game", "refusal"),  # issue 45: IndexError map::at
    ("openspiel efg_game without a file", "openspiel", "efg_game", "refusal"),
    ("openspiel efg missing", "openspiel", "efg_game(filename={tmp}/missing.efg)", "refusal"),
    ("openspiel deep efg", "openspiel", "efg_game(filename={deep})", 3000.0),
    ("openspiel kuhn", "openspiel", "kuhn_poker", -1 / 18),
    ("openspiel matrix_rps", "openspiel", "matrix_rps", 0.0),
    ("openspiel goofspiel 3", "openspiel", "goofspiel(num_cards=3)", 0.0),
    ("export chess", "export", "chess", "refusal"),
    ("export liars_dice", "export", "liars_dice", "answer"),
    ("export leduc", "export", "leduc_poker", "answer"),
]


def _gamelp(argv, cwd):
    return subprocess.run(
        [sys.executable, "-m", "gamelp.cli", *argv], capture_output=True, text=True, timeout=TIME_LIMIT, cwd=cwd
    )


def _prepare(tmp_path, kind, content):
    """The command line of a case, with its input written under ``tmp_path``."""
    deep = tmp_path / "deep.efg"
    deep.write_text(deep_efg(3000), encoding="utf-8")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    if kind in ("openspiel", "export"):
        game = "openspiel:" + content.format(fifo=fifo, tmp=tmp_path, deep=deep)
        if kind == "export":
            return ["export-game", game, "-o", str(tmp_path / "out.efg")]
        return ["solve", game, "--json"]
    if kind == "fifo":
        path = tmp_path / f"pipe{content}"
        os.mkfifo(path)
    elif kind == "directory":
        path = tmp_path / f"dir{content}"
        path.mkdir()
    elif kind == "device":
        path = tmp_path / f"zero{content}"
        path.symlink_to("/dev/zero")
    else:
        path = tmp_path / f"game.{kind}"
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    suffix = path.suffix
    return ["matrix", "solve", str(path), "--json"] if suffix == ".nfg" else ["solve", str(path), "--json"]


def _outcome(argv, done, expected, tmp_path) -> str:
    """The case's outcome: "refusal", "answer", "traceback" or "wrong" (a hang raises TimeoutExpired)."""
    if "Traceback" in done.stderr or done.returncode not in (0, 2):
        return "traceback"
    check_contract(argv, done.returncode, done.stderr)
    if done.returncode == 2:
        return "refusal" if expected == "refusal" else "wrong"
    if expected == "refusal":
        return "wrong"
    if expected == "answer":  # export-game: the file written reads back
        from gamelp.game import load_game

        return "answer" if load_game(tmp_path / "out.efg").pl1.num_sequences > 1 else "wrong"
    value = json.loads(done.stdout)["value"]
    return "answer" if math.isclose(value, expected, rel_tol=1e-6, abs_tol=1e-9) else "wrong"


def _cases():
    for case in CASES:
        yield pytest.param(*case, id=case[0])
    for case in OPENSPIEL_CASES:
        yield pytest.param(*case, id=case[0], marks=pytest.mark.skipif(not HAS_OPENSPIEL, reason="no OpenSpiel"))


@pytest.mark.slow
@pytest.mark.parametrize("name, kind, content, expected", list(_cases()))
def test_hostile_cases_are_refused_in_one_line_or_answered_right(tmp_path, name, kind, content, expected):
    argv = _prepare(tmp_path, kind, content)
    started = time.perf_counter()
    try:
        done = _gamelp(argv, cwd=tmp_path)
    except subprocess.TimeoutExpired:
        tally("hang", name)
        raise
    outcome = _outcome(argv, done, expected, tmp_path)
    tally(outcome, f"{name} ({time.perf_counter() - started:.1f} s)")
    assert outcome == ("refusal" if expected == "refusal" else "answer"), (
        name,
        done.returncode,
        done.stderr,
        done.stdout[-300:],
    )


# ---------------------------------------------------------------------- generated files
_REPLACEMENTS = [
    "1e400",
    "-1e400",
    "1e999999999",
    "-1e999999999",
    "1e-999999999",
    "0e999999999",
    "nan",
    "inf",
    "-inf",
    "9" * 400,
    "1" * 5000,
    "1/0",
    "1/3",
    "-1/3",
    "0",
    "1",
    "2",
    "-1",
    "3",
    "100000",
    "{",
    "}",
    '""',
    '"x"',
    "p",
    "c",
    "t",
    "1e308",
    "-1e308",
    "1.5",
    ".",
    "e5",
    "1_000",
    "\uff11",
    ",",
    "{ }",
    "{ " * 3000,
]


# Two numbers in a row: a payoff pair (u1, u2) of a profile or an outcome, or a strategy count pair.
_PAIR = re.compile(r"(?<=[\s{])(-?[\d./]+),? (-?[\d./]+)(?=[\s}])")
_PAYOFFS = [
    "0",
    "1",
    "2",
    "-3",
    "1/3",
    "2.5",
    "1e-5",
    "123456789/7",
    "1e300",
    "1.7e308",
    "1e400",
    "1e999999999",
    "1e-999999999",
    "0e999999999",
    "9" * 400,
    "nan",
]


@st.composite
def broken_gambit_files(draw):
    """A seed game with one to four changes: a payoff pair set to (v, -v), or a token replaced, deleted or
    repeated (most of these break the syntax; the pairs keep games that both Gambit and gamelp solve)."""
    kind, text = draw(st.sampled_from([("nfg", PENNIES_NFG), ("nfg", OUTCOME_NFG), ("efg", BLUFF_EFG)]))
    for _ in range(draw(st.integers(1, 4))):
        how = draw(st.sampled_from(["pair", "pair", "pair", "replace", "delete", "repeat"]))
        if how == "pair":
            target = draw(st.sampled_from(list(_PAIR.finditer(text))))
            value = draw(st.sampled_from(_PAYOFFS))
            new = f"{value} {value[1:] if value.startswith('-') else '-' + value}"
        else:
            target = draw(st.sampled_from(list(_TOKEN.finditer(text))))
            new = {
                "replace": draw(st.sampled_from(_REPLACEMENTS)),
                "delete": "",
                "repeat": target.group() + " " + target.group(),
            }[how]
        text = text[: target.start()] + new + text[target.end() :]
    return kind, text


def _modest(text: str) -> bool:
    """Whether every number in ``text`` is short and between 1e-9 and 1e9 in magnitude (or 0): Gambit's LP
    takes minutes on the others, and its tolerances are not meant for them."""
    for word in re.findall(r"[^\s{},\"]+", text.split("\n", 2)[-1]):
        if len(word) > 20:  # before any conversion: Fraction("1e999999999") is the very hang of issue 23
            return False
        try:
            value = abs(float(Fraction(word))) if "/" in word else abs(float(word))
        except (ValueError, ZeroDivisionError):
            continue
        if not value <= 1e9 or 0 < value < 1e-9:
            return False
    return True


_GAMBIT_LP = """import sys
import pygambit as gbt
path, kind = sys.argv[1:]
game = gbt.read_nfg(path) if kind == "nfg" else gbt.read_efg(path)
solved = gbt.nash.lp_solve(game, rational=False, **({} if kind == "nfg" else {"use_strategic": False}))
print(float(list(dict(solved.equilibrium.payoffs).values())[0]))
"""


def _gambit_value(path, kind):
    """Player 1's equilibrium payoff by Gambit's own LP, or None when Gambit does not read or solve the file
    (or its numbers are not modest).  In a subprocess: Gambit's reader can take minutes on a file gamelp reads."""
    if not HAS_PYGAMBIT or not _modest(path.read_text(encoding="utf-8")):
        return None
    try:
        done = subprocess.run(
            [sys.executable, "-c", _GAMBIT_LP, str(path), kind], capture_output=True, text=True, timeout=30
        )
    except subprocess.TimeoutExpired:
        return None
    return float(done.stdout) if done.returncode == 0 else None


@pytest.mark.slow
@pytest.mark.skipif(not HAS_PYGAMBIT, reason="no pygambit")
@pytest.mark.parametrize(
    "kind, text, value", [("nfg", PENNIES_NFG, 0.0), ("nfg", OUTCOME_NFG, 0.25), ("efg", BLUFF_EFG, 8 / 9)]
)
def test_the_gambit_oracle_solves_the_seeds(tmp_path, kind, text, value):
    """The check of generated answers is live: Gambit reads and solves every seed game."""
    path = tmp_path / f"seed.{kind}"
    path.write_text(text, encoding="utf-8")
    assert _gambit_value(path, kind) == pytest.approx(value, abs=1e-9)


@pytest.mark.slow
@settings(FUZZ, max_examples=200)
@given(case=broken_gambit_files())
def test_broken_gambit_files(tmp_path, capsys, case):
    kind, text = case
    path = tmp_path / f"game.{kind}"
    path.write_text(text, encoding="utf-8")
    argv = ["matrix", "solve", str(path), "--json"] if kind == "nfg" else ["solve", str(path), "--json"]
    code, out, _ = run(capsys, argv)
    if code == 2:
        tally("refusal", text)
        return
    value = json.loads(out)["value"]
    theirs = _gambit_value(path, kind)
    right = math.isfinite(value) and (theirs is None or math.isclose(value, theirs, rel_tol=1e-6, abs_tol=1e-6))
    tally("answer" if right else "wrong", ("[= Gambit] " if theirs is not None else "[finite] ") + text)
    assert right, (text, value, theirs)


# ---------------------------------------------------------------------- generated game strings
_NAMES = [
    "kuhn_poker",
    "leduc_poker",
    "goofspiel",
    "liars_dice",
    "chess",
    "matrix_rps",
    "tiny_hanabi",
    "efg_game",
    "turn_based_simultaneous_game",
    "first_sealed_auction",
    "kuhn_pokr",
    "",
    "go",
    "oshi_zumo",
]
_PARAMETERS = ["players", "num_cards", "numdice", "dice_sides", "filename", "game", "board_size", "x", ""]
_VALUES = [
    "2",
    "3",
    "0",
    "-1",
    "1000000",
    "x",
    "",
    "true",
    "1e400",
    "/dev/zero",
    "kuhn_poker",
    "matrix_rps",
    "kuhn_poker(players=2)",
    "(",
    ")",
    ",",
    "=",
]


@st.composite
def game_strings(draw):
    name = draw(st.sampled_from(_NAMES))
    parameters = draw(st.lists(st.tuples(st.sampled_from(_PARAMETERS), st.sampled_from(_VALUES)), max_size=3))
    text = name + (("(" + ",".join(f"{key}={value}" for key, value in parameters) + ")") if parameters else "")
    return text + draw(st.sampled_from(["", ")", "(", "((", ",", "(" * 200 + ")" * 200]))


@pytest.mark.skipif(not HAS_OPENSPIEL, reason="no OpenSpiel")
@settings(FUZZ, max_examples=80)
@given(game=game_strings())
def test_generated_openspiel_game_strings(capsys, game):
    code, out, _ = run(capsys, ["solve", f"openspiel:{game}", "--json"])
    if code == 0:
        value = json.loads(out)["value"]
        assert math.isfinite(value), (game, value)
    tally("refusal" if code == 2 else "answer", game)

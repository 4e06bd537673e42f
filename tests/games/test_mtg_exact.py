"""The C search of the mini Magic game against the Python engine and search it re-states, and its Python twin."""

import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamelp.games.mtg import deck as mtg_deck
from gamelp.games.mtg import engine as mtg_engine
from gamelp.games.mtg import exact as exact_module
from gamelp.games.mtg.deck import CARD_LETTERS
from gamelp.games.mtg.engine import OVER, PHASE, TURN, Game, Rules, lives, winner
from gamelp.games.mtg.exact import (
    C_RULE_FIELDS,
    exact_value,
    exact_value_python,
    legal_moves,
    legal_moves_python,
    play_exact,
    play_exact_python,
    step,
    step_python,
)
from gamelp.games.mtg.match import GameSettings, play_game
from gamelp.games.mtg.search import CapReached, Searcher

EXACT_PLAY = GameSettings(life_threshold=0, evaluation="life")  # two perfect players to the end: the C search

DECKS = ("8C24L", "4C32L", "0C40L", "8C8L", "4C12L", "0C56L")
RULE_VARIANTS = (
    Rules(),
    Rules(first_player_draws=True),
    Rules(instant_bolts=False),
    Rules(starting_life=7, max_hand=3, bolt_damage=2, devil_power=3, life_payment=2),
)


def random_walk(rules: Rules, seed: int):
    """Every state of one game of random moves, with its deal."""
    rng = np.random.default_rng(seed)
    deck0, deck1 = rng.choice(DECKS, 2)
    game, state = Game.deal(deck0, deck1, rng, int(rng.integers(2)), rules)
    states = [state]
    while state[PHASE] != OVER:
        moves = game.legal_moves(state)
        state = game.step(state, moves[rng.integers(len(moves))])
        states.append(state)
    return game, states


@pytest.mark.parametrize("rules", RULE_VARIANTS)
def test_c_engine_makes_every_transition_the_python_engine_makes(rules):
    transitions = 0
    for seed in range(25):
        game, states = random_walk(rules, seed)
        for state in states:
            moves = game.legal_moves(state)
            assert legal_moves(game, state) == moves
            for move in moves:
                assert step(game, state, move) == game.step(state, move)
                transitions += 1
    assert transitions > 1_000


def test_c_engine_refuses_an_illegal_move_and_a_malformed_state():
    game, state = Game.deal("8C24L", "0C40L", np.random.default_rng(0))
    with pytest.raises(ValueError, match="not legal"):
        step(game, state, "B")
    with pytest.raises(ValueError, match="26 fields"):
        legal_moves(game, state[:-1])


@pytest.mark.parametrize("functions", [(legal_moves, exact_value), (legal_moves_python, exact_value_python)])
@pytest.mark.parametrize(
    "field, value, name",
    [(6, 128, "player 0's LIFE"), (16, -129, "player 1's LIFE"), (2, 200, "TURN"), (21, 255, "player 1's LANDS")],
)
def test_a_state_field_the_table_keys_byte_cannot_hold_is_refused_by_name(functions, field, value, name):
    """The table key holds a field in one signed byte: -128..127. A value outside would share its key with another
    state's (200 with -56), so the C glue refuses it, naming the field, and the Python twin alike."""
    game, state = Game.deal("8C24L", "0C40L", np.random.default_rng(0))
    for edge in (-128, 127):  # the byte's ends pass the check (and are refused, if at all, by the rules)
        legal_moves(game, state[:field] + (edge,) + state[field + 1 :])
    bad = state[:field] + (value,) + state[field + 1 :]
    message = f"state field {field} ({name}) = {value} lies outside -128..127, what the table key's byte holds"
    for function in functions:
        with pytest.raises(ValueError, match=re.escape(message)):
            function(game, bad)


def test_a_smaller_table_gives_the_same_values():
    """table_bits sizes the table only: a table of 256 entries keeps fewer bounds, not other values."""
    for game, state in late_positions(15):
        values = {exact_value(game, state, table_bits=bits)[0] for bits in (8, 12, 22, 8)}
        assert values == {exact_value_python(game, state)[0]}


FREE_THE_TABLE = """
import gc, sys
import gamelp.games.mtg as mtg
import numpy as np
from gamelp.games.mtg.engine import Game

def resident_mib():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 2**20

game, state = Game.deal("8C24L", "0C40L", np.random.default_rng(0))
from gamelp.games.mtg import exact
before = resident_mib()
exact.exact_value(game, state, table_bits=21)  # a table of 2**21 entries: 64 MiB, every page touched
with_table = resident_mib()
del exact._exact, mtg._exact, sys.modules["gamelp.games.mtg._exact"]  # every reference to the module
gc.collect()
print(f"{with_table - before:.0f} {with_table - resident_mib():.0f}")
"""


@pytest.mark.skipif(not exact_module.COMPILED, reason="the C search is not built: the Python search has no table")
@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="the resident size is read from /proc")
def test_the_table_is_freed_with_the_module():
    """The table lives in the module's state: when the module goes, its memory goes back (m_free)."""
    done = subprocess.run([sys.executable, "-c", FREE_THE_TABLE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    grown, freed = (float(v) for v in done.stdout.split())
    assert grown >= 60 and freed >= 60


def late_positions(count: int, life: int = 6):
    """Positions of random games once a player is at ``life`` or less: small enough for plain minimax."""
    rng = np.random.default_rng(5)
    found = []
    while len(found) < count:
        game, states = random_walk(Rules(), int(rng.integers(2**32)))
        late = [s for s in states if s[PHASE] != OVER and min(lives(s)) <= life]
        if late:
            found.append((game, late[0]))
    return found


def test_c_values_equal_the_python_search():
    """The Python search is itself checked against plain minimax in test_mtg_search.py."""
    values = []
    for game, state in late_positions(60):
        value, nodes, leaves = exact_value(game, state)
        assert value == Searcher(game, threshold=0, cap=None).value(state)
        assert nodes >= leaves > 0
        values.append(value)
    assert set(values) == {1, -1}


def test_c_games_are_the_python_searchers_games():
    """Move by move, the C player picks what Searcher.best_move picks, so winner and length agree."""
    for seed, (deck0, deck1) in enumerate([("8C24L", "8C32L"), ("0C40L", "4C24L"), ("4C32L", "8C40L")] * 2):
        game, state = Game.deal(deck0, deck1, np.random.default_rng(seed), seed % 2)
        searcher = Searcher(game, threshold=0, cap=None)
        python_state = state
        while python_state[PHASE] != OVER:
            python_state = game.step(python_state, searcher.best_move(python_state)[0])
        played = play_exact(game, state, cap=None)
        assert (played.winner, played.turn) == (winner(python_state), python_state[TURN])
        assert played.state == python_state and not played.capped


@pytest.mark.skipif(not exact_module.COMPILED, reason="the C search is not built: the Python search has no table")
def test_a_table_of_another_size_starts_empty_and_a_game_replays_node_for_node():
    """The table is allocated anew (in huge pages from 2 MiB up) when its size changes: nothing of the last is kept."""
    game, state = Game.deal("12C24L", "16C20L", np.random.default_rng(6), 0)  # 240,000 positions: both tables fill
    first = play_exact(game, state, table_bits=16)  # 2 MiB
    other = play_exact(game, state, table_bits=17)
    assert other.nodes != first.nodes and other.winner == first.winner  # another table: other counts, same game
    assert play_exact(game, state, table_bits=16) == first
    small = play_exact(game, state, table_bits=12)  # 128 KiB: an ordinary allocation
    assert play_exact(game, state, table_bits=12) == small and small.nodes > first.nodes
    value = exact_value(game, state, table_bits=12)[0]
    assert small.winner == first.winner == (1 - value) // 2


def test_play_exact_stops_where_a_player_first_has_the_stop_life():
    for seed, (deck0, deck1) in enumerate([("8C24L", "8C32L"), ("0C40L", "4C24L"), ("4C32L", "0C28L")]):
        game, state = Game.deal(deck0, deck1, np.random.default_rng(seed), seed % 2)
        searcher = Searcher(game, threshold=0, cap=None)
        python_state = state
        while python_state[PHASE] != OVER and min(lives(python_state)) > 12:
            python_state = game.step(python_state, searcher.best_move(python_state)[0])
        played = play_exact(game, state, cap=None, stop_life=12)
        assert played.state == python_state and not played.capped
        assert played.winner == winner(python_state)  # None unless the game ended before 12 life
        assert min(lives(played.state)) <= 12 or played.state[PHASE] == OVER
        resumed = play_exact(game, played.state, cap=None)
        assert resumed.winner == play_exact(game, state, cap=None).winner


def test_play_game_at_threshold_zero_uses_the_c_search_and_decides_every_game():
    """Exact play is never capped: a cap of 10 leaves, which both searches need more than, still gives the game
    (the thesis's cap drew 106 games of the exact 55-deck matrix; a capped game must not be a draw again)."""
    exact = play_game("8C24L", "8C32L", seed=3, settings=EXACT_PLAY)
    python = play_game("8C24L", "8C32L", seed=3, settings=EXACT_PLAY, compiled=False)
    logged = play_game("8C24L", "8C32L", seed=3, settings=EXACT_PLAY, verbose=True, log=lambda _: None)
    assert (exact.winner, exact.turns) == (python.winner, python.turns) == (logged.winner, logged.turns)
    assert python.nodes > 0 and exact.nodes > 0 and exact.winner is not None
    for compiled in (True, False):
        small_cap = play_game("8C24L", "8C32L", seed=3, settings=replace(EXACT_PLAY, eval_cap=10), compiled=compiled)
        assert (small_cap.winner, small_cap.turns, small_cap.capped) == (exact.winner, exact.turns, False)
        assert small_cap.evaluations > 10
    game, state = Game.deal("8C24L", "8C32L", np.random.default_rng(3))
    assert play_exact(game, state, cap=10).capped  # play_exact itself still honours a cap


def test_cap_counts_leaves_like_the_python_search():
    game, state = late_positions(1, life=9)[0]
    _, _, leaves = exact_value(game, state)
    assert exact_value(game, state, cap=leaves)[0] is not None
    assert exact_value(game, state, cap=leaves - 1)[0] is None
    with pytest.raises(CapReached):
        Searcher(game, threshold=0, cap=0).value(state)


def test_imperfect_player_searches_its_sampled_deals_to_the_end_in_c(monkeypatch):
    """At life threshold 0 (perfect-information Monte Carlo) every move of every sampled deal is valued by
    the C search, and those values are the Python search's on the same deals."""
    from gamelp.games.mtg import players
    from gamelp.games.mtg.deck import thesis_decks

    calls = []

    def counted(game, state, cap=None):
        calls.append(state)
        return exact_value(game, state, cap)

    monkeypatch.setattr(players, "exact_value", counted)
    checked = 0
    for game, state in late_positions(12):
        moves = game.legal_moves(state)
        me = players.decider(state)
        player = players.ImperfectPlayer(np.random.default_rng(3), life_threshold=0, samples=2, sample_cap=None)
        before = len(calls)
        chosen = player.choose(game, state, moves, players.Table(game.decks))
        assert len(calls) - before == 2 * len(moves) and chosen in moves
        deal, dealt = players.determinize(
            game, state, me, players.Table(game.decks), np.random.default_rng(4), thesis_decks()
        )
        children = [deal.step(dealt, move) for move in moves]
        exact = player._exact_values(deal, children)
        assert exact == player._cut_off_values(deal, children, None, 0)
        checked += len(children)
    assert checked > 12
    # with a cut-off above both lives the sampled deals stop at the evaluation, in Python: no C search
    searched = len(calls)
    game, state = late_positions(1, life=14)[0]
    assert min(lives(state)) > 4
    players.ImperfectPlayer(np.random.default_rng(3), "life", life_threshold=12, samples=2).choose(
        game, state, game.legal_moves(state), players.Table(game.decks)
    )
    assert len(calls) == searched


def test_perfect_player_against_a_heuristic_plays_the_python_searchers_move_by_the_c_search(monkeypatch):
    """Facing another kind at life threshold 0, the perfect player's move is the C search's, and it is
    the first best move of the Python search on every late position."""
    from gamelp.games.mtg import players

    searched = []
    monkeypatch.setattr(players, "exact_value", lambda *args: searched.append(1) or exact_value(*args))
    for game, state in late_positions(40):
        moves = game.legal_moves(state)
        chosen = players.PerfectPlayer("life", life_threshold=0, eval_cap=None).choose(game, state, moves, None)
        assert chosen == Searcher(game, threshold=0, cap=None).best_move(state)[0]
    assert len(searched) >= 40


# ---- the Python twin: the fallback, the property-based comparison, the shared constants --------------------------

HIDE_THE_EXTENSION = """
import sys
sys.modules["gamelp.games.mtg._exact"] = None  # import of the extension now raises ImportError
import numpy as np
from gamelp.games.mtg import exact
from gamelp.games.mtg.engine import Game
from gamelp.games.mtg.match import GameSettings, play_game
game, state = Game.deal("8C24L", "0C40L", np.random.default_rng(0))
print(exact.COMPILED, exact.exact_value is not None, exact.legal_moves(game, state))
print("searching", file=sys.stderr)
played = play_game("4C8L", "0C12L", seed=1, settings=GameSettings(life_threshold=0, evaluation="life"))
played = play_game("4C8L", "0C12L", seed=1, settings=GameSettings(life_threshold=0, evaluation="life"))
print(played.winner, played.turns)
"""


@pytest.mark.slow
def test_a_missing_extension_falls_back_to_the_python_search_with_a_one_line_notice():
    """The extension hidden in a fresh interpreter: the first search says so in one line, once; then the Python
    twin plays the same game."""
    done = subprocess.run([sys.executable, "-c", HIDE_THE_EXTENSION], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    searching, notice, *rest = done.stderr.splitlines()
    assert searching == "searching" and not rest  # nothing said at import, once at the first search
    assert notice.startswith("the C mini Magic search (gamelp.games.mtg._exact) is not available (")
    assert "Python search instead, about 14x slower per node" in notice
    lines = done.stdout.splitlines()
    game, state = Game.deal("8C24L", "0C40L", np.random.default_rng(0))
    assert lines[0] == f"False True {legal_moves(game, state)}"
    compiled = play_game("4C8L", "0C12L", seed=1, settings=EXACT_PLAY)
    assert lines[1] == f"{compiled.winner} {compiled.turns}"  # the C search's game, where this interpreter has it


def test_the_python_twin_refuses_what_the_c_glue_refuses():
    game, state = Game.deal("8C24L", "0C40L", np.random.default_rng(0))
    with pytest.raises(ValueError, match="not legal"):
        step_python(game, state, "B")
    with pytest.raises(ValueError, match="26 fields"):
        legal_moves_python(game, state[:-1])
    for function in (exact_value, exact_value_python):
        with pytest.raises(ValueError, match="table_bits"):
            function(game, state, table_bits=3)


@st.composite
def small_positions(draw):
    """A small deal (short libraries, small hands and lives, any rule variant) and a position reached from its
    opening by random legal moves: small enough for the Python search to solve in milliseconds."""
    rules = Rules(
        first_player_draws=draw(st.booleans()),
        instant_bolts=draw(st.booleans()),
        starting_life=draw(st.integers(3, 9)),
        opening_hand=draw(st.integers(1, 4)),
        max_hand=draw(st.integers(2, 7)),
        bolt_damage=draw(st.integers(1, 4)),
        devil_power=draw(st.integers(1, 5)),
        life_payment=draw(st.integers(1, 5)),
    )
    card = st.integers(0, 2)
    libraries = [draw(st.lists(card, min_size=0, max_size=9)) for _ in range(2)]
    game = Game(libraries, rules)
    state = game.opening_state(first=draw(st.integers(0, 1)))
    for choice in draw(st.lists(st.integers(0, 7), max_size=12)):
        moves = game.legal_moves(state)
        if not moves:
            break
        state = game.step(state, moves[choice % len(moves)])
    return game, state


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_positions())
def test_c_and_python_searches_agree_on_random_positions(position):
    """Value and exact play of the C search and its Python twin on random small positions and rules: the
    same value, the same moves, the same last state; the transitions along the way are the same too."""
    game, state = position
    c_value, c_nodes, c_leaves = exact_value(game, state)
    py_value, py_nodes, py_leaves = exact_value_python(game, state)
    assert c_value == py_value
    assert c_value in (1, -1)
    if state[PHASE] != OVER:
        assert c_nodes >= c_leaves > 0 and py_nodes >= py_leaves > 0
    c_play = play_exact(game, state, cap=None)
    py_play = play_exact_python(game, state, cap=None)
    assert (c_play.winner, c_play.turn, c_play.state, c_play.capped) == (
        py_play.winner,
        py_play.turn,
        py_play.state,
        py_play.capped,
    )
    assert c_play.winner == (0 if c_value == 1 else 1)
    assert legal_moves(game, state) == legal_moves_python(game, state)
    for move in legal_moves_python(game, state):
        assert step(game, state, move) == step_python(game, state, move)


@settings(max_examples=30, deadline=None)
@given(small_positions(), st.integers(0, 40))
def test_c_and_python_searches_cap_alike(position, cap):
    """A cap on leaves: each side is capped exactly when its own search needs more leaves than the cap (the
    counts differ: the C search plays a Mountain first), and an uncapped value is the true one."""
    game, state = position
    truth, _, c_leaves = exact_value(game, state)
    _, _, py_leaves = exact_value_python(game, state)
    c_value, _, _ = exact_value(game, state, cap=cap)
    py_value, _, _ = exact_value_python(game, state, cap=cap)
    assert c_value == (truth if c_leaves <= cap else None)
    assert py_value == (truth if py_leaves <= cap else None)


# ---- constants the C source re-states --------------------------------------------------------------------------
C_SOURCE = Path(exact_module.__file__).with_name("_exact.c").read_text()


def c_enums():
    """The C source's enums, each as its list of names in order (values 0, 1, 2, ...: none sets a value)."""
    enums = []
    for body in re.findall(r"enum\s*\{([^}]*)\}", C_SOURCE):
        names = [name.strip() for name in body.split(",") if name.strip()]
        assert all(re.fullmatch(r"[A-Z_][A-Z0-9_]*", name) for name in names), names
        enums.append(names)
    return enums


def c_define(name: str) -> int:
    return int(re.search(rf"#define\s+{name}\s+(\d+)", C_SOURCE).group(1))


def test_the_c_state_layout_phases_and_moves_are_the_python_engines():
    fields, player_fields, phases, moves, stops = c_enums()
    for names in (fields, player_fields, phases):
        assert [getattr(mtg_engine, name) for name in names] == list(range(len(names)))
    assert len(fields) == mtg_engine.PLAYER_BASE[0]
    assert len(player_fields) == mtg_engine.PLAYER_BASE[1] - mtg_engine.PLAYER_BASE[0]
    assert [name.lower() for name in phases] == list(mtg_engine.PHASE_NAMES)
    assert c_define("STATE_SIZE") == mtg_engine.STATE_SIZE == mtg_engine.PLAYER_BASE[1] + len(player_fields)
    assert c_define("NO_WINNER") == mtg_engine.NO_WINNER
    base = re.search(r"static const int BASE\[2\]\s*=\s*\{\s*(\d+)\s*,\s*(\d+)\s*\}", C_SOURCE).groups()
    assert tuple(int(b) for b in base) == mtg_engine.PLAYER_BASE
    # the fields' names in the glue's errors are the enums' (and the Python twin's)
    for array, names in (("GAME_FIELDS", fields), ("PLAYER_FIELDS", player_fields)):
        spelled = re.search(rf"{array}\[\d+\]\s*=\s*\{{([^}}]*)\}}", C_SOURCE).group(1)
        assert re.findall(r'"(\w+)"', spelled) == names
    assert exact_module.FIELD_NAMES[: len(fields)] == tuple(fields)
    assert exact_module.FIELD_NAMES[-len(player_fields) :] == tuple(f"player 1's {name}" for name in player_fields)
    # moves: the enum MV_* and the array of their letters name the Python engine's moves, discards in card order
    letters = re.findall(r'"(\w+)"', re.search(r"MOVE_NAMES\[N_MOVES\]\s*=\s*\{([^}]*)\}", C_SOURCE).group(1))
    assert moves[-1] == "N_MOVES" and [f"MV_{letter}" for letter in letters] == moves[:-1]
    assert set(letters) == set(mtg_engine.MOVE_NAMES)
    assert tuple(letters[-3:]) == mtg_engine.DISCARD_MOVES == tuple("X" + c for c in CARD_LETTERS)
    longest = max(
        len(game.legal_moves(s)) for seed in range(20) for game, states in [random_walk(Rules(), seed)] for s in states
    )
    assert longest <= c_define("MAX_MOVES")
    assert stops == ["RUNNING", "CAPPED", "INTERRUPTED"]


def test_the_c_key_range_and_card_codes_are_the_python_ones():
    """The rest of the layout the C source re-states: the signed byte a field must fit in (the Python twin's
    KEY_MIN..KEY_MAX), and the card codes 0, 1, 2 that index the hand fields M, L, C in both engines."""
    key = {name: int(value) for name, value in re.findall(r"#define\s+(KEY_MIN|KEY_MAX)\s+\(?(-?\d+)\)?", C_SOURCE)}
    assert (key["KEY_MIN"], key["KEY_MAX"]) == (exact_module.KEY_MIN, exact_module.KEY_MAX) == (-128, 127)
    codes = (mtg_deck.MOUNTAIN, mtg_deck.BOLT, mtg_deck.DEVIL)
    assert codes == tuple(range(len(CARD_LETTERS)))
    assert tuple(mtg_engine.HAND_M + c for c in codes) == (mtg_engine.HAND_M, mtg_engine.HAND_L, mtg_engine.HAND_C)
    assert f"g->library[p][i] > {max(codes)}" in C_SOURCE and "s[b + HAND_M + g->library[player][position]]" in C_SOURCE


def test_the_c_rules_are_the_python_rule_parameters_in_the_order_python_sends_them():
    struct = re.search(r"typedef struct \{\s*int ([^;]*);\s*\} Rules;", C_SOURCE).group(1)
    assert tuple(name.strip() for name in struct.split(",")) == C_RULE_FIELDS
    assert set(C_RULE_FIELDS) <= set(Rules.__dataclass_fields__)
    unread = set(Rules.__dataclass_fields__) - set(C_RULE_FIELDS)
    assert unread == {"starting_life", "opening_hand"}  # they shape the opening state only, built in Python
    assert not re.search(r"starting_life|opening_hand", C_SOURCE)
    # the card codes the C glue accepts are the Python deck's
    assert "g->library[p][i] > 2" in C_SOURCE and len(CARD_LETTERS) == 3


def test_the_c_engine_hard_codes_no_rule_number():
    """Life totals, damage, the life payment and the hand limit reach the C engine through its Rules only:
    its code holds no number but 0, 1 and the three card kinds (so no rule value is stated twice)."""
    engine = C_SOURCE[C_SOURCE.index("/* ---- the engine") : C_SOURCE.index("/* ---- the transposition table")]
    code = re.sub(r"/\*.*?\*/", "", engine, flags=re.S)
    assert set(re.findall(r"(?<![\w\[])\d+(?!\w)", code)) == {"0", "1", "3"}
    assert re.findall(r".*\b3\b.*", code) == ["        for (int c = 0; c < 3; c++)"]
    assert len(CARD_LETTERS) == 3
    for field in C_RULE_FIELDS:
        assert f"g->rules.{field}" in code

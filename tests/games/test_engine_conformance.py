"""Every registered engine against the Engine contract (after OpenSpiel's random_sim_test), and the check's teeth.

``check_engine`` plays seeded random games and asserts the contract of
:mod:`gamelp.games.engine`. The second half plants a rule breach in each engine
(an adapter subclass that breaks one clause) and asserts that the check raises
AssertionError for it; the third checks that each adapter plays its engine's game.
"""

import itertools
import random

import numpy as np
import pytest

from gamelp.games import engine as engine_module
from gamelp.games.adapters import LocmEngine, MtgEngine, PenniesEngine, RpsEngine, YugiohEngine
from gamelp.games.engine import (
    ENGINES,
    TERMINAL,
    Engine,
    check_clone,
    check_engine,
    make_engine,
    random_playout,
    register,
    snapshot,
)

NAMES = sorted(ENGINES)
SEEDS = range(12)


# ---- the contract, over the registry --------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_every_engine_keeps_the_contract(name):
    engine = make_engine(name)
    assert isinstance(engine, Engine)
    playouts = check_engine(engine, SEEDS)
    assert len(playouts) == len(SEEDS)
    assert all(0 < len(p.moves) <= engine.max_moves for p in playouts)
    if engine.stochastic:  # the seeds give different games, not only different starts
        assert len({p.moves for p in playouts}) > 1


def test_the_registry_names_every_simulator_and_refuses_a_second_registration():
    assert set(NAMES) == {"mtg", "locm", "yugioh", "pennies", "rps"}
    with pytest.raises(ValueError, match="registered already"):
        register("mtg", MtgEngine)
    with pytest.raises(KeyError, match="no engine named"):
        make_engine("chess")


def test_a_registered_engine_is_checked_like_the_others(monkeypatch):
    monkeypatch.setitem(ENGINES, "pennies-again", PenniesEngine)  # what register() does, undone after the test
    assert "pennies-again" in ENGINES and isinstance(make_engine("pennies-again"), Engine)
    check_engine(make_engine("pennies-again"), range(2))


def test_a_factory_that_makes_no_engine_is_refused(monkeypatch):
    monkeypatch.setitem(ENGINES, "nothing", object)
    with pytest.raises(TypeError, match="lacks members"):
        make_engine("nothing")


@pytest.mark.parametrize("name", NAMES)
def test_apply_refuses_an_illegal_move(name):
    engine = make_engine(name)
    with pytest.raises(ValueError, match="not legal|draft pick"):
        engine.apply(engine.new_game(0), "no such move")


# ---- planted breaches: each must make the check fail ---------------------------------------------------------------
class Box:
    """A mutable holder, so that a breach can change a state in place whatever the engine's states are."""

    def __init__(self, inner):
        self.inner = inner


class MutatesItsArgument:
    """Breach: ``apply`` changes the state it is given (and returns it). States are boxed so that even an
    engine of immutable states can be broken this way; the unbroken engine (``plain``) plays inside the box."""

    plain: Engine

    def new_game(self, seed):
        return Box(self.plain.new_game(seed))

    def current_player(self, state):
        return self.plain.current_player(state.inner)

    def legal_moves(self, state):
        return self.plain.legal_moves(state.inner)

    def is_terminal(self, state):
        return self.plain.is_terminal(state.inner)

    def returns(self, state):
        return self.plain.returns(state.inner)

    def clone(self, state):
        return Box(self.plain.clone(state.inner))

    def apply(self, state, move):
        state.inner = self.plain.apply(state.inner, move)
        return state


class NoMovesForSeatOne:
    """Breach: the second seat is offered no move, though the game goes on."""

    def legal_moves(self, state):
        return [] if super().current_player(state) == 1 else super().legal_moves(state)


class NeverEnds:
    """Breach: the game never ends: past its real end, seat 0 waits forever."""

    def is_terminal(self, state):
        return False

    def current_player(self, state):
        return 0 if super().is_terminal(state) else super().current_player(state)

    def legal_moves(self, state):
        return ["wait"] if super().is_terminal(state) else super().legal_moves(state)

    def returns(self, state):
        return (0.0,) * self.num_players

    def apply(self, state, move):
        return self.clone(state) if move == "wait" else super().apply(state, move)


class NotZeroSum:
    """Breach: every seat wins."""

    def returns(self, state):
        return (1.0,) * self.num_players if super().is_terminal(state) else super().returns(state)


_entropy = itertools.count(10_000)


class IgnoresTheSeedForFreshEntropy:
    """Breach: the start does not come from the seed (each game draws a new one), so a seed does not repeat."""

    def new_game(self, seed):
        return super().new_game(next(_entropy))


class IgnoresTheSeed:
    """Breach: every seed gives the same start."""

    def new_game(self, seed):
        return super().new_game(0)


class CloneSharesTheState:
    """Breach: a clone is the original itself (for engines whose states can change)."""

    def clone(self, state):
        return state


class ShallowClone:
    """Breach: a clone copies the top object only, sharing what it holds."""

    def clone(self, state):
        import copy

        return copy.copy(state)


BREACHES = (
    MutatesItsArgument,
    NoMovesForSeatOne,
    NeverEnds,
    NotZeroSum,
    IgnoresTheSeedForFreshEntropy,
    IgnoresTheSeed,
    CloneSharesTheState,
    ShallowClone,
)


def has_mutable_state(engine) -> bool:
    """Whether an engine's states hold anything that can change (outside its static attributes)."""
    state = engine.new_game(0)
    for _ in range(70):  # into the game: a LOCM state holds its battle after the draft
        if engine.is_terminal(state):
            break
        state = engine.apply(state, engine.legal_moves(state)[0])
    return bool(engine_module._mutable_parts(state, engine.static_attributes))


def applicable(breach, engine) -> str | None:
    """Why ``breach`` cannot be planted in ``engine`` (None: it can)."""
    if breach in (IgnoresTheSeedForFreshEntropy, IgnoresTheSeed) and not engine.stochastic:
        return "a game without chance: its seed decides nothing"
    if breach in (CloneSharesTheState, ShallowClone) and not has_mutable_state(engine):
        return "immutable states: sharing them is safe"
    return None


def planted(breach, name):
    """The registered engine ``name`` with ``breach`` planted: a subclass of its adapter."""
    base = type(make_engine(name))
    engine = type(f"{breach.__name__}{base.__name__}", (breach, base), {})()
    engine.plain = base()
    return engine


CASES = [(breach, name) for name in NAMES for breach in BREACHES if applicable(breach, make_engine(name)) is None]


@pytest.mark.parametrize(("breach", "name"), CASES, ids=[f"{n}-{b.__name__}" for b, n in CASES])
def test_the_check_catches_a_planted_breach(breach, name):
    engine = planted(breach, name)
    with pytest.raises(AssertionError):
        check_engine(engine, range(6))


def test_every_engine_has_breaches_planted_and_each_kind_is_planted_somewhere():
    per_engine = {name: [b for b, n in CASES if n == name] for name in NAMES}
    assert all(len(kinds) >= 4 for kinds in per_engine.values()), per_engine
    assert {b for b, _ in CASES} == set(BREACHES)
    # the breaches left out, and why
    assert {
        n
        for b, n in itertools.product(BREACHES, NAMES)
        if applicable(b, make_engine(n)) and "chance" in applicable(b, make_engine(n))
    } == {"pennies", "rps"}
    assert {n for n in NAMES if applicable(ShallowClone, make_engine(n))} == {"mtg", "pennies", "rps"}


@pytest.mark.parametrize("name", NAMES)
def test_each_breach_fails_the_clause_it_breaks(name):
    """The check names the broken clause: the message says what went wrong."""
    messages = {
        MutatesItsArgument: "changed the state it was given",
        NoMovesForSeatOne: "no legal move",
        NeverEnds: "no end within",
        NotZeroSum: "do not sum to",
        IgnoresTheSeedForFreshEntropy: "two different",
        IgnoresTheSeed: "the seed is ignored",
        CloneSharesTheState: "shares mutable parts",
        ShallowClone: "shares mutable parts",
    }
    for breach, message in messages.items():
        if applicable(breach, make_engine(name)) is None:
            with pytest.raises(AssertionError, match=message):
                check_engine(planted(breach, name), range(6))


def test_the_clone_check_sees_a_shared_part_deep_inside():
    engine = make_engine("yugioh")
    state = engine.new_game(3)
    check_clone(engine, state)
    twin = engine.clone(state)
    twin.game.players[1].hand = state.game.players[1].hand  # one shared list, two levels down
    assert engine_module.shared_mutable_parts(state, twin) == ["state.game.players[1].hand"]


def test_a_snapshot_sees_every_field_and_ignores_identity():
    engine = make_engine("locm")
    state = engine.new_game(1)
    while engine.current_player(state) != TERMINAL and state.battle is None:
        state = engine.apply(state, 0)
    twin = engine.clone(state)
    assert twin is not state and snapshot(twin) == snapshot(state)
    twin.battle.health[1] -= 1
    assert snapshot(twin) != snapshot(state)
    assert snapshot(np.random.default_rng(1)) != snapshot(np.random.default_rng(2))


# ---- each adapter plays its engine's game --------------------------------------------------------------------------
def test_the_mtg_adapter_deals_and_steps_as_the_engine():
    from gamelp.games.mtg.engine import Game, Rules

    engine = MtgEngine(decks=("8C24L", "4C32L"))
    state = engine.new_game(5)
    rng = np.random.default_rng(5)
    deck0, deck1 = (engine.decks[int(i)] for i in rng.integers(2, size=2))
    game, position = Game.deal(deck0, deck1, rng, int(rng.integers(2)), Rules())
    assert state.position == position and state.game.libraries == game.libraries
    move = engine.legal_moves(state)[0]
    assert engine.apply(state, move).position == game.step(position, move)


def test_the_locm_adapter_plays_the_match_that_play_match_plays():
    """Random picks and random actions drawn from the match's generator, as RandomDrafter and RandomBattler draw
    them: the adapter's game has play_match's winner, length and decks."""
    from gamelp.games.locm.battlers import RandomBattler
    from gamelp.games.locm.drafters import RandomDrafter
    from gamelp.games.locm.match import play_match

    engine = LocmEngine()
    for seed in range(3):
        expected = play_match(RandomDrafter(), RandomDrafter(), RandomBattler(), RandomBattler(), seed)
        rng = random.Random(seed)
        state = engine.new_game(seed)
        while not engine.is_terminal(state):
            moves = engine.legal_moves(state)
            if state.battle is None:
                move = rng.randrange(3)
            else:
                move = moves[int(rng.random() * len(moves))]
            state = engine.apply(state, move)
        assert (state.battle.winner, state.battle.turn + 1, state.decks) == (
            expected.winner,
            expected.turns,
            expected.decks,
        )
        assert engine.returns(state)[expected.winner] == 1.0


def test_the_yugioh_adapter_always_attacking_plays_play_game_with_always():
    from gamelp.games import yugioh as ygo

    engine = YugiohEngine()
    for seed in range(20):
        state = engine.new_game(seed)
        while not engine.is_terminal(state):
            state = engine.apply(state, "attack")
        rng = np.random.default_rng(seed)
        first = int(rng.integers(2))
        game = ygo.Game((ygo.deal(rng), ygo.deal(rng)), ygo.TABLE1_RULES, active=first)
        winner = ygo.play_game(game, (ygo.ALWAYS, ygo.ALWAYS), rng)
        assert (state.game.winner, state.game.turn) == (winner, game.turn)
        assert snapshot(state.game) == snapshot(game)


def test_the_yugioh_adapter_offers_a_choice_only_where_the_paper_has_one():
    engine = YugiohEngine()
    for seed in range(20):
        state = engine.new_game(seed)
        while not engine.is_terminal(state):
            me, foe = state.game.players[state.game.active], state.game.players[1 - state.game.active]
            assert state.game.turn > 0 and me.monsters and (foe.monsters or foe.face_down)
            state = engine.apply(state, random.Random(seed).choice(["attack", "hold"]))


@pytest.mark.parametrize("engine", [PenniesEngine(), RpsEngine()], ids=["pennies", "rps"])
def test_the_matrix_adapters_pay_the_win_matrix(engine):
    win = np.asarray(engine.game.win)
    for i, a in enumerate(engine.game.labels):
        for j, b in enumerate(engine.game.labels):
            state = engine.apply(engine.apply(engine.new_game(0), a), b)
            assert engine.is_terminal(state) and engine.returns(state) == (win[i, j], -win[i, j])


def test_a_playout_without_checks_is_the_checked_one():
    engine = make_engine("mtg")
    assert random_playout(engine, 7) == random_playout(engine, 7, checks=False)

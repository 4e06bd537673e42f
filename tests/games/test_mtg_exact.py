"""The C search of the mini Magic game against the Python engine and search it re-states."""

import numpy as np
import pytest

from gamelp.games.mtg.engine import OVER, PHASE, TURN, Game, Rules, lives, winner
from gamelp.games.mtg.exact import exact_value, legal_moves, play_exact, step
from gamelp.games.mtg.match import play_game
from gamelp.games.mtg.search import CapReached, Searcher

DECKS = ("8C24L", "4C32L", "0C40L", "8C8L", "4C12L", "0C56L")
RULE_VARIANTS = (Rules(), Rules(first_player_draws=True), Rules(instant_bolts=False),
                 Rules(starting_life=7, max_hand=3, bolt_damage=2, devil_power=3, life_payment=2))


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


def test_play_game_at_threshold_zero_uses_the_c_search_and_caps_to_a_draw():
    exact = play_game("8C24L", "8C32L", seed=3, life_threshold=0, evaluation="life")
    python = play_game("8C24L", "8C32L", seed=3, life_threshold=0, evaluation="life", compiled=False)
    logged = play_game("8C24L", "8C32L", seed=3, life_threshold=0, evaluation="life", verbose=True, log=lambda _: None)
    assert (exact.winner, exact.turns) == (python.winner, python.turns) == (logged.winner, logged.turns)
    assert python.nodes > 0 and exact.nodes > 0
    capped = play_game("8C24L", "8C32L", seed=3, life_threshold=0, evaluation="life", eval_cap=10)
    assert capped.winner is None and capped.capped and capped.evaluations == 11


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
        deal, dealt = players.determinize(game, state, me, players.Table(game.decks), np.random.default_rng(4),
                                          thesis_decks())
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
        game, state, game.legal_moves(state), players.Table(game.decks))
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

"""The mini Magic: The Gathering game of Esche (2018): engine, search, evaluations, players, matches."""

from gamelp.games.mtg.deck import Deck, DeckError, thesis_decks
from gamelp.games.mtg.engine import Game, Rules
from gamelp.games.mtg.match import PLAYER_KINDS, GameResult, play_game, play_match
from gamelp.games.mtg.players import MtgError
from gamelp.games.mtg.search import CapReached, Searcher, minimax

__all__ = [
    "PLAYER_KINDS",
    "CapReached",
    "Deck",
    "DeckError",
    "Game",
    "GameResult",
    "MtgError",
    "Rules",
    "Searcher",
    "minimax",
    "play_game",
    "play_match",
    "thesis_decks",
]

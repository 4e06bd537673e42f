"""gamelp: declarative optimisation models for game solving.

The names most scripts need are re-exported here; the models live in
:mod:`gamelp.models`, the simulators and game files in :mod:`gamelp.games`.
"""

from gamelp.backends import available_backends
from gamelp.errors import (
    BackendError,
    GameFileError,
    GamelpError,
    MatrixFileError,
    ModelError,
    SolveError,
    SolveInterrupted,
)
from gamelp.game import SequenceFormGame, load_game
from gamelp.matrix import MatrixGame
from gamelp.model import Model
from gamelp.solution import Solution, Status

__all__ = [
    "BackendError",
    "GameFileError",
    "GamelpError",
    "MatrixFileError",
    "MatrixGame",
    "Model",
    "ModelError",
    "SequenceFormGame",
    "Solution",
    "SolveError",
    "SolveInterrupted",
    "Status",
    "available_backends",
    "load_game",
]

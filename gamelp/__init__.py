"""gamelp: declarative optimisation models for game solving."""

from gamelp.errors import (
    BackendError,
    GameFileError,
    GamelpError,
    MatrixFileError,
    ModelError,
    SolveError,
)

__all__ = [
    "BackendError",
    "GameFileError",
    "GamelpError",
    "MatrixFileError",
    "ModelError",
    "SolveError",
]

"""The games layer's errors: bad input to a simulator, a match run, or a game file format the games read.

Each is a :class:`~gamelp.errors.GamelpError`, so the command line prints it as one line and exits 2.
"""

from gamelp.errors import GameFileError, GamelpError


class RunError(GamelpError):
    """A batch of simulated matches was asked for with bad arguments, or its store is unusable or does not match."""


class LocmError(GamelpError):
    """Legends of Code and Magic: a malformed card list or consistency file, or an unknown agent."""


class DraftPolicyError(LocmError):
    """A learned drafter's policy file is malformed, or holds no network for a seat it must draft for."""


class MatrixGameSimError(GamelpError):
    """Bad input to a repeated win/lose game simulation (weights, sizes, options)."""


class YugiohError(GamelpError):
    """Bad input to the Yu-Gi-Oh simulator (a deck, a weight, a position)."""


class PokerRulesError(GamelpError):
    """The parameters asked of a poker generator do not describe a playable game."""


class ForestError(GamelpError):
    """A forest cannot be trained with the settings given, or its file or cache cannot be trusted or read."""


class MtgError(GamelpError):
    """A mini-Magic game asked for with a setting the engine does not know (player kind, evaluation, ...)."""


class DeckError(GamelpError):
    """A deck name or a deck's card counts are not a valid 60-card deck."""


class OpenSpielImportError(GameFileError):
    """An OpenSpiel game cannot be imported (not two-player zero-sum, sampled chance, too large, ...)."""


class GambitFileError(GameFileError):
    """A Gambit .nfg or .efg file is malformed, or is not a two-player zero-sum game."""

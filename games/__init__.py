"""The games layer, installed as :mod:`gamelp.games`: the game simulators, their engines and the match runner."""

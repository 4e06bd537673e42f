"""Java's ``java.util.Random``, bit for bit, because the LOCM referee draws everything from it.

The referee (Java) builds its draft offers and shuffles its decks with
``java.util.Random`` seeded from the match's seeds; replaying its matches, and
giving our matches the same offers and shuffles from the same seeds, needs
the same generator: the 48-bit linear congruential generator
``seed = seed * 0x5DEECE66D + 0xB mod 2**48`` of the Java API documentation,
with ``nextInt(bound)``'s rejection rule, ``nextLong`` and
``Collections.shuffle``'s backwards Fisher-Yates swap.
"""

from __future__ import annotations

_MULTIPLIER = 0x5DEECE66D
_MASK = (1 << 48) - 1


def _signed32(value: int) -> int:
    return value - (1 << 32) if value >> 31 else value


class JavaRandom:
    """``java.util.Random(seed)``."""

    __slots__ = ("_seed",)

    def __init__(self, seed: int):
        self._seed = (seed ^ _MULTIPLIER) & _MASK

    def _next(self, bits: int) -> int:
        self._seed = (self._seed * _MULTIPLIER + 0xB) & _MASK
        return self._seed >> (48 - bits)  # unsigned; callers that need Java's signed int convert

    def next_int(self, bound: int) -> int:
        """``nextInt(bound)``: uniform in ``0 .. bound - 1`` (the LCG step inlined: the draft's hot loop)."""
        if bound <= 0:
            raise ValueError("bound must be positive")
        seed = (self._seed * _MULTIPLIER + 0xB) & _MASK
        if bound & -bound == bound:  # a power of two
            self._seed = seed
            return (bound * (seed >> 17)) >> 31
        while True:
            bits = seed >> 17  # next(31)
            value = bits % bound
            if bits - value + (bound - 1) < (1 << 31):  # Java's int overflow test
                self._seed = seed
                return value
            seed = (seed * _MULTIPLIER + 0xB) & _MASK

    def next_long(self) -> int:
        """``nextLong()``: a signed 64-bit integer."""
        high, low = (_signed32(self._next(32)) for _ in range(2))
        value = ((high << 32) + low) & ((1 << 64) - 1)
        return value - (1 << 64) if value >> 63 else value

    def shuffle(self, items: list) -> None:
        """``Collections.shuffle(items, this)`` in place."""
        for i in range(len(items), 1, -1):
            j = self.next_int(i)
            items[i - 1], items[j] = items[j], items[i - 1]

"""A line's time budget (issue 38): a line whose text work, or its share of decoding, takes longer than
TextOptions.budget seconds passes through as it came, with a warning, and the run goes on. Kept cheap: a clock
read between a sentence's stages and between decoding's attempts, no thread or signal per line; a stage already
running finishes first (every stage is linear in its line: tests/text/test_scaling.py)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field


class OverBudget(Exception):
    """Raised between two steps of a line past its deadline."""


def check(deadline: float) -> None:
    if time.monotonic() > deadline:
        raise OverBudget


@dataclass
class Budget:
    seconds: float | None  # None: no limit
    spent: dict[int, float] = field(default_factory=dict)  # line (index) -> seconds of its text work and decoding
    over: set[int] = field(default_factory=set)  # the lines that took longer: passed through

    def deadline(self) -> float:
        return math.inf if self.seconds is None else time.monotonic() + self.seconds

    def charge(self, line: int, seconds: float) -> None:
        self.spent[line] = self.spent.get(line, 0.0) + seconds
        if self.seconds is not None and self.spent[line] > self.seconds:
            self.over.add(line)

    def share(self, sizes: dict[int, int], seconds: float) -> None:
        """A decoding call's time charged to its lines in proportion to the characters each gave it."""
        total = sum(sizes.values()) or 1
        for line, size in sizes.items():
            self.charge(line, seconds * size / total)

    def warning(self) -> str:
        return (f"took longer than its budget of {self.seconds:g} s of text work and decoding: kept as it came, "
                "untranslated")

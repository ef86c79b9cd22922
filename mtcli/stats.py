"""The sums a batch's loss leaves, added over batches, threads and MPI ranks (thesis ch. 6 divides
them by the token count: metrics.summarize)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Stats:
    """Sums over the target tokens of a batch; divide by n_tokens for the thesis's means."""

    loss: float  # label-smoothed training loss
    nll: float  # plain cross-entropy: the thesis's error
    correct: int  # argmax == target: the thesis's accuracy
    n_tokens: int

    @classmethod
    def zero(cls) -> Stats:
        return cls(0.0, 0.0, 0, 0)

    def __add__(self, other: Stats) -> Stats:
        return Stats(self.loss + other.loss, self.nll + other.nll, self.correct + other.correct,
                     self.n_tokens + other.n_tokens)

    def to_list(self) -> list:
        """[loss, nll, correct, n_tokens], counts as ints (the training state's JSON)."""
        return [self.loss, self.nll, self.correct, self.n_tokens]

    def to_array(self) -> np.ndarray:
        """(4,) float64, what an MPI sum carries: counts stay exact below 2**53."""
        return np.array(self.to_list(), np.float64)

    @classmethod
    def from_array(cls, values) -> Stats:
        """From to_array() or to_list() (the counts back to ints)."""
        return cls(float(values[0]), float(values[1]), int(values[2]), int(values[3]))

"""Adam (thesis 5.2) on the flat parameter buffer, with global gradient-norm clipping."""

from __future__ import annotations

import numpy as np

from mtcli import kernels


def clip_scale(grad: np.ndarray, max_norm: float, grad_sq: float | None = None) -> tuple[float, float]:
    """(the L2 norm of grad, NaN/Inf when it is not finite; the factor that brings it down to
    max_norm: 1 when it is within, or max_norm is 0). Adam.step applies the factor. grad_sq: the
    squared norm if already known (a pass over the gradient fewer)."""
    norm = float(np.sqrt(np.dot(grad, grad) if grad_sq is None else grad_sq))
    return norm, max_norm / norm if 0 < max_norm < norm else 1.0


class Adam:
    def __init__(self, n_params: int, beta1: float, beta2: float, eps: float, dtype=np.float32):
        """beta1, beta2 and eps have no defaults here: TrainConfig's are the ones."""
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.m = np.zeros(n_params, dtype)  # first moment
        self.v = np.zeros(n_params, dtype)  # second moment
        self.t = 0  # steps taken (bias correction)

    def state(self) -> tuple[dict[str, np.ndarray], int]:
        """What a checkpoint keeps: the moments by name, and the step count."""
        return {"m": self.m, "v": self.v}, self.t

    def load_state(self, moments: dict[str, np.ndarray], t: int) -> None:
        """Continue from state(); a moment of another shape raises ValueError (or KeyError: missing)."""
        self.m[...], self.v[...], self.t = moments["m"], moments["v"], t

    def step(self, param: np.ndarray, grad: np.ndarray, lr: float, grad_scale: float = 1.0) -> None:
        """One update with the gradient grad * grad_scale (grad itself is left as it is)."""
        self.t += 1
        kernels.adam(param, grad, self.m, self.v, lr, self.beta1, self.beta2, self.eps, self.t, grad_scale)

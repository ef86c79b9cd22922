"""Adam (thesis 5.2) on the flat parameter buffer, with global gradient-norm clipping."""

from __future__ import annotations

import numpy as np

from mtcli import kernels


def clip_grad_norm(grad: np.ndarray, max_norm: float) -> float:
    """Scales grad in place so its L2 norm is at most max_norm (0 = no clipping); returns the norm
    before clipping (NaN/Inf when the gradient is not finite)."""
    norm = float(np.sqrt(np.dot(grad, grad)))
    if max_norm > 0 and norm > max_norm:
        grad *= grad.dtype.type(max_norm / norm)
    return norm


class Adam:
    def __init__(self, n_params: int, beta1=0.9, beta2=0.999, eps=1e-8, dtype=np.float32):
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.m = np.zeros(n_params, dtype)
        self.v = np.zeros(n_params, dtype)
        self.t = 0

    def step(self, param: np.ndarray, grad: np.ndarray, lr: float) -> None:
        self.t += 1
        kernels.adam(param, grad, self.m, self.v, lr, self.beta1, self.beta2, self.eps, self.t)

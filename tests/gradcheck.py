"""The one gradient-check helper: float64 central differences against analytic gradients."""

from __future__ import annotations

import numpy as np


FLOOR = 1e-3  # gradients that are zero in theory (key biases: softmax is shift-invariant) differ only by
# central-difference round-off, ~1e-9 per element; real gradients here have norms of 1e-2 and more


def rel_error(a, b) -> float:
    """||a - b|| / (||a|| + ||b||), scale-free; with a floor so two noise-level tensors agree."""
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(a) + np.linalg.norm(b), FLOOR))


def numeric_grad(f, x: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    """d f() / d x by central differences, perturbing x in place."""
    g = np.zeros_like(x)
    flat, gflat = x.reshape(-1), g.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        fp = f()
        flat[i] = old - eps
        fm = f()
        flat[i] = old
        gflat[i] = (fp - fm) / (2 * eps)
    return g


def check(f, tensors: dict, analytic: dict) -> dict:
    """Relative error per tensor between analytic[name] and the numeric gradient of f() w.r.t.
    tensors[name]."""
    return {name: rel_error(analytic[name], numeric_grad(f, x)) for name, x in tensors.items()}


def check_layer(forward, backward, inputs: dict, params: dict, seed: int = 0) -> float:
    """Max relative error over all inputs and parameters of one layer.

    forward(**inputs, **params) -> (out, cache); backward(dout, cache, grads) -> dict of input
    gradients, adding parameter gradients into grads (a dict shaped like params)."""
    out, cache = forward(**inputs, **params)
    r = np.random.default_rng(seed).standard_normal(out.shape)
    grads = {k: np.zeros_like(v) for k, v in params.items()}
    analytic = {**backward(r, cache, grads), **grads}
    errors = check(lambda: float((forward(**inputs, **params)[0] * r).sum()), {**inputs, **params}, analytic)
    return max(errors.values())

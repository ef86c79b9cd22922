"""Times each Numba kernel against its NumPy reference at training shapes (float32) and prints a
table. Usage: python benchmarks/kernels.py [--repeat N]. Best of N runs; compilation (cached on
disk after the first run) is excluded by a warm-up call. Kernels that work in place get their
inputs restored before each run, outside the timed region."""

import argparse
import sys
import time

import numba
import numpy as np

from mtcli import kernels as K

F32 = np.float32
RNG = np.random.default_rng(0)


def randn(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(F32)


def best_ms(fn, args, restore, repeat):
    """Best wall time of fn(*args) over `repeat` runs; `restore` resets in-place arguments."""
    times = []
    for _ in range(repeat + 1):  # the first run is a warm-up (and compiles if not cached)
        restore()
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return 1e3 * min(times[1:])


def in_place(*arrays):
    """Arguments that the kernel overwrites: returns (arrays to pass, restore function)."""
    originals = [a.copy() for a in arrays]

    def restore():
        for a, o in zip(arrays, originals):
            np.copyto(a, o)

    return restore


def cases():
    """(name, numba kernel, args, in-place args) at training shapes."""
    B, T, V = 64, 20, 6134
    for C, H in ((64, 4), (256, 8)):
        x = randn(B, T, C)
        k_len = RNG.integers(T // 2, T + 1, B)
        drop = ((RNG.random((B, H, T, T)) >= 0.1) / 0.9).astype(F32)
        no_drop = np.zeros((0, 0, 0, 0), F32)
        _, p = K.attention_forward(x, x, x, k_len, True, drop, H)
        yield (f"attn fwd causal+drop B{B} T{T} C{C} H{H}", K.attention_forward,
               (x, x, x, k_len, True, drop, H), ())
        yield (f"attn bwd causal+drop B{B} T{T} C{C} H{H}", K.attention_backward,
               (x, x, x, x, p, drop, H), ())
        yield (f"attn fwd cross B{B} T{T} C{C} H{H}", K.attention_forward,
               (x, x, x, k_len, False, no_drop, H), ())
    for Bd in (1, 8):  # incremental decoding: one query against a KV cache
        C, H, Tk = 256, 8, 60
        q, kv = randn(Bd, 1, C), randn(Bd, Tk, C)
        yield (f"attn fwd decode Tq1 B{Bd} Tk{Tk} C{C}", K.attention_forward,
               (q, kv, kv, np.full(Bd, Tk), False, np.zeros((0, 0, 0, 0), F32), H), ())
    for C in (64, 256):
        x, g, b = randn(B * T, C), randn(C), randn(C)
        _, xhat, rstd = K.layernorm_forward(x, g, b)
        dg, db = randn(C), randn(C)
        yield (f"layernorm fwd N{B * T} C{C}", K.layernorm_forward,
               (x, g, b), ())
        yield (f"layernorm bwd N{B * T} C{C}", K.layernorm_backward,
               (x, xhat, rstd, g, dg, db), (dg, db))
    N = 700
    logits, targets = randn(N, V, scale=3.0), RNG.integers(0, V, N)
    bias, dbias = randn(V), randn(V)
    yield (f"cross_entropy N{N} V{V}", K.cross_entropy, (logits, bias, targets, 0.1, 1.0 / N, dbias), (logits, dbias))
    C = 256
    ids, w, pe, dw = RNG.integers(0, V, (B, T)), randn(V, C), randn(64, C), randn(V, C)
    scale = F32(np.sqrt(C))
    yield (f"embedding fwd B{B} T{T} C{C}", K.embedding_forward,
           (ids, w, scale, pe), ())
    yield (f"embedding bwd B{B} T{T} C{C}", K.embedding_backward,
           (randn(B, T, C), ids, dw, scale), (dw,))
    F = 4 * C
    h, b1, dh, db1 = randn(B * T, F), randn(F), randn(B * T, F), randn(F)
    yield (f"bias_relu N{B * T} F{F}", K.bias_relu, (h, b1), (h,))
    yield (f"relu_backward N{B * T} F{F}", K.relu_backward,
           (dh, h, db1), (dh, db1))
    n = 7_000_000
    param, grad, m, v = randn(n), randn(n), randn(n, scale=1e-2), np.abs(randn(n, scale=1e-2))
    yield (f"adam n={n / 1e6:g}M", K.adam,
           (param, grad, m, v, 1e-3, 0.9, 0.98, 1e-9, 10), (param, m, v))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    print(f"float32, best of {repeat}, numba threads: {numba.get_num_threads()}")
    print(f"{'kernel':<40} {'numba ms':>9} {'numpy ms':>9} {'speed-up':>9}")
    for name, kernel, args, mutable in cases():
        ref = getattr(sys.modules[kernel.py_func.__module__], kernel.__name__ + "_ref")
        restore = in_place(*mutable)
        t_kernel = best_ms(kernel, args, restore, repeat)
        t_ref = best_ms(ref, args, restore, repeat)
        print(f"{name:<40} {t_kernel:9.3f} {t_ref:9.3f} {t_ref / t_kernel:8.1f}x", flush=True)


if __name__ == "__main__":
    main()

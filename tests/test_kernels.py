"""Each Numba kernel against its NumPy reference (the spec), in float64 and float32.

Tolerances: float64 rtol 1e-10, float32 rtol 1e-5; atol is 1e-12 (float64) or 1e-6 (float32)
times the largest |reference value| of the array compared, so entries that cancel to ~0 do not
fail on rounding. The kernels sum in a different order than NumPy/BLAS (and the float32 ones
partly in float64), so results agree to rounding, not bit for bit.

Compile time dominates this file, so every kernel is compiled for exactly two signatures: the
float32 cases use int32 index arrays and the float64 cases int64 ones, which covers both int
widths without extra signatures. The attention and layer norm forwards, which run serially below
PARALLEL_MIN_WORK (decoding steps), are also tested on a "large" case, covering both loops.
"""

import ast
import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import numba
from numba import njit
from numba.core.dispatcher import Dispatcher

import mtcli.kernels
from mtcli.kernels.adam import CHUNK, adam, adam_ref, ema, ema_ref, sum_and_clear, sum_and_clear_ref
from mtcli.kernels.attention import (
    attention_backward,
    attention_backward_ref,
    attention_forward,
    attention_forward_ref,
    self_attention,
    self_attention_ref,
)
from mtcli.kernels.crossentropy import cross_entropy, cross_entropy_ref
from mtcli.kernels.decoding import CHUNK, _max_plus, log_softmax_topk, log_softmax_topk_ref
from mtcli.kernels.elementwise import (
    bias_relu,
    bias_relu_ref,
    dropout,
    dropout_add,
    dropout_add_ref,
    dropout_mask,
    dropout_mask_ref,
    dropout_ref,
    keep_ref,
    relu_backward,
    relu_backward_ref,
)
from mtcli.kernels import jit
from mtcli.kernels.jit import PARALLEL_MIN_WORK, exp_nonpos, load
from mtcli.kernels.embedding import (
    embedding_backward,
    embedding_backward_ref,
    embedding_forward,
    embedding_forward_ref,
)
from mtcli.kernels.layernorm import (
    layernorm_backward,
    layernorm_backward_ref,
    layernorm_forward,
    layernorm_forward_ref,
    residual_layernorm,
    residual_layernorm_ref,
)

load()  # Numba's own exp_nonpos (for _exp_all below) comes with the kernels

DTYPES = [np.float64, np.float32]
TOL = {np.float64: (1e-10, 1e-12), np.float32: (1e-5, 1e-6)}


def index_type(dtype):
    return np.int64 if dtype == np.float64 else np.int32


def assert_close(actual, expected):
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    rtol, atol = TOL[expected.dtype.type]
    scale = float(np.max(np.abs(expected))) if expected.size else 0.0
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol * scale)


def assert_all_close(actual, expected):
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert_close(a, e)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def test_package_exports_the_numba_kernels():
    for name in mtcli.kernels.__all__:
        kernel = getattr(mtcli.kernels, name)
        assert isinstance(kernel, Dispatcher), f"{name} is not a Numba kernel"
        assert not name.endswith("_ref")


def test_kernel_modules_hold_numba_dispatchers_once_loaded():
    """Until Numba loads, a kernel module holds stand-ins (jit.kernel); after, the dispatchers themselves, its
    helpers and prange included, which the kernels that call them find when they compile. A stand-in imported
    by name before that (as this file does) still runs the compiled kernel."""
    import mtcli.kernels.elementwise as elementwise
    import mtcli.kernels.layernorm as layernorm

    assert isinstance(elementwise.bias_relu, Dispatcher) and isinstance(elementwise._keep, Dispatcher)
    assert layernorm.prange is numba.prange and isinstance(layernorm._forward_rows, Dispatcher)
    assert type(bias_relu) is not Dispatcher and bias_relu.py_func is elementwise.bias_relu.py_func
    h, b = np.array([[-1.0, 2.0]]), np.array([0.5, -3.0])
    bias_relu(h, b)
    assert h.tolist() == [[0.0, 0.0]] and elementwise.bias_relu.signatures  # compiled by that call


def test_code_calls_kernels_through_the_package():
    """`kernels.references()` swaps the package's names: a module that imported a kernel by name
    (`from mtcli.kernels import layernorm_forward`) would keep the compiled one and escape the swap."""
    switchable = set(mtcli.kernels.__all__) | {f"{name}_ref" for name in mtcli.kernels.__all__}
    root = Path(mtcli.__file__).parent
    offenders = []
    for path in sorted(root.rglob("*.py")):
        if path.parent.name == "kernels":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mtcli.kernels"):
                offenders += [f"{path.relative_to(root)}:{node.lineno} {a.name}" for a in node.names
                              if a.name in switchable or a.name == "*"]
    assert not offenders, "import `kernels` and call `kernels.NAME` instead: " + ", ".join(offenders)


def _resident_kb(library: str) -> int:
    """This process's resident memory in `library`'s mappings."""
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        field = line.split()
        if not field[0].endswith(":"):
            inside = len(field) > 5 and library in field[5]
        elif inside and field[0] == "Rss:":
            total += int(field[1])
    return total


def test_llvms_pages_are_released_as_soon_as_a_kernel_is_compiled_and_a_kernel_still_runs():
    """Once a kernel is loaded or compiled, the process keeps llvmlite's code and read-only data out of its resident
    memory at once (tens of MB of a translation's, at its peak when it stayed until a batch ended; its few written
    pages stay); a kernel run or compiled afterwards still works."""
    h, b = np.ones((3, 4), np.float32), np.full(4, -2.0, np.float32)
    bias_relu(h, b)  # (Numba and this kernel loaded)
    x = np.linspace(-5, 0, 7)
    np.testing.assert_allclose(njit(lambda v: v * 2.0)(x), 2 * x)  # LLVM compiled: its pages were in memory
    assert _resident_kb("libllvmlite") < 4096
    h = np.full((3, 4), 3.0, np.float32)
    bias_relu(h, b)
    np.testing.assert_array_equal(h, 1.0)
    np.testing.assert_allclose(njit(lambda v: v * 3.0)(x), 3 * x)  # and compiles again after the release
    assert _resident_kb("libllvmlite") < 4096


def test_compiled_kernels_are_cached_in_the_users_cache_and_reused(tmp_path):
    """Compiled once per install: the next process loads what the first compiled, from the user's cache
    directory (never the package's own, which an install may have made read-only)."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"} | {"XDG_CACHE_HOME": str(tmp_path)}
    code = ("import numpy as np; from mtcli import kernels; kernels.bias_relu(np.ones((2, 3)), np.zeros(3)); "
            "s = kernels.bias_relu.stats; print(sum(s.cache_hits.values()), sum(s.cache_misses.values()))")
    runs = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300,
                           check=True).stdout.split() for _ in range(2)]
    assert runs == [["0", "1"], ["1", "0"]]  # (hits, misses): compiled, then loaded
    assert list((tmp_path / "mtcli" / "numba").rglob("*bias_relu*.nbi"))


class _Stream(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize("tty", [True, False])
def test_compiling_is_said_once_and_only_on_a_terminal(tty, monkeypatch):
    monkeypatch.setattr(jit, "_told", False)
    monkeypatch.setattr(sys, "stderr", _Stream(tty))
    assert njit(lambda x: x + 1)(1) == 2 and njit(lambda x: x + 2)(1) == 3  # two compilations
    assert sys.stderr.getvalue() == (jit.COMPILING if tty else "")


@njit(cache=True)
def _exp_all(x):
    out = np.empty_like(x)
    for i in range(x.size):
        out[i] = exp_nonpos(x[i])
    return out


@pytest.mark.parametrize("dtype", DTYPES)
def test_exp_nonpos(dtype):
    lowest = -700.0 if dtype == np.float64 else -86.0  # below ~this the result is flushed to 0
    x = np.concatenate([[0.0, -1e-30, lowest], -np.geomspace(1e-8, -lowest, 2000)]).astype(dtype)
    np.testing.assert_allclose(_exp_all(x), np.exp(x), rtol=4 * np.finfo(dtype).eps, atol=0)
    assert _exp_all(np.array([-750.0, -1e6, -np.inf], dtype)).tolist() == [0.0, 0.0, 0.0]


# ---------------------------------------------------------------------------------------- attention

ATTENTION_CASES = {  # name: (B, Tq, Tk, causal, dropout)
    "self-causal": (3, 6, 6, True, False),
    "self-causal-dropout": (3, 6, 6, True, True),
    "cross": (3, 4, 7, False, False),
    "cross-dropout": (3, 4, 7, False, True),
    "decode-step": (3, 1, 7, False, False),  # incremental decoding against a KV cache
    "large-self-causal-dropout": (64, 16, 16, True, True),  # forward runs in parallel
}


def attention_inputs(rng, dtype, B, Tq, Tk, dropout, H=2, D=4):
    C = H * D
    q = rng.standard_normal((B, Tq, C)).astype(dtype)
    k = rng.standard_normal((B, Tk, C)).astype(dtype)
    v = rng.standard_normal((B, Tk, C)).astype(dtype)
    k_len = rng.integers(1, Tk + 1, B).astype(index_type(dtype))
    k_len[:2] = Tk, 2  # some rows without padding, some with
    if dropout:
        drop = ((rng.random((B, H, Tq, Tk)) >= 0.25) / 0.75).astype(dtype)
    else:
        drop = np.zeros((0, 0, 0, 0), dtype)
    return q, k, v, k_len, drop, H


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", ATTENTION_CASES)
def test_attention(rng, dtype, case):
    B, Tq, Tk, causal, dropout = ATTENTION_CASES[case]
    q, k, v, k_len, drop, H = attention_inputs(rng, dtype, B, Tq, Tk, dropout)
    assert (q.size * Tk >= PARALLEL_MIN_WORK) == case.startswith("large")
    out, p = attention_forward(q, k, v, k_len, causal, drop, H)
    assert_all_close((out, p), attention_forward_ref(q, k, v, k_len, causal, drop, H))

    j = np.arange(Tk)
    allowed = j[None, None, :] < k_len[:, None, None]
    if causal:
        allowed = allowed & (j[None, :] <= np.arange(Tq)[:, None])[None]
    assert np.all(p[np.broadcast_to(~allowed[:, None], p.shape)] == 0)  # exactly 0, not tiny
    np.testing.assert_allclose(p.sum(-1), 1.0, rtol=10 * np.finfo(dtype).eps)

    dout = rng.standard_normal(out.shape).astype(dtype)
    grads = attention_backward(dout, q, k, v, p, drop, H)
    assert_all_close(grads, attention_backward_ref(dout, q, k, v, p, drop, H))


@pytest.mark.parametrize("dtype", DTYPES)
def test_attention_softmax_is_stable_for_large_scores(rng, dtype):
    q, k, v, k_len, drop, H = attention_inputs(rng, dtype, 3, 4, 7, False)
    q *= 200  # scores in the thousands: a naive exp overflows
    out, p = attention_forward(q, k, v, k_len, False, drop, H)
    assert np.isfinite(out).all() and np.isfinite(p).all()
    assert_all_close((out, p), attention_forward_ref(q, k, v, k_len, False, drop, H))


def test_attention_row_without_keys_is_zero(rng):
    """k_len == 0 leaves no key to attend to; the reference gives NaN, the kernel zeros."""
    q, k, v, k_len, drop, H = attention_inputs(rng, np.float64, 3, 4, 7, False)
    k_len[1] = 0
    out, p = attention_forward(q, k, v, k_len, False, drop, H)
    assert np.all(p[1] == 0) and np.all(out[1] == 0)
    dq, dk, dv = attention_backward(np.ones_like(out), q, k, v, p, drop, H)
    assert np.all(dq[1] == 0) and np.all(dk[1] == 0) and np.all(dv[1] == 0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_self_attention(rng, dtype):
    """The encoder's self-attention from one fused projection, as the reference; and bit for bit
    attention_forward's output on the three projections (decoding's encoder keeps the training forward's floats)."""
    q, k, v, k_len, drop, H = attention_inputs(rng, dtype, 5, 7, 7, False)
    qkv = np.concatenate([q, k, v], 2)
    out = self_attention(qkv, k_len, H)
    assert_close(out, self_attention_ref(qkv, k_len, H))
    np.testing.assert_array_equal(out, attention_forward(q, k, v, k_len, False, drop, H)[0])


# ---------------------------------------------------------------------------------------- layernorm


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("N, C", [(150, 8), (PARALLEL_MIN_WORK // 64 + 1, 64)])  # several row
def test_layernorm(rng, dtype, N, C):  # chunks; the large case also runs the forward in parallel
    x = (rng.standard_normal((N, C)) * 3 + 1).astype(dtype)
    g = rng.standard_normal(C).astype(dtype)
    b = rng.standard_normal(C).astype(dtype)
    out, xhat, rstd = layernorm_forward(x, g, b)
    assert_all_close((out, xhat, rstd), layernorm_forward_ref(x, g, b))

    dout = rng.standard_normal((N, C)).astype(dtype)
    dg0 = rng.standard_normal(C).astype(dtype)  # nonzero: the kernel must add, not overwrite
    db0 = rng.standard_normal(C).astype(dtype)
    dg, db, dg_ref, db_ref = dg0.copy(), db0.copy(), dg0.copy(), db0.copy()
    dx = layernorm_backward(dout, xhat, rstd, g, dg, db)
    dx_ref = layernorm_backward_ref(dout, xhat, rstd, g, dg_ref, db_ref)
    assert_all_close((dx, dg, db), (dx_ref, dg_ref, db_ref))


@pytest.mark.parametrize("dtype", DTYPES)
def test_residual_layernorm(rng, dtype):
    """A decoding step's LN(x + (sub + bias)) in place, as the reference; and bit for bit the unfused
    sub-layer's (bias added to the product, the residual, layernorm_forward), which keeps decoding's text."""
    x, sub = ((rng.standard_normal((9, 24)) * 3 + 1).astype(dtype) for _ in range(2))
    bias, g, b = (rng.standard_normal(24).astype(dtype) for _ in range(3))
    got, want = x.copy(), x.copy()
    residual_layernorm(got, sub.copy(), bias, g, b)
    residual_layernorm_ref(want, sub.copy(), bias, g, b)
    assert_all_close(got, want)
    s = sub.copy()
    s += bias
    np.testing.assert_array_equal(got, layernorm_forward(x + s, g, b)[0])


# ------------------------------------------------------------------------------------ cross-entropy


@pytest.mark.parametrize("dtype", DTYPES)
def test_cross_entropy(rng, dtype):
    N, V = 150, 37  # more than one chunk of rows
    logits = (rng.standard_normal((N, V)) * 3).astype(dtype)
    targets = rng.integers(0, V, N).astype(index_type(dtype))
    logits[0, targets[0]] = 20  # confidently right
    logits[1] *= 100  # large logits: needs the max shift
    logits[2, [3, 5]] = 30  # tie: argmax is the first maximum
    targets[2] = 5
    logits[3, [3, 5]] = 30
    targets[3] = 3
    bias = rng.standard_normal(V).astype(dtype)
    dbias = rng.standard_normal(V).astype(dtype)  # nonzero: must accumulate
    grad, grad_ref, dbias_ref = logits - bias, logits - bias, dbias.copy()
    result = cross_entropy(grad, bias, targets, 0.1, 0.25, dbias)
    loss_ref, nll_ref, correct_ref = cross_entropy_ref(grad_ref, bias, targets, 0.1, 0.25, dbias_ref)
    assert_all_close(result[:2] + (grad, dbias), (loss_ref, nll_ref, grad_ref, dbias_ref))
    assert result[2].tolist() == correct_ref.tolist()
    assert result[2][[0, 2, 3]].tolist() == [True, False, True]


# ---------------------------------------------------------------------------------------- embedding


@pytest.mark.parametrize("dtype", DTYPES)
def test_log_softmax_topk_over_a_vocabulary_of_many_chunks(rng, dtype):
    """The top-k pass reads only the chunks whose maximum can enter: ties across chunks (smaller id first), a
    chunk whose maximum is banned, fewer chunks than k + banned ids, a row of -inf but one id."""
    for V, k in ((40 * CHUNK + 13, 8), (3 * CHUNK + 1, 6)):
        logits, bias = rng.normal(size=(6, V)).astype(dtype), rng.normal(size=V).astype(dtype)
        tied = [5, CHUNK + 5, 3 * CHUNK]
        logits[0, tied], bias[tied] = 9.0, 0.0
        logits[1, [70, 2 * CHUNK + 1]] = 50.0  # the two largest, one banned
        logits[2] = -np.inf
        logits[2, V - 1] = 0.0
        banned = np.full((6, 3), -1, index_type(dtype))
        banned[1, 0], banned[3] = 2 * CHUNK + 1, rng.integers(0, V, 3)
        want_values, want_ids = log_softmax_topk_ref(logits.copy(), bias, banned, k)
        values, ids = log_softmax_topk(logits.copy(), bias, banned, k)
        rows = [0, 1, 3, 4, 5]
        np.testing.assert_array_equal(ids[rows], want_ids[rows])
        assert_close(values[rows], want_values[rows])
        assert ids[0, :3].tolist() == tied and ids[1, 0] == 70
        assert ids[2, 0] == V - 1 and values[2, 0] == 0 and np.isneginf(values[2, 1:]).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_chunk_maxima_read_as_integers_are_the_floats_maxima(rng, dtype):
    """The bias pass's chunk maxima (found on the floats' bits as integers) are NumPy's, exactly: chunks of negative
    values only, of mixed signs, of zeros of both signs, of -inf, and a last chunk shorter than the others."""
    x = rng.normal(size=5 * CHUNK + 7).astype(dtype)
    x[:CHUNK] = -np.abs(x[:CHUNK]) - 1  # all negative
    x[2 * CHUNK : 3 * CHUNK] = 0.0
    x[2 * CHUNK : 3 * CHUNK : 2] = -0.0
    x[3 * CHUNK : 4 * CHUNK] = -np.inf
    x[3 * CHUNK + 9] = -1e30 if dtype == np.float32 else -1e300
    x[-3:] = [-7.0, -2.5, -3.0]
    bias = rng.normal(size=x.size).astype(dtype)
    bias[2 * CHUNK : 4 * CHUNK] = 0.0
    chunk_max = np.empty(6, dtype)
    got = x.copy()
    top = _max_plus(got, bias, chunk_max)
    want = x + bias
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(chunk_max, [want[c * CHUNK : (c + 1) * CHUNK].max() for c in range(6)])
    assert chunk_max[5] == want[-7:].max() and top == want.max()


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # (NaN and all -inf rows: meant)
def test_log_softmax_topk_ref_orders_as_a_full_sort(rng):
    """The reference's top k (a stable sort of each row's candidates no larger than its k-th) is the k first of the
    whole row sorted by log-probability, then id: on rows of many ties, banned ids, -inf and NaN logits, k above V."""
    for _ in range(300):
        n, v, k = rng.integers(1, 6), rng.integers(1, 30), int(rng.integers(1, 40))
        logits = rng.integers(-3, 4, size=(n, v)).astype(np.float32)
        odd = rng.random((n, v))
        logits[odd < 0.1], logits[(odd > 0.1) & (odd < 0.15)] = -np.inf, np.nan
        banned = rng.integers(-1, v, size=(n, 2))
        values, ids = log_softmax_topk_ref(logits, np.zeros(v, np.float32), banned, k)
        x = logits.astype(np.float64)
        logp = x - (x.max(-1, keepdims=True) + np.log(np.exp(x - x.max(-1, keepdims=True)).sum(-1, keepdims=True)))
        for i, row in enumerate(banned):
            logp[i, row[row >= 0]] = -np.inf
        want = np.lexsort((np.broadcast_to(np.arange(v), logp.shape), -logp))[:, :k]
        np.testing.assert_array_equal(ids, want)
        np.testing.assert_array_equal(values, np.take_along_axis(logp, want, 1).astype(np.float32))


@pytest.mark.parametrize("dtype", DTYPES)
def test_embedding(rng, dtype):
    B, T, V, C, T_max = 4, 5, 11, 8, 7
    ids = rng.integers(0, V, (B, T)).astype(index_type(dtype))
    ids[1, :3] = 7  # repeated ids must add up
    w = rng.standard_normal((V, C)).astype(dtype)
    pe = rng.standard_normal((T_max, C)).astype(dtype)
    scale = dtype(np.sqrt(C))
    assert_close(embedding_forward(ids, w, scale, pe),
                 embedding_forward_ref(ids, w, scale, pe))

    dout = rng.standard_normal((B, T, C)).astype(dtype)
    dw = rng.standard_normal((V, C)).astype(dtype)  # nonzero: must accumulate
    dw_ref = dw.copy()
    embedding_backward(dout, ids, dw, scale)
    embedding_backward_ref(dout, ids, dw_ref, scale)
    assert_close(dw, dw_ref)


# -------------------------------------------------------------------------------------- elementwise


@pytest.mark.parametrize("dtype", DTYPES)
def test_bias_relu_and_backward(rng, dtype):
    N, F = 150, 12
    h = rng.standard_normal((N, F)).astype(dtype)
    b = rng.standard_normal(F).astype(dtype)
    h_ref = h.copy()
    bias_relu(h, b)
    bias_relu_ref(h_ref, b)
    assert_close(h, h_ref)

    dh = rng.standard_normal((N, F)).astype(dtype)
    db = rng.standard_normal(F).astype(dtype)  # nonzero: must accumulate
    dh_ref, db_ref = dh.copy(), db.copy()
    relu_backward(dh, h, db)
    relu_backward_ref(dh_ref, h, db_ref)
    assert_all_close((dh, db), (dh_ref, db_ref))


@pytest.mark.parametrize("dtype", DTYPES)
def test_dropout(rng, dtype):
    x, base = rng.standard_normal((2, 3, 50, 40)).astype(dtype)
    assert_close(dropout(x, 0.25, 99), dropout_ref(x, 0.25, 99))
    assert_close(dropout_add(base, x, 0.25, 99), dropout_add_ref(base, x, 0.25, 99))
    mask, mask_ref = np.empty_like(x), np.empty_like(x)
    dropout_mask(mask, 0.25, 99)
    dropout_mask_ref(mask_ref, 0.25, 99)
    assert_close(mask, mask_ref)
    assert set(np.unique(mask)) == {0.0, dtype(1 / 0.75)}
    np.testing.assert_array_equal(dropout(x, 0.25, 99), x * mask)  # the same seed, the same elements


def test_dropout_keep_decisions_look_random():
    """Counter-based: what a seed keeps must pass for independent coin flips of probability 1 - p."""
    n, p = 1 << 20, 0.1
    keeps = [keep_ref(seed, n, p) for seed in (0, 1, 2**62 + 12345)]
    for k in keeps:
        assert abs(k.mean() - (1 - p)) < 4 * np.sqrt(p * (1 - p) / n)  # 4 standard deviations
        both = (k[1:] & k[:-1]).mean()  # neighbours independent: P(both kept) = (1 - p)^2
        assert abs(both - (1 - p) ** 2) < 4 * np.sqrt((1 - p) ** 2 * (1 - (1 - p) ** 2) / n)
    assert abs((keeps[0] & keeps[1]).mean() - (1 - p) ** 2) < 1e-3  # seeds independent of each other
    assert keep_ref(0, 5, 0.0).all() and not keep_ref(0, 5, 1.0).any()


# --------------------------------------------------------------------------------------------- adam


@pytest.mark.parametrize("dtype", DTYPES)
def test_adam(rng, dtype):
    n = CHUNK + 1000  # more than one parallel chunk, the last one partial
    param = rng.standard_normal(n).astype(dtype)
    m = (rng.standard_normal(n) * 1e-2).astype(dtype)
    v = (rng.random(n) * 1e-4).astype(dtype)
    m[:3] = v[:3] = np.finfo(dtype).tiny * 1.01  # decay below the smallest normal: stored as 0
    state = [param, m, v]
    state_ref = [x.copy() for x in state]
    for t, grad_scale in ((1, 1.0), (2, 0.3), (3, 1.0)):
        grad = rng.standard_normal(n).astype(dtype)
        grad[:3] = 0
        adam(state[0], grad, state[1], state[2], 1e-3, 0.9, 0.98, 1e-9, t, grad_scale)
        adam_ref(state_ref[0], grad, state_ref[1], state_ref[2], 1e-3, 0.9, 0.98, 1e-9, t, grad_scale)
    assert_all_close(state, state_ref)
    assert not state[1][:3].any() and not state[2][:3].any()


@pytest.mark.parametrize("n_parts", [2, 3])
def test_sum_and_clear(rng, n_parts):
    parts = rng.standard_normal((n_parts, CHUNK + 1000)).astype(np.float32)
    parts_ref = parts.copy()
    total, total_ref = np.full(parts.shape[1], 7.0, np.float32), np.empty(parts.shape[1], np.float32)
    sq, sq_ref = sum_and_clear(total, parts), sum_and_clear_ref(total_ref, parts_ref)
    np.testing.assert_allclose(total, total_ref, rtol=1e-6, atol=1e-6)
    assert sq == pytest.approx(sq_ref, rel=1e-6)
    assert not parts.any() and not parts_ref.any()


@pytest.mark.parametrize("decay", [0.0, 0.999, 1.0])
def test_ema(rng, decay):
    """decay 0 is the plain weights, decay 1 keeps the average as it was."""
    param = rng.standard_normal(CHUNK + 1000).astype(np.float32)
    average = rng.standard_normal(param.size).astype(np.float32)
    average_ref, start = average.copy(), average.copy()
    ema(average, param, decay)
    ema_ref(average_ref, param, decay)
    np.testing.assert_allclose(average, average_ref, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(average, {0.0: param, 1.0: start}.get(decay, average))


def test_flush_denormals_is_per_thread_and_restored():
    """A thread started before keeps denormals (threads started after inherit the mode)."""
    import threading

    from mtcli.kernels.cpu import X86, flush_denormals, restore_denormals

    assert np.float32(1e-30) * np.float32(1e-10) > 0  # 1e-40: a denormal float32
    go, elsewhere = threading.Event(), []
    other = threading.Thread(target=lambda: go.wait() and elsewhere.append(np.float32(1e-30) * np.float32(1e-10)))
    other.start()
    previous = flush_denormals()
    try:
        flushed = np.float32(1e-30) * np.float32(1e-10)
        go.set()
        other.join()
    finally:
        restore_denormals(previous)
    assert (flushed == 0) == X86 and elsewhere[0] > 0
    assert np.float32(1e-30) * np.float32(1e-10) > 0

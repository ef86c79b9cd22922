"""Numba kernels for the hot loops; each has a plain NumPy reference (`*_ref`) beside it, which is
its spec and what tests/test_kernels.py checks it against."""

import os
import sys
from contextlib import contextmanager
from pathlib import Path

# Numba's OpenMP threads (GNU libgomp) spin ~300k rounds at each barrier before sleeping, and so
# do OpenBLAS's threads after a product: the two pools then fight over the cores (measured: a
# parallel kernel call at ~12 ms instead of ~0.1 ms). Numba's threads sleep at once instead; a
# training step measured 24/61/134 ms (Small/Medium/Large) this way against 29/69/137 ms with a
# spin of 10,000. Read once, when Numba first loads libgomp; a value in the environment wins.
os.environ.setdefault("GOMP_SPINCOUNT", "0")

# Compiled kernels (cache=True) are kept in the user's cache directory, so that a second run never
# recompiles: an installed package's own directory may be read-only, and `pip uninstall` then leaves
# nothing behind in it. Read when Numba loads; a value in the environment wins.
if "NUMBA_CACHE_DIR" not in os.environ:
    from platformdirs import user_cache_dir

    os.environ["NUMBA_CACHE_DIR"] = str(Path(user_cache_dir("mtcli", appauthor=False)) / "numba")

from mtcli.kernels.adam import adam, ema, sum_and_clear
from mtcli.kernels.attention import attention_backward, attention_forward
from mtcli.kernels.crossentropy import cross_entropy
from mtcli.kernels.decoding import cached_attention, log_softmax_topk
from mtcli.kernels.elementwise import bias_relu, dropout, dropout_add, dropout_mask, relu_backward
from mtcli.kernels.embedding import embedding_backward, embedding_forward
from mtcli.kernels.layernorm import layernorm_backward, layernorm_forward

__all__ = [
    "adam",
    "attention_backward",
    "attention_forward",
    "bias_relu",
    "cached_attention",
    "cross_entropy",
    "dropout",
    "dropout_add",
    "dropout_mask",
    "ema",
    "embedding_backward",
    "embedding_forward",
    "layernorm_backward",
    "layernorm_forward",
    "log_softmax_topk",
    "relu_backward",
    "sum_and_clear",
]

_compiled = {name: globals()[name] for name in __all__}


def _references() -> dict:
    return {name: getattr(sys.modules[kernel.py_func.__module__], f"{name}_ref") for name, kernel in _compiled.items()}


@contextmanager
def references():
    """Every kernel routed to its NumPy reference inside the block. A short-lived process that only
    decodes (one `mtcli translate`) then never compiles or loads compiled code, which costs more
    start-up time than decoding a few sentences with NumPy on small arrays does.
    The swap rebinds this package's names, so code outside it must call `kernels.NAME`, never
    import a kernel by name (tests/test_kernels.py checks every module)."""
    globals().update(_references())
    try:
        yield
    finally:
        globals().update(_compiled)


# Loading the compiled decoding kernels from Numba's cache costs ~0.3 s CPU in a new process; they
# then save ~6 ms a sentence greedy and ~19 ms at beam 4 against the NumPy references (Large model).
# First calls in new processes, loading included: the references win for 1 sentence and for 16
# greedy, the compiled kernels for 16 at beam 4 (0.52 s vs 0.76) and 64 greedy (0.83 s vs 1.13).
# 2,000 unseen lines greedy: references 21 s CPU, compiled 6.6 s.
COMPILED_MIN_WORK = 64  # sentences x beam
_open: list[list[int]] = []  # [sentences x beam expected, beam] of each open for_decoding block, innermost last


@contextmanager
def for_decoding(sentences: int, beam: int):
    """The kernels for a process that decodes `sentences` lines, and more as `expect` announces them
    (lines piped in, a REPL): the NumPy references until the work reaches COMPILED_MIN_WORK sentences
    x beam, enough to repay loading the compiled ones, then those for the rest of the block."""
    before = {name: globals()[name] for name in _compiled}
    _open.append([0, beam])
    globals().update(_references())
    try:
        expect(sentences)
        yield
    finally:
        _open.pop()
        globals().update(before)


def expect(sentences: int) -> None:
    """`sentences` more lines are about to be decoded in the open for_decoding block, if any."""
    if _open and _open[-1][0] < COMPILED_MIN_WORK:
        _open[-1][0] += sentences * _open[-1][1]
        if _open[-1][0] >= COMPILED_MIN_WORK:
            globals().update(_compiled)

"""Numba kernels for the hot loops; each has a plain NumPy reference (`*_ref`) beside it, which is
its spec and what tests/test_kernels.py checks it against."""

import os
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

from mtcli.kernels import adam, attention, crossentropy, decoding, elementwise, embedding, jit, layernorm

__all__ = [
    "adam",
    "advance_beams",
    "attention_backward",
    "attention_forward",
    "banned_ngrams",
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
    "residual_layernorm",
    "self_attention",
    "self_attention_step",
    "sum_and_clear",
    "top_candidates",
]

_MODULES = {module: [name for name in __all__ if hasattr(module, name)]
            for module in (adam, attention, crossentropy, decoding, elementwise, embedding, layernorm)}
del adam  # the name of a kernel too: the package's `adam` is the kernel (__getattr__), never the module


def _compiled() -> dict:
    """Every kernel as Numba's dispatcher (Numba loads here, once)."""
    jit.load()
    return {name: getattr(module, name) for module, names in _MODULES.items() for name in names}


def _references() -> dict:
    return {name: getattr(module, f"{name}_ref") for module, names in _MODULES.items() for name in names}


def __getattr__(name: str):
    """A kernel asked for outside references(): all of them compiled from now on."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    use_compiled()
    return globals()[name]


def use_compiled() -> None:
    """Every kernel compiled from now on (Numba loads here): for a process that decodes for long (a server's
    decoder) or that measures the compiled code from its first sentence (benchmarks/)."""
    globals().update(_compiled())


def loaded() -> bool:
    """Whether this process loaded the compiled kernels (training, a loss, a server did): the references then
    spare nothing (decode.Translator's choice)."""
    return jit.loaded()


def _swap(kernels: dict) -> dict:
    """The package's kernel names bound to `kernels`; returns what they were (None: not bound yet)."""
    before = {name: globals().get(name) for name in kernels}
    globals().update(kernels)
    return before


def _restore(before: dict) -> None:
    for name, kernel in before.items():
        if kernel is None:
            globals().pop(name, None)  # __getattr__ compiles them when next asked for
        else:
            globals()[name] = kernel


@contextmanager
def references():
    """Every kernel routed to its NumPy reference inside the block. A short-lived process that only
    decodes a few sentences (one `mtcli translate`) then never compiles or loads compiled code, which costs
    more start-up time than decoding them with NumPy on small arrays does (decode.Translator's choice).
    The swap rebinds this package's names, so code outside it must call `kernels.NAME`, never
    import a kernel by name (tests/test_kernels.py checks every module)."""
    before = _swap(_references())
    try:
        yield
    finally:
        _restore(before)

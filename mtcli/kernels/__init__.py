"""Numba kernels for the hot loops; each has a plain NumPy reference (`*_ref`) beside it, which is
its spec and what tests/test_kernels.py checks it against."""

import os

# Numba's OpenMP threads (GNU libgomp) spin ~300k rounds at each barrier before sleeping. When
# another process keeps a core busy, the spinning thread holds its core while the other worker
# waits for one, and every parallel kernel call then takes ~12 ms instead of ~0.1 ms. A short spin
# costs nothing on an idle machine. Read once, when Numba first loads libgomp (not if another
# library loaded it before); a value in the environment wins.
os.environ.setdefault("GOMP_SPINCOUNT", "10000")

from mtcli.kernels.adam import adam
from mtcli.kernels.attention import attention_backward, attention_forward
from mtcli.kernels.crossentropy import cross_entropy
from mtcli.kernels.elementwise import bias_relu, relu_backward
from mtcli.kernels.embedding import embedding_backward, embedding_forward
from mtcli.kernels.layernorm import layernorm_backward, layernorm_forward

__all__ = [
    "adam",
    "attention_backward",
    "attention_forward",
    "bias_relu",
    "cross_entropy",
    "embedding_backward",
    "embedding_forward",
    "layernorm_backward",
    "layernorm_forward",
    "relu_backward",
]

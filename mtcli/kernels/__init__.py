"""Numba kernels for the hot loops; each has a plain NumPy reference (`*_ref`) beside it, which is
its spec and what tests/test_kernels.py checks it against."""

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

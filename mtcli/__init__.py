"""mtcli: English-to-Spanish translation with a Transformer trained from scratch."""

__version__ = "0.1.0"

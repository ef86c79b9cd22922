"""mtcli's benchmarks, run from the repository's root (`python -m benchmarks.compare`, `python benchmarks/decode.py`).

A regular package, not a namespace one: pysbd (a dependency) installs a top-level package of the same name,
which a namespace package loses to wherever it is on the path."""

"""`python -m mtcli` and the `mtcli` command (pyproject's entry point): `--version` is answered before
the CLI loads (typer and rich alone take ~0.15 s of CPU); everything else goes to mtcli.cli."""

import os
import sys

# what OpenBLAS reads for its thread count, the first set winning
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def main() -> None:
    if sys.argv[1:] in (["--version"], ["-V"]) and _version_printed():
        return
    if sys.argv[1:2] in (["translate"], ["serve"]) and not any(v in os.environ for v in BLAS_THREADS):
        # OpenBLAS started with one thread, as decode.Translator runs it anyway (a thread of its own per batch): the
        # second thread cost a one-sentence translation ~60 ms of CPU (13 %), and 7 % of a 400-line file's (greedy,
        # whose check reads the translations again outside the decoder's threads). The server's check and its decoders
        # (one core each) too: the check no longer sets the thread count around every request's reading (~0.1 ms)
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
    from mtcli.cli import main as cli

    cli()


def _version_printed() -> bool:
    from mtcli import __version__  # the distribution's version too (pyproject: version from this attribute)

    try:
        sys.stdout.write(f"mtcli {__version__}\n")
        sys.stdout.flush()
        return True
    except (AttributeError, OSError):  # no stdout, or one that cannot be written: the CLI says so in one line
        return False


if __name__ == "__main__":  # (not again in a decoder process that multiprocessing spawns)
    main()

"""`python -m mtcli` and the `mtcli` command (pyproject's entry point): `--version` is answered before
the CLI loads (typer and rich alone take ~0.15 s of CPU); everything else goes to mtcli.cli."""

import sys


def main() -> None:
    if sys.argv[1:] in (["--version"], ["-V"]) and _version_printed():
        return
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

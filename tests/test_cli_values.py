"""mtcli.coercion gives every parameter of every command the value (or the message) typer's own pydantic coercion
gives, and a command line coerced by it loads no pydantic."""

from pathlib import Path

import pytest
import typer.main
from typer._click import Context
from typer._click.exceptions import BadParameter
from typer._coercion import build_runtime_param

from mtcli.cli import app
from mtcli.coercion import PlainParam, plain

VALUES = ["5", "0", "007", "-1", "+3", " 5", "5 ", "1_000", "1.5", ".5", "5.", "1e3", "nan", "inf", "64", "65", "0.99",
          "99999999999999999999", "x", "", "en", "EN", "auto", "bogus", "text", "a/b", "-", "dir/", "a\0b", "true",
          "1", 5, 0, -1, 5.0, 0.5, 1.5, float("nan"), True, False, None, Path("p"), ("a", "b"), ["a"], ()]


def _params():
    """(command path, parameter) for every parameter of the CLI, its help options too."""
    def walk(command, path):
        ctx = Context(command, info_name=path)
        for param in command.get_params(ctx):
            yield path, ctx, param
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, f"{path} {name}")
    return list(walk(typer.main.get_command(app), "mtcli"))


def _outcome(runtime, value, param, ctx):
    try:
        return "value", runtime.coerce(value, param=param, ctx=ctx)
    except BadParameter as e:
        return "refused", e.format_message()
    except (TypeError, ValueError) as e:
        return type(e).__name__, str(e)


def test_every_parameter_is_coerced_as_typer_coerces_it():
    params = _params()
    assert len(params) > 100 and all(isinstance(p._runtime_param, PlainParam) for _, _, p in params)
    for path, ctx, param in params:
        typers = build_runtime_param(param.type_descriptor)
        for value in VALUES:
            ours, theirs = _outcome(param._runtime_param, value, param, ctx), _outcome(typers, value, param, ctx)
            assert ours == theirs and type(ours[1]) is type(theirs[1]), (path, param.name, value)


def test_plain_leaves_a_built_coercion_alone():
    _, ctx, param = _params()[0]
    param._runtime_param = built = build_runtime_param(param.type_descriptor)
    assert plain([param]) == [param] and param._runtime_param is built


@pytest.mark.parametrize("args", [["translate", "--beam", "5", "--alpha", "0.6", "--from", "en", "-i", "x.txt", "-h"],
                                  ["models", "-h"], ["-h"]], ids=" ".join)
def test_a_command_line_loads_no_pydantic(args):
    from tests.test_cli_conventions import _imported

    out, names = _imported("-m", "mtcli", *args)
    assert out.startswith("Usage") and "typer" in names and "pydantic" not in names

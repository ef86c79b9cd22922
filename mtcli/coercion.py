"""The command line's values coerced without pydantic, to what typer's own coercion gives.

typer (0.29) coerces every parameter of a command, given or not, through a pydantic TypeAdapter: loading pydantic
and building them cost a one-sentence translation ~0.1 s of CPU. The values mtcli's options take as people write
them (text, a whole number, a decimal, a choice's word, a path, a default) are coerced here instead; anything else
(a bad number, one out of range, an unknown choice, a value from the environment for a flag) goes to typer's own
coercion, so that every message stays typer's. tests/test_cli_values.py holds the two to the same results.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from functools import cached_property
from pathlib import Path
from typing import Any, get_args

import typer
from typer._coercion import RuntimeParam, TypeDescriptor, build_runtime_param
from typer._param_types import coerce_cli_choice, coerce_cli_path
from typer.core import TyperCommand, TyperGroup
from mtcli import lazy_re

_WHOLE = lazy_re.compile(r"0|[1-9][0-9]{0,17}")  # (as pydantic reads them; other spellings go to it)
_DECIMAL = lazy_re.compile(r"[0-9]{1,17}(\.[0-9]{1,17})?")


class _Unusual(Exception):
    """A value that typer's own coercion takes (or refuses, in its words)."""


@dataclass(frozen=True)
class PlainParam(RuntimeParam):
    """typer's runtime coercion of one parameter, pydantic's adapter built only for a value it must take."""

    descriptor: TypeDescriptor

    @cached_property
    def typers(self) -> RuntimeParam:
        return build_runtime_param(self.descriptor)

    def _coerce_value(self, value: Any, param, ctx) -> Any:
        try:
            if self.descriptor.is_list:
                return [self._leaf(item, param, ctx) for item in (value if isinstance(value, (list, tuple)) else [value])]
            return self._leaf(value, param, ctx)
        except _Unusual:
            return self.typers._coerce_value(value, param=param, ctx=ctx)

    def _leaf(self, value: Any, param, ctx) -> Any:
        kind, info = self.annotation, self.parameter_info
        if self.descriptor.is_list:
            kind = get_args(kind)[0]
        if kind is str and type(value) is str or kind is bool and type(value) is bool:
            return value
        if kind in (int, float) and not info.clamp:
            return _number(kind, value, info.min, info.max)
        if isinstance(kind, type) and issubclass(kind, Enum):
            try:
                return coerce_cli_choice(value, choices=list(kind), case_sensitive=info.case_sensitive, ctx=ctx)
            except ValueError:
                raise _Unusual from None
        if kind is Path and info.path_type is None and type(value) is str and "\0" not in value:
            return coerce_cli_path(Path(value), info, path_type=Path, param=param, ctx=ctx)
        raise _Unusual


def _number(kind: type, value: Any, low: float | None, high: float | None) -> int | float:
    if type(value) is str and (_WHOLE if kind is int else _DECIMAL).fullmatch(value):
        value = kind(value)
    elif not (type(value) is kind or kind is float and type(value) is int):
        raise _Unusual
    if not math.isfinite(value) or low is not None and value < low or high is not None and value > high:
        raise _Unusual
    return kind(value)


def plain(params: list) -> list:
    """A command's parameters (typer's), each coerced as above."""
    for param in params:
        if getattr(param, "_runtime_param", False) is None:  # (typer's coercion, not built yet)
            described = param.type_descriptor
            param._runtime_param = PlainParam(described.parameter_info, described.annotation, described)
    return params


class Command(TyperCommand):
    def get_params(self, ctx) -> list:
        return plain(super().get_params(ctx))


class Group(TyperGroup):
    def get_params(self, ctx) -> list:
        return plain(super().get_params(ctx))


class App(typer.Typer):
    """typer.Typer whose groups and commands coerce their parameters as above (their help options too)."""

    def __init__(self, **kwargs):
        super().__init__(cls=Group, **kwargs)

    def command(self, *args, **kwargs):
        return super().command(*args, cls=Command, **kwargs)

    def __call__(self, *args, **kwargs):
        """The app with only the command the command line names (`mtcli translate ...`): typer makes the click
        parameters of every command from its signature at each call, ~20 ms of a one-sentence translation's CPU
        for the one command that runs. Anything else (no command, a group's, a misspelt one, shell completion)
        goes to the whole app."""
        import copy
        import os
        import sys

        from typer.main import get_command_name

        words = kwargs.get("args", sys.argv[1:])[:1]
        named = [c for c in self.registered_commands if get_command_name(c.name or c.callback.__name__) in words]
        if len(named) != 1 or any(key.endswith("_COMPLETE") for key in os.environ):
            return super().__call__(*args, **kwargs)
        alone = copy.copy(self)
        alone.registered_commands, alone.registered_groups = named, []
        return typer.Typer.__call__(alone, *args, **kwargs)

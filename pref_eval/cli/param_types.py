"""click parameter types shared by the commands: ranges that also refuse NaN and
infinities, seeds, and comma-separated lists of numbers.

click's own ``FloatRange(min=0)`` lets ``nan`` through (every comparison with
NaN is false) and ``inf``; :class:`Finite` refuses both. Every numeric option
of every command is declared with one of these types or click's ``IntRange``
/ ``Choice``, so a bad value ends as click's usage error (exit status 2)
naming the option.
"""
from __future__ import annotations

import math
from typing import Any

import click

from ..seeds import SEED_MAX
from ..errors import shown


class Finite(click.FloatRange):
    """A finite float in the range (``nan``, ``inf`` refused)."""

    name = "float"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        v = super().convert(value, param, ctx)
        if not math.isfinite(v):
            self.fail(f"{shown(value)} is not a finite number.", param, ctx)
        return v

    def _describe_range(self) -> str:
        # click describes a range without bounds as "x<=None" in --help
        if self.min is None and self.max is None:
            return "finite"
        return super()._describe_range()


SEED = click.IntRange(min=0, max=SEED_MAX)
"""Seeds: integers 0 .. 2^64 - 1 (numpy's ``default_rng`` refuses negative seeds; larger ones: pref_eval.seeds)."""


class NumberList(click.ParamType):
    """``a,b,c``: a non-empty comma-separated list of numbers in a range; returns a tuple."""

    name = "list"

    def __init__(self, item: click.ParamType) -> None:
        self.item = item

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> tuple:
        if isinstance(value, tuple):
            return value
        parts = str(value).split(",")
        if not value or any(not p.strip() for p in parts):
            self.fail(f"{shown(value)} is not a comma-separated list of numbers.", param, ctx)
        return tuple(self.item.convert(p.strip(), param, ctx) for p in parts)


class Correction(click.Choice):
    """``--correction``'s choice; a statsmodels method name (PyTerrier's ``correction``, ``fdr_bh``) is refused
    naming ours, as :func:`pref_eval.api.compare` does (:func:`pref_eval.peer_names.correction_hint`)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter as err:
            from ..peer_names import correction_hint

            hint = correction_hint(value) if isinstance(value, str) else ""
            if not hint:
                raise
            self.fail(f"{err.message.rstrip('.')}{hint}.", param, ctx)

"""An option that takes one value, given twice: refused, or (a drop-in peer's option) the last kept with a warning.

click keeps the last value of a repeated single-value option without a word (``zelo_fit --prior 1 --prior 0``
fitted with 0). The policy (docs/exit-codes.md, "An option given twice"), for every command through the two
classes below -- every command and group of :data:`pref_eval.cli.options.COMMANDS` is one of them
(tests/test_cli_given_twice.py walks the table):

* **our own options**: a usage error (exit 2), one line naming the option and its values, unless every
  value is the same (``--seed 3 --seed 3``, ``--alpha 0.05 --alpha 0.050``: taken);
* **options a drop-in peer shares** (:data:`pref_eval.cli.options.PEER_OPTIONS`: trec_eval's on zelo_trec,
  pref_eval.py's on zelo_eval / pref_eval, pref_aggregate.py's on pref_aggregate): the peer's behaviour, the
  last value (trec_eval's getopt and argparse keep it, silently), and a warning on stderr naming the values
  dropped (``-Q`` silences it), so that a shell script written for the peer runs unchanged.

Not affected: options taking several values (``-m``, ``--run``, ``--judge``: ``multiple``), counts (zelo_trec's
``-q -q``), a flag given twice (``-Q -Q``: one value), values from the environment or a ``default_map`` (only
the command line's words are counted), and a line holding ``--help``.
"""
from __future__ import annotations

from typing import Any

import click
from ..errors import shown

#: ctx.meta's key (meta is shared by a group's contexts): the peer's warnings, waiting for -Q to be known
_DROPPED = "pref_eval.once.dropped"


def _watch(parser: Any, ctx: click.Context) -> Any:
    """``parser`` (click's option parser for ``ctx``) recording each single-value option it stores, and checking
    them once the words are read -- before any value is converted or a missing option is refused, so the
    repeat is what the one line says."""
    seen: list[tuple[click.Option, Any]] = []  # (option, value as read) in command-line order
    opts = {id(o): o for table in (parser._long_opt, parser._short_opt) for o in table.values()}
    wrapped = [o for o in opts.values() if o.action in ("store", "store_const") and isinstance(o.obj, click.Option)]
    for opt in wrapped:
        opt.process = _recording(opt, seen)
    parse = parser.parse_args

    def parse_args(args: list[str]) -> Any:
        try:
            result = parse(args)
        finally:  # the wrappers hold their objects (reference cycles): gone, the class's methods are back
            for opt in wrapped:
                del opt.process
            del parser.parse_args
        if not ctx.resilient_parsing:  # shell completion parses half-typed lines
            ctx.meta[_DROPPED] = _check(ctx, seen)
        return result

    parser.parse_args = parse_args
    return parser


def _recording(opt: Any, seen: list[tuple[click.Option, Any]]) -> Any:
    process = opt.process

    def record(value: Any, state: Any) -> None:
        seen.append((opt.obj, opt.const if opt.action == "store_const" else value))
        process(value, state)
    return record


def _check(ctx: click.Context, seen: list[tuple[click.Option, Any]]) -> list[str]:
    """Refuse our own options given twice with different values; the peer's options' warnings, to write once
    ``-Q`` is known."""
    if any(param.is_eager for param, _ in seen):  # --help shows the help whatever else the line holds
        return []
    values: dict[str, tuple[click.Option, list[Any]]] = {}
    for param, value in seen:
        values.setdefault(param.name or "", (param, []))[1].append(value)
    peer, shared = _peer(ctx)
    warnings = []
    for param, given in values.values():
        if len(given) < 2 or _same(ctx, param, given):
            continue
        name = "/".join(param.opts + param.secondary_opts)  # --verify/--no-verify
        shown = [_shown(param, v) for v in given]
        times = "twice" if len(given) == 2 else f"{len(given)} times"
        if shared & set(param.opts):
            dropped = ", ".join(shown[:-1])
            warnings.append(f"{name} given {times}: {dropped} dropped, {shown[-1]} taken (the last, as {peer} "
                            "takes it)")
            continue
        listed = f"{', '.join(shown[:-1])} and {shown[-1]}"
        raise click.UsageError(f"{name} given {times} ({listed}): it takes one value; give it once", ctx=ctx)
    return warnings


def _same(ctx: click.Context, param: click.Option, given: list[Any]) -> bool:
    """Whether every value given is the same value (as typed, or once converted: ``0.05`` and ``0.050``)."""
    if all(v == given[0] for v in given):
        return True
    try:
        converted = [param.type_cast_value(ctx, v) for v in given]
    except click.BadParameter:
        return False
    return all(v == converted[0] for v in converted)


def _shown(param: click.Option, value: Any) -> str:
    """A value as the line typed it: a flag of an ``--x/--no-x`` pair by its spelling."""
    if param.is_flag and param.secondary_opts:
        return param.opts[-1] if value else param.secondary_opts[-1]
    if isinstance(value, (tuple, list)):
        return " ".join(map(str, value))
    return shown(value) if value == "" or any(c.isspace() for c in str(value)) else str(value)


def _peer(ctx: click.Context) -> tuple[str, frozenset[str]]:
    """The drop-in peer of the running command and the options it shares (none for a subcommand)."""
    from .options import GROUP_SCRIPT, PEER_OPTIONS, command_of

    if ctx.parent is not None and ctx.parent.info_name != GROUP_SCRIPT:
        return "", frozenset()
    return PEER_OPTIONS.get(command_of(ctx.info_name or ""), ("", frozenset()))


def _warn_dropped(ctx: click.Context) -> None:
    """The peer's options given twice: one warning each, unless ``-Q`` (read by the command's warner)."""
    dropped = ctx.meta.pop(_DROPPED, None)
    if dropped:
        from ..output.atomic import notify

        for line in dropped:
            notify(line)


class _Once(click.Command):
    """The parsing both kinds share: the parser watched (:func:`_watch`), the dropped values warned about."""

    def make_parser(self, ctx: click.Context) -> Any:
        return _watch(super().make_parser(ctx), ctx)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        rest = super().parse_args(ctx, args)
        _warn_dropped(ctx)
        return rest


class OnceCommand(_Once):
    """A command whose single-value options given twice follow the policy of this module."""


class OnceGroup(_Once, click.Group):
    """A group of :class:`OnceCommand` (and groups of its own kind), under the same policy."""

    command_class = OnceCommand
    group_class = type

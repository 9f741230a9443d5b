"""``zelo``: every command of the family under one click group.

``zelo trec ...`` is ``zelo_trec ...``, ``zelo eval ...`` is ``zelo_eval ...``,
and so on; the separate entry points stay. Subcommands are imported lazily so
``zelo --help`` is instant and a missing optional part never breaks the rest.
"""
from __future__ import annotations

import importlib

import click

from .common import run_main
from .once import OnceGroup
from .options import COMMANDS as TABLE

COMMANDS = {c.name: (c.module, c.help) for c in TABLE}  # pref_eval.cli.options.COMMANDS is the one list


class LazyGroup(OnceGroup):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        try:
            mod = importlib.import_module(COMMANDS[name][0])
        except ImportError:
            return None
        return getattr(mod, "command", None)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, help_) for name, (_, help_) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
def command() -> None:
    """pref_eval's command family: zelo COMMAND --help for each."""


def main(argv: list[str] | None = None) -> None:
    run_main(command, "zelo", argv)


if __name__ == "__main__":
    main()

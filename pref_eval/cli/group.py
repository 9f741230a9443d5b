"""``zelo``: every command of the family under one click group.

``zelo trec ...`` is ``zelo_trec ...``, ``zelo eval ...`` is ``zelo_eval ...``,
and so on; the separate entry points stay. Subcommands are imported lazily so
``zelo --help`` is instant and a missing optional part never breaks the rest.
"""
from __future__ import annotations

import importlib

import click

from .common import run_main

COMMANDS = {
    "trec": ("pref_eval.cli.trec", "trec_eval-exact evaluation (drop-in for trec_eval)."),
    "eval": ("pref_eval.cli.eval", "Metric and preference evaluation of runs (drop-in for pref_eval.py)."),
    "aggregate": ("pref_eval.cli.aggregate", "Order runs from preference files: MC4, Borda (pref_aggregate)."),
    "fit": ("pref_eval.cli.fit", "Fit zELO / Bradley-Terry scores from pairwise judgments."),
    "pairs": ("pref_eval.cli.pairs", "Choose document pairs to judge (random cycles, Clarke's tournament)."),
    "simulate": ("pref_eval.cli.simulate", "Simulate judging strategies against a preference matrix."),
    "compare": ("pref_eval.cli.compare", "Significance tests, corrections and ordering correlations."),
    "agree": ("pref_eval.cli.agree", "Agreement, calibration and changed conclusions between judges."),
    "plot": ("pref_eval.cli.plot", "Plots of zELO scores and system comparisons."),
    "judge": ("pref_eval.cli.judge", "Judge document pairs with an ensemble of LLM judges (stored, resumable)."),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str):
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
@click.version_option(package_name="pref_eval", prog_name="zelo")
def command() -> None:
    """pref_eval's command family: zelo COMMAND --help for each."""


def main(argv: list[str] | None = None) -> None:
    run_main(command, "zelo", argv)


if __name__ == "__main__":
    main()

"""What every command shares: the command table and the common options.

``COMMANDS`` is the one list of commands. The ``zelo`` group
(:mod:`pref_eval.cli.group`) is built from it; ``setup.cfg``'s console
scripts and the ``bin/`` wrappers are checked against it by
``tests/test_cli_options.py`` (and ``python tools/make_bin.py`` writes the
wrappers from it). A new command adds one :class:`Command` row here, then its
entry point in ``setup.cfg`` (see ``docs/architecture.md``).

``quiet_option`` is the one declaration of ``-Q/--quiet``; ``--version`` is
answered in one place, :func:`pref_eval.cli.common.run_main`, with the name
the user typed (``zelo_fit --version``, ``zelo fit --version``), by
:func:`version_line`: on standard output, except zelo_trec's (``-v`` and
``--version``), which goes to standard error as trec_eval's does.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple, TypeVar

F = TypeVar("F", bound=Callable[..., object])


class Command(NamedTuple):
    """One command: ``zelo NAME`` and its console scripts (the first is its own name)."""

    name: str
    module: str
    scripts: tuple[str, ...]
    help: str


COMMANDS: tuple[Command, ...] = (
    Command("trec", "pref_eval.cli.trec", ("zelo_trec",), "trec_eval-exact evaluation (drop-in for trec_eval)."),
    Command("eval", "pref_eval.cli.eval", ("zelo_eval", "pref_eval"),
            "Metric and preference evaluation of runs (drop-in for pref_eval.py)."),
    Command("aggregate", "pref_eval.cli.aggregate", ("pref_aggregate",),
            "Order runs from preference files: MC4, Borda (pref_aggregate)."),
    Command("fit", "pref_eval.cli.fit", ("zelo_fit",), "Fit zELO / Bradley-Terry scores from pairwise judgments."),
    Command("pairs", "pref_eval.cli.pairs", ("zelo_pairs",),
            "Choose document pairs to judge (random cycles, Clarke's tournament, adaptive)."),
    Command("simulate", "pref_eval.cli.simulate", ("zelo_simulate",),
            "Simulate judging strategies against a preference matrix."),
    Command("compare", "pref_eval.cli.compare", ("zelo_compare",),
            "Significance tests, corrections and ordering correlations."),
    Command("agree", "pref_eval.cli.agree", ("zelo_agree",),
            "Agreement, calibration and changed conclusions between judges."),
    Command("plot", "pref_eval.cli.plot", ("zelo_plot",),
            "Plots: judgment matrices, zELO scores, system comparisons, calibration."),
    Command("judge", "pref_eval.cli.judge", ("zelo_judge",),
            "Judge document pairs with an ensemble of LLM judges (stored, resumable)."),
)

#: the group itself
GROUP_SCRIPT = "zelo"

#: The options a drop-in peer shares with a command (by the option's first spelling), given twice: the peer's
#: behaviour, the last value, with a warning naming the dropped one (pref_eval.cli.once; docs/exit-codes.md).
#: trec_eval 10's getopt and pref_eval.py / pref_aggregate.py's argparse keep the last value silently (run
#: live: tests/test_cli_given_twice.py). Every other single-value option given twice with two values is refused.
PEER_OPTIONS: dict[str, tuple[str, frozenset[str]]] = {
    "trec": ("trec_eval", frozenset({"-l", "-N", "-M", "-R", "-T", "-Z", "--Output_old_results_format"})),
    "eval": ("pref_eval.py", frozenset({"-R", "-M", "-b", "-f", "--query_fraction", "--label_fraction",
                                        "--label_fraction_policy", "--samples", "--topk"})),
    "aggregate": ("pref_aggregate.py", frozenset({"-P", "--query_fraction", "--num_samples"})),
}


def command_of(name: str) -> str:
    """The command (``trec``) of a name typed: the command's own or one of its scripts (``zelo_trec``)."""
    return next((c.name for c in COMMANDS if name == c.name or name in c.scripts), "")


#: the names under which ``--version`` (and zelo_trec's ``-v``) answer on stderr, as ``trec_eval -v`` does
VERSION_ON_STDERR = frozenset({"zelo_trec", f"{GROUP_SCRIPT} trec"})


def version_line(label: str) -> tuple[str, bool]:
    """The ``--version`` line (with its newline) for the program name ``label``, and whether it goes to stderr.

    zelo_trec is a drop-in for trec_eval 10, which prints its version on stderr (exit 0, stdout empty) for
    ``-v``/``--version`` whatever else the command line holds; scripts running ``trec_eval -v 2>&1`` or
    ``trec_eval -v > /dev/null`` behave the same with zelo_trec. Every other command follows the GNU
    convention (stdout).
    """
    from .. import __version__

    if label in VERSION_ON_STDERR:
        return f"{label} (pref_eval) {__version__}; trec_eval 10.0 compatible\n", True
    return f"{label} (pref_eval) {__version__}\n", False


def console_scripts() -> dict[str, str]:
    """``{script: "module:main"}`` for every command and the group, as setup.cfg must declare them."""
    out = {GROUP_SCRIPT: "pref_eval.cli.group:main"}
    for c in COMMANDS:
        for s in c.scripts:
            out[s] = f"{c.module}:main"
    return out


def version_name(prog: str, args: list[str]) -> str:
    """The program name ``--version`` prints: ``zelo fit`` for ``zelo fit --version``, else ``prog``."""
    if prog == GROUP_SCRIPT and args and args[0] in {c.name for c in COMMANDS}:
        return f"{GROUP_SCRIPT} {args[0]}"
    return prog


def quiet_option(help: str = "No warnings or progress on stderr.") -> Callable[[F], F]:
    """``-Q/--quiet`` (parameter ``quiet``): silences the command's :class:`~pref_eval.log.Log`."""
    import click

    return click.option("-Q", "--quiet", "quiet", is_flag=True, help=help)

"""``pref_aggregate``: orderings of runs from zelo_eval / pref_eval.py preference files.

Drop-in for diazf/pref_eval's ``pref_aggregate.py`` (docs/pref_aggregate.md):
same JSON lines with ``--mc4-steps 10``; by default MC4 is the stationary
distribution of the damped chain.
"""
from __future__ import annotations

import click

from .common import Log, run_main
from .param_types import SEED, Finite
from .once import OnceCommand
from .options import quiet_option

CONTEXT = {"help_option_names": ["-h", "--help"]}


@click.command(cls=OnceCommand, context_settings=CONTEXT)
@click.option("-P", "--prefs", "prefs", required=True, metavar="FILE",
              help="Preference file (zelo_eval -q / pref_eval.py -q output; gzip or - ok).")
@click.option("-q", "--query_eval_wanted", "per_query", is_flag=True, help="Per-query rankings too.")
@click.option("-n", "--nosummary", "nosummary", is_flag=True, help="No summary line.")
@click.option("-m", "--measure", "measures", multiple=True, metavar="NAME",
              help="Measure to aggregate, repeatable (default: every measure of the file, in file order).")
@click.option("--query_fraction", "query_fraction", default=1.0, type=Finite(0, 1, min_open=True),
              help="Each sample uses max(1, int(|Q|*F)) random queries (of sample 0; default 1.0: all).")
@click.option("--num_samples", "num_samples", default=1, type=click.IntRange(min=1),
              help="Number of samples (default 1).")
@click.option("--seed", "seed", default=0, type=SEED, help="Seed for --query_fraction (default 0).")
@click.option("--mc4-steps", "mc4_steps", default=None, type=click.IntRange(min=1), metavar="T",
              help="MC4 as pref_aggregate.py: T power-iteration steps of the undamped chain "
                   "(10 reproduces it exactly). Default: stationary distribution with damping.")
@click.option("--damping", "damping", default=0.15, type=Finite(0, 1, min_open=True),
              help="MC4 teleport probability α of the stationary solution (default 0.15).")
@click.option("-o", "--output-format", "fmt", default="json", type=click.Choice(["json", "tsv", "jsonl", "markdown"]),
              help="json: pref_aggregate.py's lines; tsv/jsonl: sample qid measure method rank run score "
                   "(score: MC4's stationary probability, Borda points); markdown: tables. Default json.")
@click.option("--output", "output", default=None, metavar="FILE", help="Write to FILE (default stdout).")
@quiet_option("No warnings or progress on stderr (progress is shown only when stderr is a terminal).")
def command(prefs: str, per_query: bool, nosummary: bool, measures: tuple[str, ...], query_fraction: float,
            num_samples: int, seed: int, mc4_steps: int | None, damping: float, fmt: str, output: str | None,
            quiet: bool) -> int:
    """Order runs by MC4 / Borda (preference measures) and by mean (metrics)."""
    from .common import given_options, refuse_unused

    # (before session 22 --seed was accepted and unused when nothing is drawn)
    refuse_unused("--query_fraction < 1 (the only random draw)", {"seed": "--seed"}, query_fraction < 1.0)
    if mc4_steps is not None and given_options("damping"):  # also --damping 0.15 (the API sees the default)
        from ..errors import UsageError

        raise UsageError("--damping applies to the stationary MC4 (the default), not to --mc4-steps (the power "
                         "steps of pref_aggregate.py's undamped chain)")
    from ..api.aggregation import aggregate
    from ..output.orderings import TSV_HEADER, json_lines, jsonl_lines, markdown_lines, tsv_lines
    from ..output.atomic import inputs_besides, preflight
    from .common import command_options, options_given, output_stream

    preflight(output, inputs_besides(output, command_options()))  # a missing directory before the file is read
    with options_given():
        ms, results = aggregate(prefs, measures or None, query_fraction=query_fraction, num_samples=num_samples,
                                seed=seed, mc4_steps=mc4_steps, damping=damping, log=Log("pref_aggregate", quiet))
    with output_stream(output) as out:
        if fmt == "tsv":
            out.write(TSV_HEADER)
        for agg in results:
            if fmt == "json":
                out.writelines(json_lines(agg, ms, per_query=per_query, summary=not nosummary))
            elif fmt == "tsv":
                out.writelines(tsv_lines(agg, ms, per_query=per_query, summary=not nosummary))
            elif fmt == "jsonl":
                out.writelines(jsonl_lines(agg, ms, per_query=per_query, summary=not nosummary))
            else:
                out.writelines(markdown_lines(agg, ms))
    return 0


def main(argv: list[str] | None = None) -> None:
    # numpy's OpenBLAS starts a busy thread per core when it loads (~0.1 s CPU
    # on 2 cores); this command's linear algebra is tiny. Set before numpy's
    # import; an explicit OPENBLAS_NUM_THREADS of the user wins.
    import os

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    run_main(command, "pref_aggregate", argv, short_lived=True)


if __name__ == "__main__":
    main()

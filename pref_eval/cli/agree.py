"""zelo_agree: how far can a judge be trusted? Agreement, calibration and changed conclusions between judges."""
from __future__ import annotations

import click

from .common import Log, run_main, stdout_or
from .once import OnceCommand
from .options import quiet_option
from .param_types import SEED, Correction, Finite

FORMAT_HELP = ("jsonl|zbench|clarke4|clarke3|llmlog|carterette|trecprefs|xie, one for every file or a "
               "comma-separated list with one per -J (default: detect).")


@click.command(cls=OnceCommand, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-J", "--judgments", "judgments", multiple=True, required=True, metavar="FILE",
              help="Judgment file (repeat: the first is the reference; '-' = stdin; gzip ok).")
@click.option("-n", "--name", "names", multiple=True, metavar="NAME",
              help="Judge name for each -J, in order (default: file base names).")
@click.option("--format", "fmt", default=None, metavar="F", help=FORMAT_HELP)
@click.option("--ties", type=click.Choice(["half", "zbench"]), default="half", show_default=True,
              help="Ensemble vote rule for the pair score, as zelo_fit.")
@click.option("-l", "--level", "levels", multiple=True,
              type=click.Choice(["pair", "calibration", "document", "system"]),
              help="Levels to report (repeatable; default pair, calibration, document; system with --runs).")
@click.option("-o", "--output-format", "output_format",
              type=click.Choice(["text", "tsv", "csv", "jsonl", "markdown", "latex"]), default="text",
              show_default=True,
              help="Table layout (text: columns aligned by terminal width, a CJK character 2 columns) or jsonl.")
@click.option("--output", "output", default=None, metavar="FILE", help="Write here instead of stdout (atomically).")
@click.option("--digits", type=click.IntRange(0, 17), default=4, show_default=True,
              help="Decimals in text, markdown and latex.")
@click.option("--resamples", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Bootstrap resamples of the queries (0 = no intervals).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Bootstrap seed.")
@click.option("--confidence", type=Finite(0, 1, min_open=True, max_open=True), default=0.95,
              show_default=True, help="Level of the percentile intervals.")
@click.option("--buckets", type=click.IntRange(min=1), default=20, show_default=True,
              help="Calibration buckets (at most; equal-population, equal scores never split; a run of "
                   "1/2 on the middle cut is one more).")
@click.option("--calibration", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Calibration of each judge's pair scores: auto = when they take values other than 0, 1/2, 1.")
@click.option("--consensus-min", type=click.IntRange(min=1), default=2, show_default=True,
              help="Votes the reference needs (all for one document) for a consensus pair.")
@click.option("--prior", type=Finite(min=0, min_open=True), default=0.5, show_default=True,
              help="Prior of every judge's zELO fit (as zelo_fit --prior).")
@click.option("--top-k", type=click.IntRange(min=1), default=10, show_default=True,
              help="k of the document-level top-k overlap.")
@click.option("--runs", "runs", multiple=True, metavar="RUN",
              help="System level: a TREC run (repeatable; shell globs expanded by the shell).")
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help="System level: the measure (e.g. ndcg_cut.10; one).")
@click.option("--grades", default="0,1,2,3", show_default=True,
              help="System level: grades of each judge's qrels (quantile bins of its zELO scores, "
                   "as zelo_fit --qrels).")
@click.option("--tests", default="t", show_default=True, help="System level: paired test (as zelo_compare).")
@click.option("--correction", type=Correction(["none", "bonferroni", "holm", "bh"]), default="holm",
              show_default=True, help="System level: multiple-comparison correction.")
@click.option("--alpha", type=Finite(0, 1, min_open=True, max_open=True), default=0.05, show_default=True,
              help="System level: significance level.")
@click.option("--judged-depth", type=click.IntRange(min=1), default=None, metavar="K",
              help="System level: a judge's coverage of each run as judged@K:RUN, ir-measures' Judged@K (the share "
                   "of the top K documents judged, mean over the topics), not judged:RUN (ir-measures' Judged: "
                   "every retrieved document).")
@quiet_option("No warnings on stderr.")
def command(judgments: tuple[str, ...], names: tuple[str, ...], fmt: str | None, ties: str, levels: tuple[str, ...],
            output_format: str, output: str | None, digits: int, resamples: int, seed: int, confidence: float,
            buckets: int, calibration: str, consensus_min: int, prior: float, top_k: int, runs: tuple[str, ...],
            measures: tuple[str, ...], grades: str, tests: str, correction: str, alpha: float, judged_depth: int | None,
            quiet: bool) -> int:
    """Agreement of judges with a reference judge (the first -J).

    Pair level (coverage, ties, agreement, Cohen's and weighted kappa,
    Krippendorff's alpha, Fleiss' kappa, position bias), calibration of graded
    scores, document level (zELO fits compared per query) and, with --runs and
    -m, system level (orderings and significant differences that flip).
    Intervals: bootstrap over queries.
    """
    from ..api.agreement import agree
    from .common import command_options, options_given

    if len(measures) > 1:  # click keeps the last of a repeated option: the first would be ignored
        raise click.UsageError(f"-m given {len(measures)} times ({', '.join(measures)}): the system level compares "
                               "the orderings by one measure; run zelo_agree once per measure")
    measure = measures[0] if measures else None
    if not levels:
        levels = ("pair", "calibration", "document") + (("system",) if runs or measure else ())
    with options_given():
        agree(judgments, names=names or None, judgments_format=fmt, ties=ties, levels=levels, resamples=resamples,
              seed=seed, confidence=confidence, buckets=buckets, calibration=calibration, consensus_min=consensus_min,
              prior=prior,
              top_k=top_k, runs=runs, measure=measure, grades=grades, tests=tests, correction=correction, alpha=alpha,
              judged_depth=judged_depth, output=stdout_or(output), output_format=output_format, digits=digits,
              inputs=command_options(), log=Log("zelo_agree", quiet))
    return 0


def main(argv: list[str] | None = None) -> None:
    run_main(command, "zelo_agree", argv)


if __name__ == "__main__":
    main()

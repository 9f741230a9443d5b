"""``zelo_plot``: pictures of zELO judgments and scores and of system comparisons.

Subcommands: ``matrix`` (zbench's K×K comparison matrix of one query),
``scores`` (zELO scores with intervals), ``systems`` (runs ordered by a
measure with confidence intervals and significance groups), ``pairs``
(heatmap of pairwise p-values or mean differences), ``calibration``
(reliability diagram of a judge from ``zelo_agree -o jsonl``). The output format is
chosen by ``--format`` or the extension of ``-o`` (``.png``, ``.svg`` or ``.pdf``; ``-o -`` writes
standard output and needs ``--format``; ``matrix`` spells it ``--image-format``). matplotlib is an
optional extra: ``pip install 'pref_eval[plot]'``.
"""
from __future__ import annotations

import click

from .common import Log, run_id_options, run_main
from .once import OnceGroup
from .options import quiet_option
from .param_types import SEED, Correction, Finite

CONTEXT = {"help_option_names": ["-h", "--help"]}


IMAGE_FORMATS = ("png", "svg", "pdf")


def _figure_options(width: float, height: float, format_names: tuple[str, ...] = ("--format", "--image-format")):
    """The figure's options; ``format_names``: matrix's ``--format`` is the judgment format (as zelo_fit's), so
    there the image format is ``--image-format`` only."""
    def deco(f):
        f = click.option(*format_names, "image_fmt", type=click.Choice(IMAGE_FORMATS), default=None,
                         help="Image format: needed with -o - (standard output); by default the extension of -o "
                              "(refused when both are given and differ).")(f)
        f = click.option("--title", default=None, help="Figure title (default: one describing the data).")(f)
        f = click.option("--dpi", type=click.FloatRange(min=10, max=1200), default=100.0, show_default=True,
                         help="Pixels per inch (PNG).")(f)
        f = click.option("--height", type=click.FloatRange(min=1, max=100), default=height, show_default=True,
                         help="Figure height in inches.")(f)
        f = click.option("--width", type=click.FloatRange(min=1, max=100), default=width, show_default=True,
                         help="Figure width in inches.")(f)
        f = click.option("-o", "--output", required=True, metavar="FILE.png|FILE.svg|FILE.pdf|-",
                         help="Image file (the format follows the extension), or - for standard output "
                              "with --format.")(f)
        f = quiet_option("No messages on stderr.")(f)
        return f
    return deco


@click.group(cls=OnceGroup, context_settings=CONTEXT)
def command() -> None:
    """Plots of zELO judgments and scores and of system comparisons (PNG, SVG or PDF).

    zelo_plot KIND --help for each kind. Needs matplotlib
    (pip install 'pref_eval[plot]').
    """


@command.command("matrix", context_settings=CONTEXT)
@click.option("-J", "--judgments", "judgment_files", multiple=True, required=True, metavar="FILE",
              help="Judgment file (any format zelo_fit reads; repeatable).")
@click.option("--format", "fmt", default=None, metavar="F", help="Judgment format (default: detect).")
@click.option("--ties", type=click.Choice(["half", "zbench"]), default="half", show_default=True,
              help="Ensemble vote rule, as zelo_fit.")
@click.option("-q", "--query", "qid", default=None, metavar="QID",
              help="Query to draw (default: the first in the judgments).")
@click.option("-S", "--scores", "scores_file", default=None, metavar="TSV",
              help="Order by these zelo_fit scores instead of fitting here.")
@click.option("--prior", type=Finite(min=0), default=0.5, show_default=True,
              help="Prior of the fit used for ordering (as zelo_fit --prior).")
@_figure_options(11.0, 5.0, ("--image-format",))
def matrix_cmd(judgment_files: tuple[str, ...], fmt: str | None, ties: str, qid: str | None, scores_file: str | None,
               prior: float, quiet: bool, output: str, width: float, height: float, dpi: float, title: str | None,
               image_fmt: str | None) -> None:
    """zbench's K×K comparison matrix of one query, in input and zELO order.

    Cell (row i, column j) is the share of the comparisons between i and j
    that i won; grey = never compared.
    """
    from ..api.plotting import PlotImage, plot_matrix
    from .common import command_options, refuse_unused

    # (session 22: --prior with -S was accepted and unused -- the scores given are not fitted here)
    refuse_unused("the fit done here (not with -S SCORES, whose order is taken as given)", {"prior": "--prior"},
                  scores_file is None)
    plot_matrix(judgment_files, PlotImage(output, width, height, dpi, title, image_fmt), judgments_format=fmt,
                ties=ties, qid=qid, scores=scores_file, prior=prior, log=Log("zelo_plot", quiet),
                inputs=command_options())


@command.command("scores", context_settings=CONTEXT)
@click.option("-S", "--scores", "scores_file", required=True, metavar="TSV",
              help="zelo_fit output: 'qid docno score se' TSV.")
@click.option("-q", "--query", "queries", multiple=True, metavar="QID",
              help="Query to draw (repeatable; default: the first --max-queries).")
@click.option("--max-queries", type=click.IntRange(min=1), default=3, show_default=True,
              help="Queries drawn when --query is not given.")
@click.option("--top", type=click.IntRange(min=1), default=None,
              help="Only the N highest-scoring documents of each query.")
@click.option("--confidence", type=Finite(0, 1, min_open=True, max_open=True), default=0.95, show_default=True,
              help="Interval level: score ± z·se with z = Φ⁻¹(1 − (1 − level)/2).")
@_figure_options(11.0, 6.0)
def scores_cmd(scores_file: str, queries: tuple[str, ...], max_queries: int, top: int | None, confidence: float,
               quiet: bool, output: str, width: float, height: float, dpi: float, title: str | None,
               image_fmt: str | None) -> None:
    """zELO score distributions with confidence intervals, one panel per query."""
    from ..api.plotting import PlotImage, plot_scores
    from .common import command_options

    plot_scores(scores_file, PlotImage(output, width, height, dpi, title, image_fmt), queries=queries,
                max_queries=max_queries, top=top, confidence=confidence, log=Log("zelo_plot", quiet),
                inputs=command_options())


def _refuse_unused_values(test: str, *, ci_bootstrap: bool = False, from_compare_file: bool = False) -> None:
    """An option the plot would not read is refused, not ignored (as zelo_compare's): with ``-C`` the tests
    were run by zelo_compare (``--correction``, ``--seed``, ``-c`` are its); ``--seed`` needs a randomised
    test or ``--ci bootstrap``; ``--correction`` a test other than tukey (family-wise by construction)."""
    from ..stats.compare import parse_tests
    from .common import refuse_unused

    refuse_unused("-R or -P (with -C the tests were run by zelo_compare)",
                  {"correction": "--correction", "seed": "--seed", "complete": "-c"}, not from_compare_file)
    if from_compare_file:
        return
    names = parse_tests(test)
    if len(names) != 1:
        return  # no test or several: refused by the plot itself ("no test selected", "unknown test 't,sign'")
    name = names[0]
    refuse_unused("--test randomization, bootstrap or tukey, or --ci bootstrap", {"seed": "--seed"},
                  name in ("randomization", "bootstrap", "tukey") or ci_bootstrap)
    refuse_unused("a --test other than tukey (tukey is family-wise by construction)",
                  {"correction": "--correction"}, name != "tukey")


def _values_options(f):
    f = click.option("--seed", type=SEED, default=0, show_default=True,
                     help="Seed for randomised tests and the bootstrap.")(f)
    f = click.option("--alpha", type=Finite(min=0, max=1, min_open=True, max_open=True),
                     default=0.05, show_default=True, help="Significance level.")(f)
    f = click.option("--correction", type=Correction(["holm", "bonferroni", "bh", "none"]),
                     default="holm", show_default=True, help="Multiple-comparison correction over all pairs.")(f)
    f = click.option("--test", "test", default="t", show_default=True,
                     help="Paired test (as zelo_compare --tests: t, wilcoxon, sign, randomization, bootstrap, "
                          "tukey).")(f)
    f = click.option("-c", "--complete", is_flag=True,
                     help="Count a query missing for a run as 0 (trec_eval -c) instead of dropping it.")(f)
    f = click.option("-m", "--measure", default=None, metavar="MEASURE",
                     help="The measure (trec_eval or ir-measures name; the column name in a -P file).")(f)
    f = click.option("-P", "--per-query", "per_query", default=None, metavar="FILE",
                     help="Per-query values 'run qid measure value' (zelo_eval -q -o tsv|csv|jsonl).")(f)
    f = click.option("-R", "--qrels", default=None, metavar="QRELS", help="Qrels to evaluate the runs with.")(f)
    return run_id_options(f)


@command.command("systems", context_settings=CONTEXT)
@_values_options
@click.option("--ci", type=click.Choice(["t", "bootstrap"]), default="t", show_default=True,
              help="Interval of each run's mean: Student t, or BCa bootstrap (seeded).")
@click.option("--confidence", type=Finite(0, 1, min_open=True, max_open=True), default=0.95,
              show_default=True, help="Interval level.")
@_figure_options(7.0, 4.0)
@click.argument("runs", nargs=-1, metavar="[RUN...]")
def systems_cmd(qrels: str | None, per_query: str | None, measure: str | None, complete: bool, test: str,
                correction: str, alpha: float, seed: int, run_id_mode: str, run_names: tuple[str, ...], ci: str,
                confidence: float, quiet: bool, output: str, width: float, height: float, dpi: float, title: str | None,
                image_fmt: str | None, runs: tuple[str, ...]) -> None:
    """Runs ordered by a measure, with confidence intervals and significance groups.

    Runs sharing a letter are not significantly different (paired TEST,
    CORRECTION over all pairs, level ALPHA).
    """
    from ..api.plotting import PlotImage, PlotValues, plot_systems
    from .common import command_options, options_given

    _refuse_unused_values(test, ci_bootstrap=ci == "bootstrap")
    values = PlotValues(qrels, per_query, tuple(runs), measure, complete, test, correction, alpha, seed, run_id_mode,
                        tuple(run_names))
    with options_given():
        plot_systems(values, PlotImage(output, width, height, dpi, title, image_fmt), ci=ci, confidence=confidence,
                     log=Log("zelo_plot", quiet), inputs=command_options())


@command.command("pairs", context_settings=CONTEXT)
@click.option("-C", "--compare", "compare_file", default=None, metavar="JSONL",
              help="zelo_compare -o jsonl output (instead of -R/-P).")
@_values_options
@click.option("--value", type=click.Choice(["p_adjusted", "p_value", "mean_diff"]), default="p_adjusted",
              show_default=True, help="What the cells show.")
@_figure_options(6.5, 5.5)
@click.argument("runs", nargs=-1, metavar="[RUN...]")
def pairs_cmd(compare_file: str | None, qrels: str | None, per_query: str | None, measure: str | None, complete: bool,
              test: str, correction: str, alpha: float, seed: int, run_id_mode: str, run_names: tuple[str, ...],
              value: str, quiet: bool, output: str, width: float, height: float, dpi: float, title: str | None,
              image_fmt: str | None, runs: tuple[str, ...]) -> None:
    """Heatmap of pairwise p-values or mean differences between runs.

    From a zelo_compare jsonl file (-C), or computed here from -R QRELS RUN...
    or -P PER_QUERY_FILE with the paired TEST and CORRECTION.
    """
    from ..api.plotting import PlotImage, PlotValues, plot_pairs
    from .common import command_options, options_given

    _refuse_unused_values(test, from_compare_file=compare_file is not None)
    values = PlotValues(qrels, per_query, tuple(runs), measure, complete, test, correction, alpha, seed, run_id_mode,
                        tuple(run_names))
    with options_given():
        plot_pairs(values, PlotImage(output, width, height, dpi, title, image_fmt), compare_file=compare_file,
                   value=value, log=Log("zelo_plot", quiet), inputs=command_options())


@command.command("calibration", context_settings=CONTEXT)
@click.option("-A", "--agree", "agree_file", required=True, metavar="JSONL",
              help="zelo_agree -o jsonl output with calibration records.")
@click.option("--judge", default=None, metavar="NAME",
              help="The judge to draw when the file holds the calibration of several.")
@_figure_options(11.0, 4.5)
def calibration_cmd(agree_file: str, judge: str | None, quiet: bool, output: str, width: float, height: float,
                    dpi: float, title: str | None, image_fmt: str | None) -> None:
    """Reliability diagram and the reference's five-level distribution per bucket.

    From zelo_agree's calibration records: observed mean of the reference
    against the judge's predicted mu per bucket, and the
    stacked shares of the reference's levels 0, (0,1/2), 1/2, (1/2,1), 1.
    """
    from ..api.plotting import PlotImage, plot_calibration
    from .common import command_options

    plot_calibration(agree_file, PlotImage(output, width, height, dpi, title, image_fmt), judge=judge,
                     log=Log("zelo_plot", quiet), inputs=command_options())


def main(argv: list[str] | None = None) -> None:
    # numpy's OpenBLAS starts a busy thread per core when it loads; this command's linear
    # algebra is small. Set before numpy's import; an explicit OPENBLAS_NUM_THREADS wins.
    import os

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    run_main(command, "zelo_plot", argv)


if __name__ == "__main__":
    main()

"""``zelo_eval`` (also installed as ``pref_eval``): metric and preference evaluation.

Two modes share one command (docs/zelo_eval.md):

* **preference mode** — a drop-in for diazf/pref_eval's ``pref_eval.py``:
  JSON lines (``-o pref``, the default with two or more runs), or long
  tables (``-o tsv|csv|jsonl`` when a preference measure or a pref_eval
  metric such as ``p@10`` is asked for);
* **metric mode** — trec_eval semantics for several runs: ``-o trec`` (the
  default with one run; one trec_eval block per run) or ``-o tsv|csv|jsonl``
  long tables (``run, qid, measure, value``) when every ``-m`` name is a
  trec_eval / ir-measures name.
"""
from __future__ import annotations

import click

from .common import Log, run_id_options, run_main, stdout_or
from .param_types import SEED, Finite
from .once import OnceCommand
from .options import quiet_option

CONTEXT = {"help_option_names": ["-h", "--help"]}
FORMATS = ("pref", "trec", "tsv", "csv", "jsonl", "text", "markdown", "latex", "wide-csv", "topics", "topics-csv",
           "topics-jsonl", "topics-text", "topics-markdown", "topics-latex")  # = api.FORMATS
JUDGMENT_FORMATS = ("jsonl", "zbench", "clarke4", "clarke3", "llmlog", "carterette", "trecprefs", "xie")


@click.command(cls=OnceCommand, context_settings=CONTEXT)
@click.option("-R", "--qrels", "qrels", default=None, metavar="QRELS",
              help="Qrels file (path, -, gzip, irds:ID), or a zELO score file (zelo_fit's TSV, zbench's annotated "
                   "JSONL); required except with --list-measures.")
@click.option("-m", "--measure", "measures", multiple=True, metavar="NAME",
              help="Measure, repeatable: rpp invrpp dcgrpp lexirecall (LR, sgnLR) lexiprecision (sgnLP) "
                   "rrlexiprecision (rrLP); ap rbp rr ndcg rp p@K r@K ap@K rr@K ndcg@K rbp@G[,K]; "
                   "any trec_eval / ir-measures name (ndcg_cut.10, nDCG@10).")
@click.option("-M", "--measure_set", "measure_set", default=None, metavar="SET|N",
              help="preferences, all, none (= all, pref_eval.py's default), a trec_eval nickname "
                   "(official, all_trec), or a number: keep the top N documents (trec_eval's -M).")
@click.option("-b", "--binary_relevance", "binary", default=None, type=Finite(), metavar="GRADE",
              help="Preference mode: relevant iff grade >= GRADE (grades become 0/1).")
@click.option("-f", "--relevance_floor", "floor", default=None, type=Finite(), metavar="G",
              help="Preference mode: grades below G become 0 (after -b).")
@click.option("-P", "--judgments", "judgments", default=None, metavar="FILE",
              help="Metric mode: pairwise judgments (any format zelo_fit reads) for measures computed "
                   "from them (PGC).")
@click.option("--judgments-format", "judgments_format", default=None, type=click.Choice(JUDGMENT_FORMATS),
              help="Format of -P (default: detected, as zelo_fit --format).")
@click.option("-B", "--best", "best", default=None, metavar="FILE",
              help="Metric mode: best-known items for BestRR / BestSuccess@k (qrels of the best items, or a "
                   "zELO score file: its top documents).")
@click.option("-q", "--query_eval_wanted", "per_query", is_flag=True, help="Per-query lines too.")
@click.option("-n", "--nosummary", "nosummary", is_flag=True, help="No summary ('all') lines.")
@click.option("-c", "--complete", "complete", is_flag=True,
              help="Metric mode: every qrels topic counts; missing ones score 0 (trec_eval -c).")
@click.option("-l", "--level", "level", default=1, type=int, metavar="N",
              help="Metric mode: grade >= N is relevant (trec_eval -l, default 1).")
@click.option("--depth", "depth", default=None, type=click.IntRange(min=1), metavar="N",
              help="Keep the top N documents of each ranking (same as --topk).")
@click.option("--topk", "topk", default=None, type=click.IntRange(min=1), metavar="K",
              help="Keep the top K documents of each ranking (pref_eval.py's --topk).")
@click.option("-o", "--output-format", "fmt", default=None, type=click.Choice(FORMATS),
              help="pref: pref_eval.py's JSON lines (default with >= 2 runs); trec: trec_eval blocks "
                   "(default with 1 run); tsv, csv, jsonl: long tables; topics (TSV), topics-csv, topics-jsonl: per "
                   "topic and measure the min / median / max over the runs and each run's value (a column per "
                   "run), topics-text, topics-markdown, topics-latex: the same to read; text, markdown, latex, "
                   "wide-csv: runs x measures.")
@click.option("--output", "output", default=None, metavar="FILE", help="Write results to FILE (default stdout).")
@click.option("--reference", "reference", default=None, metavar="RUN",
              help="Compare RUN (run id or file) with every other run instead of all pairs.")
@click.option("--means", "means", is_flag=True,
              help="pref output: add a per-run mean line for every metric after the summary.")
@click.option("--query_fraction", "query_fraction", default=1.0, type=Finite(0, 1, min_open=True),
              help="Keep max(int(|Q|*F), 1) random queries per sample (default 1.0: all).")
@click.option("--label_fraction", "label_fraction", default=1.0, type=Finite(0, 1, min_open=True),
              help="Keep max(int(n*F), 1) of the n relevant labels of each query per sample (default 1.0: all).")
@click.option("--label_fraction_policy", "label_policy", default="random", type=click.Choice(["random", "pool"]),
              help="random labels, or those found in most run lines (ties: docid descending); default random.")
@click.option("--samples", "samples", default=1, type=click.IntRange(min=1), help="Number of samples (default 1).")
@click.option("--seed", "seed", default=0, type=SEED, help="Seed of the sampling options (default 0).")
@click.option("--jobs", "jobs", default=1, type=click.IntRange(min=1), metavar="N", show_default=True,
              help="Read and evaluate (preference mode: read and rank) the runs in N processes "
                   "(same output as --jobs 1).")
@click.option("--scheduler", "scheduler", default=None, metavar="ADDRESS",
              help="The same on a running dask.distributed scheduler (tcp://host:8786); "
                   "needs pip install 'pref_eval[dask]'.")
@click.option("--keep-going", "keep_going", is_flag=True,
              help="A run that cannot be read or evaluated is named on stderr (FILE:LINE: error) and left out, the "
                   "others are evaluated and written; exit status 2 when a run was left out (refused with "
                   "--label_fraction_policy pool).")
@click.option("--median", "median", default=None, type=click.Choice(("mean", "upper")),
              help="-o topics*: the median of an even number of runs, the mean of the two middle values (default) "
                   "or the upper one (NIST's per-topic medians).")
@click.option("--run-types", "run_types", default=None, metavar="FILE",
              help="-o topics*: a row per run type (automatic, manual, ...: NIST's medians are over the runs of one "
                   "type) from RUNTAG TYPE lines (or a TSV/CSV with a header naming a type column); a run by its "
                   "run tag (trec_eval's runid).")
@click.option("--quartiles", "quartiles", is_flag=True,
              help="-o topics*: columns q1 and q3 around the median (CLEF's per-topic tables; numpy's quantile).")
@click.option("--clef-stats", "clef_stats", is_flag=True,
              help="-o topics*: the CLEF appendices' per-topic statistics: the quartiles (as --quartiles) and, after "
                   "max, columns mean, std (sample standard deviation, n - 1), iqr (q3 - q1) and range (max - min).")
@click.option("--digits", "digits", default=None, type=click.IntRange(0, 17), metavar="N",
              help="Decimals of the tables to read, -o text|markdown|latex|topics-text|topics-markdown|topics-latex "
                   "(default 4, as zelo_compare --digits).")
@quiet_option("No warnings or progress on stderr (progress is shown only when stderr is a terminal).")
@click.option("--list-measures", "list_measures", is_flag=True, help="List every measure name and exit.")
@click.option("--trec-eval-9", "trec9", is_flag=True,
              help="Metric mode: emulate trec_eval 9.x / pytrec_eval (float32 scores, old iprec rounding), "
                   "as zelo_trec --trec-eval-9.")
@click.option("--pref-eval-head", "head", is_flag=True,
              help="Preference mode: graded rpp/invrpp/dcgrpp as diazf/pref_eval HEAD prints them (its vector "
                   "cache ignores grades), to match published figures; see docs/differences-pref_eval.md.")
@run_id_options
@click.argument("runs", nargs=-1, metavar="RUN [RUN...]")
def command(qrels: str | None, measures: tuple[str, ...], measure_set: str | None, binary: float | None,
            floor: float | None, per_query: bool, nosummary: bool, complete: bool, level: int, depth: int | None,
            topk: int | None, fmt: str | None, output: str | None, reference: str | None, means: bool,
            query_fraction: float, label_fraction: float, label_policy: str, samples: int, seed: int, jobs: int,
            scheduler: str | None, quiet: bool, list_measures: bool, trec9: bool, head: bool, run_id_mode: str,
            run_names: tuple[str, ...], runs: tuple[str, ...], judgments: str | None, judgments_format: str | None,
            best: str | None, keep_going: bool, median: str | None, digits: int | None, run_types: str | None,
            quartiles: bool, clef_stats: bool) -> int:
    """Evaluate runs: pref_eval.py's preferences (RPP, lexicographic) and trec_eval metrics.

    \b
    zelo_eval -R qrels/dl19-sample.qrels -q runs/bm25.run runs/dense.run   # pref_eval.py JSON lines
    zelo_eval -R qrels/dl19-sample.qrels -m map -m nDCG@10 runs/bm25.run    # trec_eval block
    zelo_eval -R qrels/dl19-sample.qrels -o tsv -m map runs/*.run           # long table
    """
    from ..errors import UsageError

    if list_measures:
        from .common import print_measure_list

        return print_measure_list(preferences=True)
    if qrels is None:
        from ..peer_names import ir_measures_order

        raise UsageError("missing -R QRELS (usage: zelo_eval -R QRELS [options] RUN [RUN...]; "
                         f"zelo_eval --list-measures lists the measures){ir_measures_order('zelo_eval', runs)}")
    if not runs:
        raise UsageError("no run file given (usage: zelo_eval -R QRELS [options] RUN [RUN...])")
    _refuse_unused_sampling(query_fraction, label_fraction, label_policy)
    from ..api.run_evaluation import evaluate_runs
    from .common import command_options, options_given

    with options_given():
        evaluate_runs(qrels, list(runs), measures=measures, measure_set=measure_set, binary=binary, floor=floor,
                      judgments=judgments, judgments_format=judgments_format, best=best, per_query=per_query,
                      summary=not nosummary, complete=complete, level=level, depth=depth, topk=topk, output_format=fmt,
                      output=stdout_or(output), reference=reference, means=means, query_fraction=query_fraction,
                      label_fraction=label_fraction, label_policy=label_policy, samples=samples, seed=seed, jobs=jobs,
                      scheduler=scheduler, trec9=trec9, head=head, run_id_mode=run_id_mode, run_names=run_names,
                      log=Log("zelo_eval", quiet), inputs=command_options(), keep_going=keep_going, median=median,
                      digits=digits, run_types=run_types, quartiles=quartiles, clef_stats=clef_stats)
    return 0


def _refuse_unused_sampling(query_fraction: float, label_fraction: float, label_policy: str) -> None:
    """``--seed`` only seeds a random draw, ``--label_fraction_policy`` only picks labels: given where nothing
    is drawn or picked they are refused, not ignored (before session 22 both were accepted and unused)."""
    from .common import refuse_unused

    refuse_unused("--label_fraction < 1 (the labels it keeps)", {"label_policy": "--label_fraction_policy"},
                  label_fraction < 1.0)
    refuse_unused("a random draw: --query_fraction < 1, or --label_fraction < 1 with --label_fraction_policy "
                  "random (nothing else is random)", {"seed": "--seed"},
                  query_fraction < 1.0 or (label_fraction < 1.0 and label_policy == "random"))


def main(argv: list[str] | None = None) -> None:
    # numpy's OpenBLAS starts a busy thread per core when it loads (~0.1 s CPU
    # on 2 cores); this command's linear algebra is tiny. Set before numpy's
    # import; an explicit OPENBLAS_NUM_THREADS of the user wins.
    import os
    import sys

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from ..heap import one_arena

    one_arena()  # as zelo_trec: the parse threads' freed memory returned to the OS with the rest
    # the drop-in name for pref_eval.py names itself in messages, usage lines and --version
    prog = "pref_eval" if argv is None and os.path.basename(sys.argv[0]) == "pref_eval" else "zelo_eval"
    run_main(command, prog, argv, short_lived=True)


if __name__ == "__main__":
    main()

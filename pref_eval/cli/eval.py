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

import sys

import click

from .common import Log, run_id_options, run_main
from .param_types import SEED, Finite
from .options import quiet_option

CONTEXT = {"help_option_names": ["-h", "--help"]}
FORMATS = ("pref", "trec", "tsv", "csv", "jsonl", "text", "markdown", "latex", "wide-csv")
WIDE = ("text", "markdown", "latex", "wide-csv")  # runs × measures (zelo_compare's report table)
JUDGMENT_FORMATS = ("jsonl", "zbench", "clarke4", "clarke3", "llmlog", "carterette", "trecprefs", "xie")
MANY_RUNS = 8  # from this many runs on, a stage line announces the evaluation (on a terminal)


@click.command(context_settings=CONTEXT)
@click.option("-R", "--qrels", "qrels", default=None, metavar="QRELS",
              help="Qrels file (path, -, gzip, irds:ID); required except with --list-measures.")
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
                   "(default with 1 run); tsv, csv, jsonl: long tables.")
@click.option("--output", "output", default=None, metavar="FILE", help="Write results to FILE (default stdout).")
@click.option("--reference", "reference", default=None, metavar="RUN",
              help="Compare RUN (run id or file) with every other run instead of all pairs.")
@click.option("--means", "means", is_flag=True,
              help="pref output: add a per-run mean line for every metric after the summary.")
@click.option("--query_fraction", "query_fraction", default=1.0, type=Finite(0, 1, min_open=True),
              help="Keep max(int(|Q|*F), 1) random queries per sample.")
@click.option("--label_fraction", "label_fraction", default=1.0, type=Finite(0, 1, min_open=True),
              help="Keep max(int(n*F), 1) of the n relevant labels of each query per sample.")
@click.option("--label_fraction_policy", "label_policy", default="random", type=click.Choice(["random", "pool"]),
              help="random labels, or those found in most run lines (ties: docid descending).")
@click.option("--samples", "samples", default=1, type=click.IntRange(min=1), help="Number of samples.")
@click.option("--seed", "seed", default=0, type=SEED, help="Seed of the sampling options (default 0).")
@click.option("--jobs", "jobs", default=1, type=click.IntRange(min=1), metavar="N", show_default=True,
              help="Read and evaluate (preference mode: read and rank) the runs in N processes "
                   "(same output as --jobs 1).")
@click.option("--scheduler", "scheduler", default=None, metavar="ADDRESS",
              help="The same on a running dask.distributed scheduler (tcp://host:8786); "
                   "needs pip install 'pref_eval[dask]'.")
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
def command(qrels, measures, measure_set, binary, floor, per_query, nosummary, complete, level, depth, topk,
            fmt, output, reference, means, query_fraction, label_fraction, label_policy, samples, seed, jobs,
            scheduler, quiet, list_measures, trec9, head, run_id_mode, run_names, runs, judgments=None,
            judgments_format=None, best=None):
    """Evaluate runs: pref_eval.py's preferences (RPP, lexicographic) and trec_eval metrics.

    \b
    zelo_eval -R qrels/dl19-sample.qrels -q runs/bm25.run runs/dense.run   # pref_eval.py JSON lines
    zelo_eval -R qrels/dl19-sample.qrels -m map -m nDCG@10 runs/bm25.run    # trec_eval block
    zelo_eval -R qrels/dl19-sample.qrels -o tsv -m map runs/*.run           # long table
    """
    from ..errors import UsageError

    log = Log("zelo_eval", quiet)
    if list_measures:
        return _list_measures()
    if qrels is None:
        raise UsageError("missing -R QRELS (usage: zelo_eval -R QRELS [options] RUN [RUN...]; "
                         "zelo_eval --list-measures lists the measures)")
    if not runs:
        raise UsageError("no run file given (usage: zelo_eval -R QRELS [options] RUN [RUN...])")
    from ..io.run_ids import run_ids

    ids = run_ids(list(runs), mode=run_id_mode, names=run_names)
    ms = measure_set
    if ms is not None and ms.strip().lstrip("+").isdigit():
        d = int(ms)
        if d <= 0:
            raise UsageError(f"-M {ms}: the depth must be positive")
        depth, ms = (d if depth is None else min(depth, d)), None
    cut = [x for x in (depth, topk) if x is not None]
    cutoff = min(cut) if cut else None
    from ..io.zelo_scores import looks_like_zelo_scores

    extra = {"judgments": judgments, "judgments_format": judgments_format, "best": best}
    parallel = jobs > 1 or scheduler is not None

    def serial_only(mode: str) -> None:
        if parallel:
            raise UsageError(f"--jobs/--scheduler apply to metric mode (trec_eval measures), not to {mode}")

    if looks_like_zelo_scores(qrels):
        _refuse_extra(extra, "with a zELO score file")
        serial_only("a zELO score file")
        bad = [flag for flag, used in (("-b", binary is not None), ("-f", floor is not None),
                                       ("--reference", reference is not None), ("--means", means),
                                       ("-c", complete), ("-l", level != 1),
                                       ("--query_fraction", query_fraction < 1.0),
                                       ("--label_fraction", label_fraction < 1.0), ("--samples", samples > 1))
               if used]
        if bad:
            raise UsageError(f"not applicable with a zELO score file ({qrels}): {', '.join(bad)}")
        if trec9 or head:
            raise UsageError(f"not applicable with a zELO score file ({qrels}): "
                             f"{'--trec-eval-9' if trec9 else '--pref-eval-head'}")
        if ms is not None:
            raise UsageError(f"-M {ms}: with a zELO score file use -m zndcg|zndcg@K|zacc|zrecall@K[,KGT] "
                             "(-M N limits the candidates)")
        return _scores_mode(qrels, runs, ids, measures, per_query, nosummary, cutoff, fmt or "trec", output, log)
    if fmt is None:
        fmt = "pref" if len(runs) >= 2 and not _trec_eval_names_only(measures) else "trec"
    if trec9 and (fmt == "pref" or (fmt != "trec" and _wants_preferences(measures, ms))):
        raise UsageError("--trec-eval-9 applies to trec_eval measures (metric mode: -o trec, or -o tsv with "
                         "trec_eval names), not to preference mode")
    if fmt == "pref":
        _refuse_extra(extra, "with -o pref (preference mode)")
        return _preference_mode(qrels, runs, ids, measures, ms, binary, floor, per_query, nosummary, cutoff, fmt,
                                output, reference, means, query_fraction, label_fraction, label_policy,
                                samples, seed, log, head, jobs, scheduler)
    if fmt != "trec" and _wants_preferences(measures, ms):
        _refuse_extra(extra, "in preference mode")
        return _preference_mode(qrels, runs, ids, measures, ms, binary, floor, per_query, nosummary, cutoff, fmt,
                                output, reference, means, query_fraction, label_fraction, label_policy,
                                samples, seed, log, head, jobs, scheduler)
    for flag, val in (("-b", binary), ("-f", floor), ("--reference", reference), ("--pref-eval-head", head or None)):
        if val is not None:
            raise UsageError(f"{flag} applies to preference measures (use -o pref, or -m rpp ... with -o tsv)")
    return _metric_mode(qrels, runs, ids, measures, ms, per_query, nosummary, complete, level, cutoff, fmt, output,
                        log, extra, trec9, jobs, scheduler)


def _refuse_extra(extra: dict, where: str) -> None:
    """-P / --judgments-format only serve registry measures (metric mode)."""
    from ..errors import UsageError

    for flag, key in (("-P", "judgments"), ("--judgments-format", "judgments_format"), ("-B", "best")):
        if extra.get(key) is not None:
            raise UsageError(f"{flag} is not applicable {where}: it serves registry measures such as PGC or "
                             "BestRR (metric mode)")


def _list_measures() -> int:
    from .common import print_measure_list

    return print_measure_list(preferences=True)


def _trec_eval_names_only(measures) -> bool:
    """True when ``-m`` names only trec_eval / ir-measures measures that pref_eval.py does not know
    (``map``, ``nDCG@10``): several runs then default to one trec_eval block per run, since
    pref_eval.py's output would show only the differences between runs."""
    from ..run_preferences.names import parse_pref_measure

    if not measures or _wants_preferences(measures, None):
        return False
    return all(m.kind == "registry" for name in measures for m in parse_pref_measure(name))


def _wants_preferences(measures, ms) -> bool:
    """Table output: preference mode iff a name is not a registry measure, or -M preferences/all."""
    from ..stats.prefvalues import needs_preference_mode

    if not measures:
        return ms in ("preferences", "all", "none")
    return needs_preference_mode(measures)


def _metric_mode(qrels, runs, ids, measures, ms, per_query, nosummary, complete, level, depth, fmt, output, log,
                 extra=None, trec9=False, jobs=1, scheduler=None):
    from ..errors import EvaluationError, UsageError
    from ..io.qrels import read_qrels
    from ..measures import parse_measures
    from ..measures.base import needs_subtopics
    from .common import output_stream

    if ms in ("preferences", "all", "none"):
        raise UsageError(f"-M {ms} is a preference measure set; use -o pref (or -o tsv with it)")
    names = list(measures) if measures else [ms or "official"]
    if measures and ms:
        names.append(ms)
    requests = parse_measures(names)
    from ..api import extra_inputs

    inputs = extra_inputs(requests, **(extra or {}))
    q = read_qrels(qrels, subtopics=needs_subtopics(requests))
    from ..api import evaluate_run_group

    if jobs == 1 and scheduler is None:
        rs = _read_runs(runs, ids, log)
        if len(runs) >= MANY_RUNS:
            log.stage(f"evaluating {len(runs)} runs")
        got = evaluate_run_group((q, rs, ids, names, complete, level, depth, False, trec9, inputs))
    else:
        from ..parallel import ordered_map, split_even

        if len(runs) >= MANY_RUNS:
            log.stage(f"evaluating {len(runs)} runs")
        groups = [(k, k + 1) for k in range(len(runs))] if scheduler else split_even([1] * len(runs), jobs)
        pieces = [(q, list(runs[a:b]), ids[a:b], names, complete, level, depth, False, trec9, inputs)
                  for a, b in groups]
        got = [x for part in ordered_map(evaluate_run_group, pieces, jobs=jobs, scheduler=scheduler) for x in part]
    results = []
    for (res, n_missing, nq_qrels, nq), path in zip(got, runs, strict=True):
        if n_missing and not complete:
            log.warn(f"{path}: run lacks {n_missing} of {nq_qrels} qrels topics; "
                     "averaging over the topics in both (use -c to count them as zero)")
        if nq == 0:
            raise EvaluationError(f"{path}: no queries with both results and relevance info")
        results.append(res)
    if fmt in WIDE:
        return _wide_table(results, fmt, output, per_query, nosummary, complete, trec9)
    with output_stream(output) as out:
        if fmt == "trec":
            from ..output.trec import write_trec

            for res, name in zip(results, ids, strict=False):
                if len(results) > 1 and not any(c.name == "runid" for c in res.columns):
                    out.write(f"{'runid':<22}\tall\t{name}\n")  # label each block (trec_eval's runid line)
                write_trec(out, res, per_query=per_query, summary=not nosummary, print_missing=not trec9)
        else:
            from ..output.table import WRITERS, long_rows

            rows = long_rows(results, per_query=per_query, summary=not nosummary, print_missing=not trec9)
            WRITERS[fmt](out, rows)
    return 0


def _wide_table(results, fmt, output, per_query, nosummary, complete, trec9) -> int:
    """Runs × measures: the mean of each measure over the queries every run has (``-c``: all), the
    best in bold, significance letters of a paired t-test with Holm's correction over the pairs of
    runs per measure at α = 0.05 -- the table of ``zelo_compare`` (same code), which offers the
    other tests and settings."""
    import pandas as pd

    from ..errors import UsageError
    from ..output.comparisons import format_table, run_labels
    from ..output.table import HEADER, long_rows
    from ..stats.compare import compare
    from .common import output_stream

    if per_query or nosummary:
        raise UsageError(f"-o {fmt} is a table of means: -q/-n do not apply (use -o tsv for per-query values)")
    rows = list(long_rows(results, per_query=True, summary=False, print_missing=not trec9))
    df = pd.DataFrame(rows, columns=list(HEADER))
    if df.empty:
        raise UsageError(f"-o {fmt}: no per-query values (summary-only measures such as gm_map or num_q)")
    res = compare(df, tests=["t"], correction="holm", alpha=0.05, complete=complete)
    with output_stream(output) as out:
        if fmt != "wide-csv":
            out.write(format_table(res, fmt, 4, "t"))
            return 0
        import csv

        from ..output.comparisons import beaten_labels

        labels = run_labels(len(res.runs))
        beats = beaten_labels(res, "t")
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["label", "run", *(c for m in res.measures for c in (m, f"{m} beats"))])
        for lab, run in zip(labels, res.runs, strict=True):
            w.writerow([lab, run, *(c for m in res.measures
                                    for c in (repr(float(res.means.loc[run, m])), beats.get((m, run), "")))])
    return 0


def _scores_mode(scores, runs, ids, measures, per_query, nosummary, cutoff, fmt, output, log) -> int:
    """Runs against a zELO score file (``qid docno score se``): zbench's measures, fixed.

    Rows ``(run, qid, measure, value)`` from
    :func:`pref_eval.zelo.eval_scores.evaluate_against_scores` (``cutoff`` =
    the first N candidates of each query in run-file order), written as
    trec_eval-like blocks or as a long table.
    """
    from ..errors import UsageError
    from ..io.textfile import display_name
    from ..zelo.eval_scores import DEFAULT_MEASURES, evaluate_against_scores, parse_zelo_measure
    from .common import output_stream

    if fmt == "pref":
        raise UsageError("-o pref needs qrels; with a zELO score file use -o trec|tsv|csv|jsonl")
    names = list(measures) or list(DEFAULT_MEASURES)
    for m in names:
        parse_zelo_measure(m)
    got = evaluate_against_scores(scores, list(runs), names, limit=cutoff)
    # per run: its per-query rows, then one "all" row per measure
    rows, k, n_all, seen_q = [], 0, 0, False
    for _, q, m, v in got:
        if q == "all":
            n_all += 1
        else:
            seen_q = True
        if (q == "all" and not nosummary) or (q != "all" and per_query):
            rows.append((ids[k], q, m, float(v)))
        if n_all == len(names):
            if not seen_q:
                log.warn(f"{display_name(runs[k])}: no query in common with {display_name(scores)}; its means are nan")
            k, n_all, seen_q = k + 1, 0, False
    with output_stream(output) as out:
        if fmt == "trec":
            from ..output.trec import format_float

            for rid in ids:
                mine = [r for r in rows if r[0] == rid]
                if not nosummary:
                    k = next((i for i, r in enumerate(mine) if r[1] == "all"), len(mine))
                    mine.insert(k, (rid, "all", "runid", rid))
                out.writelines(f"{m:<22}\t{q}\t{v if isinstance(v, str) else format_float(v)}\n"
                               for _, q, m, v in mine)
        else:
            from ..output.table import WRITERS

            WRITERS[fmt](out, rows)
    return 0


def _preference_mode(qrels, runs, ids, measures, ms, binary, floor, per_query, nosummary, topk, fmt, output,
                     reference, means, query_fraction, label_fraction, label_policy, samples, seed, log,
                     head=False, jobs=1, scheduler=None):
    import numpy as np

    from ..errors import UsageError
    from ..io.qrels import read_subtopic_qrels
    from ..output.preferences import pref_json_lines, pref_rows, write_table
    from ..run_preferences.data import head_binary, prepare_qrels
    from ..run_preferences.evaluate import evaluate_preferences, reference_index
    from ..run_preferences.names import resolve
    from ..run_preferences.sampling import sample_labels, sample_queries
    from .common import output_stream

    if fmt == "pref" and len(runs) < 2:
        raise UsageError("need at least two runs for comparison (or -o trec|tsv|csv|jsonl for one run)")
    if measures and ms:
        log.warn(f"-M {ms} ignored because -m is given (as pref_eval.py)")
    sel = resolve(list(measures), None if measures else ms)
    names = list(ids)
    ref = reference_index(reference, names, list(runs))
    q = read_subtopic_qrels(qrels)
    parallel = (jobs > 1 or scheduler) and "-" not in runs
    if parallel and samples == 1 and label_fraction == 1.0 and all(m.kind != "registry" for m in sel):
        rs = list(runs)  # paths: read and ranked by the worker processes (evaluate_preferences)
    elif parallel:
        from ..parallel import ordered_map, split_even
        from ..run_preferences.evaluate import read_run_group

        groups = [(k, k + 1) for k in range(len(runs))] if scheduler else split_even([1] * len(runs), jobs)
        pieces = [(list(runs[a:b]), names[a:b]) for a, b in groups]
        rs = [r for part in ordered_map(read_run_group, pieces, jobs=jobs, scheduler=scheduler) for r in part]
    else:
        rs = _read_runs(runs, names, log)
    base = prepare_qrels(q, binary, floor)
    if len(base.qorder) == 0:
        log.warn(f"{qrels}: no query has a relevant document (grade > 0 after -b/-f); nothing to evaluate")
    # numpy.random is imported only when a sample is drawn (start-up, issue #13)
    rng = np.random.default_rng(seed) if query_fraction < 1.0 or label_fraction < 1.0 else None
    if samples == 1 and len(runs) >= MANY_RUNS:
        npairs = len(runs) - 1 if ref is not None else len(runs) * (len(runs) - 1) // 2
        log.stage(f"evaluating {len(sel)} measures on {npairs} pairs of runs")
    with output_stream(output) as out:
        first = True
        for s in range(samples):
            qs, pq = q, base
            if query_fraction < 1.0:
                qs, pq = sample_queries(qs, pq, query_fraction, rng, binary, floor)
            if label_fraction < 1.0:
                qs, pq = sample_labels(qs, pq, label_fraction, label_policy, rng, rs, binary, floor)
            res = evaluate_preferences(pq, rs, names, sel, topk=topk, reference=ref, sample=s, jobs=jobs,
                                       scheduler=scheduler)
            graded = [m for m in sel if m.kind == "pref" and m.base in ("rpp", "invrpp", "dcgrpp")]
            if head and graded:  # HEAD's numbers for the graded RPP family only (see head_binary)
                hb = evaluate_preferences(head_binary(pq), rs, names, graded, topk=topk, reference=ref, sample=s)
                res.prefs.update({m.key: hb.prefs[m.key] for m in graded})
            if fmt == "pref":
                out.writelines(pref_json_lines(res, per_query=per_query, summary=not nosummary, means=means))
            else:
                rows = pref_rows(res, per_query=per_query, summary=not nosummary)
                if samples > 1:
                    rows = ((f"{r[0]}", r[1], r[2], r[3], r[4]) for r in rows)
                write_table(out, rows, fmt, header=first)
            first = False
            if samples > 1:
                log.progress("samples", s + 1, samples)
    return 0


def _read_runs(paths, names, log) -> list:
    """Read the run files in order, with a progress line on a terminal (``reading runs: k/N``)."""
    from ..io.runs import read_run

    rs = []
    try:
        for k, (p, n) in enumerate(zip(paths, names, strict=False)):
            log.progress("reading runs", k, len(paths))
            rs.append(read_run(p, name=n))
    except BaseException:
        if log.interactive:  # end the progress line so the error starts a line of its own
            sys.stderr.write("\n")
        raise
    log.progress("reading runs", len(paths), len(paths))
    return rs


def main(argv: list[str] | None = None) -> None:
    # numpy's OpenBLAS starts a busy thread per core when it loads (~0.1 s CPU
    # on 2 cores); this command's linear algebra is tiny. Set before numpy's
    # import; an explicit OPENBLAS_NUM_THREADS of the user wins.
    import os

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    run_main(command, "zelo_eval", argv)


if __name__ == "__main__":
    main()

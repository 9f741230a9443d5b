"""``zelo_compare``: paired significance tests between runs, and correlation
between two orderings of systems."""
from __future__ import annotations

import click

from .common import Log, given_options, run_id_options, run_main
from .param_types import SEED, Finite
from .options import quiet_option

CONTEXT = {"help_option_names": ["-h", "--help"]}
FORMATS = ("text", "markdown", "latex", "csv", "jsonl")


def _resolve_run(name: str, runs: list[str]) -> str:
    """Exact run name, else a unique match on the file name / its stem."""
    import os

    from ..errors import UsageError

    if name in runs:
        return name
    cands = [r for r in runs if os.path.basename(r) == name
             or os.path.splitext(os.path.basename(r))[0] == name]
    if len(cands) == 1:
        return cands[0]
    raise UsageError(f"baseline {name!r} is not one of the runs ({', '.join(runs)})")


@click.command(context_settings=CONTEXT)
@click.option("-R", "--qrels", "qrels", metavar="QRELS", default=None,
              help="Evaluate the RUN files against QRELS (with -m) and compare them.")
@click.option("-P", "--per-query", "per_query", metavar="FILE", default=None,
              help="Per-query values written by 'zelo_eval -q -o tsv|csv|jsonl' (instead of -R).")
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help="Measure to compare (repeatable). Required with -R; with -P selects measures.")
@click.option("-c", "--complete", is_flag=True,
              help="Count queries missing for a run as 0 instead of leaving them out.")
@click.option("-l", "--level", "level", type=int, default=1, show_default=True,
              help="Relevance threshold for -R (grade >= N is relevant); trec_eval measures only.")
@click.option("-b", "--binary_relevance", "binary", type=Finite(), default=None, metavar="GRADE",
              help="-R with preference measures: relevant iff grade >= GRADE (as zelo_eval -b).")
@click.option("-f", "--relevance_floor", "floor", type=Finite(), default=None, metavar="G",
              help="-R with preference measures: grades below G become 0 (as zelo_eval -f).")
@click.option("--depth", "depth", type=click.IntRange(min=1), default=None, help="Keep the top N documents per query (-R).")
@click.option("--tests", "tests", default="t,wilcoxon,sign", show_default=True, metavar="LIST",
              help="Comma-separated tests: t, wilcoxon, sign, randomization, bootstrap, tukey.")
@click.option("--correction", type=click.Choice(["holm", "bonferroni", "bh", "none"]), default="holm",
              show_default=True, help="Multiple-comparison correction per (measure, test) family.")
@click.option("--resamples", type=click.IntRange(min=1), default=10000, show_default=True,
              help="Resamples of the randomization, bootstrap and Tukey HSD procedures.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the resampling procedures.")
@click.option("--baseline", default=None, metavar="RUN", help="Compare each run with RUN only (default: all pairs).")
@click.option("--alpha", type=Finite(0, 1, min_open=True, max_open=True), default=0.05, show_default=True, help="Significance level for the markers.")
@click.option("--sign-min-diff", "sign_min_diff", type=Finite(min=0), default=0.0, show_default=True, metavar="DELTA",
              help="Sign test: differences with |d| < DELTA count as ties (Smucker et al. 2007).")
@click.option("--zero-method", "zero_method", type=click.Choice(["wilcox", "pratt", "zsplit"]), default="wilcox",
              show_default=True, help="Wilcoxon: treatment of zero differences (scipy's zero_method).")
@click.option("--wilcoxon-method", "wilcoxon_method", type=click.Choice(["auto", "exact", "asymptotic"]),
              default="auto", show_default=True, help="Wilcoxon: exact null distribution or normal approximation.")
@click.option("--ci-method", "ci_method", type=click.Choice(["BCa", "percentile", "basic"]), default="BCa",
              show_default=True, help="Bootstrap confidence interval.")
@click.option("--confidence", type=Finite(0, 1, min_open=True, max_open=True), default=0.95, show_default=True,
              help="Confidence level of the t and bootstrap intervals.")
@click.option("--marker-test", "marker_test", default=None, metavar="TEST",
              help="Test whose adjusted p-values set the table markers (default: the first of --tests).")
@click.option("--digits", type=click.IntRange(0, 17), default=4, show_default=True, help="Decimals in the report table.")
@click.option("-o", "--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="Output format.")
@click.option("--output", "output", default=None, metavar="FILE", help="Write to FILE instead of stdout.")
@click.option("--orderings", nargs=2, default=None, metavar="A B",
              help="Correlate two orderings of systems (system-score TSV, list, or pref_aggregate output).")
@click.option("--key-a", "key_a", default=None, metavar="MEASURE[:LIST]",
              help="Which ordering of a pref_aggregate file A to use (e.g. rpp:mc4).")
@click.option("--key-b", "key_b", default=None, metavar="MEASURE[:LIST]", help="Same for B.")
@click.option("--rbo-p", "rbo_p", type=Finite(0, 1, max_open=True), default=0.9, show_default=True,
              help="Persistence p of rank-biased overlap in --orderings (0 = do not compute).")
@click.option("--jobs", "jobs", type=click.IntRange(min=1), default=1, show_default=True, metavar="N",
              help="Evaluate the runs (-R, trec_eval measures) and test the measures in N processes "
                   "(same output as --jobs 1).")
@quiet_option("No warnings on stderr.")
@run_id_options
@click.argument("runs", nargs=-1, metavar="[RUN]...")
def command(qrels, per_query, measures, complete, level, binary, floor, depth, tests, correction, resamples,
            seed, baseline, alpha, sign_min_diff, zero_method, wilcoxon_method, ci_method, confidence, marker_test, digits,
            fmt, output, orderings, key_a, key_b, rbo_p, jobs, quiet, run_id_mode, run_names, runs):
    """Compare runs with paired significance tests, or two orderings of systems.

    \b
    zelo_compare -R QRELS -m MEASURE... RUN RUN [RUN...]
    zelo_compare -P PER_QUERY_FILE [-m MEASURE...] [RUN...]
    zelo_compare --orderings A B
    """
    from ..errors import UsageError
    from .common import output_stream

    log = Log("zelo_compare", quiet)
    if orderings:
        if qrels or per_query or runs:
            raise UsageError("--orderings takes two ordering files and no -R, -P or runs")
        return _compare_orderings(orderings, key_a=key_a, key_b=key_b, rbo_p=rbo_p, fmt=fmt, digits=digits,
                                  output=output, log=log)

    if bool(qrels) == bool(per_query):
        raise UsageError("give either -R QRELS with run files, or -P PER_QUERY_FILE (see --help)")
    from ..stats.compare import compare, parse_tests

    test_list = parse_tests(tests)
    if marker_test is not None:
        mt = parse_tests(marker_test)[0]
        if mt not in test_list:
            raise UsageError(f"--marker-test {marker_test} is not among --tests {tests}")
    else:
        mt = test_list[0]
    pref_df = None
    df, baseline, pref_baseline_done = _per_query_values(
        qrels=qrels, per_query=per_query, runs=runs, measures=measures, complete=complete, level=level,
        binary=binary, floor=floor, depth=depth, baseline=baseline, jobs=jobs, run_id_mode=run_id_mode,
        run_names=run_names, log=log)
    run_sel = None
    measure_sel = list(measures) if measures else None
    if "run_b" in df.columns:  # runi/runj layout: metric rows have an empty runj
        pref_df = df[df["run_b"] != ""]
        df = df[df["run_b"] == ""].drop(columns="run_b")
        # zelo_eval repeats metrics as pair differences: keep the per-run rows only
        pref_df = pref_df[~pref_df["measure"].isin(set(df["measure"]))]
        if pref_df.empty:
            pref_df = None
    if qrels:
        run_sel = list(dict.fromkeys(df["run"].astype(str))) if not df.empty else None
        measure_sel = None  # every key the evaluation produced (a name may give several columns)
    else:
        run_sel = list(runs) if runs else None
        if measure_sel:
            known = set(df["measure"]) | (set(pref_df["measure"]) if pref_df is not None else set())
            for m in measure_sel:
                if m not in known:
                    raise UsageError(f"measure {m!r} not in the per-query values (measures: {', '.join(sorted(known))})")
    settings = dict(correction=correction, alpha=alpha, resamples=resamples, seed=seed, zero_method=zero_method,
                    wilcoxon_method=wilcoxon_method, confidence=confidence, ci_method=ci_method,
                    sign_min_diff=sign_min_diff)
    slow = [t for t in test_list if t in ("randomization", "bootstrap", "tukey")]
    if slow:
        log.stage(f"running {', '.join(slow)} ({resamples} resamples, seed {seed})")
    parts = []
    result = None
    metric_measures = list(dict.fromkeys(df["measure"])) if not df.empty else []
    if measure_sel is not None:
        metric_measures = [m for m in measure_sel if m in set(metric_measures)]
    if metric_measures:
        names = run_sel or list(dict.fromkeys(df["run"].astype(str)))
        if baseline is not None:
            baseline = _resolve_run(baseline, names)
        result = compare(df, tests=test_list, baseline=baseline, complete=complete, runs=run_sel,
                         measures=metric_measures, **settings,
                         progress=lambda done, total: log.progress("measures", done, total), jobs=jobs)
        for m, dropped in result.dropped_queries.items():
            if dropped:
                log.warn(f"{m}: {len(dropped)} quer(y/ies) missing for some run left out "
                         f"({', '.join(dropped[:5])}{', ...' if len(dropped) > 5 else ''}); -c counts them as 0")
        for m, n in result.n_queries.items():
            if n == 0:
                log.warn(f"{m}: no query has a value for every run")
        parts.append(result.records)
    pref_records = None
    if pref_df is not None:
        from ..stats.compare import compare_preferences

        pref_tests = [t for t in test_list if t != "tukey"]
        if len(pref_tests) < len(test_list):
            log.warn("the randomised Tukey HSD needs per-run values; not applied to preference measures")
        if baseline is not None and not pref_baseline_done:
            log.warn("--baseline does not apply to preference measures: every pair in the file is tested")
        if pref_tests:
            pref_records, nq, dropped = compare_preferences(pref_df, complete=complete, measures=measure_sel,
                                                            runs=run_sel, tests=pref_tests, **settings)
            for m, d in dropped.items():
                if d:
                    log.warn(f"{m}: {len(d)} quer(y/ies) missing for some pair left out; -c counts them as 0")
            if pref_records is not None:
                parts.append(pref_records)
    if not parts:
        raise UsageError("nothing to compare (no measure with values for at least two runs)")
    from ..output.comparisons import format_pref_table, format_table, records_csv, records_jsonl

    if fmt in ("jsonl", "csv"):
        import pandas as pd

        records = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
        text = records_jsonl(records, alpha) if fmt == "jsonl" else records_csv(records, alpha)
    else:
        chunks = []
        if result is not None:
            chunks.append(format_table(result, fmt, digits, mt))
        if pref_records is not None and not pref_records.empty:
            pt = mt if mt != "tukey" else pref_tests[0]
            chunks.append(format_pref_table(pref_records, fmt, pt, alpha, correction, digits))
        text = "\n".join(chunks)
    with output_stream(output) as out:
        out.write(text)
    return 0


def _compare_orderings(orderings, *, key_a, key_b, rbo_p, fmt, digits, output, log) -> int:
    """``--orderings A B``: Kendall tau, tau_AP, RBO between two orderings of systems."""
    from ..errors import UsageError
    from .common import output_stream

    from ..io.orderings import read_ordering
    from ..output.comparisons import format_orderings
    from ..stats.orderings import compare_orderings

    a, desc_a = read_ordering(orderings[0], key_a)
    b, desc_b = read_ordering(orderings[1], key_b)
    if rbo_p < 0 or rbo_p >= 1:
        raise UsageError(f"--rbo-p must be in (0, 1), or 0 to skip RBO; got {rbo_p}")
    try:
        res = compare_orderings(a, b, rbo_p if rbo_p > 0 else None)
    except ValueError as err:
        raise UsageError(str(err)) from None
    if res["only_a"] or res["only_b"]:
        log.warn(f"{len(res['only_a'])} system(s) only in A and {len(res['only_b'])} only in B are left out")
    if fmt == "latex":
        raise UsageError("--orderings supports -o text, markdown, csv or jsonl")
    text = format_orderings(res, fmt, f"{orderings[0]} ({desc_a})", f"{orderings[1]} ({desc_b})", digits)
    with output_stream(output) as out:
        out.write(text)
    return 0


def _per_query_values(*, qrels, per_query, runs, measures, complete, level, binary, floor, depth, baseline,
                      jobs, run_id_mode, run_names, log):
    """The per-query table to test: evaluated from ``-R QRELS RUN...`` or read from ``-P FILE``.

    Returns ``(df, baseline, pref_baseline_done)`` (the baseline renamed to its run id).
    """
    from ..errors import UsageError

    pref_baseline_done = False
    if qrels:
        if not measures:
            raise UsageError("-R needs at least one -m MEASURE")
        if len(runs) < 2:
            raise UsageError("need at least two run files to compare")
        from ..io.run_ids import run_ids
        from ..stats.prefvalues import needs_preference_mode

        ids = run_ids(list(runs), mode=run_id_mode, names=run_names)

        if needs_preference_mode(measures):
            # preference measures (rpp, lexiprecision, ...) or pref_eval's metrics (p@10):
            # the values zelo_eval -q -o tsv prints for the same arguments
            if level != 1:
                raise UsageError("-l applies to trec_eval measures; with preference measures use -b/-f")
            from ..stats.prefvalues import preference_values

            log.stage(f"evaluating {len(runs)} runs (preference measures)")
            if baseline is not None:
                baseline = ids[list(runs).index(baseline)] if baseline in runs else _resolve_run(baseline, ids)
            df, _ = preference_values(qrels, list(runs), list(measures), binary=binary, floor=floor,
                                      depth=depth, reference=baseline, names=ids)
            pref_baseline_done = baseline is not None
        else:
            for flag, val in (("-b", binary), ("-f", floor)):
                if val is not None:
                    raise UsageError(f"{flag} applies to preference measures (rpp, lexiprecision, ...)")
            from .. import evaluate
            from ..measures import parse_measure

            for m in measures:
                reqs = parse_measure(m)
                if all(r.spec.summary_only for r in reqs):  # a nickname (official) keeps its per-query part
                    raise UsageError(f"measure {m!r} is a summary over queries ({reqs[0].spec.formula}) "
                                     "with no per-query values to test; "
                                     "compare its per-query measure instead (map for gm_map, bpref for gm_bpref)")
            log.stage(f"evaluating {len(runs)} runs")
            df = evaluate(qrels, dict(zip(ids, runs, strict=True)), list(measures), complete=complete, level=level,
                          depth=depth, jobs=jobs)
            if baseline is not None and baseline in runs:
                baseline = ids[list(runs).index(baseline)]
    else:
        bad = given_options("run_id_mode", "run_names")
        if bad:
            raise UsageError("--run-id/--name apply to run files evaluated with -R (-P files hold their names)")
        from ..io.perquery import read_per_query

        df = read_per_query(per_query)
    return df, baseline, pref_baseline_done


def main(argv: list[str] | None = None) -> None:
    # numpy's OpenBLAS starts a busy thread per core when it loads; this command's linear
    # algebra is small. Set before numpy's import; an explicit OPENBLAS_NUM_THREADS wins.
    import os

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    run_main(command, "zelo_compare", argv)


if __name__ == "__main__":
    main()

"""zelo_fit: pairwise judgments -> Bradley-Terry (zELO) scores, SEs, qrels."""
from __future__ import annotations

import click

from .common import Log, output_streams, refuse_unused, run_main
from .param_types import Finite
from .options import quiet_option


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-J", "--judgments", "judgments", multiple=True, required=True, metavar="FILE",
              help="Judgment file (repeatable; '-' = stdin; gzip ok).")
@click.option("--format", "fmt", default=None, metavar="F",
              help="jsonl|zbench|clarke4|clarke3|llmlog|carterette|trecprefs|xie (default: detect).")
@click.option("--ties", type=click.Choice(["half", "zbench"]), default=None,
              help="Ensemble votes: a 0/failed vote counts 1/2 (half, default) or for A (zbench).")
@click.option("--dataset", default=None, metavar="JSONL",
              help="zbench QueryDocuments JSONL: the documents of each query, in order (unjudged ones too); "
                   "a judged document not listed for its query is an error.")
@click.option("--prior", type=Finite(min=0), default=0.5, show_default=True,
              help="Virtual wins and losses of every document against a reference of score 0; 0 = pure MLE per strongly connected component.")
@click.option("--weights", type=click.Choice(["given", "agreement"]), default="given", show_default=True,
              help="Judgment weight: the file's 'weight' (1 if absent), or times the ensemble agreement |2s-1|.")
@click.option("--weight-power", type=Finite(min=0), default=1.0, show_default=True,
              help="Raise each judgment's weight to this power (0 = unweighted).")
@click.option("--compat", type=click.Choice(["zbench"]), default=None,
              help="Reproduce zbench's iteration bit for bit (implies --ties zbench; SE is nan).")
@click.option("--scale", type=click.Choice(["logit", "elo"]), default="logit", show_default=True)
@click.option("--elo-offset", type=Finite(), default=1500.0, show_default=True, help="Added on the elo scale.")
@click.option("--tol", type=Finite(min=0, min_open=True), default=1e-9, show_default=True, help="Gradient tolerance (max |dl/dx_i|).")
@click.option("--max-iter", type=click.IntRange(min=1), default=100, show_default=True, help="Newton iterations at most.")
@click.option("-o", "--output", default=None, metavar="FILE", help="Scores file (default stdout).")
@click.option("--output-format", type=click.Choice(["tsv", "zbench"]), default="tsv", show_default=True,
              help="tsv: 'qid docno score se'; zbench: AnnotatedQueryDocuments JSONL.")
@click.option("--qrels", default=None, metavar="FILE", help="Also write graded qrels 'qid 0 docno grade'.")
@click.option("--grades", default="0,1,2,3", show_default=True, help="Grades for --qrels, lowest first.")
@click.option("--bins", default="quantile", show_default=True, help="quantile | fixed:t1,t2,... (score thresholds).")
@click.option("--diagnostics", default=None, metavar="FILE", help="Per-query diagnostics TSV.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True, metavar="N",
              help="Fit blocks of queries in N processes (same output as --jobs 1).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Fit blocks of queries on a running dask.distributed scheduler (tcp://host:8786); "
                   "needs pip install 'pref_eval[dask]'.")
@quiet_option("No warnings or progress on stderr.")
def command(judgments, fmt, ties, dataset, prior, weights, weight_power, compat, scale, elo_offset,
            tol, max_iter, output, output_format, qrels, grades, bins, diagnostics, jobs, scheduler, quiet):
    """Fit Bradley-Terry (zELO) scores to pairwise judgments.

    Prints 'qid docno score se' TSV (natural-log scale, centred per query).
    """

    import numpy as np

    from ..errors import UsageError
    from ..io.judgments import read_judgments, read_zbench_dataset, read_zbench_records
    from ..output.qrels import parse_bins, parse_grades, write_qrels
    from ..output.zelo_scores import write_scores_columns, write_zbench_jsonl
    from ..zelo.fit import fit_bt_parallel, id_ranks, to_scale
    from ..zelo.judgments import from_dataset

    log = Log("zelo_fit", quiet)
    refuse_unused("--qrels FILE", {"grades": "--grades", "bins": "--bins"}, bool(qrels))
    refuse_unused("--scale elo", {"elo_offset": "--elo-offset"}, scale == "elo")
    if prior < 0:
        raise UsageError("--prior must be >= 0")
    if weight_power < 0:
        raise UsageError("--weight-power must be >= 0")
    if compat == "zbench" and (jobs > 1 or scheduler):
        raise UsageError("--compat zbench runs zbench's iteration serially; drop --jobs/--scheduler")
    if ties is None:
        ties = "zbench" if compat == "zbench" else "half"
    grade_list = parse_grades(grades) if qrels else None
    bin_method = parse_bins(bins, len(grade_list)) if qrels else None

    records = {}
    if dataset:
        ds = read_zbench_dataset(dataset)
        table = from_dataset(ds)
        if output_format == "zbench":
            records = read_zbench_records(dataset)
    else:
        table = from_dataset([])
    known = set(table.queries)
    for n, path in enumerate(judgments, 1):
        before = len(table.queries)
        log.progress("reading judgments", n - 1, len(judgments))
        read_judgments(path, fmt, ties=ties, into=table)
        log.progress("reading judgments", n, len(judgments))
        if dataset and len(table.queries) > before:
            extra = table.queries[before:]
            what = "ignored, as zbench does" if compat == "zbench" else "they are fitted too"
            log.warn(f"{len(extra)} queries in {path} are not in the dataset (e.g. {extra[0]!r}); {what}")
    q, a, b, s, w = table.arrays()
    if dataset and compat == "zbench" and len(table.queries) > len(known):
        keep = q < len(known)  # dataset queries come first
        q, a, b, s, w = q[keep], a[keep], b[keep], s[keep], w[keep]
        table.queries = table.queries[:len(known)]
    if weights == "agreement":
        w = w * np.abs(2.0 * s - 1.0)
    sizes = np.array([len(table.docs[qid]) for qid in table.queries], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)])

    extra_cols: tuple[str, ...] = ()
    comp = lev = None
    if compat == "zbench":
        from ..zelo.zbench_compat import zbench_fit, zbench_win_matrix

        score = np.zeros(offsets[-1])
        se = np.full(offsets[-1], np.nan)
        order = np.argsort(q, kind="stable")
        qs = q[order]
        bounds = np.searchsorted(qs, np.arange(len(sizes) + 1))
        for k, qid in enumerate(table.queries):
            log.progress("zbench fit", k + 1, len(table.queries))
            idx = order[bounds[k]:bounds[k + 1]]
            W = zbench_win_matrix(int(sizes[k]), a[idx], b[idx], s[idx])
            if sizes[k] == 0:
                continue
            x, losses, ok = zbench_fit(W)
            if not ok:
                log.warn(f"query {qid}: zbench iteration not within epsilon after {len(losses)} iterations")
            score[offsets[k]:offsets[k + 1]] = x
        diag_rows = None
    else:
        log.stage(f"fitting {len(sizes)} queries, {len(q)} judgments")
        res = fit_bt_parallel(sizes, q, a, b, s, w, prior=prior, weight_power=weight_power, tol=tol,
                              max_iter=max_iter, jobs=jobs, scheduler=scheduler,
                              doc_rank=id_ranks([table.docs[qid] for qid in table.queries]))
        score, se = res.score, res.se
        if prior == 0:
            extra_cols = ("component", "level")
            comp, lev = res.component, res.level
        if not res.converged.all():
            bad = [table.queries[i] for i in np.flatnonzero(~res.converged)]
            log.warn(f"{len(bad)} queries did not reach the gradient tolerance {tol:g} (e.g. {bad[0]!r})")
        diag_rows = res
    score, se = to_scale(score, se, scale, elo_offset)

    paths = [output] + [p for p in (qrels, diagnostics) if p]
    with output_streams(*paths) as streams:  # all written, or none
        out = streams[0]
        if output_format == "tsv":
            extra = dict(zip(extra_cols, (comp, lev), strict=True)) if comp is not None else {}
            if scale == "elo":  # the last column 'scale' tells readers (zelo_eval -R) the scale
                extra["scale"] = np.full(len(score), "elo", dtype=object)
            write_scores_columns(out, table.queries, [table.docs[qid] for qid in table.queries], score, se, extra)
        else:
            write_zbench_jsonl(out, ((qid, [(d, score[offsets[k] + i]) for i, d in enumerate(table.docs[qid])])
                                     for k, qid in enumerate(table.queries)), records)
        rest = iter(streams[1:])
        if qrels:
            method, th = bin_method
            write_qrels(next(rest), ((qid, table.docs[qid], score[offsets[k]:offsets[k + 1]])
                                     for k, qid in enumerate(table.queries)), grade_list, method, th)
        if diagnostics:
            out = next(rest)
            out.write("qid\tn_docs\tn_judged\tn_judgments\tn_components\tn_perfect\titerations\tloglik\tgrad_max\tconverged\n")
            nj = np.bincount(q, minlength=len(sizes))
            for k, qid in enumerate(table.queries):
                if diag_rows is None:
                    out.write(f"{qid}\t{sizes[k]}\t\t{nj[k]}\t\t\t\t\t\t\n")
                    continue
                r = diag_rows
                out.write(f"{qid}\t{r.n_docs[k]}\t{r.n_judged[k]}\t{nj[k]}\t{r.n_components[k]}\t{r.n_perfect[k]}\t"
                          f"{r.iterations[k]}\t{float(r.loglik[k])!r}\t{r.grad_max[k]:.3g}\t{int(r.converged[k])}\n")
    return 0


def main(argv=None):
    # numpy's OpenBLAS starts a busy thread per core when it loads; the fit's
    # matrices are small (one per query). An explicit OPENBLAS_NUM_THREADS wins.
    import os

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from ..io.fastparse import keep_freed_memory

    keep_freed_memory()  # large inputs: no page faults for every new temporary array
    run_main(command, "zelo_fit", argv)


if __name__ == "__main__":
    main()

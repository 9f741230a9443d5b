"""``pref_aggregate``: orderings of runs from zelo_eval / pref_eval.py preference files.

Drop-in for diazf/pref_eval's ``pref_aggregate.py`` (docs/pref_aggregate.md):
same JSON lines with ``--mc4-steps 10``; by default MC4 is the stationary
distribution of the damped chain.
"""
from __future__ import annotations

import click

from .common import Log, run_main
from .param_types import SEED, Finite

CONTEXT = {"help_option_names": ["-h", "--help"]}


@click.command(context_settings=CONTEXT)
@click.option("-P", "--prefs", "prefs", required=True, metavar="FILE",
              help="Preference file (zelo_eval -q / pref_eval.py -q output; gzip or - ok).")
@click.option("-q", "--query_eval_wanted", "per_query", is_flag=True, help="Per-query rankings too.")
@click.option("-n", "--nosummary", "nosummary", is_flag=True, help="No summary line.")
@click.option("-m", "--measure", "measures", multiple=True, metavar="NAME",
              help="Measure to aggregate, repeatable (default: every measure of the file, in file order).")
@click.option("--query_fraction", "query_fraction", default=1.0, type=Finite(0, 1, min_open=True),
              help="Each sample uses max(1, int(|Q|*F)) random queries (of sample 0).")
@click.option("--num_samples", "num_samples", default=1, type=click.IntRange(min=1), help="Number of samples.")
@click.option("--seed", "seed", default=0, type=SEED, help="Seed for --query_fraction (default 0).")
@click.option("--mc4-steps", "mc4_steps", default=None, type=click.IntRange(min=1), metavar="T",
              help="MC4 as pref_aggregate.py: T power-iteration steps of the undamped chain "
                   "(10 reproduces it exactly). Default: stationary distribution with damping.")
@click.option("--damping", "damping", default=0.15, type=Finite(0, 1, min_open=True),
              help="MC4 teleport probability α of the stationary solution (default 0.15).")
@click.option("-o", "--output-format", "fmt", default="json", type=click.Choice(["json", "tsv", "jsonl", "markdown"]),
              help="json: pref_aggregate.py's lines; tsv: sample qid measure method rank run; markdown: tables.")
@click.option("--output", "output", default=None, metavar="FILE", help="Write to FILE (default stdout).")
@click.option("-Q", "--quiet", is_flag=True,
              help="No warnings or progress on stderr (progress is shown only when stderr is a terminal).")
def command(prefs, per_query, nosummary, measures, query_fraction, num_samples, seed, mc4_steps, damping, fmt,
            output, quiet):
    """Order runs by MC4 / Borda (preference measures) and by mean (metrics)."""
    import numpy as np

    from ..errors import UsageError
    from ..io.pref_jsonl import read_pref_file
    from ..output.orderings import json_lines
    from ..rank_aggregation import aggregate
    from .common import output_stream

    log = Log("pref_aggregate", quiet)
    log.stage(f"reading {prefs}")
    pf = read_pref_file(prefs)
    ms = list(measures) if measures else list(pf.keys)
    missing = [m for m in ms if m not in pf.keys]
    if missing:
        raise UsageError(f"measure(s) not in {prefs}: {', '.join(missing)} (file has: {', '.join(pf.keys)})")
    if not ms:
        raise UsageError(f"{prefs}: no measure values in the file")
    qids0 = rng = None
    if query_fraction < 1.0:
        qids0 = pf.sample_qids(0)
        if not qids0:
            raise UsageError(f"{prefs}: --query_fraction draws from the queries of sample 0, and it has none")
        rng = np.random.default_rng(seed)  # numpy.random is imported only here (~10 ms)
    results, skipped = [], []
    for s in range(num_samples):
        if num_samples > 1:
            log.progress("samples", s, num_samples)
        src = 0 if qids0 is not None else s
        if qids0 is None and s not in pf.prefs and s not in pf.metrics:
            skipped.append(s)
            continue
        qids = None
        if qids0 is not None:
            k = max(1, int(len(qids0) * query_fraction))
            qids = [qids0[i] for i in sorted(rng.choice(len(qids0), size=k, replace=False))]
        results.append(aggregate(pf, ms, sample=s, source_sample=src, qids=qids, mc4_steps=mc4_steps,
                                 damping=damping))
    if num_samples > 1:
        log.progress("samples", num_samples, num_samples)
    for s in skipped:  # after the progress line is complete
        log.warn(f"sample {s} is not in {prefs}; skipped")
    with output_stream(output) as out:
        if fmt == "json":
            for agg in results:
                out.writelines(json_lines(agg, ms, per_query=per_query, summary=not nosummary))
        elif fmt in ("tsv", "jsonl"):
            from ..output.orderings import ordering_rows, write_ordering_rows

            rows = (r for agg in results for r in ordering_rows(agg, ms, per_query=per_query, summary=not nosummary))
            write_ordering_rows(out, rows, fmt)
        else:
            for agg in results:
                cols = [(m, meth) for m in ms for meth in agg.summary[m] if meth != "type"]
                out.write(f"### sample {agg.sample}\n\n| rank | " + " | ".join(f"{m} ({meth})" for m, meth in cols)
                          + " |\n|---:|" + "---|" * len(cols) + "\n")
                depth = max((len(agg.summary[m][meth]) for m, meth in cols), default=0)
                for k in range(depth):
                    cells = [agg.summary[m][meth][k] if k < len(agg.summary[m][meth]) else "" for m, meth in cols]
                    out.write(f"| {k + 1} | " + " | ".join(cells) + " |\n")
                out.write("\n")
    return 0


def main(argv: list[str] | None = None) -> None:
    # numpy's OpenBLAS starts a busy thread per core when it loads (~0.1 s CPU
    # on 2 cores); this command's linear algebra is tiny. Set before numpy's
    # import; an explicit OPENBLAS_NUM_THREADS of the user wins.
    import os

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    run_main(command, "pref_aggregate", argv)


if __name__ == "__main__":
    main()

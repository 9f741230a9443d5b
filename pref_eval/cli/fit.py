"""zelo_fit: pairwise judgments -> Bradley-Terry (zELO) scores, SEs, qrels."""
from __future__ import annotations

import click

from .common import Log, refuse_unused, run_main, stdout_or
from .param_types import Finite
from .once import OnceCommand
from .options import quiet_option


@click.command(cls=OnceCommand, context_settings={"help_option_names": ["-h", "--help"]})
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
              help="Virtual wins and losses of every document against a reference of score 0; "
                   "0 = pure MLE per strongly connected component.")
@click.option("--weights", type=click.Choice(["given", "agreement"]), default="given", show_default=True,
              help="Judgment weight: the file's 'weight' (1 if absent), or times the ensemble agreement |2s-1|.")
@click.option("--weight-power", type=Finite(min=0), default=1.0, show_default=True,
              help="Raise each judgment's weight to this power (0 = unweighted).")
@click.option("--compat", type=click.Choice(["zbench"]), default=None,
              help="Reproduce zbench's iteration bit for bit (implies --ties zbench; SE is nan).")
@click.option("--scale", type=click.Choice(["logit", "elo"]), default="logit", show_default=True,
              help="Score scale: logit (Bradley-Terry), or elo = x*400/ln 10 + --elo-offset (SEs scaled too).")
@click.option("--elo-offset", type=Finite(), default=1500.0, show_default=True, help="Added on the elo scale.")
@click.option("--tol", type=Finite(min=0, min_open=True), default=1e-9, show_default=True,
              help="Gradient tolerance: |dl/dx_i| <= tol * max(1, I_ii), and the Newton step below 1e-13 "
                   "of the scale.")
@click.option("--max-iter", type=click.IntRange(min=1), default=100, show_default=True,
              help="Newton iterations at most.")
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
def command(judgments: tuple[str, ...], fmt: str | None, ties: str | None, dataset: str | None, prior: float,
            weights: str, weight_power: float, compat: str | None, scale: str, elo_offset: float, tol: float,
            max_iter: int, output: str | None, output_format: str, qrels: str | None, grades: str, bins: str,
            diagnostics: str | None, jobs: int, scheduler: str | None, quiet: bool) -> int:
    """Fit Bradley-Terry (zELO) scores to pairwise judgments.

    Prints 'qid docno score se' TSV (natural-log scale, centred per query).
    """
    from ..api.fitting import fit
    from .common import command_options

    refuse_unused("--qrels FILE", {"grades": "--grades", "bins": "--bins"}, bool(qrels))
    refuse_unused("--scale elo", {"elo_offset": "--elo-offset"}, scale == "elo")
    # zbench's iteration has no prior, weights or Newton tolerance: given with --compat zbench they would be unused
    refuse_unused("the default fit (not with --compat zbench)",
                  {"prior": "--prior", "weights": "--weights", "weight_power": "--weight-power", "tol": "--tol",
                   "max_iter": "--max-iter"}, compat != "zbench")
    fit(list(judgments), judgments_format=fmt, ties=ties, prior=prior, weight_power=weight_power,
        agreement_weights=weights == "agreement", tol=tol, max_iter=max_iter, scale=scale, elo_offset=elo_offset,
        dataset=dataset, compat=compat, jobs=jobs, scheduler=scheduler, output=stdout_or(output),
        output_format=output_format, qrels_output=qrels, grades=grades, bins=bins, diagnostics=diagnostics,
        log=Log("zelo_fit", quiet), inputs=command_options(outputs=("--qrels", "--diagnostics")), as_frame=False,
        keep_results=False)
    return 0


def main(argv: list[str] | None = None) -> None:
    # numpy's OpenBLAS starts a busy thread per core when it loads; the fit's
    # matrices are small (one per query). An explicit OPENBLAS_NUM_THREADS wins.
    import os

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from ..io.fastparse import keep_freed_memory

    keep_freed_memory()  # large inputs: no page faults for every new temporary array
    run_main(command, "zelo_fit", argv, short_lived=True)


if __name__ == "__main__":
    main()

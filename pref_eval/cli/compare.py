"""``zelo_compare``: paired significance tests between runs, and correlation
between two orderings of systems."""
from __future__ import annotations

import click

from .common import Log, given_options, run_id_options, run_main, stdout_or
from .param_types import SEED, Correction, Finite
from .once import OnceCommand
from .options import quiet_option
from ..errors import shown

CONTEXT = {"help_option_names": ["-h", "--help"]}
FORMATS = ("text", "markdown", "latex", "csv", "jsonl")


@click.command(cls=OnceCommand, context_settings=CONTEXT)
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
@click.option("--depth", "depth", type=click.IntRange(min=1), default=None,
              help="Keep the top N documents per query (-R).")
@click.option("--tests", "tests", default="t,wilcoxon,sign", show_default=True, metavar="LIST",
              help="Comma-separated tests: t, wilcoxon, sign, randomization, bootstrap, tukey.")
@click.option("--correction", type=Correction(["holm", "bonferroni", "bh", "none"]), default="holm",
              show_default=True, help="Multiple-comparison correction per (measure, test) family.")
@click.option("--resamples", type=click.IntRange(min=1), default=10000, show_default=True,
              help="Resamples of the randomization, bootstrap and Tukey HSD procedures.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the resampling procedures.")
@click.option("--baseline", default=None, metavar="RUN", help="Compare each run with RUN only (default: all pairs).")
@click.option("--alpha", type=Finite(0, 1, min_open=True, max_open=True), default=0.05, show_default=True,
              help="Significance level for the markers.")
@click.option("--sign-min-diff", "sign_min_diff", type=Finite(min=0), default=0.0, show_default=True,
              metavar="DELTA",
              help="Sign test: differences with |d| < DELTA count as ties (Smucker et al. 2007).")
@click.option("--zero-method", "zero_method", type=click.Choice(["wilcox", "pratt", "zsplit"]), default="wilcox",
              show_default=True, help="Wilcoxon: treatment of zero differences (scipy's zero_method).")
@click.option("--wilcoxon-method", "wilcoxon_method", type=click.Choice(["auto", "exact", "asymptotic"]),
              default="auto", show_default=True, help="Wilcoxon: exact null distribution or normal approximation.")
@click.option("--ci-method", "ci_method", type=click.Choice(["BCa", "percentile", "basic"], case_sensitive=False),
              default="BCa",
              show_default=True, help="Bootstrap confidence interval.")
@click.option("--confidence", type=Finite(0, 1, min_open=True, max_open=True), default=0.95, show_default=True,
              help="Confidence level of the t and bootstrap intervals.")
@click.option("--marker-test", "marker_test", default=None, metavar="TEST",
              help="Test whose adjusted p-values set the table markers (default: the first of --tests).")
@click.option("--digits", type=click.IntRange(0, 17), default=4, show_default=True,
              help="Decimals in the report table.")
@click.option("-o", "--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="Output format (text: columns aligned by terminal width, a CJK character 2 columns).")
@click.option("--output", "output", default=None, metavar="FILE", help="Write to FILE instead of stdout.")
@click.option("--orderings", nargs=2, default=None, metavar="A B",
              help="Correlate two orderings of systems (system-score TSV, list, or pref_aggregate output).")
@click.option("--key-a", "key_a", default=None, metavar="MEASURE[:LIST]",
              help="Which ordering of a pref_aggregate file A to use (e.g. rpp:mc4).")
@click.option("--key-b", "key_b", default=None, metavar="MEASURE[:LIST]", help="Same for B.")
@click.option("--rbo-p", "rbo_p", type=Finite(0, 1, max_open=True), default=0.9, show_default=True,
              help="Persistence p of rank-biased overlap in --orderings (0 = do not compute).")
@click.option("--rbo-ties", "rbo_ties", type=click.Choice(["a", "b", "w", "name"]), default="a", show_default=True,
              help="RBO's treatment of tied scores (Corsi & Urbano, SIGIR 2024): a = expected RBO over random "
                   "tie-breaking, b = a corrected for the ties (RBO^b), w = tied systems share a rank "
                   "(Webber et al. 2010), name = ties broken by system name (before session 18).")
@click.option("--rbo-lists", "rbo_lists", type=click.Choice(["common", "prefix"]), default="common",
              show_default=True,
              help="Which lists RBO compares: common = the complete orderings of the systems in both files; "
                   "prefix = each whole file as the top of a longer ranking (a top-k list against a longer "
                   "one): RBO_ext, RBO_min, RBO_max and RBO_res (Webber et al. 2010, section 4).")
@click.option("--rbo-depth", "rbo_depth", type=click.IntRange(min=1), default=None, metavar="K",
              help="Evaluate RBO at depth K (--rbo-lists common): only the top K of each ordering seen "
                   "(all when fewer systems); rows rbo_ext (eq. 32 at depth K) and rbo_sum (the series cut at K), "
                   "as rbo(k=K, p=P, ext=True) and rbo(k=K, p=P) of the PyPI rbo package.")
@click.option("--jobs", "jobs", type=click.IntRange(min=1), default=1, show_default=True, metavar="N",
              help="Evaluate the runs (-R, trec_eval measures) and test the measures in N processes "
                   "(same output as --jobs 1).")
@click.option("--keep-going", "keep_going", is_flag=True,
              help="-R with trec_eval measures: a run that cannot be read or evaluated is named on stderr "
                   "(FILE:LINE: error) and left out, the others compared; exit status 2 when a run was left out.")
@quiet_option("No warnings on stderr.")
@run_id_options
@click.argument("runs", nargs=-1, metavar="[RUN]...")
def command(qrels: str | None, per_query: str | None, measures: tuple[str, ...], complete: bool, level: int,
            binary: float | None, floor: float | None, depth: int | None, tests: str, correction: str, resamples: int,
            seed: int, baseline: str | None, alpha: float, sign_min_diff: float, zero_method: str, wilcoxon_method: str,
            ci_method: str, confidence: float, marker_test: str | None, digits: int, fmt: str, output: str | None,
            orderings: tuple[str, str] | None, key_a: str | None, key_b: str | None, rbo_p: float, rbo_ties: str,
            rbo_lists: str, rbo_depth: int | None, jobs: int, keep_going: bool,
            quiet: bool, run_id_mode: str, run_names: tuple[str, ...], runs: tuple[str, ...]) -> int:
    """Compare runs with paired significance tests, or two orderings of systems.

    \b
    zelo_compare -R QRELS -m MEASURE... RUN RUN [RUN...]
    zelo_compare -P PER_QUERY_FILE [-m MEASURE...] [RUN...]
    zelo_compare --orderings A B
    """
    from .common import command_options, options_given

    log = Log("zelo_compare", quiet)
    _refuse_unused_options(bool(orderings), bool(qrels), tests)
    if not orderings:
        _refuse_unshown_in_tables(fmt, tests, marker_test)
    if orderings:
        from ..api.correlation import compare_orderings

        if qrels or per_query or runs:
            import os

            from ..errors import UsageError

            taken = [v for v in orderings if v.startswith("-") and v != "-" and not os.path.exists(v)]
            if taken:  # `--orderings --rbo-ties b A B`: click gave --orderings the next two words
                raise UsageError(f"--orderings takes the two ordering files right after it; it took {shown(taken[0])} "
                                 "as a file name (write the other options before --orderings)")
            raise UsageError("--orderings takes two ordering files and no -R, -P or runs")
        for name, option in (("rbo_ties", "--rbo-ties"), ("rbo_lists", "--rbo-lists"), ("rbo_depth", "--rbo-depth")):
            if rbo_p == 0 and given_options(name):
                from ..errors import UsageError

                raise UsageError(f"{option} applies only with --rbo-p above 0 (RBO computed)")
        if rbo_depth is not None and rbo_lists == "prefix":
            from ..errors import UsageError

            raise UsageError("--rbo-depth applies to --rbo-lists common (a prefix is seen to its length: give the "
                             "files' top K instead)")
        compare_orderings(orderings[0], orderings[1], key_a=key_a, key_b=key_b, rbo_p=rbo_p, rbo_ties=rbo_ties,
                          rbo_lists=rbo_lists, rbo_depth=rbo_depth, output_format=fmt, digits=digits,
                          output=stdout_or(output), log=log, inputs=command_options())
        return 0
    from ..api.comparison import compare_runs

    with options_given():
        compare_runs(qrels=qrels, per_query_file=per_query, runs=runs, measures=measures, complete=complete,
                     level=level, binary=binary, floor=floor, depth=depth, tests=tests, correction=correction,
                     resamples=resamples, seed=seed, baseline=baseline, alpha=alpha, sign_min_diff=sign_min_diff,
                     zero_method=zero_method, wilcoxon_method=wilcoxon_method, ci_method=ci_method,
                     confidence=confidence, marker_test=marker_test, digits=digits, output_format=fmt,
                     output=stdout_or(output), run_id_mode=run_id_mode if given_options("run_id_mode") else None,
                     run_names=run_names, jobs=jobs, log=log, inputs=command_options(), keep_going=keep_going)
    return 0


#: Options of the run comparison (-R / -P) and, for the test-specific ones, the tests that read them.
COMPARISON = {"measures": "-m", "complete": "-c", "level": "-l", "binary": "-b", "floor": "-f", "depth": "--depth",
              "tests": "--tests", "correction": "--correction", "resamples": "--resamples", "seed": "--seed",
              "baseline": "--baseline", "alpha": "--alpha", "sign_min_diff": "--sign-min-diff",
              "zero_method": "--zero-method", "wilcoxon_method": "--wilcoxon-method", "ci_method": "--ci-method",
              "confidence": "--confidence", "marker_test": "--marker-test", "jobs": "--jobs",
              "keep_going": "--keep-going",
              "run_id_mode": "--run-id", "run_names": "--name"}
TEST_OPTIONS = ((("randomization", "bootstrap", "tukey"), {"resamples": "--resamples", "seed": "--seed"}),
                (("sign",), {"sign_min_diff": "--sign-min-diff"}),
                (("wilcoxon",), {"zero_method": "--zero-method", "wilcoxon_method": "--wilcoxon-method"}),
                (("bootstrap",), {"ci_method": "--ci-method"}),
                (("t", "bootstrap"), {"confidence": "--confidence"}),
                # tukey is family-wise by construction (its p is already adjusted): the others are corrected
                (("t", "wilcoxon", "sign", "randomization", "bootstrap"), {"correction": "--correction"}))


def _refuse_unused_options(orderings: bool, qrels: bool, tests: str) -> None:
    """An option the requested mode or tests would not read is refused, not ignored."""
    from .common import refuse_unused

    refuse_unused("--orderings", {"key_a": "--key-a", "key_b": "--key-b", "rbo_p": "--rbo-p",
                                   "rbo_ties": "--rbo-ties", "rbo_lists": "--rbo-lists", "rbo_depth": "--rbo-depth"},
                  orderings)
    refuse_unused("-R or -P (not with --orderings)", COMPARISON, not orderings)
    if orderings:
        return
    refuse_unused("-R (evaluating runs)", {"level": "-l", "binary": "-b", "floor": "-f", "depth": "--depth",
                                           "keep_going": "--keep-going"}, qrels)
    from ..stats.compare import parse_tests

    wanted = set(parse_tests(tests))
    for users, names in TEST_OPTIONS:
        refuse_unused(f"--tests including {' or '.join(users)}", names, bool(wanted & set(users)))


#: Options that change only the records of one test (the tables show the marker test's records only).
SHOWN_TEST_OPTIONS = (("wilcoxon", {"zero_method": "--zero-method", "wilcoxon_method": "--wilcoxon-method"}),
                      ("sign", {"sign_min_diff": "--sign-min-diff"}))


def _refuse_unshown_in_tables(fmt: str, tests: str, marker_test: str | None) -> None:
    """The tables (-o text, markdown, latex) show means and the marker test's adjusted p-values: an option
    that changes only intervals (--confidence, --ci-method) or only another test's records is refused there
    (before session 22 accepted, the table byte-identical)."""
    if fmt not in ("text", "markdown", "latex"):
        return
    from ..stats.compare import parse_tests
    from .common import refuse_unused

    refuse_unused("-o jsonl or csv (ci_low, ci_high: the tables show no interval)",
                  {"confidence": "--confidence", "ci_method": "--ci-method"}, False)
    wanted = parse_tests(tests)
    marker = parse_tests(marker_test)[0] if marker_test else wanted[0]
    shown = {marker} | ({next((t for t in wanted if t != "tukey"), marker)} if marker == "tukey" else set())
    for test, names in SHOWN_TEST_OPTIONS:
        if test in wanted:
            refuse_unused(f"-o jsonl or csv, or --marker-test {test} (the tables show the {marker} test's "
                          "markers only)", names, test in shown)


def main(argv: list[str] | None = None) -> None:
    # numpy's OpenBLAS starts a busy thread per core when it loads; this command's linear
    # algebra is small. Set before numpy's import; an explicit OPENBLAS_NUM_THREADS wins.
    import os

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    run_main(command, "zelo_compare", argv)


if __name__ == "__main__":
    main()

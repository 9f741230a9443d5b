"""``zelo_compare``: :func:`compare` (a per-query table) and :func:`compare_runs` (runs or a per-query
file): paired significance tests. The values ``-R`` / ``-P`` give: :mod:`._comparison_values`; two orderings
(``--orderings``): :func:`pref_eval.api.correlation.compare_orderings`.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..seeds import SEED_MAX
from ..errors import UsageError, command_running, option_given, option_name, option_value, renamed_keywords, shown
from ._comparison_values import _per_query_values, _resolve_run
from ._inputs import _check_paths, _input_options, _keep_going, _path_list

if TYPE_CHECKING:
    from ..output.atomic import InputOptions


def compare(per_query: Any, **options: Any) -> Any:
    """Paired significance tests between runs (``zelo_compare -P``): a :class:`~pref_eval.stats.ComparisonResult`.

    ``per_query``: a per-query table -- a path (``zelo_eval -q -o tsv|csv|jsonl``
    output, read by :func:`pref_eval.io.perquery.read_per_query`) or a DataFrame
    with the columns ``run, qid, measure, value`` (what :func:`evaluate`
    returns; ``name`` for ``run``, as PyTerrier's ``pt.Experiment(..., perquery=True)``
    names it, is taken too). ``options`` are :func:`pref_eval.stats.compare`'s: ``tests``
    (t: Student 1908, t = mean(d) / (sd(d) / sqrt(n)) on the per-query differences d; wilcoxon:
    Wilcoxon 1945; sign; randomization: Fisher 1935; bootstrap: Efron & Tibshirani 1993; tukey:
    randomised Tukey HSD, Carterette 2012), ``correction`` (holm: Holm 1979; bonferroni; bh:
    Benjamini & Hochberg 1995), ``alpha``, ``baseline``, ``resamples``,
    ``seed``, ``confidence`` ... (the names of ``zelo_compare``'s options). Every pair of runs (or each
    run against ``baseline``) is tested on the mean of the per-query differences, over the queries every
    compared run has (``complete=True``: a query a run lacks counts as 0, trec_eval ``-c``). A measure
    with no such query raises :class:`~pref_eval.errors.UsageError`, as ``zelo_compare`` exits 2; so does
    an option of the wrong type or out of its range, or a per-query file of preference measures (values
    per pair of runs: :func:`compare_runs` with ``per_query_file`` tests them, as ``zelo_compare -P``).
    """
    import inspect

    from ..stats.compare import compare as compare_table

    known = [p for p in inspect.signature(compare_table).parameters if p != "values"]
    unknown = [k for k in options if k not in known]
    if unknown:
        from ..peer_names import api_hint, pyterrier_hint

        peer = api_hint("compare", unknown[0]) or pyterrier_hint("compare", unknown[0])
        raise UsageError(f"compare: unknown option {shown(unknown[0])}"
                         + (f" ({peer})" if peer else "")
                         + f" (expected one of: {', '.join(known)})")
    from ._inputs import _compare_options

    options = _compare_options(options)
    source = None
    if isinstance(per_query, (str, os.PathLike)):
        from ..io.perquery import read_per_query_table

        source = os.fspath(per_query)
        per_query = read_per_query_table(per_query)  # (codes, not a DataFrame, when the file is read at once)
    elif not hasattr(per_query, "columns"):
        raise UsageError(f"per_query: expected a path or a DataFrame with the columns run, qid, measure, value, got "
                         f"{type(per_query).__name__}")
    else:
        from ..io.frames import bytes_as_text

        per_query = bytes_as_text(per_query, ("run", "name", "run_a", "run_b", "qid", "measure"))
    per_query = _metric_rows(per_query, options.get("measures"), source)
    result = compare_table(per_query, **options)
    try:
        result.refuse_no_common_query(source, complete_flag="complete=True")
    except UsageError as err:
        raise UsageError(f"{err}{_measure_missing(per_query, result.n_queries)}") from None
    return result


def _measure_missing(table: Any, n_queries: dict) -> str:
    """What the refusal of a measure no query has for every run adds when a run has no row of it at all (tables
    of two tools put together, ``AP`` beside ``map``): "; run 'B' has no value of 'AP' (its measures: map)"."""
    m = next((k for k, n in n_queries.items() if n == 0), None)
    col = next((c for c in ("run", "name") if c in table.columns), None)
    if hasattr(table, "distinct"):  # (a CodedTable, on this error path only)
        table = table.frame()
    if m is None or col is None or not hasattr(table, "groupby"):  # -R's evaluation (a LongTable): every run has
        return ""                                                   # every measure
    has: dict[str, list[str]] = {}  # (no pandas groupby: its index cannot hold an id that was not UTF-8)
    runs, measures = map(str, table[col].tolist()), map(str, table["measure"].tolist())
    for r, measure in dict.fromkeys(zip(runs, measures, strict=True)):
        has.setdefault(r, []).append(measure)
    lacking = [(r, has[r]) for r in sorted(has) if m not in has[r]]  # (groupby's order: the runs sorted)
    if not lacking:
        return ""
    r, ms = lacking[0]
    return (f"; run {shown(r)} has no value of {shown(m)} (its measures: "
            f"{', '.join(ms[:5])}{', ...' if len(ms) > 5 else ''})")


def _metric_rows(table: Any, measures: Sequence[str] | None, source: str | None) -> Any:
    """A per-query table's per-run rows; a table of preference measures (``zelo_eval -q -o tsv``: a value per
    pair of runs, ``runj`` set) is refused for the measures compared, pointing to :func:`compare_runs`, which
    tests them (read as per-run values they were refused with a misleading "two values for run ..."). The
    pair rows that repeat a per-run measure as differences are left out, as ``zelo_compare -P`` does."""
    if "run_b" not in table.columns:
        return table
    table, pairs = _split_preference_rows(table)
    if pairs is not None and hasattr(pairs, "distinct"):  # a reader's CodedTable
        pair_measures = [m for m in pairs.distinct("measure") if measures is None or m in set(measures)]
    elif pairs is not None:
        if measures is not None:
            pairs = pairs[pairs["measure"].isin(set(measures))]
        pair_measures = list(dict.fromkeys(map(str, pairs["measure"])))
    if pairs is not None and pair_measures:
        from ..io.textfile import display_name

        where = f"{display_name(source)}: " if source else ""
        names = ", ".join(pair_measures)
        raise UsageError(f"{where}{names}: values per pair of runs (preference measures): "
                         "pref_eval.api.compare_runs(per_query_file=PATH) tests them (zelo_compare -P); "
                         "compare() tests per-run values (measures= selects them)")
    return table


_REPORT_FORMATS = ("text", "markdown", "latex", "csv", "jsonl")
"""``zelo_compare -o``'s formats (``output_format`` of :func:`compare_runs`)."""


@renamed_keywords(fmt="output_format", per_query="per_query_file")
def compare_runs(qrels: str | None = None, runs: Sequence[str] = (), *, per_query_file: str | None = None,
                 measures: Sequence[str] = (), complete: bool = False, level: int = 1, binary: float | None = None,
                 floor: float | None = None, depth: int | None = None, tests: str = "t,wilcoxon,sign",
                 correction: str = "holm", resamples: int = 10000, seed: int = 0, baseline: str | None = None,
                 alpha: float = 0.05, sign_min_diff: float = 0.0, zero_method: str = "wilcox",
                 wilcoxon_method: str = "auto", ci_method: str = "BCa", confidence: float = 0.95,
                 marker_test: str | None = None, digits: int = 4, output_format: str = "text",
                 output: str | None = None, run_id_mode: str | None = None, run_names: Sequence[str] = (),
                 jobs: int = 1, log: Any = None, inputs: InputOptions | None = None,
                 keep_going: bool = False, **unknown: Any) -> str:
    """Paired significance tests between runs (``zelo_compare -R``/``-P``): the report ``zelo_compare`` prints.

    The inputs by position or keyword, as :func:`evaluate_runs` and ranx's ``compare(qrels, runs, ...)`` take
    them (``compare_runs(qrels, runs, measures=["map"])``), the options by keyword. Per-query values either
    evaluated from ``qrels`` and ``runs`` with
    ``measures`` (trec_eval / ir-measures names, or pref_eval.py's preference
    measures: then the per-pair values of ``zelo_eval -q -o tsv``), or read
    from ``per_query_file`` (``zelo_eval -q -o tsv|csv|jsonl`` output). Every pair
    of runs (or each against ``baseline``) is tested per measure with
    ``tests`` (t: Student 1908; wilcoxon: Wilcoxon 1945; sign; randomization:
    Fisher 1935; bootstrap: Efron & Tibshirani 1993; tukey: randomised Tukey
    HSD, Carterette 2012) and ``correction`` per (measure, test) family (holm:
    Holm 1979; bonferroni; bh: Benjamini & Hochberg 1995); the other keywords
    are ``zelo_compare``'s options (docs/zelo_compare.md). ``output_format``: text,
    markdown, latex, csv or jsonl; the report is returned and, with
    ``output`` (``-`` = stdout), written there (``inputs``: files it must not
    overwrite; default the input paths). ``run_id_mode``/``run_names`` name
    the run files of ``-R`` (:mod:`pref_eval.io.run_ids`; refused with
    ``per_query_file``, which holds the names). ``keep_going`` (``-R`` with trec_eval measures): a run
    that cannot be read or evaluated is named on stderr (``log.error``) and left out, the others compared
    and written, then :class:`~pref_eval.errors.EvaluationError` counts them (exit status 2). Another keyword
    (``unknown``) raises :class:`~pref_eval.errors.UsageError`, naming ours for ranx.compare's (``stat_test``,
    ``max_p``, ``metrics``, ...) and pt.Experiment's (``eval_metrics``, ``test``, ...); it was Python's TypeError.
    """
    _refuse_unknown(unknown)
    from ._inputs import (_check_flags, _check_float, _check_int, _check_strings, _measure_list, _string_list,
                          _tests_option)

    _check_flags(complete=complete, keep_going=keep_going)
    _check_strings(correction=correction, zero_method=zero_method, wilcoxon_method=wilcoxon_method,
                   ci_method=ci_method, marker_test=marker_test, baseline=baseline, run_id_mode=run_id_mode)
    tests = tests if isinstance(tests, str) else ",".join(_string_list("tests", _tests_option(tests)))
    _check_int("level", level)
    _check_float("binary", binary, optional=True)
    _check_float("floor", floor, optional=True)
    _check_int("depth", depth, 1, optional=True)
    _check_int("resamples", resamples, 1)
    _check_int("seed", seed, 0, SEED_MAX)
    _check_float("alpha", alpha, 0, 1, lo_open=True, hi_open=True)
    _check_float("sign_min_diff", sign_min_diff, 0)
    _check_float("confidence", confidence, 0, 1, lo_open=True, hi_open=True)
    _check_int(option_name("digits", "--digits"), digits, 0, 17)
    _check_int("jobs", jobs, 1)
    from ..log import Log
    from ..stats.compare import parse_tests

    log = log or Log("zelo_compare", quiet=True)
    hint = "for data: pref_eval.compare(pref_eval.evaluate(qrels, runs, measures), tests=...)"
    # before any truth test of qrels: a DataFrame there was pandas' "truth value ... is ambiguous" ValueError
    _check_paths(hint, qrels=qrels, per_query_file=per_query_file)
    # as evaluate: one string of measures is names separated by spaces, one run path is one run
    measures = _measure_list(measures) if qrels else _string_list("measures", measures, split=True)
    run_names = _string_list("run_names", run_names)
    runs = _path_list(runs, "runs", hint)
    if (fmt := output_format) not in _REPORT_FORMATS:
        raise UsageError(f"output_format: expected one of {', '.join(_REPORT_FORMATS)}, got {shown(fmt)}")
    if bool(qrels) == bool(per_query_file):
        raise UsageError("give either -R QRELS with run files, or -P PER_QUERY_FILE (see --help)"
                         if command_running() else "give either qrels with runs, or per_query_file")
    if qrels and not runs and not command_running():  # compare_runs("pq.tsv"): the per-query file in qrels' place
        raise UsageError(f"qrels {shown(os.fspath(qrels))} without runs: give runs=[RUN, RUN, ...] (a file of "
                         "per-query values goes in per_query_file=PATH)")
    test_list = parse_tests(tests)
    mt = test_list[0]
    if marker_test is not None:
        mt = parse_tests(marker_test)[0]
        if mt not in test_list:
            raise UsageError(f"{option_value('marker_test', '--marker-test', marker_test)} is not among "
                             f"{option_value('tests', '--tests', tests)}")
    if fmt in ("jsonl", "csv"):  # (both were ignored there: every record, every digit)
        for key, flag, given in (("marker_test", "--marker-test", marker_test is not None),
                                 ("digits", "--digits", digits != 4)):
            if option_given(flag, given):
                raise UsageError(f"{option_name(key, flag)} applies to the tables "
                                 f"({option_name('output_format', '-o')} text, markdown, latex); "
                                 f"{option_value('output_format', '-o', fmt)} writes every record in full precision")
    _check_keep_going(keep_going, qrels, measures)
    own = _input_options(inputs, output=output, qrels=qrels, per_query_file=per_query_file, runs=list(runs))
    if output is not None:
        from ..output.atomic import inputs_besides, preflight

        preflight(output, inputs_besides(output, own))  # a missing directory etc. before anything is evaluated
    skipped: list[str] | None = [] if keep_going else None
    df, baseline, _ = _per_query_values(
        qrels=qrels, per_query_file=per_query_file, runs=runs, measures=measures, complete=complete, level=level,
        binary=binary, floor=floor, depth=depth, baseline=baseline, jobs=jobs, run_id_mode=run_id_mode,
        run_names=run_names, log=log, skipped=skipped)
    if skipped and baseline is not None:
        from ._metric_mode import _check_baseline_kept

        _check_baseline_kept(baseline, skipped, runs, run_id_mode, run_names)
    df, pref_df = _split_preference_rows(df)
    run_sel, measure_sel = _comparison_selection(df, pref_df, qrels=qrels, runs=runs, measures=measures)
    settings = dict(correction=correction, alpha=alpha, resamples=resamples, seed=seed, zero_method=zero_method,
                    wilcoxon_method=wilcoxon_method, confidence=confidence, ci_method=ci_method,
                    sign_min_diff=sign_min_diff)
    slow = [t for t in test_list if t in ("randomization", "bootstrap", "tukey")]
    if slow:
        log.stage(f"running {', '.join(slow)} ({resamples} resamples, seed {seed})")
    result = _compare_metrics(df, test_list, baseline=baseline, complete=complete, run_sel=run_sel,
                              measure_sel=measure_sel, settings=settings, jobs=jobs, log=log, source=per_query_file,
                              qrels=qrels)
    pref_records, pref_tests = None, test_list
    if pref_df is not None:
        pref_records, pref_tests = _compare_preference_rows(
            pref_df, test_list, baseline=baseline, source=per_query_file,
            complete=complete, run_sel=run_sel, measure_sel=measure_sel, settings=settings, log=log)
    text = _comparison_text(result, pref_records, fmt=fmt, alpha=alpha, digits=digits, correction=correction,
                            markers=(mt, mt if mt != "tukey" or not pref_tests else pref_tests[0]))
    if output is not None:
        from ..output.atomic import command_output

        with command_output(output, own) as out:
            out.write(text)
    if skipped:  # named by path, in the order given, as zelo_eval names them (the ids were the labels)
        from ..errors import EvaluationError
        from ._metric_mode import _left_out

        raise EvaluationError(f"{len(skipped)} of {len(runs)} runs not compared ({_keep_going()}; their errors "
                              f"above): {', '.join(_left_out(skipped, runs, run_id_mode, run_names).values())}")
    return text


def _refuse_unknown(unknown: dict) -> None:
    """:func:`compare_runs` given a keyword it does not take: a UsageError naming ours for a ranx.compare or
    pt.Experiment keyword (:mod:`pref_eval.peer_names`), else listing the keywords it takes; nothing when empty."""
    if not unknown:
        return
    import inspect

    from ..peer_names import api_hint, pyterrier_hint

    key = next(iter(unknown))
    known = [p for p, v in inspect.signature(compare_runs).parameters.items() if v.kind is v.KEYWORD_ONLY]
    peer = api_hint("compare_runs", key) or pyterrier_hint("compare_runs", key)
    raise UsageError(f"compare_runs: unknown option {shown(key)}" + (f" ({peer})" if peer else "")
                     + f" (expected one of: {', '.join(known)})")


def _check_keep_going(keep_going: bool, qrels: str | None, measures: Sequence[str]) -> None:
    """``--keep-going`` applies to ``-R`` (run files) only."""
    if keep_going and not qrels:
        raise UsageError("--keep-going applies to run files evaluated with -R (a -P file is read whole)"
                         if command_running() else "keep_going applies to runs evaluated against qrels (a "
                         "per_query_file is read whole)")


def _split_preference_rows(df: Any) -> tuple[Any, Any]:
    """A runi/runj table (metric rows have an empty runj) → (per-run metric rows, per-pair preference rows
    or None); zelo_eval repeats metrics as pair differences: only the per-run rows are kept for them."""
    if "run_b" not in df.columns:
        return df, None
    if hasattr(df, "distinct"):  # a reader's CodedTable: its per-run rows stay codes
        return _split_coded(df)
    pref_df = df[df["run_b"] != ""]
    df = df[df["run_b"] == ""].drop(columns="run_b")
    pref_df = pref_df[~pref_df["measure"].isin(set(df["measure"]))]
    return df, (None if pref_df.empty else pref_df)


def _split_coded(table: Any) -> tuple[Any, Any]:
    """:func:`_split_preference_rows` of a :class:`~pref_eval.io.coded.CodedTable`: its per-run rows as a
    CodedTable (no run_b), the preference rows as a CodedTable too (session 28: no DataFrame)."""
    import numpy as np

    blank = table.names["run_b"].index("") if "" in table.names["run_b"] else -1
    per_run = table.codes["run_b"] == blank
    metric = table.subset(per_run, pair=False)
    kept = set(metric.distinct("measure"))
    repeated = np.array([m in kept for m in table.names["measure"]], dtype=bool)  # a metric's pair differences
    pref = table.subset(~per_run & ~repeated[table.codes["measure"]])
    return metric, (None if pref.empty else pref)


def _comparison_selection(df: Any, pref_df: Any, *, qrels: str | None, runs: Sequence[str],
                          measures: Sequence[str]) -> tuple[list[str] | None, list[str] | None]:
    """Which runs and measures to test: with ``-R`` every run and key evaluated, the keys in the order of the
    ``-m`` names; with ``-P`` the runs and measures asked for (a measure not in the file is refused), in the
    ``-m`` order."""
    if qrels:
        # every key the evaluation produced (a name may give several columns), in the order of the -m names
        from ._comparison_values import _keys_in_given_order

        keys = list(dict.fromkeys(map(str, df["measure"]))) if not df.empty else []
        keys += [k for k in dict.fromkeys(map(str, pref_df["measure"])) if k not in set(keys)] \
            if pref_df is not None else []
        return (list(dict.fromkeys(map(str, df["run"]))) if not df.empty else None), \
            _keys_in_given_order(keys, measures)
    measure_sel = list(measures) if measures else None
    if measure_sel:
        known = (set(df.distinct("measure") if hasattr(df, "distinct") else df["measure"])
                 | (set(pref_df.distinct("measure") if hasattr(pref_df, "distinct") else pref_df["measure"])
                    if pref_df is not None else set()))
        for m in measure_sel:
            if m not in known:
                raise UsageError(f"measure {shown(m)} not in the per-query values (measures: "
                                 f"{', '.join(sorted(known))})")
    return (list(runs) if runs else None), measure_sel


def _compare_metrics(df: Any, test_list: list[str], *, baseline: str | None, complete: bool,
                     run_sel: list[str] | None, measure_sel: list[str] | None, settings: dict, jobs: int,
                     log: Any, source: str | None = None, qrels: Any = None) -> Any:
    """The tests on the per-run measures (:func:`pref_eval.stats.compare.compare`), or None without any."""
    from ..stats.compare import compare as compare_table

    coded = hasattr(df, "distinct")  # (a reader's CodedTable: dict.fromkeys of a column without decoding it)
    metric_measures = ((df.distinct("measure") if coded else list(dict.fromkeys(df["measure"])))
                       if not df.empty else [])
    if measure_sel is not None:
        metric_measures = [m for m in measure_sel if m in set(metric_measures)]
    if not metric_measures:
        return None
    names = run_sel or (df.distinct("run") if coded else list(dict.fromkeys(map(str, df["run"]))))
    if baseline is not None:
        baseline = _resolve_run(baseline, names)
    result = compare_table(df, tests=test_list, baseline=baseline, complete=complete, runs=run_sel,
                           measures=metric_measures, **settings,
                           progress=lambda done, total: log.progress("measures", done, total), jobs=jobs)
    try:
        result.refuse_no_common_query(source)
    except UsageError as err:
        raise UsageError(f"{err}{_measure_missing(df, result.n_queries)}") from None
    from ._score_rows import _is_score_file

    for line in result.query_warnings(complete_hint=not _is_score_file(qrels)):  # (-c is refused with a score file)
        log.warn(line)
    return result


def _compare_preference_rows(pref_df: Any, test_list: list[str], *, baseline: str | None, complete: bool,
                             run_sel: list[str] | None, measure_sel: list[str] | None, settings: dict,
                             log: Any, source: str | None = None) -> tuple[Any, list[str]]:
    """The tests on the per-pair preference measures: (records or None, the tests applied). ``baseline``
    (a per-query file's pairs; ``-R`` makes only the baseline's pairs): keep the pairs with the baseline,
    as (other, baseline), so the correction's family is those R - 1 pairs, as with ``-R``."""
    from ..stats.compare import preference_records

    pref_tests = [t for t in test_list if t != "tukey"]
    if len(pref_tests) < len(test_list):
        log.warn("the randomised Tukey HSD needs per-run values; not applied to preference measures")
    if baseline is not None:
        pref_df = (_baseline_pairs_coded(pref_df, baseline) if hasattr(pref_df, "distinct") else
                   _baseline_pairs(pref_df, baseline))
    if not pref_tests:
        return None, pref_tests
    records, nq, dropped = preference_records(pref_df, complete=complete, measures=measure_sel, runs=run_sel,
                                              tests=pref_tests, **settings)
    empty = [m for m, n in nq.items() if n == 0]
    if empty:  # (before session 23: nan records, exit 0)
        from ..io.textfile import display_name
        raise UsageError(f"{display_name(source) + ': ' if source else ''}{empty[0]}: no query has a value for "
                         f"every pair ({len(dropped[empty[0]])} quer(y/ies), each lacking for some pair): nothing to "
                         "average or test")
    for m, d in dropped.items():
        if d:
            log.warn(f"{m}: {len(d)} quer(y/ies) missing for some pair left out")
    return records, pref_tests


def _baseline_pairs(pref_df: Any, baseline: str) -> Any:
    """The rows of the pairs with ``baseline``, turned to (other, baseline) -- the metric records' orientation,
    mean_diff = other - baseline as ``scipy.stats.ttest_rel(other, baseline)`` --: a preference of b over a is
    minus that of a over b (every preference measure is a difference or a sign: rpp, lexi*, the metric
    differences). Before session 22 these records were (baseline, other), zelo_eval --reference's layout,
    while the metric records beside them were (other, baseline)."""
    import numpy as np
    import pandas as pd

    names = list(dict.fromkeys(x for pair in zip(pref_df["run"], pref_df["run_b"], strict=True) for x in pair))
    b = _resolve_run(baseline, names)
    first, second = pref_df[pref_df["run_b"] == b], pref_df[pref_df["run"] == b].copy()
    run, run_b = second["run"].copy(), second["run_b"].copy()  # (Series: an object column of ids that were not
    second["run"], second["run_b"] = run_b, run                # UTF-8 stays one; pandas' strings cannot hold them)
    second["value"] = -pd.to_numeric(second["value"], errors="coerce")
    out = pd.concat([first, second], ignore_index=True)  # the other runs in the file's order, as -R's command line
    index = {n: i for i, n in enumerate(names)}
    return out.iloc[np.argsort(np.fromiter(map(index.__getitem__, out["run"]), np.int64, len(out)), kind="stable")]


def _baseline_pairs_coded(table: Any, baseline: str) -> Any:
    """:func:`_baseline_pairs` of a reader's :class:`~pref_eval.io.coded.CodedTable` (session 29: no DataFrame):
    the same rows, runs turned and values negated, in the same order; ``run`` and ``run_b`` then share one list
    of names."""
    import numpy as np

    from ..io.coded import CodedTable

    # one list of the runs of both columns: their order of first appearance row by row (run, run_b, run, ...)
    both = [*table.names["run"], *table.names["run_b"]]
    once = dict.fromkeys(both)
    index = dict(zip(once, range(len(once)), strict=True))
    to_once = np.fromiter(map(index.__getitem__, both), np.int64, len(both))
    run = to_once[table.codes["run"]]
    run_b = to_once[table.codes["run_b"] + len(table.names["run"])]
    laid = np.stack([run, run_b], axis=1).reshape(-1)
    first = np.full(len(once), laid.size, np.int64)
    np.minimum.at(first, laid, np.arange(laid.size, dtype=np.int64))
    present = np.flatnonzero(first < laid.size)
    names_once = list(once)
    names = [names_once[c] for c in present[np.argsort(first[present], kind="stable")].tolist()]
    b = index[_resolve_run(baseline, names)]
    rows = np.concatenate([np.flatnonzero(run_b == b), np.flatnonzero(run == b)])
    turned = np.arange(rows.size) >= np.count_nonzero(run_b == b)
    new_run = np.where(turned, run_b[rows], run[rows])
    new_run_b = np.where(turned, run[rows], run_b[rows])
    value = np.where(turned, -table.value[rows], table.value[rows])
    rank = np.empty(len(once), np.int64)
    rank[[index[n] for n in names]] = np.arange(len(names))
    order = np.argsort(rank[new_run], kind="stable")  # the other runs in the file's order, as -R's command line
    rows, new_run, new_run_b, value = rows[order], new_run[order], new_run_b[order], value[order]
    codes = {"run": new_run, "qid": table.codes["qid"][rows], "measure": table.codes["measure"][rows],
             "run_b": new_run_b}
    return CodedTable({"run": names_once, "qid": table.names["qid"], "measure": table.names["measure"],
                       "run_b": names_once}, codes, value, True, table.object_ids)


def _comparison_text(result: Any, pref_records: Any, *, fmt: str, alpha: float, digits: int, correction: str,
                     markers: tuple[str, str]) -> str:
    """The report: one CSV / JSON lines table of every record, or the tables of means with significance
    markers from the adjusted p-values of ``markers`` = (test for the metrics, test for the preference
    measures)."""
    from ..output.comparisons import format_pref_table, format_table, records_csv, records_jsonl

    from ..stats.compare import Records

    parts = [p for p in ((result.record_table if result is not None else None), pref_records) if p is not None]
    if not parts:
        raise UsageError("nothing to compare (no measure with values for at least two runs)")
    if fmt in ("jsonl", "csv"):
        if len(parts) > 1 and isinstance(pref_records, Records):  # (the codes' records: no DataFrame)
            records = Records([*result.record_table.blocks, *pref_records.blocks])
        elif len(parts) > 1:
            import pandas as pd

            records = pd.concat([result.records, pref_records], ignore_index=True)
        else:
            records = parts[0]
        return records_jsonl(records, alpha) if fmt == "jsonl" else records_csv(records, alpha)
    chunks = []
    if result is not None:
        chunks.append(format_table(result, fmt, digits, markers[0]))
    if pref_records is not None and len(pref_records):
        chunks.append(format_pref_table(pref_records, fmt, markers[1], alpha, correction, digits))
    return "\n".join(chunks)

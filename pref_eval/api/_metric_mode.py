"""``zelo_eval``'s metric mode (trec_eval's measures per run), the steps of
:func:`pref_eval.api.run_evaluation.evaluate_runs`: evaluate every run (here, or in ``--jobs``
processes / on dask), set aside the bad ones under ``--keep-going``, and write trec_eval blocks,
long tables, the per-topic table (``-o topics``) or the runs × measures table; and the
``--keep-going`` rows of ``zelo_compare -R`` (:func:`_registry_rows`).
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import UsageError, command_running, option_given, option_name, option_value, shown
from ._inputs import _keep_going
from .measures import evaluate_run_group, extra_inputs

if TYPE_CHECKING:
    from ..output.atomic import InputOptions


_WIDE = ("text", "markdown", "latex", "wide-csv")  # runs × measures (zelo_compare's report table)


_TOPICS = ("topics", "topics-csv", "topics-jsonl", "topics-text", "topics-markdown", "topics-latex")
"""Per topic and measure across runs: TSV, CSV, JSON lines (full precision), and tables to read (``--digits``)."""

_DIGITS = ("text", "markdown", "latex", "topics-text", "topics-markdown", "topics-latex")  # --digits' formats


_O = "output_format", "-o"  # the output's format as a Python caller and zelo_eval name it

_MANY_RUNS = 8  # from this many runs on, a stage line announces the evaluation (on a terminal)


def _metric_mode(qrels: str, runs: list[str], ids: list[str], measures: Sequence[str], ms: str | None, *,
                 per_query: bool, summary: bool, complete: bool, level: int, depth: int | None, fmt: str,
                 output: str, inputs: InputOptions, log: Any, extra: dict, trec9: bool, jobs: int,
                 scheduler: str | None, keep_going: bool = False, median: str = "mean", digits: int = 4,
                 run_types: str | None = None, quartiles: bool = False, clef_stats: bool = False) -> None:
    """trec_eval's measures per run: trec blocks, long tables, the per-topic table or the runs × measures table."""
    from ..collection import unknown_topics_warnings
    from ..io.qrels import read_qrels
    from ..measures import parse_measures
    from ..measures.base import needs_subtopics
    from ..output.atomic import command_output

    if ms in ("preferences", "all", "none"):
        raise UsageError(f"{option_value('measure_set', '-M', ms)} is a preference measure set; use "
                         f"{option_value(*_O, 'pref')} (or {option_value(*_O, 'tsv')} with it)")
    if fmt in _TOPICS and per_query:  # (was accepted and ignored: session 22)
        raise UsageError(f"{option_value(*_O, fmt)} is per topic already: {option_name('per_query', '-q')} does not "
                         f"apply ({'-n' if command_running() else 'summary=False'} leaves out the 'all' rows)")
    names = [*measures, *([ms] if ms else [])] if measures else [ms or "official"]
    requests = parse_measures(names)
    type_of = None
    if run_types is not None:  # read before the runs: a bad line stops the command before any evaluation
        from ..io.groups import TYPE_COLUMNS, read_run_groups

        type_of = read_run_groups(run_types, what="type", names=TYPE_COLUMNS)
    more = extra_inputs(requests, **extra)
    q = read_qrels(qrels, subtopics=needs_subtopics(requests))
    if per_query:
        _warn_topic_all(q.qid, qrels, log)
    got = _evaluate_groups(q, runs, ids, names, complete=complete, level=level, depth=depth, trec9=trec9,
                           extra=more, jobs=jobs, scheduler=scheduler, log=log, keep_going=keep_going)
    types = _types_of(got, runs, type_of, run_types or "", keep_going) if type_of is not None else None
    got, runs, ids, skipped = _set_aside(got, runs, ids, log, least=2 if fmt in _WIDE else 1)
    results = []
    # warnings name a run by its id, as the output does (docs/run-ids.md); errors name its file
    for line in unknown_topics_warnings(qrels, ids, [r.unknown_topics for r, *_ in got]):
        log.warn(line)  # the runs' topics not in the qrels, never evaluated (trec_eval -c drops them silently)
    for (res, n_missing, nq_qrels, _), name in zip(got, ids, strict=True):
        if n_missing and not complete and fmt not in _WIDE:  # a table: the queries every run has (its warnings)
            log.warn(f"{name}: run lacks {n_missing} of {nq_qrels} qrels topics; averaging over the "
                     f"topics in both (use {option_name('complete=True', '-c')} to count them as zero)")
        results.append(res)  # nq == 0 (no topic in common) was raised by evaluate_run_group
    types = [t for t in types if t is not None] if types is not None else None  # as the runs _set_aside kept
    if fmt in _WIDE:
        _wide_table(results, fmt, output=output, inputs=inputs, per_query=per_query, summary=summary,
                    complete=complete, trec9=trec9, log=log, digits=digits)
    else:
        with command_output(output, inputs) as out:
            if fmt == "trec":
                from ..output.trec import write_trec_blocks

                write_trec_blocks(out, results, ids, per_query=per_query, summary=summary, print_missing=not trec9)
            elif fmt in _TOPICS:
                from ..output.table import long_rows, write_topics

                write_topics(out, long_rows(results, per_query=True, summary=summary, print_missing=not trec9), ids,
                             fmt, median, digits, types, quartiles, clef_stats)
            else:
                from ..output.table import WRITERS, long_rows

                WRITERS[fmt](out, long_rows(results, per_query=per_query, summary=summary, print_missing=not trec9))
    if skipped:
        raise skipped


def _types_of(got: list, runs: list[str], type_of: dict[str, str], source: str, keep_going: bool) -> list:
    """``--run-types``: each evaluated run's type by its run tag (None for a run that could not be evaluated); a
    run whose type cannot be told (its tag not in the file, tags of two types) stops the command, or under
    ``keep_going`` becomes an error entry of ``got``, set aside with the others (named in run order)."""
    from ..errors import InputError, PrefEvalError
    from ..io.groups import run_value

    out: list[str | None] = []
    for k, (x, path) in enumerate(zip(got, runs, strict=True)):
        if isinstance(x[0], PrefEvalError):
            out.append(None)
            continue
        try:
            out.append(run_value(path, x[0].tag, type_of.get, "type", source, x[0].tags))
        except InputError as err:
            if not keep_going:
                raise
            got[k] = (err, *x[1:])
            out.append(None)
    return out


def _check_table_options(fmt: str | None, median: str | None, digits: int | None, run_types: str | None = None,
                         quartiles: bool = False, clef_stats: bool = False) -> None:
    """``--median``, ``--run-types``, ``--quartiles`` and ``--clef-stats`` only with the per-topic tables,
    ``--digits`` only with the tables to read (refused, not ignored, elsewhere)."""
    from ._inputs import _check_int

    o, used = option_name(*_O), option_value(*_O, fmt) if fmt else "the default output"
    for key, given in (("run_types", run_types is not None), ("quartiles", quartiles), ("clef_stats", clef_stats)):
        if given and fmt not in _TOPICS:
            raise UsageError(f"{option_name(key)} applies to {o} {'|'.join(_TOPICS)} (the per-topic table), not to "
                             + used)

    if median is not None and (median not in ("mean", "upper") or fmt not in _TOPICS):
        raise UsageError(f"median: expected mean or upper, got {shown(median)}" if median not in ("mean", "upper")
                         else f"{option_name('median')} applies to {o} {'|'.join(_TOPICS)} (the per-topic table), "
                         f"not to {used}")
    if digits is not None:
        _check_int("digits", digits, 0, 17)
        if fmt not in _DIGITS:
            raise UsageError(f"{option_name('digits')} applies to {o} {'|'.join(_DIGITS)} (tables to read), not to "
                             + (f"{used} (full precision)" if fmt else used))


def _refuse_metric_tables(fmt: str) -> None:
    """Preference mode: the per-topic and runs x measures tables are metric mode's (the latter was written as the
    long CSV table, its format ignored, before session 23)."""
    if fmt in _TOPICS:
        raise UsageError(f"{option_value(*_O, fmt)} is a table of trec_eval measures (metric mode), not of "
                         "preference measures")
    if fmt in _WIDE:
        to = fmt.replace("wide-", "")
        raise UsageError(f"{option_value(*_O, fmt)} is a runs x measures table of trec_eval measures (metric mode); "
                         "preference measures between runs as a table: "
                         + (f"zelo_compare -R QRELS -m NAME -o {to}" if command_running() else
                            f"compare_runs(qrels, runs, measures=[NAME], output_format={shown(to)})"))


def _set_aside(got: list, runs: list[str], ids: list[str], log: Any,
               least: int = 1) -> tuple[list, list[str], list[str], Any]:
    """``--keep-going``: the runs whose entry in ``got`` is an error are named on stderr (``log.error``, one
    line each: the error as it would stop the command) and left out. Returns what is left of ``got``,
    ``runs`` and ``ids``, and the error to raise once the others are written (``None``: every run was
    evaluated); with no run left it is raised at once (nothing is written), and with fewer than ``least`` (2:
    the runs × measures tables compare runs; said as ``zelo_compare --keep-going`` says it)."""
    from ..errors import EvaluationError, PrefEvalError
    from ..io.textfile import display_name

    bad = [k for k, x in enumerate(got) if isinstance(x[0], PrefEvalError)]
    if not bad:
        return got, runs, ids, None
    for k in bad:
        log.error(str(got[k][0]))
    keep = [k for k in range(len(got)) if k not in set(bad)]
    names = ", ".join(display_name(runs[k]) for k in bad)
    if not keep:
        raise EvaluationError(f"none of the {len(runs)} runs could be evaluated ({_keep_going()}): {names}; "
                              "nothing written")
    if len(keep) < least:
        raise EvaluationError(f"fewer than two runs left to compare ({_keep_going()}): {names} could not be evaluated; "
                              "nothing written")
    err = EvaluationError(f"{len(bad)} of {len(runs)} runs not evaluated ({_keep_going()}; their errors above): "
                          f"{names}")
    return [got[k] for k in keep], [runs[k] for k in keep], [ids[k] for k in keep], err


def _warn_topic_all(qid: Any, qrels: str, log: Any) -> None:
    """A qrels topic named ``all`` (trec_eval takes it): with ``-q`` its lines read like the summary lines."""
    import numpy as np

    if bool(np.any(np.asarray(qid) == b"all")):
        log.warn(f"{qrels}: a topic is named 'all': its per-query lines read like the summary lines 'all' "
                 "(zelo_compare refuses them; pref_aggregate and pref_eval.py leave the topic out): rename it")


def _evaluate_groups(q: Any, runs: list[str], ids: list[str], names: list[str], *, complete: bool, level: int,
                     depth: int | None, trec9: bool, extra: dict, jobs: int, scheduler: str | None,
                     log: Any, keep_going: bool = False) -> list:
    """:func:`evaluate_run_group` over every run: here, or in groups in ``jobs`` processes / on dask."""
    if jobs == 1 and scheduler is None:  # read, rank and evaluate one run at a time
        import sys

        try:
            return evaluate_run_group((q, runs, ids, names, complete, level, depth, False, trec9, extra, keep_going),
                                      progress=lambda k, n: log.progress("evaluating runs", k, n))
        except BaseException:
            if log.interactive:  # end the progress line so the error starts a line of its own
                sys.stderr.write("\n")
            raise
    from ..parallel import ordered_map, split_even

    if len(runs) >= _MANY_RUNS:
        log.stage(f"evaluating {len(runs)} runs")
    groups = [(k, k + 1) for k in range(len(runs))] if scheduler else split_even([1] * len(runs), jobs)
    pieces = [(q, list(runs[a:b]), ids[a:b], names, complete, level, depth, False, trec9, extra, keep_going)
              for a, b in groups]
    return [x for part in ordered_map(evaluate_run_group, pieces, jobs=jobs, scheduler=scheduler) for x in part]


def _wide_table(results: list, fmt: str, *, output: str, inputs: InputOptions, per_query: bool, summary: bool,
                complete: bool, trec9: bool, log: Any, digits: int = 4) -> None:
    """Runs × measures: the mean of each measure over the queries every run has (``-c``: all), the
    best in bold, significance letters of a paired t-test with Holm's correction over the pairs of
    runs per measure at α = 0.05 -- the table of ``zelo_compare`` (same code), which offers the
    other tests and settings. The values go to the comparison as its pandas-free table (``LongTable``, as
    ``zelo_compare -R``): pandas' strings (pyarrow's) cannot hold an id that is not UTF-8 (a Latin-1 run tag
    or topic, kept as its bytes)."""
    from ..output.table import long_rows

    _refuse_per_query_table(fmt, per_query, summary)
    rows: Any = long_rows(results, per_query=True, summary=False, print_missing=not trec9)  # values as printed
    _wide_from_rows(rows, fmt, output=output, inputs=inputs, complete=complete, log=log, digits=digits)


def _refuse_per_query_table(fmt: str, per_query: bool, summary: bool) -> None:
    """``-q`` / ``-n`` with a runs × measures table: refused."""
    if per_query or not summary:
        raise UsageError(f"{option_value(*_O, fmt)} is a table of means: "
                         f"{'-q/-n' if command_running() else 'per_query/summary=False'} do not apply (use "
                         f"{option_value(*_O, 'tsv')} for per-query values)")


def _wide_from_rows(rows: Any, fmt: str, *, output: str, inputs: InputOptions, complete: bool, log: Any,
                    digits: int, scores: bool = False) -> None:
    """:func:`_wide_table` from per-query rows ``(run, qid, measure, value)`` (also those of a zELO score file:
    ``scores``, where ``-c`` is refused and the warnings do not point at it)."""
    from ..output.atomic import command_output
    from ..output.comparisons import format_table, write_wide_csv
    from ..stats.compare import LongTable
    from ..stats.compare import compare as compare_table

    df = LongTable.from_rows(rows)
    if df.empty:
        raise UsageError(f"{option_value(*_O, fmt)}: no per-query values (summary-only measures such as gm_map or "
                         "num_q)")
    res = compare_table(df, tests=["t"], correction="holm", alpha=0.05, complete=complete)
    res.refuse_no_common_query()
    for line in res.query_warnings(complete_hint=not scores):  # as zelo_compare: over the queries every run has
        log.warn(line)
    with command_output(output, inputs) as out:
        if fmt == "wide-csv":
            write_wide_csv(out, res, "t")
        else:
            out.write(format_table(res, fmt, digits, "t"))


def _registry_rows(qrels: str, given: dict[str, Any], registry: list[str], *, complete: bool, level: int,
                   depth: int | None, jobs: int, log: Any, skipped: list[str] | None) -> list:
    """The per-query rows of the trec_eval / ir-measures measures; with ``skipped`` (``--keep-going``) the runs
    that cannot be read or evaluated left out (named on stderr and in ``skipped``), refused when fewer than two
    are left."""
    from ..errors import EvaluationError
    from ..io.textfile import display_name
    from .measures import _evaluate_rows

    paths = given
    if skipped is not None:
        given = _readable_runs(given, skipped, log)
    rows = _evaluate_rows(qrels, given, registry, complete=complete, level=level, depth=depth, jobs=jobs,
                          warn_missing=False, warn_topic_all=False, log=log, skipped=skipped)
    from ._score_rows import _is_score_file, _undefined_left_out

    if _is_score_file(qrels):  # zbench's measures: a query where one is undefined (nan) cannot be paired
        rows = _undefined_left_out(rows, qrels, log)
    if skipped and len(given) - len([s for s in skipped if s in given]) < 2:
        gone = ", ".join(display_name(p) for n, p in paths.items() if n in skipped)
        raise EvaluationError(f"fewer than two runs left to compare ({_keep_going()}): {gone} "
                              "could not be evaluated; nothing written")
    return rows


def _left_out(skipped: list[str], runs: Sequence[str], run_id_mode: str | None,
              run_names: Sequence[str]) -> dict[str, str]:
    """``zelo_compare --keep-going``: ``{run id: path as given}`` of the runs left out, in the order given (the
    messages name a run by what the user typed, as zelo_eval's do, not by its ``--name`` label)."""
    from ..io.run_ids import run_ids
    from ..io.textfile import display_name

    ids = run_ids(list(runs), mode=run_id_mode or "path", names=list(run_names))
    return {n: display_name(p) for n, p in zip(ids, runs, strict=True) if n in skipped}


def _readable_runs(given: dict[str, Any], skipped: list[str], log: Any) -> dict[str, Any]:
    """``--keep-going``: the runs read (``{id: Run}``); each that cannot be read is named by ``log.error``, its id
    appended to ``skipped``."""
    from ..errors import InputError
    from ..io.runs import read_run

    out = {}
    for name, path in given.items():
        try:
            out[name] = read_run(path, name=name)
        except InputError as err:
            log.error(str(err))
            skipped.append(name)
    return out


def _two_left(skipped: list[str], runs: Sequence[str], run_id_mode: str | None, run_names: Sequence[str]) -> None:
    """``zelo_compare --keep-going`` with preference measures: fewer than two runs left is refused."""
    if len(runs) - len(skipped) < 2:
        from ..errors import EvaluationError

        raise EvaluationError(f"fewer than two runs left to compare ({_keep_going()}): "
                              f"{', '.join(_left_out(skipped, runs, run_id_mode, run_names).values())} "
                              "could not be evaluated; nothing written")


def _check_baseline_kept(name: str, skipped: list[str], runs: Sequence[str], run_id_mode: str | None,
                         run_names: Sequence[str]) -> None:
    """``--keep-going``: a baseline that is one of the runs left out is said so (not 'not one of the runs')."""
    from ._comparison_values import _resolve_run

    try:
        gone = _resolve_run(name, skipped)
    except UsageError:
        return
    from ..errors import EvaluationError

    raise EvaluationError(f"baseline {shown(name)} could not be evaluated ({_keep_going()}: "
                          f"{_left_out(skipped, runs, run_id_mode, run_names)[gone]} left out, its error above); "
                          "nothing written")


class _HeldErrors:
    """A log whose ``error`` lines are held back (the rest passes through), each paired with the run id the
    caller appends to ``skipped`` right after it (every ``--keep-going`` path names a run so)."""

    def __init__(self, log: Any) -> None:
        self.log = log
        self.lines: list[str] = []

    def error(self, message: str) -> None:
        self.lines.append(message)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.log, name)


@contextlib.contextmanager
def _errors_in_run_order(log: Any, skipped: list[str] | None, runs: Sequence[str], run_id_mode: str | None,
                        run_names: Sequence[str]) -> Iterator[Any]:
    """``zelo_compare -R --keep-going``: the error lines of the runs left out, written in the order the runs were
    given, as zelo_eval writes them (it reads and evaluates one run after another), though the runs are read
    first, then ranked against the preference measures' qrels, then evaluated (before session 23 unreadable runs
    came first). Written also when the comparison stops (fewer than two runs left)."""
    if skipped is None:
        yield log
        return
    held, start = _HeldErrors(log), len(skipped)
    try:
        yield held
    finally:
        lines, names = held.lines, skipped[start:]
        if len(lines) == len(names):  # else (not expected) as they came
            from ..io.run_ids import run_ids

            ids = run_ids(list(runs), mode=run_id_mode or "path", names=list(run_names))
            lines = [x for _, x in sorted(zip((ids.index(n) for n in names), lines, strict=True))]
        for line in lines:
            log.error(line)


def _depth_of_measure_set(ms: str | None, depth: int | None, topk: int | None) -> tuple[str | None, int | None]:
    """``-M N`` is trec_eval's depth: (the measure set left, the smallest of ``-M N``, ``--depth``, ``--topk``)."""
    if ms is not None and ms.strip().lstrip("+").isdigit():
        d = int(ms)
        if d <= 0:
            raise UsageError(f"{option_value('measure_set', '-M', ms)}: the depth must be positive")
        depth, ms = (d if depth is None else min(depth, d)), None
    cut = [x for x in (depth, topk) if x is not None]
    return ms, (min(cut) if cut else None)


def _refuse_with_scores(scores: str, ms: str | None, *, extra: dict, parallel: bool, binary: float | None,
                        floor: float | None, reference: str | None, means: bool, complete: bool, level: int,
                        sampled: tuple[float, float, int], trec9: bool, head: bool) -> None:
    """Options that do not apply when the qrels are a zELO score file are refused, each by its flag."""
    _refuse_extra(extra, "with a zELO score file")
    if parallel:
        raise UsageError(f"{option_name('jobs')}/{option_name('scheduler')} apply to metric mode (trec_eval measures), "
                         "not to a zELO score file")
    query_fraction, label_fraction, samples = sampled
    bad = [option_name(key, flag) for key, flag, used in (
        ("binary", "-b", binary is not None), ("floor", "-f", floor is not None),
        ("reference", "--reference", reference is not None), ("means", "--means", means), ("complete", "-c", complete),
        ("level", "-l", level != 1), ("query_fraction", "--query_fraction", query_fraction < 1.0),
        ("label_fraction", "--label_fraction", label_fraction < 1.0), ("samples", "--samples", samples > 1))
           if option_given(flag, used)]
    if bad:
        raise UsageError(f"not applicable with a zELO score file ({scores}): {', '.join(bad)}")
    if trec9 or head:
        given = option_name("trec9", "--trec-eval-9") if trec9 else option_name("head", "--pref-eval-head")
        raise UsageError(f"not applicable with a zELO score file ({scores}): {given}")
    if ms is not None:
        m, depth = ("-m", "-M N") if command_running() else ("measures", "a measure_set of digits")
        raise UsageError(f"{option_value('measure_set', '-M', ms)}: with a zELO score file use {m} "
                         f"zndcg|zndcg@K|zacc|zrecall@K[,KGT] ({depth} limits the candidates)")


def _refuse_extra(extra: dict, where: str) -> None:
    """-P / --judgments-format / -B only serve registry measures (metric mode)."""
    for flag, key in (("-P", "judgments"), ("--judgments-format", "judgments_format"), ("-B", "best")):
        if extra.get(key) is not None:
            raise UsageError(f"{option_name(key, flag)} is not applicable {where}: it serves registry measures such "
                             "as PGC or BestRR (metric mode)")

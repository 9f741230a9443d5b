"""``zelo_eval``: :func:`evaluate_runs` and its metric, preference and scores modes, and
:func:`preferences` (the preference mode's table as a DataFrame).
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from ..seeds import SEED_MAX
from ..errors import UsageError, command_running, option_given, option_name, option_value, renamed_keywords, shown
from ._inputs import _input_options
from ._metric_mode import (_MANY_RUNS, _WIDE, _TOPICS, _check_table_options, _depth_of_measure_set, _metric_mode,
                           _refuse_extra, _refuse_metric_tables, _refuse_per_query_table, _refuse_with_scores,
                           _warn_topic_all, _wide_from_rows)

if TYPE_CHECKING:
    from ..output.atomic import InputOptions


FORMATS = ("pref", "trec", "tsv", "csv", "jsonl", "text", "markdown", "latex", "wide-csv", *_TOPICS)  # zelo_eval -o


WIDE = _WIDE  # runs × measures (zelo_compare's report table)
MANY_RUNS = _MANY_RUNS  # from this many runs on, a stage line announces the evaluation (on a terminal)


@renamed_keywords(fmt="output_format")
def evaluate_runs(qrels: str, runs: Sequence[str], *, measures: Sequence[str] = (), measure_set: str | None = None,
                  binary: float | None = None, floor: float | None = None, judgments: str | None = None,
                  judgments_format: str | None = None, best: str | None = None, per_query: bool = False,
                  summary: bool = True, complete: bool = False, level: int = 1, depth: int | None = None,
                  topk: int | None = None, output_format: str | None = None, output: str = "-",
                  reference: str | None = None, means: bool = False, query_fraction: float = 1.0,
                  label_fraction: float = 1.0, label_policy: str = "random", samples: int = 1, seed: int = 0,
                  jobs: int = 1, scheduler: str | None = None, trec9: bool = False, head: bool = False,
                  run_id_mode: str = "path", run_names: Sequence[str] = (), log: Any = None,
                  inputs: InputOptions | None = None, keep_going: bool = False, median: str | None = None,
                  digits: int | None = None, run_types: str | None = None, quartiles: bool = False,
                  clef_stats: bool = False) -> None:
    """Evaluate runs as ``zelo_eval`` does and write its output to ``output`` (``-``: stdout).

    Three modes (docs/zelo_eval.md), chosen as the command chooses them:

    * **preference mode** -- pref_eval.py's preference measures between runs (RPP: Diaz & Ferraro, SIGIR
      2022; lexicographic recall and precision: Diaz, Ekstrand & Mitra, TORS 2025; Diaz, EVIA 2023) and its
      metrics: ``output_format="pref"`` (its JSON lines; the default with two or more runs) or long tables
      (``tsv``/``csv``/``jsonl`` with a preference measure); ``binary``, ``floor``, ``reference``, ``means``,
      ``topk``, the sampling options (``query_fraction``, ``label_fraction``, ``label_policy``, ``samples``,
      ``seed``) and ``head`` apply here;
    * **metric mode** -- trec_eval's measures per run (``trec`` blocks, long tables, a runs × measures table
      ``text|markdown|latex|wide-csv`` with a paired t-test and Holm's correction, or ``topics`` /
      ``topics-csv`` / ``topics-jsonl``: per topic and measure the min / median / max over the runs and each
      run's value); ``complete``, ``level``, ``trec9``, ``judgments``/``best`` (for PGC, BestRR), ``jobs``/
      ``scheduler``;
    * **zELO scores** -- ``qrels`` is a ``zelo_fit`` score file: zbench's measures.

    ``measures``/``measure_set`` are ``-m``/``-M`` (a number is a depth, as trec_eval's ``-M``); run ids by
    ``run_id_mode``/``run_names`` (:mod:`pref_eval.io.run_ids`); ``inputs`` the files the output must not
    overwrite (default the input paths); ``log`` a :class:`~pref_eval.log.Log`. Values as :func:`evaluate` and
    :func:`preferences` return them.

    ``keep_going`` (``--keep-going``): a run that cannot be read or evaluated is named
    on stderr with its error (``log.error``) and left out; the others are evaluated and written as
    usual (the output once, complete), then :class:`~pref_eval.errors.EvaluationError` says how many
    runs were left out (exit status 2). Without it the first bad run stops the evaluation; in preference mode
    too (a pair's values depend on its two runs only), but refused with ``label_policy="pool"`` and a
    ``label_fraction`` below 1 (the labels kept depend on every run) and with a zELO score file. ``topics*`` only:
    ``median`` ``"mean"`` (default; the mean of the two middle values of an even count, numpy's) or ``"upper"``
    (the larger, NIST's; ``statistics.median_high``); ``run_types`` (``RUNTAG TYPE`` lines, :mod:`pref_eval.io.groups`):
    a row per run type, over its runs; ``quartiles``: columns q1, q3 (``numpy.quantile``); ``clef_stats``: those and
    mean, std (n - 1), iqr, range (CLEF's). ``digits`` (default 4): the decimals of ``text|markdown|latex|topics-text|
    topics-markdown|topics-latex`` (refused with the others, which keep full precision).
    """
    from ._inputs import (_check_choice, _check_flags, _check_float, _check_int, _check_jobs, _check_paths,
                          _check_strings, _measure_list, _path_list, _refuse_stdin_twice, _string_list)

    _check_flags(per_query=per_query, summary=summary, complete=complete, means=means, trec9=trec9, head=head,
                 keep_going=keep_going, quartiles=quartiles, clef_stats=clef_stats)
    _check_choice("output_format", output_format, FORMATS, optional=True)  # (was taken: wrote -o pref's lines)
    fmt = output_format
    _check_choice("label_policy", label_policy, ("random", "pool"))
    _check_strings(measure_set=measure_set, judgments_format=judgments_format, reference=reference)
    measures = _measure_list(measures)  # (one string was read as its letters)
    run_names = _string_list("run_names", run_names)
    _check_float("binary", binary, optional=True)
    _check_float("floor", floor, optional=True)
    _check_int("level", level)
    _check_int("depth", depth, 1, optional=True)
    _check_int("topk", topk, 1, optional=True)
    _check_float("query_fraction", query_fraction, 0, 1, lo_open=True)
    _check_float("label_fraction", label_fraction, 0, 1, lo_open=True)
    _check_int("samples", samples, 1)
    _check_int("seed", seed, 0, SEED_MAX)
    _check_jobs(jobs, scheduler)
    _check_table_options(fmt, median, digits, run_types, quartiles, clef_stats)
    from ..io.run_ids import run_ids
    from ..log import Log
    from ..io.zelo_scores import looks_like_zelo_scores

    hint = "for data: pref_eval.evaluate(qrels, runs, measures)"
    _check_paths(hint, qrels=qrels, judgments=judgments, best=best, run_types=run_types)
    runs = _path_list(runs, "runs", hint)
    _refuse_stdin_twice(qrels=qrels, runs=runs, judgments=judgments, best=best, run_types=run_types)
    log = log or Log("zelo_eval", quiet=True)
    ids = run_ids(list(runs), mode=run_id_mode, names=list(run_names))
    ms, cutoff = _depth_of_measure_set(measure_set, depth, topk)
    own = _input_options(inputs, output=output, qrels=qrels, runs=list(runs), judgments=judgments, best=best,
                         run_types=run_types)
    from ..output.atomic import inputs_besides, preflight

    preflight(output, inputs_besides(output, own))  # a missing directory etc. before any run is read or evaluated
    extra = {"judgments": judgments, "judgments_format": judgments_format, "best": best}
    parallel = jobs > 1 or scheduler is not None
    opts = dict(per_query=per_query, summary=summary, output=output, inputs=own, log=log)
    if looks_like_zelo_scores(qrels):
        if fmt in _TOPICS:  # (the runs x measures tables raised a KeyError: session 23; written since session 28)
            raise UsageError(f"{option_value('output_format', '-o', fmt)} applies to metric mode (trec_eval measures), "
                             "not to a zELO score file "
                             f"({qrels})")
        if keep_going:
            raise UsageError(f"{option_name('keep_going')} applies to metric mode (trec_eval measures), not to a "
                             f"zELO score file ({qrels})")
        _refuse_with_scores(qrels, ms, extra=extra, parallel=parallel, binary=binary, floor=floor,
                            reference=reference, means=means, complete=complete, level=level,
                            sampled=(query_fraction, label_fraction, samples), trec9=trec9, head=head)
        _scores_mode(qrels, list(runs), ids, measures, cutoff=cutoff, fmt=fmt or "trec", complete=complete,
                     digits=4 if digits is None else digits, **opts)
        return
    from ._score_rows import _refuse_unread_score_file

    _refuse_unread_score_file(qrels, list(measures))  # zbench's measures with an empty file, a stream, ...
    if fmt is None:
        fmt = "pref" if len(runs) >= 2 and not _trec_eval_names_only(measures) else "trec"
    prefs = fmt == "pref" or (fmt != "trec" and _wants_preferences(measures, ms))
    o = "output_format", "-o"
    if trec9 and prefs:
        raise UsageError(f"{option_name('trec9', '--trec-eval-9')} applies to trec_eval measures (metric mode: "
                         f"{option_value(*o, 'trec')}, or {option_value(*o, 'tsv')} with trec_eval names), not to "
                         "preference mode")
    if prefs:
        _refuse_metric_tables(fmt)
    if prefs and keep_going and label_fraction < 1 and label_policy == "pool":
        raise UsageError(f"{option_name('keep_going')} is refused with "
                         f"{option_value('label_policy', '--label_fraction_policy', 'pool')}: the labels kept "
                         "depend on every run's documents, so leaving a run out would change the other runs' numbers")
    if prefs:
        _refuse_extra(extra, f"with {option_value(*o, 'pref')} (preference mode)" if fmt == "pref"
                      else "in preference mode")
        if option_given("-l", level != 1):  # (was ignored: pref_eval.py's relevance, grade > 0, with -l 2 asked)
            raise UsageError(f"{option_name('level', '-l')} applies to metric mode (trec_eval measures); in "
                             f"preference mode {'-b G' if command_running() else 'binary=G'} makes grade >= G relevant")
        if complete:  # (was ignored)
            raise UsageError(f"{option_name('complete', '-c')} applies to metric mode (trec_eval measures); "
                             "preference mode always evaluates "
                             "every qrels query with a relevant document (a run lacking one retrieved nothing)")
        if fmt != "pref" and "rbp" in measures:  # (pref_eval.stats imports 8 modules: not on every start)
            from ..pref_values import warn_pref_rbp
            warn_pref_rbp(measures, fmt, log)
        sampling = _Sampling(query_fraction, label_fraction, label_policy, samples, seed)
        _preference_mode(qrels, list(runs), ids, measures, ms, binary=binary, floor=floor, topk=cutoff, fmt=fmt,
                         reference=reference, means=means, sampling=sampling, head=head, jobs=jobs,
                         scheduler=scheduler, keep_going=keep_going, **opts)
        return
    for key, flag, val in (("binary", "-b", binary), ("floor", "-f", floor), ("reference", "--reference", reference),
                           ("head", "--pref-eval-head", head or None), ("means", "--means", means or None),
                           *((k, f"--{k}", True if option_given(f"--{k}", v) else None) for k, v in
                             (("query_fraction", query_fraction < 1), ("label_fraction", label_fraction < 1),
                              ("samples", samples > 1)))):
        if val is not None:  # (the sampling options and --means were ignored here: a full-data mean, unasked)
            rpp = "-m rpp ..." if command_running() else "measures=['rpp', ...]"
            raise UsageError(f"{option_name(key, flag)} applies to preference measures (use "
                             f"{option_value(*o, 'pref')}, or {rpp} with {option_value(*o, 'tsv')})")
    _metric_mode(qrels, list(runs), ids, measures, ms, complete=complete, level=level, depth=cutoff, fmt=fmt,
                 extra=extra, trec9=trec9, jobs=jobs, scheduler=scheduler, keep_going=keep_going,
                 median=median or "mean", digits=4 if digits is None else digits, run_types=run_types,
                 quartiles=quartiles, clef_stats=clef_stats, **opts)


def _trec_eval_names_only(measures: Sequence[str]) -> bool:
    """True when ``-m`` names only trec_eval / ir-measures measures that pref_eval.py does not know
    (``map``, ``nDCG@10``): several runs then default to one trec_eval block per run, since
    pref_eval.py's output would show only the differences between runs."""
    from ..run_preferences.names import parse_pref_measure

    if not measures or _wants_preferences(measures, None):
        return False
    return all(m.kind == "registry" for name in measures for m in parse_pref_measure(name))


def _wants_preferences(measures: Sequence[str], ms: str | None) -> bool:
    """Table output: preference mode iff a name is not a registry measure, or -M preferences/all."""
    from ..pref_values import needs_preference_mode

    if not measures:
        return ms in ("preferences", "all", "none")
    return needs_preference_mode(measures)


def _scores_mode(scores: str, runs: list[str], ids: list[str], measures: Sequence[str], *, per_query: bool,
                 summary: bool, cutoff: int | None, fmt: str, output: str, inputs: InputOptions, log: Any,
                 complete: bool = False, digits: int = 4) -> None:
    """Runs against a zELO score file (zelo_fit's TSV, zbench's JSONL): zbench's measures, fixed; the rows of
    :func:`pref_eval.zelo.eval_scores.candidate_rows` (the runs named by their ids) as trec_eval-like blocks or
    a long table."""
    from ..io.textfile import display_name
    from ..output.atomic import command_output
    from ..io.zelo_scores import read_scored_candidates
    from ..zelo.eval_scores import candidate_rows, dropped_warning, measure_names, parse_zelo_measure, read_zelo_scores

    if fmt == "pref":
        raise UsageError(f"{option_value('output_format', '-o', 'pref')} needs qrels; with a zELO score file use "
                         f"{option_name('output_format', '-o')} trec|tsv|csv|jsonl|text|markdown|latex|wide-csv")
    if fmt in _WIDE:
        _refuse_per_query_table(fmt, per_query, summary)
    names = measure_names(list(measures) or ["official"])
    for m in names:
        parse_zelo_measure(m, where=scores)
    table = read_zelo_scores(scores)
    dropped: dict = {}
    # the runs named by their ids, as the output names them (docs/run-ids.md: warnings too)
    got = candidate_rows(table, ((i, read_scored_candidates(p)) for p, i in zip(runs, ids, strict=True)), names,
                         limit=cutoff, dropped=dropped)
    for run, counts in dropped.items():  # (was silent before session 28)
        line = dropped_warning(run, counts, display_name(scores))
        if line:
            log.warn(line)
    # per run: its per-query rows, then one "all" row per measure
    rows, k, n_all, seen, wide = [], 0, 0, set(), []
    for _, q, m, v in got:
        if q == "all":
            n_all += 1
        else:
            seen.add(q)
            if v == v:  # (a value that is not defined -- zacc of a one-document query -- is no value to average)
                wide.append((ids[k], q, m, float(v)))
        if (q == "all" and summary) or (q != "all" and per_query):
            rows.append((ids[k], q, m, float(v)))
        if n_all == len(names):
            if not seen:
                log.warn(f"{ids[k]}: no query in common with {display_name(scores)}; its means are nan")
            elif len(seen) < len(table):  # (was silent: a run answering the easy queries only could rank first)
                log.warn(f"{ids[k]}: run lacks {len(table) - len(seen)} of {len(table)} queries of "
                         f"{display_name(scores)}; its means are over the {len(seen)} it has (zbench's rule)")
            k, n_all, seen = k + 1, 0, set()
    if fmt in _WIDE:  # runs x measures over the queries every run has (a leaderboard), as in metric mode
        _wide_from_rows(wide, fmt, output=output, inputs=inputs, complete=False, log=log, digits=digits, scores=True)
        return
    with command_output(output, inputs) as out:
        if fmt == "trec":
            from ..output.trec import write_score_blocks

            write_score_blocks(out, ids, rows, summary=summary)
        else:
            from ..output.table import WRITERS

            WRITERS[fmt](out, rows)


class _Sampling(NamedTuple):
    """pref_eval.py's sampling options: ``--query_fraction``, ``--label_fraction``,
    ``--label_fraction_policy``, ``--samples``, ``--seed``."""

    query_fraction: float
    label_fraction: float
    label_policy: str
    samples: int
    seed: int


def _preference_mode(qrels: str, runs: list[str], ids: list[str], measures: Sequence[str], ms: str | None, *,
                     binary: float | None, floor: float | None, per_query: bool, summary: bool, topk: int | None,
                     fmt: str, output: str, inputs: InputOptions, reference: str | None, means: bool,
                     sampling: _Sampling, log: Any, head: bool, jobs: int = 1, scheduler: str | None = None,
                     keep_going: bool = False) -> None:
    """pref_eval.py's evaluation: JSON lines (``fmt == "pref"``) or long tables, sample after sample (the runs
    read, and ranked, in ``jobs`` processes or on dask when asked: the same output). ``keep_going``: the runs
    that cannot be read or ranked are left out first (:func:`_usable_runs`); a pair's values depend on its two
    runs and the qrels only, so the other pairs' numbers are those of the good runs alone."""
    import numpy as np

    from ..io.qrels import read_subtopic_qrels
    from ..output.atomic import command_output
    from ..output.preferences import pref_json_lines, pref_rows, write_table
    from ..run_preferences.data import prepare_qrels
    from ..run_preferences.evaluate import reference_index
    from ..run_preferences.names import resolve

    if fmt == "pref" and len(runs) < 2:
        raise UsageError(f"need at least two runs for comparison (or {option_name('output_format', '-o')} "
                         "trec|tsv|csv|jsonl for one run)")
    if measures and ms:
        log.warn(f"{option_value('measure_set', '-M', ms)} ignored because {option_name('measures', '-m')} is given "
                 "(as pref_eval.py)")
    sel = resolve(list(measures), None if measures else ms)
    if means and fmt != "pref":  # (both were accepted and changed no byte: session 22)
        o = "output_format", "-o"
        raise UsageError(f"{option_name('means', '--means')} applies to {option_value(*o, 'pref')} (the per-run mean "
                         f"lines); {option_value(*o, fmt)} holds each run's metric values already (the 'all' rows)")
    if means and not any(m.is_metric for m in sel):
        raise UsageError(f"{option_name('means')} adds a per-run mean line for every metric (ap, ndcg, p@10, ...): "
                         "none is requested")
    names = list(ids)
    ref = reference_index(reference, names, list(runs))
    q = read_subtopic_qrels(qrels)
    if per_query:
        _warn_topic_all(q.qid, qrels, log)
    base = prepare_qrels(q, binary, floor)
    skipped = ranked = None
    if keep_going:
        given = list(runs)
        rs, ranked, runs, names, skipped = _usable_runs(runs, names, base, topk, log,
                                                        least=2 if fmt == "pref" else 1)
        ref = _kept_reference(reference, ref, names, given, ids)
    else:
        rs = _preference_runs(runs, names, sel, sampling, jobs=jobs, scheduler=scheduler, log=log)
    if len(base.qorder) == 0:
        log.warn(f"{qrels}: no query has a relevant document (grade > 0 after "
                 f"{option_name('binary/floor', '-b/-f')}); nothing to evaluate")
    # numpy.random is imported only when a sample is drawn (start-up, issue #13)
    drawn = sampling.query_fraction < 1.0 or sampling.label_fraction < 1.0
    rng = np.random.default_rng(sampling.seed) if drawn else None
    samples = sampling.samples
    if samples == 1 and len(runs) >= MANY_RUNS:
        npairs = len(runs) - 1 if ref is not None else len(runs) * (len(runs) - 1) // 2
        log.stage(f"evaluating {len(sel)} measures on {npairs} pairs of runs")
    from ..collection import no_common_warning

    warned: set[int] = set()
    with command_output(output, inputs) as out:
        for s in range(samples):
            res = _preference_sample(q, base, rs, names, sel, s, rng=rng, sampling=sampling, binary=binary,
                                     floor=floor, topk=topk, ref=ref, head=head, parallel=(jobs, scheduler),
                                     ranked=ranked)
            for k in sorted(set(res.no_common) - warned):
                warned.add(k)
                log.warn(no_common_warning(names[k], qrels, res.qids, s if drawn else None))
            if fmt == "pref":
                out.writelines(pref_json_lines(res, per_query=per_query, summary=summary, means=means))
            else:
                # (before session 21 the N samples' rows followed each other with nothing to tell them apart)
                write_table(out, pref_rows(res, per_query=per_query, summary=summary), fmt, header=s == 0,
                            sample=s if samples > 1 else None)
            if samples > 1:
                log.progress("samples", s + 1, samples)
    if skipped:
        raise skipped


def _usable_runs(runs: list[str], names: list[str], base: Any, topk: int | None, log: Any,
                 least: int) -> tuple[list, list, list[str], list[str], Any]:
    """``--keep-going`` in preference mode: each run read and ranked against every qrels query (a duplicate
    document in any of them found before any sample is drawn); one that cannot be is named by ``log.error`` and
    left out. Returns the runs, the runs ranked (what the evaluation of the whole qrels ranks again without
    them: before session 23 every run was ranked twice), their paths and ids, and the error to raise once the
    output is written (as :func:`pref_eval.api._metric_mode._set_aside`, whose messages it shares)."""
    from ..collection import build_collection, index_qrels
    from ..errors import PrefEvalError
    from ..io.runs import read_run
    from ._metric_mode import _set_aside

    qi = index_qrels(base.qrels)  # once (build_collection of the qrels would index them again for each run)
    got: list[tuple[Any, ...]] = []
    for path, name in zip(runs, names, strict=True):
        try:
            run = read_run(path, name=name)
            got.append((run, build_collection(qi, [run], complete=True, depth=topk).runs[0]))
        except PrefEvalError as bad:
            got.append((bad,))
    got, runs, names, left_out = _set_aside(got, runs, names, log, least=least)
    return [x[0] for x in got], [x[1] for x in got], runs, names, left_out


def _kept_reference(reference: str | None, ref: int | None, names: list[str], given: list[str],
                    ids: list[str]) -> int | None:
    """``--reference`` among the runs left by ``--keep-going``: its new index, or an error naming its file."""
    if ref is None:
        return None
    if ids[ref] in names:
        return names.index(ids[ref])
    from ..errors import EvaluationError
    from ..io.textfile import display_name

    raise EvaluationError(f"{option_name('reference')} {shown(reference)} could not be evaluated "
                          f"({option_name('keep_going')}: {display_name(given[ref])} left out, its error above); "
                          "nothing written")


def _preference_runs(runs: list[str], names: list[str], sel: list, sampling: _Sampling, *, jobs: int,
                     scheduler: str | None, log: Any) -> list:
    """The runs of preference mode: read here; or, with ``jobs``/``scheduler`` (not from stdin), left as
    paths for the workers of :func:`pref_eval.run_preferences.evaluate.evaluate_preferences` to read and
    rank (one plain sample, preference measures only), or read in groups by worker processes."""
    parallel = (jobs > 1 or scheduler) and "-" not in runs
    if not parallel:
        return _read_runs(runs, names, log)
    if sampling.samples == 1 and sampling.label_fraction == 1.0 and all(m.kind != "registry" for m in sel):
        return list(runs)  # paths: read and ranked by the worker processes (evaluate_preferences)
    from ..parallel import ordered_map, split_even
    from ..run_preferences.evaluate import read_run_group

    groups = [(k, k + 1) for k in range(len(runs))] if scheduler else split_even([1] * len(runs), jobs)
    pieces = [(list(runs[a:b]), names[a:b]) for a, b in groups]
    return [r for part in ordered_map(read_run_group, pieces, jobs=jobs, scheduler=scheduler) for r in part]


def _preference_sample(q: Any, base: Any, rs: list, names: list[str], sel: list, s: int, *, rng: Any,
                       sampling: _Sampling, binary: float | None, floor: float | None, topk: int | None,
                       ref: int | None, head: bool, parallel: tuple[int, str | None] = (1, None),
                       ranked: list | None = None) -> Any:
    """Sample ``s``: its queries and labels drawn with ``rng`` when the fractions are < 1, then evaluated
    (with ``head``: the graded RPP family as diazf/pref_eval HEAD computes it). ``ranked``: ``rs`` ranked
    against ``base`` (``--keep-going``), used when the sample is the whole qrels."""
    from ..run_preferences.data import head_binary, head_sum
    from ..run_preferences.evaluate import evaluate_preferences
    from ..run_preferences.sampling import sample_labels, sample_queries

    qs, pq = q, base
    if sampling.query_fraction < 1.0:
        qs, pq = sample_queries(qs, pq, sampling.query_fraction, rng, binary, floor)
    if sampling.label_fraction < 1.0:
        qs, pq = sample_labels(qs, pq, sampling.label_fraction, sampling.label_policy, rng, rs, binary, floor)
    res = evaluate_preferences(pq, rs, names, sel, topk=topk, reference=ref, sample=s, jobs=parallel[0],
                               scheduler=parallel[1], ranked=ranked if pq is base else None)
    graded = [m for m in sel if m.kind == "pref" and m.base in ("rpp", "invrpp", "dcgrpp")]
    if head and graded:  # HEAD's numbers for the graded RPP family only (see head_binary)
        hb = evaluate_preferences(head_binary(pq), rs, names, graded, topk=topk, reference=ref, sample=s)
        res.prefs.update({m.key: head_sum(hb.prefs[m.key], pq) for m in graded})
    return res


def _read_runs(paths: Sequence[str], names: Sequence[str], log: Any) -> list:
    """Read the run files in order, with a progress line on a terminal (``reading runs: k/N``)."""
    import sys

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


def preferences(qrels: str | os.PathLike, runs: Sequence[str | os.PathLike],
                measures: Sequence[str] | None = None, *, binary: float | None = None,
                floor: float | None = None, per_query: bool = True, summary: bool = True) -> Any:
    """Preference evaluation of every pair of runs (``zelo_eval`` in preference mode, ``-o tsv``).

    Returns the DataFrame ``runi, runj, qid, measure, value`` with the rows of
    ``zelo_eval -R QRELS -o tsv [-q] [-m M ...] RUN ...``: metric rows (``runj``
    empty) per run, then preference rows per pair of runs i < j in the given
    order; ``qid == "all"`` rows are the means over queries. Measures are
    pref_eval.py's (RPP: Diaz & Ferraro, SIGIR 2022; lexicographic recall and
    precision: Diaz, Ekstrand & Mitra, TORS 2025; Diaz, EVIA 2023; formulas in
    ``docs/measures.md``); default: all of them. ``binary`` (``-b``) and
    ``floor`` (``-f``) as on the command line. A value > 0: run i is better.
    """
    from ._inputs import _check_flags, _check_float, _check_paths, _path_list

    _check_flags(per_query=per_query, summary=summary)
    _check_float("binary", binary, optional=True)
    _check_float("floor", floor, optional=True)
    hint = "paths of files: write data as TREC qrels and run files"  # data was a TypeError from os.fspath
    _check_paths(hint, qrels=qrels)
    runs = _path_list(runs, "runs", hint)

    from ..io.qrels import read_subtopic_qrels
    from ..io.runs import read_run
    from ..output.preferences import pref_rows
    from ..run_preferences.data import prepare_qrels
    from ..io.run_ids import run_ids
    from ..run_preferences.evaluate import evaluate_preferences
    from ..run_preferences.names import resolve

    paths = [os.fspath(r) for r in runs]
    names = run_ids(paths)
    sel = resolve(list(measures or ()), None if measures else "none")
    q = read_subtopic_qrels(os.fspath(qrels))
    rs = [read_run(p, name=n) for p, n in zip(paths, names, strict=True)]
    res = evaluate_preferences(prepare_qrels(q, binary, floor), rs, names, sel)
    if res.no_common:
        import warnings

        from ..collection import no_common_warning
        from ..errors import PrefEvalWarning

        for k in res.no_common:
            warnings.warn(no_common_warning(names[k], os.fspath(qrels), res.qids, None), PrefEvalWarning,
                          stacklevel=2)
    rows = list(pref_rows(res, per_query=per_query, summary=summary))
    from ..io.frames import frame

    return frame(rows, ["runi", "runj", "qid", "measure", "value"])

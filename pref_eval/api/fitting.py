"""``zelo_fit``: :func:`fit` (Bradley-Terry fit of pairwise judgments) and its block writers."""
from __future__ import annotations

import io
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import (shown, InputError, UsageError, command_running, option_given, option_name, option_value,
                      renamed_keywords)
from ._inputs import _input_options, _path_list, _preflight

if TYPE_CHECKING:
    from ..output.atomic import InputOptions


def _zbench(keyword: str = "compat") -> str:
    """``compat='zbench'`` / ``output_format='zbench'`` for a Python caller, ``--compat zbench`` /
    ``--output-format zbench`` on zelo_fit's command line."""
    return option_value(keyword, "--" + keyword.replace("_", "-"), "zbench")


@renamed_keywords(judgment_format="judgments_format")
def fit(judgments: str | os.PathLike | Sequence[str | os.PathLike], *, judgments_format: str | None = None,
        ties: str | None = None, prior: float = 0.5, weight_power: float = 1.0, agreement_weights: bool = False,
        tol: float = 1e-9, max_iter: int = 100, scale: str = "logit", elo_offset: float = 1500.0,
        dataset: str | None = None, compat: str | None = None, jobs: int = 1, scheduler: str | None = None,
        output: str | None = None, output_format: str = "tsv", qrels_output: str | None = None,
        grades: str | Sequence[float] = "0,1,2,3", bins: str = "quantile", diagnostics: str | None = None,
        log: Any = None,
        inputs: InputOptions | None = None, as_frame: bool = True, keep_results: bool = True) -> Any:
    """zELO scores from pairwise judgments (``zelo_fit``): a DataFrame ``qid, docno, score, se``.

    Bradley–Terry (Bradley & Terry 1952): P(b beats a) = σ(x_b − x_a); the
    scores maximise Σ_k w_k [s_k log σ(x_b − x_a) + (1 − s_k) log σ(x_a − x_b)]
    with a ``prior`` (pseudo-judgments against a virtual average document,
    0 = pure maximum likelihood per strongly connected component), per query,
    by Newton's method until the gradient is within ``tol`` (times max(1, Fisher information)) and the
    Newton step below 1e-13 of the scale (:mod:`pref_eval.zelo.fit`, "Stopping").
    ``judgments``: one path or several (every format ``zelo_fit`` reads,
    autodetected unless ``judgments_format``); ``ties``: the vote rule (default
    ``half``, ``zbench`` with ``compat="zbench"``); ``agreement_weights``:
    weight each judgment by |2s − 1| (``--weights agreement``); ``scale``:
    ``logit`` (natural log, centred per query) or ``elo`` (400/ln 10 · x +
    ``elo_offset``). ``dataset``: zbench's QueryDocuments JSONL (its queries and
    documents first, unjudged ones too); ``compat="zbench"``: zbench's own
    iteration (SE nan); ``jobs``/``scheduler``: fit blocks of queries in
    processes or on dask (same values). Documents in order of first
    appearance per query, queries in order of first appearance.

    Writing (all outputs committed together, or none): ``output`` the scores
    (``-`` = stdout; ``output_format`` ``tsv`` or ``zbench``), ``qrels_output``
    graded qrels (``grades``, ``bins`` as ``--grades``/``--bins``),
    ``diagnostics`` the per-query TSV; ``inputs`` the files they must not
    overwrite (default the judgment and dataset paths); ``log`` a
    :class:`~pref_eval.log.Log` for progress and warnings. The values and bytes
    are the ones ``zelo_fit`` prints. ``as_frame=False`` returns the columns as
    a dict of arrays instead of the DataFrame (pandas is not imported).
    ``keep_results=False`` returns None (``zelo_fit``): the scores are then not held whole when they go to a
    file (``output`` a path, ``tsv``, no ``qrels_output``, the default fit): each block of queries is written
    to the (temporary) file as it is fitted and dropped, the file committed with the others at the end.
    """
    from ._inputs import _check_flags, _check_jobs

    _check_flags(agreement_weights=agreement_weights, as_frame=as_frame, keep_results=keep_results)
    grades = _grades_text(grades)
    _check_fit_texts(compat=compat, output_format=output_format, judgments_format=judgments_format, ties=ties,
                     grades=grades, bins=bins, dataset=dataset, qrels_output=qrels_output, diagnostics=diagnostics)
    from ..output.atomic import refuse_empty_names

    refuse_empty_names(output=("-o", output), qrels_output=("--qrels", qrels_output),
                       diagnostics=("--diagnostics", diagnostics))  # (an empty -o: IndexError; the others ignored)
    _check_fit_options(prior=prior, weight_power=weight_power, tol=tol, max_iter=max_iter, scale=scale,
                      elo_offset=elo_offset)
    _check_jobs(jobs, scheduler)
    import numpy as np

    from ..log import Log
    from ..output.qrels import parse_bins, parse_grades

    log = log or Log("zelo_fit", quiet=True)
    if compat == "zbench" and (jobs > 1 or scheduler):
        raise UsageError(f"{_zbench()} runs zbench's iteration serially; drop {option_name('jobs')}/"
                         + option_name("scheduler"))
    if compat == "zbench":  # zbench's iteration has none of these: a value other than the default would be unused
        unused = [flag if command_running() else key for key, flag, on in (
            ("prior", "--prior", prior != 0.5), ("agreement_weights=True", "--weights agreement", agreement_weights),
            ("weight_power", "--weight-power", weight_power != 1.0), ("tol", "--tol", tol != 1e-9),
            ("max_iter", "--max-iter", max_iter != 100)) if option_given(flag, on)]
        if unused:
            raise UsageError(f"{', '.join(unused)} applies only with the default fit (not with {_zbench()})")
    if agreement_weights and weight_power == 0:  # (was accepted: w**0 = 1, a tied ensemble weighed 1 as well)
        weights = "--weights agreement" if command_running() else "agreement_weights=True"
        raise UsageError(f"{weights} has no effect with {option_value('weight_power', '--weight-power', 0)} (every "
                         f"judgment weighs 1, a tied ensemble too); give a power above 0, or drop {weights}")
    ties = ties or ("zbench" if compat == "zbench" else "half")
    grade_list = parse_grades(str(grades)) if qrels_output else None
    bin_method = parse_bins(bins, len(grade_list)) if grade_list else None
    # --prior 0: scores are centred inside each strongly connected component, so one number per document
    # (a score threshold, zbench's score field) would compare documents the fit cannot compare
    if prior == 0 and bin_method is not None and bin_method[0] == "fixed":
        fixed = "--bins fixed" if command_running() else f"bins={shown(bins)}"
        raise UsageError(f"{fixed}: needs scores comparable across a query; with "
                         f"{option_value('prior', '--prior', 0)} they are centred per strongly connected component "
                         f"(use {option_value('bins', '--bins', 'quantile')}, which ranks by level then score, or a "
                         "prior > 0)")
    if prior == 0 and output_format == "zbench":
        raise UsageError(f"{_zbench('output_format')} has one score per document; with "
                         f"{option_value('prior', '--prior', 0)} the scores are "
                         "centred per strongly connected component and not comparable across them (use the tsv "
                         "format, with its component and level columns, or a prior > 0)")
    paths = _path_list(judgments, "judgments")
    _preflight(_input_options(inputs, output=output, qrels_output=qrels_output, diagnostics=diagnostics,
                              judgments=paths, dataset=dataset), output, qrels_output, diagnostics)
    table, n_dataset, records = _read_fit_inputs([os.fspath(p) for p in paths], fmt=judgments_format, ties=ties,
                                                 dataset=dataset, compat=compat,
                                                 want_records=output_format == "zbench", log=log)
    from ..zelo.fit import count_per_query

    q, a, b, s, w = _fit_arrays(table, n_dataset, dataset=dataset, compat=compat, agreement_weights=agreement_weights)
    sizes = np.array([len(table.docs[qid]) for qid in table.queries], dtype=np.int64)
    judged = (q, a, b, s, w)
    del a, b, s, w
    if not keep_results and compat != "zbench" and output_format == "tsv" and not qrels_output and \
            output is not None and output != "-":
        own = _input_options(inputs, output=output, qrels_output=None, diagnostics=diagnostics, judgments=paths,
                             dataset=dataset)
        _fit_and_write_blocks(table, sizes, judged, prior=prior, weight_power=weight_power, tol=tol,
                              max_iter=max_iter, jobs=jobs, scheduler=scheduler, scale=scale, elo_offset=elo_offset,
                              output=output, diagnostics=diagnostics, inputs=own, log=log)
        return None
    res = _fit_scores(table.queries, table.docs, sizes, judged, compat=compat, prior=prior,
                      weight_power=weight_power, tol=tol, max_iter=max_iter, jobs=jobs, scheduler=scheduler, log=log)
    n_judgments = count_per_query(q, len(sizes))  # for --diagnostics; then the judgments are dropped
    del judged, q
    table.drop_columns()
    from ..zelo.fit import to_scale

    score, se = to_scale(res.score, res.se, scale, elo_offset)
    if qrels_output:  # TREC qrels are split on whitespace: an id with a space (Xie's query texts) cannot be written
        spaced = next((x for x in [*table.queries, *(d for qid in table.queries for d in table.docs[qid])]
                       if any(c.isspace() for c in x)), None)
        if spaced is not None:
            raise UsageError(f"{option_name('qrels_output', '--qrels')}: the id {shown(spaced)} holds a "
                             f"space, which TREC "
                             f"qrels cannot hold (the score TSV and {_zbench('output_format')} can)")
    if output is not None or qrels_output or diagnostics:
        own = _input_options(inputs, output=output, qrels_output=qrels_output, diagnostics=diagnostics,
                             judgments=paths, dataset=dataset)
        _write_fit(table, sizes, score, se, res, n_judgments=n_judgments, components=prior == 0, scale=scale,
                   records=records, output=output, output_format=output_format, qrels_output=qrels_output,
                   grades=(grade_list, bin_method), diagnostics=diagnostics, inputs=own)
    cols = {"qid": np.repeat(np.array(table.queries, dtype=object), sizes),
            "docno": [d for qid in table.queries for d in table.docs[qid]], "score": score, "se": se}
    if not keep_results:
        return None
    if not as_frame:
        return cols
    from ..io.frames import frame

    return frame(cols)


def _check_fit_options(*, prior: Any, weight_power: Any, tol: Any, max_iter: Any, scale: Any, elo_offset: Any) -> None:
    """The fit's options, as :func:`fit` and :func:`pref_eval.dask.fit_judgments` take them: UsageError naming
    the first bad one (the ranges of ``zelo_fit``'s options)."""
    from ._inputs import _check_float, _check_int

    _check_float("prior", prior, 0)
    _check_float("weight_power", weight_power, 0)
    _check_float("tol", tol, 0, lo_open=True)
    _check_int("max_iter", max_iter, 1)
    _check_float("elo_offset", elo_offset)
    if scale not in ("logit", "elo"):
        raise UsageError(f"scale: expected 'logit' or 'elo', got {shown(scale)}")


def _fit_and_write_blocks(table: Any, sizes: Any, judged: tuple, *, prior: float, weight_power: float, tol: float,
                          max_iter: int, jobs: int, scheduler: str | None, scale: str, elo_offset: float, output: str,
                          diagnostics: str | None, inputs: InputOptions, log: Any) -> None:
    """``zelo_fit -o FILE`` (TSV, no ``--qrels``): the fit of :func:`_fit_scores` a block of queries at a time
    (:func:`pref_eval.zelo.fit.fit_bt_blocks`), each block's rows written to the output's temporary file as it
    is fitted and dropped -- the same bytes as fitting all and then writing, without the results of every
    document held at once; the per-query results (``--diagnostics``, the warning) are gathered. The outputs
    are committed together at the end (:func:`~pref_eval.output.atomic.command_outputs`: all or nothing)."""
    import numpy as np

    from ..io.zelo_scores import HEADER
    from ..output.atomic import command_outputs
    from ..output.zelo_scores import write_diagnostics, write_scores_columns
    from ..zelo.fit import FitResult, count_per_query, fit_bt_blocks, fit_threads, to_scale

    q, a, b, s, w = judged
    queries = table.queries
    docs = [table.docs[qid] for qid in queries]
    names = [n for n in FitResult.__dataclass_fields__ if n not in ("score", "se", "component", "level", "offsets")]
    per_query: dict = {n: [] for n in names}
    extra_names = (("component", "level") if prior == 0 else ()) + (("scale",) if scale == "elo" else ())
    with command_outputs([p for p in (output, diagnostics) if p], inputs) as streams:
        out = streams[0]
        out.write("\t".join(HEADER + extra_names) + "\n")
        log.stage(f"fitting {len(sizes)} queries, {len(q)} judgments")
        k = 0
        for r in fit_bt_blocks(sizes, q, a, b, s, w, prior=prior, weight_power=weight_power, tol=tol,
                               max_iter=max_iter, jobs=jobs, scheduler=scheduler, doc_ids=docs,
                               threads=fit_threads()):
            nq = len(r.n_docs)
            score, se = to_scale(r.score, r.se, scale, elo_offset)
            extra = {"component": r.component, "level": r.level} if prior == 0 else {}
            if scale == "elo":
                extra["scale"] = np.full(len(score), "elo", dtype=object)
            write_scores_columns(out, queries[k:k + nq], docs[k:k + nq], score, se, extra, header=False)
            for n in names:
                per_query[n].append(getattr(r, n))
            k += nq
            del r, score, se, extra
        if k != len(queries):
            raise ValueError("the blocks' results do not cover every query")  # a bug, not bad input
        empty = np.zeros(0)
        res = FitResult(score=empty, se=empty, component=empty, level=empty,
                        offsets=np.concatenate([[0], np.cumsum(sizes)]),
                        **{n: np.concatenate(v) if v else np.zeros(0) for n, v in per_query.items()})
        _warn_fit(res, queries, tol, max_iter, log)
        if diagnostics:
            write_diagnostics(streams[1], queries, sizes, count_per_query(q, len(sizes)), res)
    table.drop_columns()


def _grades_text(grades: Any) -> Any:
    """``grades`` given as numbers (a list, tuple or array, ``[0, 1, 2, 3]``, as a Python user writes grades) as
    ``--grades``' text ``"0,1,2,3"`` (an integer as its digits, a float as its repr); anything else as given, checked
    as text (before session 28 a list was refused: ``grades: expected a string, got list``)."""
    import math
    import numbers

    if isinstance(grades, (str, bytes)) or not (isinstance(grades, (list, tuple)) or hasattr(grades, "tolist")):
        return grades
    items = grades.tolist() if hasattr(grades, "tolist") else list(grades)
    if not isinstance(items, list) or not all(isinstance(x, numbers.Real) and not isinstance(x, bool)
                                              and math.isfinite(x) for x in items):
        return grades  # refused below as not a string, naming grades
    return ",".join(str(int(x)) if isinstance(x, numbers.Integral) else repr(float(x)) for x in items)


def _check_fit_texts(*, compat: Any, output_format: Any, judgments_format: Any, ties: Any, grades: Any, bins: Any,
                     dataset: Any, qrels_output: Any, diagnostics: Any) -> None:
    """The text and path options of :func:`fit`: ``compat="zbnech"`` and ``output_format="json"`` fitted and
    wrote as the defaults, an int path was a TypeError, ``grades``/``bins`` without ``qrels_output`` were
    ignored (the graded qrels are written only with it, ``zelo_fit --qrels``): each a UsageError naming it."""
    from ._inputs import _check_choice, _check_paths, _check_strings

    _check_choice("compat", compat, ("zbench",), optional=True)
    _check_choice("output_format", output_format, ("tsv", "zbench"))
    _check_strings(judgments_format=judgments_format, ties=ties, grades=grades, bins=bins)
    _check_paths("paths of files", dataset=dataset, qrels_output=qrels_output, diagnostics=diagnostics)
    if not qrels_output:
        for flag, name, given in (("--grades", "grades", grades != "0,1,2,3"), ("--bins", "bins", bins != "quantile")):
            if option_given(flag, given):
                raise UsageError(f"{name} ({flag}) applies with qrels_output (--qrels FILE), the graded qrels"
                                 if command_running() else f"{name} applies with qrels_output, the graded qrels")


def _fit_arrays(table: Any, n_dataset: int, *, dataset: str | None, compat: str | None,
                agreement_weights: bool) -> tuple:
    """``(q, a, b, s, w)`` of ``zelo_fit``'s table as the fit takes them: the table's compact columns (narrow
    indices, scores coded while few; :meth:`~pref_eval.zelo.judgments.Judgments.arrays`), only the dataset's
    queries with ``--compat zbench``, the scores decoded where the whole column is computed with
    (zbench's iteration, agreement weights), w None when every weight is 1."""
    import numpy as np

    from ..io.fastparse import release_memory

    release_memory()  # what the reader freed (its parts' columns) goes back to the OS before the fit's peak
    q, a, b, s, w = table.arrays(compact=True)  # a large file: 9 bytes a judgment
    if compat == "zbench" or agreement_weights:
        s = np.asarray(s, dtype=np.float64)
    if dataset and compat == "zbench" and len(table.queries) > n_dataset:
        keep = q < n_dataset  # dataset queries come first
        q, a, b, s, w = q[keep], a[keep], b[keep], s[keep], None if w is None else w[keep]
        table.queries = table.queries[:n_dataset]
    if compat == "zbench" and w is not None and bool(np.any(w != 1.0)):
        raise UsageError(f"{_zbench()}: zbench's fit has no judgment weights, and a judgment file gives "
                         "\"weight\" values other than 1; drop them or use the default fit")
    if agreement_weights:
        w = np.abs(2.0 * s - 1.0) if w is None else w * np.abs(2.0 * s - 1.0)  # w None: every weight 1
    return q, a, b, s, w


def _read_fit_inputs(paths: list[str], *, fmt: str | None, ties: str, dataset: str | None, compat: str | None,
                     want_records: bool, log: Any) -> tuple[Any, int, dict]:
    """The judgment table of ``zelo_fit`` (the dataset's queries and documents first, then every judgment
    file in turn), how many queries the dataset gave, and the dataset's records by query id for
    ``--output-format zbench``."""
    from ..io.judgments import read_judgments, read_zbench_dataset, read_zbench_records
    from ..zelo.judgments import from_dataset

    records: dict = {}
    table = from_dataset(read_zbench_dataset(dataset) if dataset else [])
    if dataset and want_records:
        records = read_zbench_records(dataset)
    n_dataset = len(table.queries)
    for n, path in enumerate(paths, 1):
        before = len(table.queries)
        log.progress("reading judgments", n - 1, len(paths))
        try:
            read_judgments(path, fmt, ties=ties, into=table)
        except InputError as err:  # one --format for every -J: say what another file looks like (session 24)
            from ..io.judgments import one_format_for_all

            raise one_format_for_all(err, paths, fmt, None) from None
        log.progress("reading judgments", n, len(paths))
        if dataset and len(table.queries) > before:
            extra = table.queries[before:]
            what = "ignored, as zbench does" if compat == "zbench" else "they are fitted too"
            log.warn(f"{len(extra)} queries in {path} are not in the dataset (e.g. {shown(extra[0])}); {what}")
    if not table.queries:  # (an empty file read with --format: a header alone was written, exit 0)
        from ..io.textfile import display_name

        raise InputError(", ".join(map(display_name, paths)), 0, "no judgment in " + (
            "it" if len(paths) == 1 else "any of these files") + ": nothing to fit")
    return table, n_dataset, records


class _ZbenchFit(NamedTuple):
    """What ``--compat zbench`` gives in place of a :class:`~pref_eval.zelo.fit.FitResult`."""

    score: Any
    se: Any


def _fit_scores(queries: list[str], table_docs: Any, sizes: Any, judged: tuple, *, compat: str | None, prior: float,
                weight_power: float, tol: float, max_iter: int, jobs: int, scheduler: str | None, log: Any) -> Any:
    """The Bradley–Terry fit of ``judged`` = (q, a, b, s, w): a FitResult (documents ranked by id within each
    query, ``table_docs[qid]``, so that the result does not depend on the line order), or zbench's iteration
    (SE nan)."""
    import numpy as np

    q, a, b, s, w = judged
    if compat == "zbench":
        from ..zelo.zbench_compat import zbench_fit_queries

        q, a, b = (np.asarray(x, dtype=np.int64) for x in (q, a, b))
        score = zbench_fit_queries(sizes, q, a, b, s, queries, log)
        return _ZbenchFit(score, np.full(len(score), np.nan))
    from ..zelo.fit import fit_bt_parallel, fit_threads

    log.stage(f"fitting {len(sizes)} queries, {len(q)} judgments")
    # doc_ids: the canonical order (independent of line order), document ranks computed a block at a time
    res = fit_bt_parallel(sizes, q, a, b, s, w, prior=prior, weight_power=weight_power, tol=tol,
                          max_iter=max_iter, jobs=jobs, scheduler=scheduler, keep_levels=prior == 0,
                          doc_ids=[table_docs[qid] for qid in queries], threads=fit_threads())
    _warn_fit(res, queries, tol, max_iter, log)
    return res


SE_CONDITION_WARN = 1e8
"""zelo_fit warns about a query whose SE matrix has a condition estimate above this: its SEs may be wrong
beyond ~8 significant digits (rounding error ~1e-16 times the condition; docs/zelo_fit.md)."""


def _warn_fit(res: Any, queries: list[str], tol: float, max_iter: int, log: Any) -> None:
    """zelo_fit's warnings after a fit: queries that did not converge, queries whose SEs are ill-conditioned."""
    import numpy as np

    if not res.converged.all():
        bad = [queries[i] for i in np.flatnonzero(~res.converged)]
        log.warn(f"{len(bad)} queries did not converge in {max_iter} Newton steps (gradient tolerance {tol:g}, "
                 f"step 1e-13 of the scale; e.g. {shown(bad[0])})")
    ill = np.flatnonzero(res.se_condition > SE_CONDITION_WARN)
    if len(ill):
        worst = float(np.max(res.se_condition[ill]))
        log.warn(f"the SEs of {len(ill)} queries may be wrong beyond ~8 significant digits: their Fisher information "
                 f"is ill-conditioned (condition >= {worst:.1e}; pair weights of very different sizes, "
                 f"docs/zelo_fit.md; e.g. {shown(queries[ill[0]])})")


def _write_fit(table: Any, sizes: Any, score: Any, se: Any, res: Any, *, n_judgments: Any, components: bool,
               scale: str,
               records: dict,
               output: str | None, output_format: str, qrels_output: str | None, grades: tuple,
               diagnostics: str | None, inputs: InputOptions) -> None:
    """``zelo_fit``'s outputs, committed together: scores (TSV or zbench JSONL; with ``components`` the
    strongly connected components of a ``prior == 0`` fit), graded qrels, diagnostics."""
    import numpy as np

    from ..output.atomic import command_outputs
    from ..output.qrels import write_qrels
    from ..output.zelo_scores import write_diagnostics, write_scores_columns, write_zbench_jsonl

    offsets = np.concatenate([[0], np.cumsum(sizes)])
    fitted = not isinstance(res, _ZbenchFit)
    paths = [p for p in (output, qrels_output, diagnostics) if p]
    with command_outputs(paths, inputs) as streams:
        rest = iter(streams)
        out = next(rest) if output else io.StringIO()  # without ``output``: the other outputs only
        if output_format == "tsv":
            extra = {"component": res.component, "level": res.level} if fitted and components else {}
            if scale == "elo":  # the last column 'scale' tells readers (zelo_eval -R) the scale
                extra["scale"] = np.full(len(score), "elo", dtype=object)
            write_scores_columns(out, table.queries, [table.docs[qid] for qid in table.queries], score, se, extra)
        else:
            write_zbench_jsonl(out, ((qid, [(d, score[offsets[k] + i]) for i, d in enumerate(table.docs[qid])])
                                     for k, qid in enumerate(table.queries)), records)
        if qrels_output:
            grade_list, (method, th) = grades
            # after a --prior 0 fit the whole-query order is (level, score): the levels go with the scores
            lv = res.level if fitted and components else None
            write_qrels(next(rest), ((qid, table.docs[qid], score[offsets[k]:offsets[k + 1]],
                                      *([] if lv is None else [lv[offsets[k]:offsets[k + 1]]]))
                                     for k, qid in enumerate(table.queries)), grade_list, method, th)
        if diagnostics:
            write_diagnostics(next(rest), table.queries, sizes, n_judgments,
                              res if fitted else None)

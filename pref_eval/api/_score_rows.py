"""A zELO score file where :func:`pref_eval.evaluate` takes qrels (``zelo_eval -R SCORES.tsv``'s ground truth):
the rows of zbench's measures, fixed (:mod:`pref_eval.zelo.eval_scores`), for ``evaluate``, ``zelo_compare -R`` and
``zelo_plot systems|pairs -R``, which share :func:`pref_eval.api.measures._evaluate_rows`.

Before session 28 these refused the score file with the hint of a TREC qrels file given with a zELO measure
(``zndcg@10 is computed against a zELO score file: -R (the API's qrels) must be zelo_fit's scores TSV ...``)
although they had been given one: only ``zelo_eval`` / ``evaluate_runs`` read it.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ..errors import UsageError, option_name, shown


def _is_score_file(qrels: Any) -> bool:
    """True when ``qrels`` is a path to zelo_fit's score TSV or zbench's annotated JSON lines."""
    if not isinstance(qrels, (str, os.PathLike)):
        return False
    from ..io.zelo_scores import looks_like_zelo_scores

    path = os.fspath(qrels)
    return path != "-" and os.path.isfile(path) and looks_like_zelo_scores(path)


def _refuse_unread_score_file(qrels: Any, names: list[str]) -> None:
    """zbench's measures (``zndcg@10``) with ``qrels`` that is no score file because it is empty, a directory,
    missing, or a stream (``-``, a pipe: a score file is recognised by a regular file's first line): say that,
    naming the file (before, the hint of TREC qrels given with a zELO measure, which names no file)."""
    import re

    if not isinstance(qrels, (str, os.PathLike)) or not any(
            isinstance(m, str) and re.fullmatch(r"(zndcg|zacc|zrecall)(@\d+(,\d+)?)?", m) for m in names):
        return
    from ..errors import InputError
    from ..io.textfile import display_name

    path = os.fspath(qrels)
    name = display_name(path)
    want = "expected zelo_fit's scores TSV or zbench's JSON lines for zbench's measures"
    if path == "-" or (os.path.exists(path) and not os.path.isdir(path) and not os.path.isfile(path)):
        raise InputError(name, 0, f"a stream (standard input or a pipe): {want}, which are recognised by the first "
                                  "line of a regular file; give it as a file")
    if os.path.isdir(path):
        raise InputError(name, 0, f"is a directory, {want}")
    if not os.path.exists(path):
        raise InputError(name, 0, f"no such file ({want})")
    if os.path.getsize(path) == 0:
        raise InputError(name, 0, f"empty file, {want}")
    from ..io.zelo_scores import header_line

    line = header_line(path)
    if line:  # lines sorted or concatenated: the header is no longer first, and the file read as TREC qrels
        raise InputError(name, line, "zelo_fit's header 'qid<TAB>docno<TAB>score<TAB>se' is not on the first line, "
                                     f"{want}")


def _refuse_unread_inputs(qrels: Any, runs: Any, names: list[str]) -> None:
    """Before evaluate's qrels (not a score file) and runs are read: :func:`_refuse_unread_score_file`, and standard
    input named by both (:func:`~pref_eval.api._inputs._refuse_stdin_twice`)."""
    from ._inputs import _refuse_stdin_twice

    _refuse_unread_score_file(qrels, names)
    _refuse_stdin_twice(qrels=qrels, runs=runs if isinstance(runs, (list, tuple)) else [])


_FLAGS = {"complete": "-c", "level": "-l", "judged_only": "-J", "trec9": "--trec-eval-9", "judgments": "-P",
          "best": "-B", "jobs": "--jobs", "keep_going": "--keep-going"}


def _score_file_rows(scores: Any, runs: Any, names: list[str], *, summary: bool, depth: int | None,
                    refused: dict[str, bool], log: Any) -> list:
    """``(run, qid, measure, value)`` rows of ``runs`` against the score file ``scores`` (per query; the means as
    qid ``all`` with ``summary``). ``names``: the measures (``official``, evaluate's default, is zbench's default
    set); ``depth`` keeps each query's first N candidates in the run's order (zbench's ``document_limit``, as
    ``zelo_eval -M N``); ``refused``: ``{keyword: given}`` of the options that do not apply to a score file,
    refused when given. A run lacking queries of the file is averaged over those it has (zbench's rule), said on
    a command's ``log`` or as a :class:`~pref_eval.errors.PrefEvalWarning` at the caller's line."""
    from ..io.textfile import display_name
    from ..io.zelo_scores import read_zelo_scores, what_score_file
    from ..zelo.eval_scores import candidate_rows, dropped_warning, measure_names, parse_zelo_measure

    path = os.fspath(scores)
    for key, given in refused.items():
        if given:
            raise UsageError(f"{option_name(key, _FLAGS[key])} applies to trec_eval measures, not to a zELO score "
                             f"file: {what_score_file(path)}")
    names = measure_names(names)
    for m in names:
        parse_zelo_measure(m, where=path)
    table = read_zelo_scores(path)
    dropped: dict = {}
    got = candidate_rows(table, _candidates(runs), names, limit=depth, dropped=dropped)
    warn = log.warn if log is not None else _warning
    for run, counts in dropped.items():
        line = dropped_warning(run, counts, display_name(path))
        if line:
            warn(line)
    rows: list = []
    per_run: dict[str, set[str]] = {}
    for run, qid, m, v in got:
        if qid != "all":
            per_run.setdefault(run, set()).add(qid)
            rows.append((run, qid, m, float(v)))
        else:
            per_run.setdefault(run, set())
            if summary:
                rows.append((run, qid, m, float(v)))
    for run, seen in per_run.items():
        if not seen:
            warn(f"{run}: no query in common with {display_name(path)}; its means are nan")
        elif len(seen) < len(table):
            warn(f"{run}: run lacks {len(table) - len(seen)} of {len(table)} queries of {display_name(path)}; its "
                 f"means are over the {len(seen)} it has (zbench's rule)")
    return rows


def _warning(line: str) -> None:
    import warnings

    from ..errors import PrefEvalWarning
    from .measures import _caller_level

    warnings.warn(line, PrefEvalWarning, stacklevel=_caller_level())


def _candidates(runs: Any) -> list[tuple[str, dict]]:
    """Each run as ``(name, {qid: (docnos, scores)})``: a path to zbench's annotated JSON lines (a reranker's
    output) read as such, any other run as :func:`pref_eval.api._inputs._load_runs` reads it (a TREC run file, a
    DataFrame, a dict, records), named as there; each query's documents in the run's order."""
    from ..io.zelo_scores import is_zbench_annotated_line, read_scored_candidates, run_candidates
    from ..io.textfile import first_line_of_file
    from ._inputs import _load_runs

    def zbench(x: Any) -> bool:
        return isinstance(x, (str, os.PathLike)) and os.path.isfile(x) and \
            is_zbench_annotated_line(first_line_of_file(os.fspath(x)))

    given = runs
    if isinstance(runs, (str, os.PathLike)):
        from ..io.run_ids import run_ids

        runs = {run_ids([os.fspath(runs)])[0]: runs}
    items = list(runs.items()) if isinstance(runs, Mapping) and not _run_dict(runs) else None
    if items is None and isinstance(runs, list) and runs and all(isinstance(x, (str, os.PathLike)) for x in runs):
        from ..io.run_ids import shortest_unique_suffixes

        items = list(zip(shortest_unique_suffixes([os.fspath(x) for x in runs]), runs, strict=True))
    if items is None or not any(zbench(x) for _, x in items):
        return [(r.name, run_candidates(r)) for r in _load_runs(given)]
    out = []
    for name, x in items:
        out.append((str(name), read_scored_candidates(os.fspath(x)) if zbench(x) else
                    run_candidates(_load_runs({str(name): x})[0])))
    return out


def _run_dict(runs: Mapping) -> bool:
    from ._inputs import _is_run_dict

    return bool(_is_run_dict(runs))


def _undefined_left_out(rows: list, scores: Any, log: Any) -> list:
    """The per-query rows of :func:`_score_file_rows` without those whose value is undefined (NaN), for a paired
    comparison (``zelo_compare -R SCORES``, ``zelo_plot systems|pairs -R SCORES``), which needs a number per
    query: left out as ``zelo_eval`` leaves them out of its means (session 30; before, "per-query table: value nan
    of run ... is not a finite number", naming no file). Said on ``log`` (or as a PrefEvalWarning): a query of
    zbench's annotated file holding no document by its ``file:line``, every other undefined value per measure
    (zacc needs two of the run's documents with different zELO scores, zndcg and zrecall one)."""
    import math

    gone = [r for r in rows if r[1] != "all" and math.isnan(r[3])]
    if not gone:
        return rows
    from ..io.textfile import display_name
    from ..io.zelo_scores import empty_annotated_queries

    name = display_name(os.fspath(scores))
    warn = log.warn if log is not None else _warning
    empty = empty_annotated_queries(os.fspath(scores))
    for qid, line in empty.items():
        warn(f"{name}:{line}: query {shown(qid)} holds no document (\"documents\": []): every measure is undefined "
             "on it, and it is left out of the comparison (zelo_eval leaves it out of its means)")
    per: dict[str, list[str]] = {}
    for run, qid, m, _ in gone:
        if qid not in empty:
            per.setdefault(m, []).append(f"{run} on {qid}")
    for m, cells in per.items():
        warn(f"{m} is undefined (nan) for {len(cells)} (run, query) pair(s) against {name} ({', '.join(cells[:3])}"
             f"{', ...' if len(cells) > 3 else ''}): left out of the comparison, as zelo_eval leaves them out of its "
             "means (zacc needs two of the run's documents with different zELO scores, zndcg and zrecall one)")
    kept = [r for r in rows if r[1] == "all" or not math.isnan(r[3])]
    lost = sorted({r[0] for r in gone} - {r[0] for r in kept if r[1] != "all"})
    if lost:  # (else "need at least two runs", the run gone without a word)
        from ..errors import EvaluationError

        raise EvaluationError(f"{lost[0]}: every value against {name} is undefined (nan): no query to compare it on")
    return kept

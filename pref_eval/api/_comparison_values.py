"""``zelo_compare -R`` / ``-P``: the per-query values :func:`~pref_eval.api.comparison.compare_runs` tests --
read from a per-query file, or evaluated from qrels and run files (trec_eval / ir-measures measures per run,
preference measures per pair of runs) -- and the checks of the options that evaluation reads.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ..errors import UsageError, command_running, option_given, option_name, shown
from ..io.run_ids import refuse_run_ids_with_per_query


def _per_query_values(*, qrels: str | None, per_query_file: str | None, runs: Sequence[str], measures: Sequence[str],
                      complete: bool, level: int, binary: float | None, floor: float | None, depth: int | None,
                      baseline: str | None, jobs: int, run_id_mode: str | None, run_names: Sequence[str],
                      log: Any, skipped: list[str] | None = None) -> tuple[Any, str | None, bool]:
    """The per-query table to test: evaluated from ``-R QRELS RUN...`` or read from ``-P FILE``.

    Returns ``(df, baseline, pref_baseline_done)`` (the baseline renamed to its run id).
    """
    if per_query_file:  # exactly one of qrels and per_query_file is given
        if run_id_mode is not None or run_names:
            refuse_run_ids_with_per_query()
        from ..io.perquery import read_per_query_table
        return read_per_query_table(per_query_file), baseline, False
    from ._metric_mode import _errors_in_run_order
    with _errors_in_run_order(log, skipped, runs, run_id_mode, run_names) as elog:
        return _evaluated_values(str(qrels), runs=runs, measures=measures, complete=complete, level=level,
                                 binary=binary, floor=floor, depth=depth, baseline=baseline, jobs=jobs,
                                 run_id_mode=run_id_mode, run_names=run_names, log=elog, skipped=skipped)


def _evaluated_values(qrels: str, *, runs: Sequence[str], measures: Sequence[str], complete: bool, level: int,
                      binary: float | None, floor: float | None, depth: int | None, baseline: str | None, jobs: int,
                      run_id_mode: str | None, run_names: Sequence[str], log: Any,
                      skipped: list[str] | None = None) -> tuple[Any, str | None, bool]:
    """``-R QRELS RUN...``: the per-query values of the runs (per pair for preference measures); with
    a list ``skipped`` (``--keep-going``) the runs that cannot be read or evaluated are left out, named in it."""
    if not measures:
        raise UsageError("-R needs at least one -m MEASURE" if command_running() else
                         "qrels and runs need at least one measure (measures=[...])")
    if len(runs) < 2:
        raise UsageError("need at least two run files to compare")
    from ._inputs import _refuse_stdin_twice

    _refuse_stdin_twice(qrels=qrels, runs=list(runs))
    from ..io.run_ids import run_ids
    from ..pref_values import needs_preference_mode

    ids = run_ids(list(runs), mode=run_id_mode or "path", names=list(run_names))
    # A trec_eval / ir-measures name is evaluated in metric mode whatever else -m names: its value must not
    # depend on its companions (before session 21, `-m map -m rpp` tested pref_eval.py's query set for map --
    # topics a run lacks as empty rankings, topics without a relevant document left out --, ignored -c, and
    # applied -b/-f to map; `rbp` became pref_eval.py's rbp, p = 0.5 binary, instead of trec_eval's).
    from ._score_rows import _is_score_file, _refuse_unread_score_file

    scores = _is_score_file(qrels)  # zbench's measures against a zELO score file (evaluate's rows; since session 28)
    if not scores:
        _refuse_unread_score_file(qrels, list(measures))
    pref_names = [] if scores else [m for m in measures if needs_preference_mode([m])]
    registry = [m for m in measures if m not in pref_names]
    _check_mode_options(pref_names, [] if scores else registry, binary=binary, floor=floor, level=level,
                        complete=complete)
    pref_df = None
    if pref_names:
        # preference measures (rpp, lexiprecision, ...) or pref_eval's metrics (p@10):
        # the values zelo_eval -q -o tsv prints for them
        from ..pref_values import preference_values

        log.stage(f"evaluating {len(runs)} runs (preference measures)")
        if baseline is not None:
            baseline = ids[list(runs).index(baseline)] if baseline in runs else _resolve_run(baseline, ids)
        pref_df, _ = preference_values(qrels, list(runs), pref_names, binary=binary, floor=floor, depth=depth,
                                       reference=baseline, names=ids, warn=log.warn, skipped=skipped, error=log.error)
        if skipped:
            from ._metric_mode import _two_left

            _two_left(skipped, runs, run_id_mode, run_names)
        _refuse_topic_all(pref_df["qid"].tolist(), qrels)
        if not registry:
            return pref_df, baseline, baseline is not None
    log.stage(f"evaluating {len(runs)} runs")
    from ..stats.compare import LongTable

    # the per-query rows without a DataFrame: no pandas import on zelo_compare -R (issue #13)
    from ._metric_mode import _registry_rows

    given = {i: r for i, r in zip(ids, runs, strict=True) if not skipped or i not in skipped}  # (pref's left out)
    rows = _registry_rows(qrels, given, registry, complete=complete, level=level, depth=depth, jobs=jobs, log=log,
                          skipped=skipped)
    df = LongTable.from_rows(rows)
    # (the comparison warns of missing topics per measure itself and refuses a topic 'all' below)
    _refuse_topic_all(df.qid, qrels)
    if baseline is not None and baseline in runs:
        baseline = ids[list(runs).index(baseline)]
    if pref_df is None:
        return df, baseline, False
    import pandas as pd

    if skipped:  # a run left out by the trec_eval measures (no topic in common) is left out of the pairs too
        pref_df = pref_df[~pref_df["run"].isin(skipped) & ~pref_df["run_b"].isin(skipped)]
    from ..io.frames import frame

    metric_df = frame({"run": df.run, "qid": [str(q) for q in df.qid], "measure": df.measure,
                       "value": [float(v) for v in df.value], "run_b": [""] * len(df.run)})
    return pd.concat([pref_df, metric_df], ignore_index=True), baseline, baseline is not None


def _check_mode_options(pref_names: list[str], registry: list[str], *, binary: float | None, floor: float | None,
                        level: int, complete: bool) -> None:
    """-b/-f serve preference measures, -l/-c trec_eval's: each refused where no measure reads it."""
    if not pref_names:
        for key, flag, val in (("binary", "-b", binary), ("floor", "-f", floor)):
            if val is not None:
                raise UsageError(f"{option_name(key, flag)} applies to preference measures (rpp, lexiprecision, ...)")
    elif not registry:
        if option_given("-l", level != 1):
            use = "-b/-f" if command_running() else "binary/floor"
            raise UsageError(f"{option_name('level', '-l')} applies to trec_eval measures; with preference measures "
                             f"use {use}")
        if complete:
            raise UsageError(f"{option_name('complete', '-c')} applies to trec_eval / ir-measures measures: "
                             "preference measures and "
                             "pref_eval.py's metrics (" + ", ".join(pref_names) + ") score a topic a run lacks "
                             "on an empty ranking (as pref_eval.py), so every qrels topic with a relevant "
                             "document counts already")
    if registry:
        _refuse_summary_only(registry)


def _refuse_topic_all(qids: Sequence[Any], qrels: str) -> None:
    """A topic named ``all``: per-query tables name their summary rows ``all`` and the comparison leaves those
    out, so that topic would be left out silently (the means over the other topics)."""
    if any(str(q) == "all" for q in qids):
        raise UsageError(f"{qrels}: a topic named 'all' cannot be compared: per-query tables name their "
                         "summary rows 'all' (trec_eval's), and the comparison leaves them out; rename the topic "
                         "in the qrels and the runs")


def _refuse_summary_only(measures: Sequence[str]) -> None:
    """A measure with no per-query values (``gm_map``) cannot be tested; a nickname keeps its per-query part."""
    from ..measures import parse_measure

    for m in measures:
        reqs = parse_measure(m)
        if all(r.spec.summary_only for r in reqs):
            raise UsageError(f"measure {shown(m)} is a summary over queries ({reqs[0].spec.formula}) "
                             "with no per-query values to test; "
                             "compare its per-query measure instead (map for gm_map, bpref for gm_bpref)")


def _resolve_run(name: str, runs: list[str]) -> str:
    """Exact run name, else a unique match on the file name / its stem."""
    if name in runs:
        return name
    cands = [r for r in runs if os.path.basename(r) == name
             or os.path.splitext(os.path.basename(r))[0] == name]
    if len(cands) == 1:
        return cands[0]
    if cands:  # x/bm25.run and y/bm25.run: both are "bm25"; the first would be a guess by file order
        raise UsageError(f"baseline {shown(name)} matches {len(cands)} runs ({', '.join(cands)}): give one "
                         f"of these names")
    raise UsageError(f"baseline {shown(name)} is not one of the runs ({', '.join(runs)})")


def _keys_in_given_order(keys: Sequence[str], measures: Sequence[str]) -> list[str]:
    """The evaluated ``keys`` (``-R``'s per-query columns) in the order of the ``-m`` names that asked for them, as
    ``-P -m`` orders a file's measures (and ranx / ir-measures their metrics): a name's own columns keep the
    evaluator's order among themselves (``P.5,10``: ``P_5, P_10``), the first name asking for a column places it,
    a key no name accounts for keeps its place after them. Columns are named as the evaluator names them
    (``MeasureRequest.columns``, the ir-measures label of a one-column request)."""
    from ..errors import PrefEvalError
    from ..measures import parse_measure
    from ..measures.parse import split_names

    rank: dict[str, int] = {}
    for i, text in enumerate(measures):
        for piece in split_names(text):
            rank.setdefault(piece, i)  # preference measures (rpp, lexiprecision) and keys given as such
            try:
                requests = parse_measure(piece)
            except (PrefEvalError, ValueError, KeyError):
                continue
            for r in requests:
                for name in r.columns():
                    rank.setdefault(r.label if r.label and len(r.columns()) == 1 else name, i)
    place = {k: j for j, k in enumerate(keys)}
    return sorted(keys, key=lambda k: (rank.get(k, len(measures)), place[k]))

"""Per-query values of preference measures for ``zelo_compare -R``.

``zelo_compare -R QRELS -m rpp ... RUN...`` must test exactly the values that
``zelo_eval -R QRELS -m rpp ... -q -o tsv RUN...`` prints. This module calls
the same machinery (:mod:`pref_eval.run_preferences`: ``prepare_qrels``,
``resolve``, ``evaluate_preferences``, ``pref_rows``) and returns the table
:func:`pref_eval.io.perquery.read_per_query` would read from that output:
columns ``run, run_b, qid, measure, value`` where a metric row has
``run_b == ""`` and a preference row holds the per-query preference of
``run`` over ``run_b`` (a signed difference, tested against 0).

Run names are ``zelo_eval``'s run ids (the file's base name without
``input.`` / ``.gz``).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd


def needs_preference_mode(measures: Sequence[str]) -> bool:
    """True when a name is not a registry (trec_eval / ir-measures) measure --
    a preference measure (rpp, lexiprecision, ...) or one of pref_eval's
    metrics (p@10, ndcg@10, ...): ``zelo_eval -o tsv`` then switches to its
    preference mode, and so does ``zelo_compare -R``."""
    from .errors import UsageError
    from .measures import parse_measure

    wants = False
    for name in measures:
        try:
            parse_measure(name)
        except UsageError:
            from .run_preferences.names import parse_pref_measure  # (only then: 3 modules more at start-up)

            # A name neither mode knows (a typo: ndcg_cut10) is refused here, as unknown, before an option
            # of the other mode is refused for it (`-c` called it one of "pref_eval.py's metrics": session 24).
            parse_pref_measure(name)
            wants = True
    return wants


def warn_pref_rbp(measures: Sequence[str], fmt: str, log: Any) -> None:
    """``zelo_eval`` in preference mode with a table format (``-o tsv|csv|jsonl``): ``rbp`` is the one name
    both modes compute, differently, and there the mode depends on the other ``-m`` names: say which."""
    if fmt != "pref" and "rbp" in measures:
        from .errors import command_running

        m, alone, o, p9 = ("-m name", "-m rbp", "-o", "-m rbp.p=0.9") if command_running() else \
            ("name in measures", "measures=['rbp']", "output_format", "measures=['rbp.p=0.9']")
        log.warn(f"rbp: pref_eval.py's rbp in preference mode (gamma 0.5, binary; another {m} is a "
                 f"preference measure), not trec_eval's rbp (p 0.9, graded gains) that {alone} alone gives "
                 f"with this {o}; for trec_eval's here write {p9}")


def preference_values(qrels: str, runs: Sequence[str], measures: Sequence[str], *,
                      binary: float | None = None, floor: float | None = None,
                      depth: int | None = None, reference: str | None = None,
                      names: Sequence[str] | None = None,
                      warn: Callable[[str], None] | None = None, skipped: list[str] | None = None,
                      error: Callable[[str], None] | None = None) -> tuple[pd.DataFrame, list[str]]:
    """Evaluate ``runs`` with ``zelo_eval``'s preference mode; long per-query table.

    ``binary`` / ``floor`` are zelo_eval's ``-b`` / ``-f``; ``depth`` its
    ``--topk``; ``reference`` (a run id or path) makes the pairs
    (reference, other) instead of every i < j, as ``zelo_eval --reference``; ``names`` the run ids
    (default: :func:`pref_eval.io.run_ids.run_ids`); ``warn(message)`` is told of a run holding none of the
    qrels topics (zelo_eval's preference-mode warning). With a list ``skipped`` (``zelo_compare --keep-going``)
    a run that cannot be read or ranked against the qrels is told to ``error(message)``, its id appended to
    ``skipped`` and left out (a pair's values depend on its two runs only); a ``reference`` left out is
    dropped (the caller says so).
    Returns (DataFrame with columns run, qid, measure, value, run_b; the run ids).
    """
    from .io.qrels import read_subtopic_qrels
    from .io.runs import read_run
    from .run_preferences.data import prepare_qrels
    from .run_preferences.evaluate import evaluate_preferences, reference_index, run_names
    from .run_preferences.names import resolve
    from .output.preferences import pref_rows

    sel = resolve(list(measures), None)
    names = list(names) if names is not None else run_names(list(runs))
    ref = reference_index(reference, names, list(runs), option="--baseline")
    q = read_subtopic_qrels(qrels)
    pq = prepare_qrels(q, binary, floor)
    if skipped is not None:
        rs, runs, names, ref = _usable(runs, names, ref, pq, depth, skipped, error)
    else:
        rs = [read_run(p, name=n) for p, n in zip(runs, names, strict=False)]
    res = evaluate_preferences(pq, rs, names, sel, topk=depth, reference=ref)
    if warn is not None:
        from .collection import no_common_warning

        for k in res.no_common:
            warn(no_common_warning(names[k], qrels, res.qids, None))
    rows = list(pref_rows(res, per_query=True, summary=False))
    from .io.frames import frame

    df = frame([(a, q_, m, float(v), b) for a, b, q_, m, v in rows],
               columns=["run", "qid", "measure", "value", "run_b"])
    if df["qid"].dtype != object:  # (an id that was not UTF-8: an object column of str, as :func:`frame` makes it)
        df["qid"] = df["qid"].astype(str)
    return df, names


def _usable(runs: Sequence[str], names: list[str], ref: int | None, pq: Any, depth: int | None,
            skipped: list[str], error: Callable[[str], None] | None) -> tuple[list, list[str], list[str], int | None]:
    """``--keep-going``: the runs read and ranked against every qrels query (a duplicate found here), the others
    told to ``error`` and named in ``skipped``; the reference's new index (None when it was left out)."""
    from .collection import build_collection
    from .errors import PrefEvalError
    from .io.runs import read_run

    keep: list[int] = []
    rs = []
    for k, (p, n) in enumerate(zip(runs, names, strict=True)):
        try:
            run = read_run(p, name=n)
            build_collection(pq.qrels, [run], complete=True, depth=depth)
        except PrefEvalError as err:
            if error is not None:
                error(str(err))
            skipped.append(n)
            continue
        keep.append(k)
        rs.append(run)
    new_ref = keep.index(ref) if ref is not None and ref in keep else None
    return rs, [str(runs[k]) for k in keep], [names[k] for k in keep], new_ref

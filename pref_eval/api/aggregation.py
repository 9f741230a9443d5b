"""``pref_aggregate``: :func:`aggregate` (rank aggregation of ``zelo_eval -q`` preference files)."""
from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ..seeds import SEED_MAX
from ..errors import UsageError, option_given, option_name


def aggregate(prefs: str | os.PathLike, measures: Sequence[str] | None = None, *, query_fraction: float = 1.0,
              num_samples: int = 1, seed: int = 0, mc4_steps: int | None = None, damping: float = 0.15,
              log: Any = None) -> tuple[list[str], list[Any]]:
    """Orderings of runs from a preference file (``pref_aggregate``): ``(measures, [Aggregation, ...])``.

    ``prefs`` is the JSON lines of ``zelo_eval -q`` / ``pref_eval.py -q``;
    ``measures`` default to every measure of the file, in file order. For each
    sample a :class:`~pref_eval.rank_aggregation.Aggregation` holds per query
    and measure the ranking of the runs, and per measure the summary
    orderings: MC4 (Dwork et al., WWW 2001; stationary distribution of the
    chain damped by ``damping``, or ``mc4_steps`` power steps as
    pref_aggregate.py) and Borda for preference measures, the mean for metrics
    (formulas in :mod:`pref_eval.rank_aggregation`). ``query_fraction < 1``
    draws that fraction of sample 0's queries for each of ``num_samples``
    samples with ``numpy.random.default_rng(seed)`` (among the query ids in
    sorted order: the same queries whatever the order of the lines); otherwise sample ``s`` of
    the file is aggregated for ``s < num_samples`` (missing ones are skipped
    with a warning on ``log``, a :class:`~pref_eval.log.Log`).
    """
    import numpy as np

    from ..io.pref_jsonl import read_pref_file
    from ..log import Log
    from ..rank_aggregation import aggregate as aggregate_sample

    from ._inputs import _check_float, _check_int, _check_paths, _string_list

    _check_paths("for data: write the preferences with pref_eval.evaluate_runs(qrels, runs, per_query=True, "
                 "output=FILE)", prefs=prefs)
    _check_float("query_fraction", query_fraction, 0, 1, lo_open=True)
    _check_int("num_samples", num_samples, 1)
    _check_int("seed", seed, 0, SEED_MAX)
    _check_int("mc4_steps", mc4_steps, 1, optional=True)
    _check_float("damping", damping, 0, 1, lo_open=True)
    # (an int was "object is not iterable"; one string its letters)
    measures = measures if measures is None else _string_list("measures", measures, split=True)
    # (was ignored: the power steps are of the undamped chain)
    if mc4_steps is not None and option_given("--damping", damping != 0.15):
        raise UsageError(f"{option_name('damping')} applies to the stationary MC4 (the default), not to "
                         f"{option_name('mc4_steps')} (the power steps of pref_aggregate.py's undamped chain)")
    log = log or Log("pref_eval", quiet=True)
    name = os.fspath(prefs)
    log.stage(f"reading {name}")
    pf = read_pref_file(name)
    ms = list(measures) if measures else list(pf.keys)
    missing = [m for m in ms if m not in pf.keys]
    if missing:
        raise UsageError(f"measure(s) not in {name}: {', '.join(missing)} (file has: {', '.join(pf.keys)})")
    if not ms:
        raise UsageError(f"{name}: no measure values in the file")
    if all(m in pf.metric_keys for m in ms):  # (were accepted: metrics are ordered by their mean, no MC4)
        for key, given in (("mc4_steps", mc4_steps is not None), ("damping", damping != 0.15)):
            if option_given("--" + key.replace("_", "-"), given):
                raise UsageError(f"{option_name(key)} applies to MC4, which orders preference measures; "
                                 f"{', '.join(ms)} are metrics, ordered by their mean")
    qids0 = rng = None
    if query_fraction < 1.0:
        qids0 = pf.sample_qids(0)
        if not qids0:
            raise UsageError(f"{name}: {option_name('query_fraction', '--query_fraction')} draws from the queries of "
                             "sample 0, and it has none")
        rng = np.random.default_rng(seed)
    results, skipped = [], []
    for s in range(num_samples):
        if num_samples > 1:
            log.progress("samples", s, num_samples)
        src = 0 if qids0 is not None else s
        if qids0 is None and s not in pf.prefs and s not in pf.metrics:
            skipped.append(s)
            continue
        qids = None
        if qids0 is not None and rng is not None:
            k = max(1, int(len(qids0) * query_fraction))
            # drawn among the ids in sorted order (the same queries whatever the order of the file's lines),
            # aggregated in file order (Borda's n is the first query's runs, as pref_aggregate.py)
            ids = sorted(qids0)
            chosen = {ids[i] for i in rng.choice(len(ids), size=k, replace=False).tolist()}
            qids = [x for x in qids0 if x in chosen]
        results.append(aggregate_sample(pf, ms, sample=s, source_sample=src, qids=qids, mc4_steps=mc4_steps,
                                        damping=damping))
    if num_samples > 1:
        log.progress("samples", num_samples, num_samples)
    for s in skipped:  # after the progress line is complete
        log.warn(f"sample {s} is not in {name}; skipped")
    return ms, results

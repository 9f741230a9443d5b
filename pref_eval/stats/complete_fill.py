"""``complete=True`` (``zelo_compare -c``) on a per-query table: the value of a (run, query) it lacks.

trec_eval ``-c`` (``trec_eval.c``: a qrels topic the run lacks is evaluated on an empty ranking) gives
that topic 0 for almost every measure, but not for all (trec_eval 10.0 ``-q -c -m all_trec``, and
``yaap``, on a run lacking a topic):

* ``num_rel`` is the topic's number of relevant documents, ``ideal_dcg`` the topic's ideal DCG
  (both read the qrels only) and ir-measures' ``NumQ`` is 1: the value does not depend on the run,
  so a lacking run takes the value the other runs have for that topic (they must agree);
* ``yaap`` (Robertson 2012) is log(1 / (1 + R)) on an empty ranking: it depends on the qrels, which a
  per-query table does not hold -- refused (evaluate with ``-R QRELS -c``, or write the table with
  ``-c``, and nothing is missing).

Before session 22 every missing value was 0 (``zelo_compare -P -c -m num_rel`` compared a run's
count with 0 where ``-R -c`` compares equal counts). Names this package does not know
(preference measures, pref_eval.py's metrics, a user's own) keep the 0.
"""
from __future__ import annotations

import numpy as np

from ..errors import UsageError, command_running, option_name, shown

#: measures (registry names) whose per-query value reads only the qrels: the same for every run
RUN_INDEPENDENT = frozenset({"num_rel", "ideal_dcg", "num_q"})
#: measures whose value on an empty ranking depends on the qrels (not in a per-query table)
QRELS_DEPENDENT = frozenset({"yaap"})


def _registry_name(measure: str) -> str | None:
    """The registry name of a printed / ir-measures label (``NumRel(rel=2)`` -> num_rel), or None."""
    from ..measures.parse import parse_measure

    try:
        reqs = parse_measure(measure)
    except (UsageError, ValueError):
        return None
    names = {r.spec.name for r in reqs}
    return names.pop() if len(names) == 1 else None


def fill_missing(X: np.ndarray, present: np.ndarray, measure: str, qids: list[str],
                 runs: list[str]) -> np.ndarray:
    """``X`` (runs x queries, NaN where ``present`` is False) with the missing cells filled as trec_eval
    ``-c`` fills them (module doc); UsageError where that value is not in the table."""
    if present.all():
        return X
    name = _registry_name(measure)
    if name in QRELS_DEPENDENT:
        j = int(np.nonzero(~present.all(axis=0))[0][0])
        how = ("compare with -R QRELS -c, or a per-query file written with -c" if command_running() else
               "compare the runs with qrels and complete=True, or a per-query file written with complete=True")
        raise UsageError(f"{option_name('complete', '-c')}: measure {shown(measure)} is not 0 on a topic a run lacks "
                         "(trec_eval -c scores it on an empty ranking, a value of the qrels), and run "
                         f"{shown(runs[int(np.argmin(present[:, j]))])} lacks query {shown(qids[j])}: {how}")
    if name not in RUN_INDEPENDENT:
        return np.where(present, X, 0.0)
    with np.errstate(invalid="ignore"):
        lo, hi = np.nanmin(X, axis=0), np.nanmax(X, axis=0)
    differ = np.nonzero(lo != hi)[0]
    if differ.size:
        j = int(differ[0])
        raise UsageError(f"measure {shown(measure)} reads only the qrels, yet the runs differ on query "
                         f"{shown(qids[j])} "
                         f"({lo[j]:g} vs {hi[j]:g}): were they evaluated on different qrels?")
    return np.where(present, X, lo)

"""One preference evaluation: qrels + runs + measures → per-query matrices.

``evaluate_preferences`` is the engine behind ``zelo_eval``'s preference
mode and :func:`pref_eval.run_preferences.compare_runs`. Everything is computed
for all pairs at once (see :mod:`.pairwise`), and for every run at once
(:mod:`.metrics`).
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import field
from typing import TYPE_CHECKING

import numpy as np

from ..records import record
from ..io.keys import distinct

from ..errors import UsageError, option_name
from .data import PrefQrels, RelVectors, relevance_vectors
from .names import PrefMeasure

if TYPE_CHECKING:
    from ..measures import MeasureRequest


def run_id(path: str) -> str:
    """pref_eval.py's run id: the base name without ``input.`` and ``.gz``."""
    return os.path.basename(path).replace("input.", "").replace(".gz", "")


def check_unique_run_ids(names: list[str], paths: list[str]) -> None:
    """Two files with the same run id are an error (pref_eval.py silently dropped the first)."""
    seen: dict[str, str] = {}
    for n, p in zip(names, paths, strict=False):
        if n in seen:
            raise UsageError(f"{seen[n]} and {p} have the same run id {n!r} "
                             "(pref_eval.py silently dropped the first); rename one")
        seen[n] = p


def run_names(paths: list[str], mode: str = "path",
              names: dict[str, str] | Sequence[str] | None = None) -> list[str]:
    """Run ids of ``paths`` (:func:`pref_eval.io.run_ids.run_ids`: the shortest unique path
    suffix, or the run tag; ``--name`` renames)."""
    from ..io.run_ids import run_ids

    return run_ids(paths, mode=mode, names=names)


def reference_index(reference: str | None, names: list[str], paths: list[str],
                    option: str = "--reference") -> int | None:
    """Index of the run named ``reference`` (by run id or path), None if not given."""
    if reference is None:
        return None
    cand = [i for i, (n, p) in enumerate(zip(names, paths, strict=False)) if reference in (n, p)]
    if not cand:
        raise UsageError(f"{option_name(option.removeprefix('--'), option)} {reference!r} is not one of the runs "
                         f"({', '.join(names)})")
    return cand[0]


@record
class PrefResult:
    """Results of one sample.

    ``qids`` evaluation order; ``runs`` run ids; ``run_i``/``run_j`` the
    pairs (indices into ``runs``; the output's ``runi``/``runj``; ``I``/``J``
    are the former names, kept as read-only aliases); ``prefs[key]`` (P, nq)
    preference values (``int`` dtype for the lexi signs); ``ties[key]``
    exact-tie masks for rrlexiprecision; ``metrics[key]`` (R, nq) values and
    ``diffs[key]`` (P, nq) differences.
    """

    qids: list[str]
    runs: list[str]
    run_i: np.ndarray
    run_j: np.ndarray
    measures: list[PrefMeasure]
    prefs: dict = field(default_factory=dict)
    ties: dict = field(default_factory=dict)
    metrics: dict = field(default_factory=dict)
    diffs: dict = field(default_factory=dict)
    sample: int = 0
    no_common: list[int] = field(default_factory=list)  # runs holding none of the evaluated queries (indices)

    @property
    def I(self) -> np.ndarray:  # noqa: E743  the former field name (exported in run_preferences.__all__), kept
        """Former name of :attr:`run_i`."""
        return self.run_i

    @property
    def J(self) -> np.ndarray:
        """Former name of :attr:`run_j`."""
        return self.run_j

    def pair_values(self, key: str) -> np.ndarray:
        return self.prefs[key] if key in self.prefs else self.diffs[key]


def build_vectors(pq: PrefQrels, runs: list, names: list[str], topk: int | None, *, jobs: int = 1,
                  scheduler: str | None = None) -> RelVectors:
    """Collection (kept judgments, every qrels query) → :class:`RelVectors`.

    With ``jobs > 1`` or a dask ``scheduler`` the runs are ranked in groups by
    :func:`rank_run_group` in other processes (each run is ranked on its own,
    so the vectors are the same).
    """
    return _vectors(pq, runs, names, topk, jobs=jobs, scheduler=scheduler)[0]


def _vectors(pq: PrefQrels, runs: list, names: list[str], topk: int | None, *, jobs: int = 1,
             scheduler: str | None = None, ranked: list | None = None) -> tuple[RelVectors, list[int]]:
    """:func:`build_vectors` and the runs (indices) that hold none of the qrels queries (``ranked``: the runs
    already ranked against ``pq.qrels``, as :func:`rank_run_group` ranks them)."""
    if ranked is not None:
        pass
    elif jobs == 1 and not scheduler:
        ranked = rank_run_group((pq.qrels, runs, names, topk))
    else:
        from ..parallel import ordered_map, split_even

        sizes = [len(r.docno) if hasattr(r, "docno") else 1 for r in runs]
        groups = [(k, k + 1) for k in range(len(runs))] if scheduler else split_even(sizes, jobs)
        pieces = [(pq.qrels, runs[a:b], names[a:b], topk) for a, b in groups]
        ranked = [x for part in ordered_map(rank_run_group, pieces, jobs=jobs, scheduler=scheduler) for x in part]
    no_common = [k for k, r in enumerate(ranked) if r.nq and not r.present.any()]
    return relevance_vectors(pq, ranked, names), no_common


def rank_run_group(piece: tuple) -> list:
    """Runs ranked against judgments, for preference evaluation: the unit of work of ``--jobs``.

    ``piece`` = (:class:`~pref_eval.io.qrels.Qrels`, runs (paths, read here,
    or :class:`~pref_eval.io.runs.Run`), run ids, depth). Every qrels query is
    kept (``complete``), as preference evaluation needs.
    """
    from ..collection import build_collection
    from ..io.runs import read_run

    qrels, runs, names, topk = piece
    rs = [read_run(r, name=n) if isinstance(r, (str, os.PathLike)) else r for r, n in zip(runs, names, strict=True)]
    return list(build_collection(qrels, rs, complete=True, depth=topk).runs)


def read_run_group(piece: tuple) -> list:
    """``[read_run(path, name=id)]`` of ``piece`` = (paths, run ids): runs read in another process."""
    from ..io.runs import read_run

    paths, names = piece
    return [read_run(p, name=n) for p, n in zip(paths, names, strict=True)]


def evaluate_preferences(
    pq: PrefQrels,
    runs: list,
    names: list[str],
    measures: list[PrefMeasure],
    *,
    topk: int | None = None,
    reference: int | None = None,
    sample: int = 0,
    jobs: int = 1,
    scheduler: str | None = None,
    ranked: list | None = None,
) -> PrefResult:
    """Evaluate ``measures`` on every pair of ``runs`` (or ``reference`` vs each).

    ``jobs`` / ``scheduler``: rank the runs in other processes
    (:func:`build_vectors`); the result is the same. ``ranked``: ``runs`` already ranked against
    ``pq.qrels`` (every query kept, depth ``topk``: :func:`rank_run_group`'s result), not ranked again
    (zelo_eval ``--keep-going`` ranks each run to check it).
    """
    from .metrics import compute_metric, registry_values
    from .pairwise import lexicographic, pairs_of, rpp_family

    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise UsageError(f"two run files have the same run id {', '.join(dup)} "
                         "(pref_eval.py silently dropped one); rename one of them")
    rv, no_common = _vectors(pq, runs, names, topk, jobs=jobs, scheduler=scheduler, ranked=ranked)
    run_i, run_j = pairs_of(len(runs), reference)
    res = PrefResult(qids=rv.qids, runs=list(names), run_i=run_i, run_j=run_j, measures=measures, sample=sample,
                     no_common=no_common)
    bases = {m.base for m in measures if m.kind == "pref"}
    rpp = _antisymmetric(rpp_family, rv, run_i, run_j, names, sorted(bases & {"rpp", "invrpp", "dcgrpp"}))
    lex = lexicographic(rv, run_i, run_j, bases & {"lexirecall", "lexiprecision", "rrlexiprecision"})
    reg = [m for m in measures if m.kind == "registry"]
    reg_results = _registry_results(pq, runs, reg, topk) if reg else []
    for m in measures:
        if m.kind == "pref":
            src = rpp if m.base in rpp else lex
            res.prefs[m.key] = src[m.base]
            if m.base == "rrlexiprecision":
                res.ties[m.key] = lex["rrlexiprecision_tie"]
        else:
            if m.kind == "metric":
                mv = compute_metric(rv, m)
            else:
                full_q = distinct(pq.full.qid)
                mv = registry_values(m, reg_results, np.searchsorted(full_q, pq.qorder))
            res.metrics[m.key] = mv.value
            res.diffs[m.key] = mv.diff(run_i, run_j)
    return res


def _antisymmetric(family, rv: RelVectors, run_i: np.ndarray, run_j: np.ndarray, names: list[str], schemes) -> dict:
    """``family(rv, run_i, run_j, schemes)`` with every pair computed in one orientation, the run with the
    smaller id first, and negated where (run_i, run_j) is the other one.

    RPP is antisymmetric (pref(i, j) = −pref(j, i)), but its floating-point sums are not: computed
    as given, the last bits of a pair's values would depend on the order of the runs on the
    command line. For runs given in id order (pref_eval.py's usual ``input.*`` glob) nothing changes.
    """
    ids = np.array(names, dtype=str)
    flip = ids[run_i] > ids[run_j] if len(run_i) else np.zeros(0, bool)
    if not flip.any():
        return family(rv, run_i, run_j, schemes)
    out = family(rv, np.where(flip, run_j, run_i), np.where(flip, run_i, run_j), schemes)
    return {k: np.where(flip[:, None], 0.0 - v, v) for k, v in out.items()}


def _registry_results(pq: PrefQrels, runs: list, reg: list[PrefMeasure], topk: int | None) -> list:
    from ..collection import build_collection
    from ..engine import evaluate_ranked
    from ..measures import EvalContext

    requests: list[MeasureRequest] = []
    seen = set()
    for m in reg:
        if m.request is not None and id(m.request) not in seen:  # a registry measure has its request
            seen.add(id(m.request))
            requests.append(m.request)
    col = build_collection(pq.full, runs, complete=True, depth=topk)
    ctx = EvalContext(level=1, complete=True)
    return [evaluate_ranked(r, requests, ctx) for r in col.runs]

"""``zelo_pairs pool``: :func:`pairs_pool`, a depth-N pool of runs (``qid docno`` lines) and, on request, each
run's contribution to it (documents only it pooled; with qrels, the relevant ones only it retrieved).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import InputError, UsageError
from ._inputs import _input_options

if TYPE_CHECKING:
    import numpy as np

    from ..output.atomic import InputOptions


_CONTRIBUTION_HEADER = ("run", "pooled", "unique", "relevant", "unique_relevant")
"""``--contributions``' columns (the last two with ``--qrels`` only)."""


def pairs_pool(runs: Sequence[str], depth: int, *, qrels: str | None = None, output: str | None = "-",
               contributions: str | None = None, keep_going: bool = False, trec9: bool = False, log: Any = None,
               inputs: InputOptions | None = None) -> list[tuple[str, str]]:
    """A depth-``depth`` pool (``zelo_pairs pool``): ``(qid, docno)`` of every document in the top ``depth``
    of some run for its topic, each once, sorted by qid then docno (byte order).

    A run's top ``depth`` is taken in trec_eval's order (score descending, docno descending:
    :func:`pref_eval.collection.trec_order`), so tied scores at the cut are decided as ``trec_eval -M``
    decides them; every topic of a run counts (no qrels needed). With ``qrels`` the documents it already
    judges for the topic (any grade) are left out. Written as ``qid docno`` lines to ``output`` (``-``:
    stdout; ``None``: not written). ``contributions`` (a path; ``-`` only when ``output`` is a file): a
    tab-separated report, one row per run (its path as given, in the order given) and a last row ``all``:
    ``pooled`` (the documents of its top ``depth``), ``unique`` (those in no other run's top ``depth``: the
    pool would lose them without this run), and with ``qrels`` ``relevant`` (those judged grade >= 1,
    trec_eval's default relevance) and ``unique_relevant`` (the "unique relevant documents" of TREC overview
    papers, per run; Zobel, SIGIR 1998, leaves them out to measure pool bias), counted over the whole depth-N pool,
    before the judged documents are left out of ``output``. Row ``all``: the pool's size, the documents only
    one run pooled, the relevant ones in the pool, the relevant ones only one run pooled. ``keep_going``: a
    run that cannot be read is named on stderr (``log.error``) and left out (no row), the pool of the others
    written, then :class:`~pref_eval.errors.EvaluationError` counts them (exit status 2).
    """
    from ._inputs import _check_flags, _check_int, _path_list

    _check_flags(keep_going=keep_going, trec9=trec9)
    _check_int("depth", depth, 1)
    runs = _path_list(runs, "runs")
    if not runs:
        raise UsageError("no run file given (usage: zelo_pairs pool --depth N [--qrels QRELS] RUN [RUN...])")
    if contributions is not None and contributions in ("-", "/dev/stdout") and output in ("-", "/dev/stdout"):
        raise UsageError("--contributions - and the pool would share stdout: give the pool -o FILE, or "
                         "--contributions FILE")
    from ..io.run_ids import shortest_unique_suffixes

    shortest_unique_suffixes(runs)  # the same file given twice is refused, as zelo_eval and cycles --run do
    from ..log import Log

    log = log or Log("zelo_pairs", quiet=True)
    q = None
    if qrels is not None:
        from ..io.qrels import read_qrels

        q = read_qrels(qrels)
    tops, bad = _pooled(runs, depth, trec9=trec9, keep_going=keep_going, log=log)
    pooled = _Pool(tops, q)
    got = pooled.unjudged()
    pool = [(a.decode("utf-8", "surrogateescape"), b.decode("utf-8", "surrogateescape")) for a, b in got]
    if len(bad) < len(runs):
        _write(pool, pooled, [r for r in runs if r not in bad], output=output, contributions=contributions,
               inputs=_input_options(inputs, output=output, contributions=contributions, qrels=qrels,
                                     runs=list(runs)))
    if bad:
        from ..errors import EvaluationError
        from ..io.textfile import display_name

        names = ", ".join(display_name(r) for r in bad)
        if len(bad) == len(runs):
            raise EvaluationError(f"none of the {len(runs)} runs could be read (--keep-going): {names}; "
                                  "nothing written")
        raise EvaluationError(f"{len(bad)} of {len(runs)} runs not pooled (--keep-going; their errors above): "
                              f"{names}")
    runs_said = f"{len(runs)} run{'s' * (len(runs) != 1)}"
    log.info(f"{len(pool)} documents for {len({a for a, _ in got})} topics from {runs_said} at depth {depth}"
             + (f" ({pooled.size - len(got)} already judged left out)" if qrels is not None else ""))
    return pool


def _write(pool: list[tuple[str, str]], pooled: _Pool, runs: list[str], *, output: str | None,
           contributions: str | None, inputs: InputOptions) -> None:
    """The pool's lines to ``output`` and the report to ``contributions`` (either may be None), atomically,
    both or neither."""
    from ..io.textfile import display_name
    from ..output.atomic import command_outputs

    paths = [p for p in (output, contributions) if p is not None]
    if not paths:
        return
    with command_outputs(paths, inputs) as streams:
        k = 0
        if output is not None:
            streams[0].writelines(f"{a} {b}\n" for a, b in pool)
            k = 1
        if contributions is not None:
            rows = pooled.contributions()
            n = 5 if pooled.judged is not None else 3
            out = streams[k]
            out.write("\t".join(_CONTRIBUTION_HEADER[:n]) + "\n")
            for name, row in zip([*map(display_name, runs), "all"], rows.tolist(), strict=True):
                out.write("\t".join([name, *map(str, row[:n - 1])]) + "\n")


class _Pool:
    """The runs' tops as exact int64 keys of (qid, docno) in one code space, with the qrels' (if any): keys
    sort as the pairs do (qid bytes, then docno bytes), so the pool is the sorted distinct keys."""

    def __init__(self, tops: list[tuple[np.ndarray, np.ndarray]], q: Any) -> None:
        import numpy as np

        sides = [*tops, *([(q.qid, q.docno)] if q is not None else [])]
        qs = np.concatenate([s[0] for s in sides]) if sides else np.zeros(0, "S1")
        ds = np.concatenate([s[1] for s in sides]) if sides else np.zeros(0, "S1")
        self.qvals, qi = np.unique(qs, return_inverse=True)
        self.dvals, di = np.unique(ds, return_inverse=True)
        self.nd = max(len(self.dvals), 1)
        keys = qi.reshape(-1).astype(np.int64) * self.nd + di.reshape(-1).astype(np.int64)
        n = sum(len(t[0]) for t in tops)
        self.run_of = np.repeat(np.arange(len(tops)), [len(t[0]) for t in tops])
        self.keys = keys[:n]  # no key twice within a run: trec_order refused a duplicate in a run's top N
        self.pool, self.inverse, self.count = np.unique(self.keys, return_inverse=True, return_counts=True)
        self.size = len(self.pool)
        self.judged = self.relevant = None
        if q is not None:
            self.judged = np.unique(keys[n:])
            self.relevant = np.unique(keys[n:][np.asarray(q.rel) >= 1])

    def unjudged(self) -> list[tuple[bytes, bytes]]:
        """The pool less the judged documents, ``(qid, docno)`` bytes in byte order."""
        import numpy as np

        keep = self.pool if self.judged is None else self.pool[~np.isin(self.pool, self.judged)]
        return list(zip(self.qvals[keep // self.nd].tolist(), self.dvals[keep % self.nd].tolist(), strict=True))

    def contributions(self) -> np.ndarray:
        """Per run and for ``all``: pooled, unique, relevant, unique relevant (the last two 0 without qrels)."""
        import numpy as np

        nr = int(self.run_of.max()) + 1 if len(self.run_of) else 0
        unique = self.count[self.inverse.reshape(-1)] == 1
        rel = (np.isin(self.keys, self.relevant) if self.relevant is not None
               else np.zeros(len(self.keys), dtype=bool))
        cols = [np.bincount(self.run_of[m], minlength=nr) for m in (np.ones_like(unique), unique, rel, unique & rel)]
        per_run = np.stack(cols, axis=1)
        pool_rel = np.isin(self.pool, self.relevant) if self.relevant is not None else np.zeros(self.size, bool)
        total = [self.size, int(np.sum(self.count == 1)), int(pool_rel.sum()),
                 int(np.sum(pool_rel & (self.count == 1)))]
        return np.vstack([per_run, np.array(total, dtype=per_run.dtype)])


def _pooled(runs: list[str], depth: int, *, trec9: bool, keep_going: bool,
            log: Any) -> tuple[list[tuple[np.ndarray, np.ndarray]], list[str]]:
    """Each readable run's top ``depth`` as ``(qid, docno)`` byte arrays, and the runs set aside under
    ``keep_going`` (each named by ``log.error``)."""
    import numpy as np

    from ..collection import trec_order
    from ..errors import EvaluationError
    from ..io.runs import read_run

    tops: list[tuple[np.ndarray, np.ndarray]] = []
    bad: list[str] = []
    for path in runs:
        try:
            run = read_run(path)
            qids, counts, rows = trec_order(run, depth=depth, trec9=trec9)
        except (InputError, EvaluationError) as err:
            if not keep_going:
                raise
            log.error(str(err))
            bad.append(path)
            continue
        tops.append((np.repeat(qids, counts), run.docno[rows]))
    return tops, bad

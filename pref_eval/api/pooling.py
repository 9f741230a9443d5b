"""``zelo_pairs pool``: :func:`pairs_pool`, a depth-N pool of runs (``qid docno`` lines) and, on request, each
run's contribution to it (documents only it pooled; with qrels, the relevant ones only it retrieved).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import InputError, UsageError, command_running, option_given, option_name as _o, shown
from ._inputs import _input_options, _keep_going, _preflight

if TYPE_CHECKING:
    import numpy as np

    from ..output.atomic import InputOptions


_CONTRIBUTION_HEADER = ("run", "pooled", "unique", "relevant", "unique_relevant")
"""``--contributions``' columns (the last two with ``--qrels`` only); per group: ``group, runs`` first."""


def pairs_pool(runs: Sequence[str], depth: int, *, qrels: str | None = None, output: str | None = "-",
               contributions: str | None = None, keep_going: bool = False, trec9: bool = False, log: Any = None,
               inputs: InputOptions | None = None, groups: str | None = None,
               group_sep: str | None = None, level: int = 1) -> list[tuple[str, str]]:
    """A depth-``depth`` pool (``zelo_pairs pool``): ``(qid, docno)`` of every document in the top ``depth``
    of some run for its topic, each once, sorted by qid then docno (byte order).

    A run's top ``depth`` is taken in trec_eval's order (score descending, docno descending:
    :func:`pref_eval.collection.trec_order`), so tied scores at the cut are decided as ``trec_eval -M``
    decides them; every topic of a run counts (no qrels needed). With ``qrels`` the documents it already
    judges for the topic (any grade) are left out. Written as ``qid docno`` lines to ``output`` (``-``:
    stdout; ``None``: not written). ``contributions`` (a path; ``-`` only when ``output`` is a file): a
    tab-separated report, one row per run (its path as given, in the order given) and a last row ``all``: ``pooled``
    (the documents of its top ``depth``), ``unique`` (those in no other run's top ``depth``: the pool would lose
    them without this run), and with ``qrels`` ``relevant`` (those judged grade >= ``level``, trec_eval's ``-l``,
    default 1; TREC DL counts grade >= 2 as relevant) and ``unique_relevant`` (the "unique relevant documents" of
    TREC overview papers, per run; Zobel, SIGIR 1998, leaves them out to measure pool bias), counted over the whole
    depth-N pool, before the judged documents are left out of ``output``. Row ``all``: the pool's size, the
    documents only one run pooled, the relevant ones in the pool, the relevant ones only one run pooled.
    ``keep_going``: a run that cannot be read is named on stderr (``log.error``) and left out (no row), the pool of
    the others written, then :class:`~pref_eval.errors.EvaluationError` counts them (exit status 2).

    ``groups`` (a file of ``RUNTAG GROUP`` lines, :func:`pref_eval.io.groups.read_run_groups`) or ``group_sep``
    (a run's group is its run tag up to the first ``group_sep``; the whole tag when that prefix is empty or the
    tag holds none): the report per group instead (TREC overviews' "unique relevant documents contributed by
    the group"): ``group runs pooled unique [relevant unique_relevant]``, a document unique when no run of
    another group pooled it, groups in the order their first run was given; the run tag is the 6th column of a
    run's last line (what trec_eval prints as ``runid``). Either needs ``contributions``.
    """
    from ._inputs import _check_flags, _check_int, _check_paths, _check_strings, _path_list

    _check_flags(keep_going=keep_going, trec9=trec9)
    # (qrels=5 was read as a file named "5", contributions=5 os.fspath's TypeError)
    _check_paths("paths of files", qrels=qrels, contributions=contributions, groups=groups)
    _check_strings(group_sep=group_sep)
    from ..output.atomic import refuse_empty_names

    refuse_empty_names(contributions=("--contributions", contributions))  # (said "output file name is empty")
    _check_int("depth", depth, 1)
    _check_int("level", level)
    if option_given("-l", level != 1) and (qrels is None or contributions is None):  # (no -l before session 24)
        raise UsageError(f"{_o('level', '-l')} applies to {_o('contributions')} with {_o('qrels')} (the relevant "
                         "documents it counts)")
    runs = _path_list(runs, "runs")
    _check_groups(groups, group_sep, contributions)
    if not runs:
        raise UsageError("no run file given (usage: zelo_pairs pool --depth N [--qrels QRELS] RUN [RUN...])"
                         if command_running() else "no run file given (runs=[RUN, ...])")
    if contributions is not None and contributions in ("-", "/dev/stdout") and output in ("-", "/dev/stdout"):
        raise UsageError("--contributions - and the pool would share stdout: give the pool -o FILE, or "
                         "--contributions FILE" if command_running() else
                         f"contributions={shown(contributions)} and the pool (output={shown(output)}) would "
                         f"share stdout: "
                         "give output=FILE or contributions=FILE")
    from ..io.run_ids import shortest_unique_suffixes

    shortest_unique_suffixes(runs)  # the same file given twice is refused, as zelo_eval and cycles --run do
    from ..log import Log

    log = log or Log("zelo_pairs", quiet=True)
    own = _input_options(inputs, output=output, contributions=contributions, qrels=qrels, runs=list(runs),
                         groups=groups)
    _preflight(own, output, contributions)  # before anything is read
    q = None
    if qrels is not None:
        from ..io.qrels import read_qrels

        q = read_qrels(qrels)
    group_of = None
    if groups is not None:
        from ..io.groups import read_run_groups

        group_of = read_run_groups(groups)
    tops, tags, bad = _pooled(runs, depth, trec9=trec9, keep_going=keep_going, log=log)
    good = [r for r in runs if r not in bad]
    grouping = None if groups is None and group_sep is None else \
        _groups_of(good, tags, group_of, group_sep, groups)
    pooled = _Pool(tops, q, level)
    got = pooled.unjudged()
    pool = [(a.decode("utf-8", "surrogateescape"), b.decode("utf-8", "surrogateescape")) for a, b in got]
    if len(bad) < len(runs):
        _write(pool, pooled, good, output=output, contributions=contributions, grouping=grouping, inputs=own)
    if bad:
        from ..errors import EvaluationError
        from ..io.textfile import display_name

        names = ", ".join(display_name(r) for r in bad)
        if len(bad) == len(runs):
            raise EvaluationError(f"none of the {len(runs)} runs could be read ({_keep_going()}): {names}; "
                                  "nothing written")
        raise EvaluationError(f"{len(bad)} of {len(runs)} runs not pooled ({_keep_going()}; their errors above): "
                              f"{names}")
    runs_said = f"{len(runs)} run{'s' * (len(runs) != 1)}"
    log.info(f"{len(pool)} documents for {len({a for a, _ in got})} topics from {runs_said} at depth {depth}"
             + (f" ({pooled.size - len(got)} already judged left out)" if qrels is not None else ""))
    return pool


def _check_groups(groups: str | None, group_sep: str | None, contributions: str | None) -> None:
    """``--groups`` / ``--group-sep``: one of them, with ``--contributions``, a separator a run tag can hold."""
    from ._inputs import _check_paths

    if groups is not None and group_sep is not None:
        raise UsageError(f"{_o('groups')} and {_o('group_sep')} are two ways to name the groups: give one")
    if (groups is not None or group_sep is not None) and contributions is None:
        raise UsageError(f"{_o('groups' if groups is not None else 'group_sep')} applies to {_o('contributions')} "
                         "(the report per group)")
    if group_sep is not None and (not isinstance(group_sep, str) or group_sep == "" or
                                  any(c.isspace() for c in group_sep)):
        raise UsageError(f"{_o('group_sep')}: expected a non-empty separator without white space (a run tag holds "
                         f"none), got {shown(group_sep)}")
    if groups is not None:
        _check_paths("a file of RUNTAG GROUP lines", groups=groups)


def _groups_of(runs: list[str], tags: list[tuple[str, Any]], group_of: dict[str, str] | None, sep: str | None,
               path: str | None) -> tuple[list[str], np.ndarray]:
    """The groups (in the order their first run comes) and each run's index among them."""
    import numpy as np

    from ..io.groups import run_value

    names: list[str] = []
    for run, (tag, every) in zip(runs, tags, strict=True):  # a run whose lines carry tags of two groups: refused
        if group_of is not None:
            names.append(run_value(run, tag, group_of.get, "group", path, every))
        else:
            names.append(run_value(run, tag, lambda t: t.split(sep, 1)[0] or t, "group", None, every))
    order = list(dict.fromkeys(names))
    index = {g: k for k, g in enumerate(order)}
    return order, np.array([index[g] for g in names], dtype=np.int64)


def _write(pool: list[tuple[str, str]], pooled: _Pool, runs: list[str], *, output: str | None,
           contributions: str | None, inputs: InputOptions,
           grouping: tuple[list[str], np.ndarray] | None = None) -> None:
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
            import numpy as np

            n = 5 if pooled.judged is not None else 3
            out = streams[k]
            if grouping is None:
                rows = pooled.contributions()
                out.write("\t".join(_CONTRIBUTION_HEADER[:n]) + "\n")
                for name, row in zip([*map(display_name, runs), "all"], rows.tolist(), strict=True):
                    out.write("\t".join([name, *map(str, row[:n - 1])]) + "\n")
            else:
                names, of = grouping
                rows = pooled.contributions(of, len(names))
                size = [*np.bincount(of, minlength=len(names)).tolist(), len(runs)]
                out.write("\t".join(["group", "runs", *_CONTRIBUTION_HEADER[1:n]]) + "\n")
                for name, m, row in zip([*names, "all"], size, rows.tolist(), strict=True):
                    out.write("\t".join([name, str(m), *map(str, row[:n - 1])]) + "\n")


class _Pool:
    """The runs' tops as exact int64 keys of (qid, docno) in one code space, with the qrels' (if any): keys
    sort as the pairs do (qid bytes, then docno bytes), so the pool is the sorted distinct keys."""

    def __init__(self, tops: list[tuple[np.ndarray, np.ndarray]], q: Any, level: int = 1) -> None:
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
            self.relevant = np.unique(keys[n:][np.asarray(q.rel) >= level])

    def unjudged(self) -> list[tuple[bytes, bytes]]:
        """The pool less the judged documents, ``(qid, docno)`` bytes in byte order."""
        import numpy as np

        keep = self.pool if self.judged is None else self.pool[~np.isin(self.pool, self.judged)]
        return list(zip(self.qvals[keep // self.nd].tolist(), self.dvals[keep % self.nd].tolist(), strict=True))

    def contributions(self, group_of: np.ndarray | None = None, ng: int = 0) -> np.ndarray:
        """Per run (or per group: ``group_of[run]`` in ``range(ng)``) and for ``all``: pooled, unique (no other
        run / group pooled it), relevant, unique relevant (the last two 0 without qrels)."""
        import numpy as np

        if group_of is None:  # a group a run: a run holds a document once, so its pairs are already distinct
            ng = int(self.run_of.max()) + 1 if len(self.run_of) else 0
            group_of = np.arange(ng, dtype=np.int64)
        pair = np.unique(self.inverse.reshape(-1).astype(np.int64) * max(ng, 1) + group_of[self.run_of])
        doc, grp = pair // max(ng, 1), pair % max(ng, 1)  # each (pooled document, group) once
        holders = np.bincount(doc, minlength=self.size)  # the groups pooling each document
        unique = holders[doc] == 1
        pool_rel = np.isin(self.pool, self.relevant) if self.relevant is not None else np.zeros(self.size, bool)
        rel = pool_rel[doc]
        cols = [np.bincount(grp[m], minlength=ng) for m in (np.ones_like(unique), unique, rel, unique & rel)]
        per = np.stack(cols, axis=1) if ng else np.zeros((0, 4), dtype=np.int64)
        total = [self.size, int(np.sum(holders == 1)), int(pool_rel.sum()), int(np.sum(pool_rel & (holders == 1)))]
        return np.vstack([per, np.array(total, dtype=per.dtype)])


def _pooled(runs: list[str], depth: int, *, trec9: bool, keep_going: bool,
            log: Any) -> tuple[list[tuple[np.ndarray, np.ndarray]], list[tuple[str, Any]], list[str]]:
    """Each readable run's top ``depth`` as ``(qid, docno)`` byte arrays, its run tag and distinct tags
    (:attr:`pref_eval.io.runs.Run.tags`), and the runs set aside
    under ``keep_going`` (each named by ``log.error``)."""
    import numpy as np

    from ..collection import trec_order
    from ..errors import EvaluationError
    from ..io.runs import read_run

    tops: list[tuple[np.ndarray, np.ndarray]] = []
    tags: list[tuple[str, Any]] = []
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
        tags.append((run.tag, run.tags))
    return tops, tags, bad

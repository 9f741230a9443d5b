"""Orderings of runs from preference files: MC4, Borda, means (``pref_aggregate``).

Input: the JSON lines of ``zelo_eval -q`` or ``pref_eval.py -q``. For one
sample, each query gives one **ranking of the runs** per measure:

* preference measure m: ``score(run) = Σ_{pairs (i,j)} (+pref for runi, −pref for
  runj)`` (wins − losses for the lexicographic measures), summed in file order;
* metric: the metric value.

Runs are sorted by (score, run id) descending — ties go to the larger run id,
as pref_eval's ``pref_aggregate.py``. The summary then orders the runs:

* metric: by the mean over the queries with metric lines;
* preference, **Borda** (de Borda 1781): the run at 0-based position j of a
  query's ranking gets n − j points; sorted by (points, run id) descending;
* preference, **MC4** (Dwork, Kumar, Naor & Sivakumar, WWW 2001): with C[a,b] =
  #queries ranking a above b − #queries ranking b above a, the chain moves from
  a to each b with C[a,b] < 0 (b beats a on a strict majority) with probability
  1/n and stays otherwise. The default is the **stationary distribution** of
  the damped chain ``G = (1−α)·P + α/n`` (α = 0.15, PageRank-style teleport as
  in FLAGR, which makes it unique; solved exactly with a dense eigen-solve),
  runs sorted by π descending, ties (|Δπ| ≤ 1e-12) broken by Borda points,
  then run id descending. ``mc4_steps=T`` instead reproduces pref_aggregate.py:
  T power-iteration steps ``e ← e·P`` of the undamped chain from e = 1
  (sequential float sums, so the order is bit-identical), sorted by (e, run id)
  descending. Without damping the converged chain is absorbed by a Condorcet
  winner and orders the others by transients (docs/pref_aggregate.md).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from operator import itemgetter

import numpy as np

from .errors import InputError, UsageError

ID_KEYS = ("qid", "sample", "type", "runi", "runj", "run")


@dataclass
class Lines:
    """One sample's per-query lines of one type, as columns in file order.

    ``q`` query codes (into :attr:`PrefFile.qids`); ``a`` runi (preference)
    or run (metric) codes, ``b`` runj codes (-1 for metrics), into
    :attr:`PrefFile.runs`; ``vals[key]`` float64 values and ``has[key]``
    whether the line has that key.
    """

    q: np.ndarray
    a: np.ndarray
    b: np.ndarray
    vals: dict
    has: dict

    def __len__(self) -> int:
        return len(self.q)


@dataclass
class PrefFile:
    """Per-query lines of one preference file, by sample.

    ``prefs[sample]`` / ``metrics[sample]``: :class:`Lines`; ``qids`` / ``runs``
    the code tables; ``keys`` every measure key in order of first appearance;
    ``metric_keys`` those that appear in metric lines.
    """

    prefs: dict = field(default_factory=dict)
    metrics: dict = field(default_factory=dict)
    keys: list = field(default_factory=list)
    metric_keys: set = field(default_factory=set)
    qids: list = field(default_factory=list)
    runs: list = field(default_factory=list)

    def sample_qids(self, sample) -> list[str]:
        """Query ids of a sample in order of first appearance (metric lines first, then preference lines)."""
        codes = [x.q for x in (self.metrics.get(sample), self.prefs.get(sample)) if x is not None]
        allq = np.concatenate(codes) if codes else np.zeros(0, np.int64)
        u, first = np.unique(allq, return_index=True)
        return [self.qids[c] for c in u[np.argsort(first, kind="stable")].tolist()]


def _is_number(x) -> bool:
    return isinstance(x, (int, float))  # bool too: Python sums it as 0/1, as pref_aggregate.py does


def _records_slow(data: bytes, src: str):
    """Line-by-line parse with file:line errors: [(line, kind, sample, qid, a, b, vals)]."""
    out = []
    for ln, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except ValueError:
            raise InputError(src, ln, "expected a JSON object (a line of zelo_eval / pref_eval.py output)") from None
        if not isinstance(obj, dict) or "qid" not in obj or "sample" not in obj:
            raise InputError(src, ln, "expected a JSON object with 'qid' and 'sample'")
        if obj["qid"] == "all":
            continue
        kind = obj.get("type")
        vals = {k: v for k, v in obj.items() if k not in ID_KEYS}
        try:
            if kind == "preference":
                ab = (str(obj["runi"]), str(obj["runj"]))
            elif kind == "metric":
                ab = (str(obj["run"]), None)
            else:
                raise InputError(src, ln, f"unknown line type {kind!r} (expected preference or metric)")
        except KeyError as err:
            raise InputError(src, ln, f"missing key {err}") from None
        for k, v in vals.items():
            if not _is_number(v):
                raise InputError(src, ln, f"{k}: expected a number, got {json.dumps(v)}")
        out.append((ln, kind, obj["sample"], str(obj["qid"]), ab[0], ab[1], vals))
    return out


def _parse_all(data: bytes) -> list | None:
    """Every line parsed at once as one JSON document ``[[line],[line],...]``, or None.

    Only for files without ``]`` (pref files have none: values are numbers,
    ids plain strings) and without blank lines: then a line cannot close its
    wrapper nor merge with the next one, so the document parses into exactly
    one element per line iff every line is one JSON value, and each element
    must be a list holding one object. None: use the line-by-line parser.
    """
    doc = b"[[" + data.replace(b"\n", b"],[") + b"]]"
    parsed = None
    try:
        import orjson

        parsed = orjson.loads(doc)
    except ImportError:  # pragma: no cover - orjson is optional
        pass
    except ValueError:  # orjson refuses NaN/Infinity, which json accepts: let json decide
        pass
    if parsed is None:
        try:
            parsed = json.loads(doc)
        except (ValueError, RecursionError):
            return None
    # no "]" in the data: every element is one of the wrappers, a list
    if len(parsed) != data.count(b"\n") + 1 or set(map(len, parsed)) != {1}:
        return None
    objs = list(map(itemgetter(0), parsed))
    if set(map(type, objs)) != {dict}:
        return None
    return objs


CHUNK_BYTES = 1 << 20  # parse this much at a time (keeps the Python objects few and memory reused)


def _records_fast(data: bytes) -> tuple[list, list, set] | None:
    """Parts for :func:`_build` from :func:`_parse_all`, or None if anything is unusual.

    The file is parsed in chunks of whole lines; in a chunk, lines are
    grouped by their tuple of keys (a file has a handful of distinct ones),
    so the checks and the column extraction run per group. Returns (parts,
    keys in order of first appearance, metric keys).
    """
    if not data or b"]" in data:
        return None
    size = len(data) - 1 if data.endswith(b"\n") else len(data)
    parts: list = []
    first: dict[str, tuple[int, int]] = {}
    metric_keys: set = set()
    start, line0 = 0, 0
    while start < size:
        end = data.find(b"\n", start + CHUNK_BYTES, size)
        end = size if end < 0 else end
        nlines = _chunk_records(data[start:end], line0, parts, first, metric_keys)
        if nlines < 0:
            return None
        line0 += nlines
        start = end + 1
    return parts, sorted(first, key=first.__getitem__), metric_keys


def _chunk_records(chunk: bytes, line0: int, parts: list, first: dict, metric_keys: set) -> int:
    """Add the parts of one chunk (its first line has index ``line0``); its number of lines, -1 if anything is unusual.

    Lines are grouped by their ``type``; within a group every line must have
    the same set of keys (else -1: the line-by-line parser decides).
    """
    objs = _parse_all(chunk)
    if objs is None:
        return -1
    try:
        table: dict = {}
        codes = _codes([o.get("type") for o in objs], table)
    except TypeError:  # an unhashable "type"
        return -1
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(table) + 1))
    for kind, c in table.items():
        idx = order[bounds[c]:bounds[c + 1]]
        gobjs = [objs[i] for i in idx.tolist()]
        try:
            qid = list(map(itemgetter("qid"), gobjs))
            sample = list(map(itemgetter("sample"), gobjs))
        except KeyError:
            return -1
        n_all = qid.count("all")
        if n_all == len(qid):
            continue
        need = ("runi", "runj") if kind == "preference" else ("run",) if kind == "metric" else None
        if need is None:
            return -1
        keep = np.ones(len(qid), bool) if n_all == 0 else np.fromiter((q != "all" for q in qid), bool, len(qid))
        sel = np.flatnonzero(keep)
        kt = tuple(gobjs[int(sel[0])])  # key order of the first per-query line
        if set(map(len, gobjs)) != {len(kt)} or any(k not in kt for k in need):
            return -1
        vkeys = [k for k in kt if k not in ID_KEYS]
        try:
            col = {k: list(map(itemgetter(k), gobjs)) for k in need}
            # all value columns at once: one tuple per line, one numpy conversion
            rows = list(map(itemgetter(*vkeys), gobjs)) if vkeys else []
        except KeyError:  # same number of keys, other names
            return -1
        if n_all:
            ks = sel.tolist()
            qid, sample = [qid[i] for i in ks], [sample[i] for i in ks]
            col = {k: [v[i] for i in ks] for k, v in col.items()}
            rows = [rows[i] for i in ks] if vkeys else rows
        if not set(map(type, sample)) <= {int, str, float}:
            return -1
        vals = {}
        if vkeys:
            # numbers only: Python ints / floats / bools give an int, float or bool
            # array (each value converted as float() would); anything else (str,
            # None, objects, ints beyond 64 bits) another dtype → the slow parser
            try:
                mat = np.array(rows)
            except (ValueError, TypeError, OverflowError):
                return -1
            if mat.dtype.kind not in "fiub" or mat.shape != ((len(rows), len(vkeys)) if len(vkeys) > 1 else (len(rows),)):
                return -1
            mat = mat.reshape(len(rows), len(vkeys)).astype(np.float64, copy=False)
            for j, k in enumerate(vkeys):
                vals[k] = (np.ascontiguousarray(mat[:, j]), np.ones(len(rows), bool))
        n0 = line0 + int(idx[sel[0]])
        for pos, k in enumerate(vkeys):
            if k not in first or (n0, pos) < first[k]:
                first[k] = (n0, pos)
        if kind == "metric":
            metric_keys.update(vkeys)
        b = list(map(str, col[need[1]])) if kind == "preference" else None
        parts.append((line0 + idx.astype(np.int64)[keep], kind, sample, list(map(str, qid)),
                      list(map(str, col[need[0]])), b, vals))
    return len(objs)  # = the chunk's lines (checked by _parse_all)


def _parts_of_records(recs: list) -> tuple[list, list, set]:
    keys: dict[str, None] = {}
    metric_keys: set = set()
    parts = []
    for kind in ("preference", "metric"):
        rs = [r for r in recs if r[1] == kind]
        if not rs:
            continue
        names: dict[str, None] = {}
        for r in rs:
            names.update(dict.fromkeys(r[6]))
        vals = {k: (np.array([float(r[6].get(k, 0.0)) for r in rs]), np.array([k in r[6] for r in rs], bool))
                for k in names}
        if kind == "metric":
            metric_keys.update(names)
        parts.append((np.array([r[0] for r in rs], dtype=np.int64), kind, [r[2] for r in rs], [r[3] for r in rs],
                      [r[4] for r in rs], [r[5] for r in rs] if kind == "preference" else None, vals))
    for r in recs:
        keys.update(dict.fromkeys(r[6]))
    return parts, list(keys), metric_keys


def read_pref_file(path: str) -> PrefFile:
    """Parse JSON lines (plain or gzip); errors name the file and line.

    Fast path: the whole file is parsed as one JSON document (orjson if
    installed) and checked per group of lines with the same keys; anything
    unusual goes through the line-by-line parser, which finds and reports
    the bad line.
    """
    from .io.jsonl_scan import scanner_available
    from .io.textfile import display_name, plain_file, read_input_bytes

    if scanner_available() and plain_file(path):
        scanned = _read_mapped(path)  # no copy of the file in memory
        if scanned is not None:
            return scanned
        data = read_input_bytes(path, what="preference file")
    else:
        data = read_input_bytes(path, what="preference file")
        scanned = _read_scanned(data)
        if scanned is not None:
            return scanned
    src = display_name(path)
    fast = _records_fast(data)
    parts, keys, metric_keys = fast if fast is not None else _parts_of_records(_records_slow(data, src))
    pf = PrefFile(keys=keys, metric_keys=metric_keys)
    qtab: dict = {}
    rtab: dict = {}
    for (kind, s), lines in _build(parts, qtab, rtab).items():
        (pf.prefs if kind == "preference" else pf.metrics)[s] = lines
    pf.qids, pf.runs = list(qtab), list(rtab)
    if not pf.prefs and not pf.metrics:
        raise InputError(src, 0, "no per-query lines (make the file with zelo_eval -q / pref_eval.py -q)")
    return pf


def _distinct(a: np.ndarray) -> np.ndarray:
    """Sorted distinct values (``np.unique`` without its lazy import of numpy.ma, ~15 ms at start-up)."""
    s = np.sort(a, kind="stable")
    return s[np.concatenate([[True], s[1:] != s[:-1]])] if len(s) else s


def _read_mapped(path: str) -> PrefFile | None:
    """:func:`_read_scanned` on a memory map of a plain file (None: not mappable or unusual)."""
    import mmap
    import os

    try:
        with open(path, "rb") as fh:
            if os.fstat(fh.fileno()).st_size == 0:
                return None
            with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                return _read_scanned(mm)  # the result holds copies, never views of the map
    except (OSError, ValueError):
        return None


def _read_scanned(data) -> PrefFile | None:
    """The file read by the C scanner (io/jsonl_scan.py), or None when it is not built or the file is unusual.

    Same result as the Python readers: lines grouped by (type, sample) in file
    order, "all" lines dropped, measure keys in order of first appearance
    (line, then position). Anything the fast Python path would refuse (a
    missing key, a string measure value, an unknown type, a non-string id)
    gives None, and the line-by-line parser reports it.
    """
    from .io.jsonl_scan import scan_columns

    sc = scan_columns(data)
    if sc is None:
        return None
    strtab, shapes = sc
    all_code = strtab.index("all") if "all" in strtab else -1
    first: dict[str, tuple[int, int]] = {}
    metric_keys: set = set()
    groups: list = []  # (kind, sample, line numbers, qid codes, a codes, b codes | None, {key: values})
    for sh in shapes:
        c = sh.cols
        if "qid" not in c or "sample" not in c or c["qid"].kind != "s":
            return None
        qid = sh.values("qid")
        keep = qid != all_code
        if not keep.any():
            continue
        if "type" not in c or c["type"].kind != "s":
            return None
        rows = slice(None) if keep.all() else np.flatnonzero(keep)
        typ = sh.values("type", rows)
        vkeys = [k for k in sh.keys if k not in ID_KEYS]
        if any(c[k].kind != "n" for k in vkeys):
            return None
        for t in _distinct(typ).tolist():
            kind = strtab[t]
            need = ("runi", "runj") if kind == "preference" else ("run",) if kind == "metric" else None
            if need is None or any(k not in c or c[k].kind != "s" for k in need):
                return None
            r = rows if (typ == t).all() else np.flatnonzero(keep)[typ == t]
            n0 = int(sh.lines[r][0])
            for pos, k in enumerate(vkeys):
                if k not in first or (n0, pos) < first[k]:
                    first[k] = (n0, pos)
            if kind == "metric":
                metric_keys.update(vkeys)
            scol = c["sample"]
            svals = sh.values("sample", r)
            if scol.kind == "s":
                conv = strtab.__getitem__
            elif scol.integers:
                if np.abs(svals).max() >= 2.0 ** 53:
                    return None
                conv = int
            else:
                conv = float
            us = _distinct(svals)
            for s in us.tolist():
                rs = r if len(us) == 1 else (np.arange(len(sh.lines))[r])[svals == s]
                num = sh.num[rs]  # one copy of the rows (a view when rs is a slice)
                groups.append((kind, conv(s), sh.lines[rs], sh.values("qid", rs), sh.values(need[0], rs),
                               sh.values(need[1], rs) if kind == "preference" else None,
                               {k: num[:, c[k].index] for k in vkeys}))
    if not groups:
        return None  # the Python reader reports the empty file
    # code tables: strings in order of first use in the file (code numbering never reaches the output)
    qused = _distinct(np.concatenate([g[3] for g in groups]))
    rused = _distinct(np.concatenate([g[4] for g in groups] + [g[5] for g in groups if g[5] is not None]))
    qmap = np.full(len(strtab), -1, dtype=np.int64)
    qmap[qused] = np.arange(len(qused))
    rmap = np.full(len(strtab), -1, dtype=np.int64)
    rmap[rused] = np.arange(len(rused))
    pf = PrefFile(keys=sorted(first, key=first.__getitem__), metric_keys=metric_keys,
                  qids=[strtab[i] for i in qused.tolist()], runs=[strtab[i] for i in rused.tolist()])
    by: dict = {}
    for kind, smp, ln, q, a, b, vals in groups:
        by.setdefault((kind, smp), []).append((
            ln, qmap[q], rmap[a], rmap[b] if b is not None else np.full(len(q), -1, dtype=np.int64),
            {k: (v, np.ones(len(q), bool)) for k, v in vals.items()}))
    for (kind, s), chunks in by.items():
        lines = _merge_chunks(chunks)
        (pf.prefs if kind == "preference" else pf.metrics)[s] = lines
    return pf


def _codes(values: list[str], table: dict) -> np.ndarray:
    """Codes of ``values`` in ``table`` (value → code), adding new ones."""
    for v in dict.fromkeys(values):
        if v not in table:
            table[v] = len(table)
    return np.fromiter(map(table.__getitem__, values), dtype=np.int64, count=len(values))


def _build(parts: list, qtab: dict, rtab: dict) -> dict:
    """Parts ``(line_no, kind, samples, qids, a, b, {key: (values, has)})`` → {(kind, sample): Lines} in file order."""
    by: dict = {}
    for ln, kind, samples, qids, a, b, vals in parts:
        q = _codes(qids, qtab)
        ca = _codes(a, rtab)
        cb = _codes(b, rtab) if b is not None else np.full(len(a), -1, dtype=np.int64)
        distinct = list(dict.fromkeys(samples))
        for s in distinct:
            sel = slice(None) if len(distinct) == 1 else \
                np.fromiter((x == s for x in samples), dtype=bool, count=len(samples))
            by.setdefault((kind, s), []).append((ln[sel], q[sel], ca[sel], cb[sel],
                                                 {k: (v[sel], h[sel]) for k, (v, h) in vals.items()}))
    return {key: _merge_chunks(chunks) for key, chunks in by.items()}


def _merge_chunks(chunks: list) -> Lines:
    """Chunks ``(line numbers, q, a, b, {key: (values, has)})`` of one (type, sample) → :class:`Lines` in file order.

    A key missing from a chunk reads 0 with ``has`` False there. One chunk is
    taken as it is (no copy).
    """
    if len(chunks) == 1:
        _, q, a, b, kv = chunks[0]
        return Lines(q=q, a=a, b=b, vals={k: v for k, (v, _) in kv.items()}, has={k: h for k, (_, h) in kv.items()})
    order = np.argsort(np.concatenate([c[0] for c in chunks]), kind="stable")
    names = dict.fromkeys(k for c in chunks for k in c[4])
    vals, has = {}, {}
    for k in names:
        vals[k] = np.concatenate([c[4][k][0] if k in c[4] else np.zeros(len(c[0])) for c in chunks])[order]
        has[k] = np.concatenate([c[4][k][1] if k in c[4] else np.zeros(len(c[0]), bool) for c in chunks])[order]
    return Lines(q=np.concatenate([c[1] for c in chunks])[order], a=np.concatenate([c[2] for c in chunks])[order],
                 b=np.concatenate([c[3] for c in chunks])[order], vals=vals, has=has)


def _sorted_desc(scores: dict) -> list[str]:
    """Runs by (score, run id) descending (pref_aggregate.py's ``sort(reverse=True)``)."""
    return [k for v, k in sorted(((v, k) for k, v in scores.items()), reverse=True)]


def _name_ranks(runs: list[str]) -> np.ndarray:
    """Position of each run id in Python's string order."""
    r = np.empty(len(runs), dtype=np.int64)
    r[sorted(range(len(runs)), key=runs.__getitem__)] = np.arange(len(runs))
    return r


def _query_order(q: np.ndarray) -> np.ndarray:
    """Distinct query codes (small non-negative ints) of ``q`` in order of first appearance, without a sort of ``q``."""
    if len(q) == 0:
        return np.zeros(0, dtype=np.int64)
    first = np.full(int(q.max()) + 1, len(q), dtype=np.int64)
    first[q[::-1]] = np.arange(len(q) - 1, -1, -1)  # the last write wins: each code's first index
    seen = np.flatnonzero(first < len(q))
    return seen[np.argsort(first[seen], kind="stable")]


def _rank_rows(score: np.ndarray, present: np.ndarray, qorder: np.ndarray, runs: list[str]) -> dict:
    """{query code: [run ids by (score, run id) descending]} for the queries of ``qorder``.

    One lexsort over every (query, run) cell: by query ascending, then by
    (score, run id's rank in Python's string order) descending.
    """
    nr = _name_ranks(runs)
    nq, nrun = score.shape
    sub = np.zeros(nq, bool)
    sub[qorder] = True
    cells = np.flatnonzero(present & sub[:, None])
    cq, cr = cells // nrun, cells % nrun
    o = np.lexsort((nr[cr], score.ravel()[cells], -cq))[::-1]  # reversed ascending: NaN scores first, as before
    cq, cr = cq[o], cr[o]
    bounds = np.searchsorted(cq, np.arange(nq + 1))
    names = np.array(runs, dtype=object)[cr].tolist()
    return {qc: names[bounds[qc]:bounds[qc + 1]] for qc in qorder.tolist()}


def _pref_keys(lines: Lines, nr: int) -> np.ndarray:
    """Cell (query·nr + run) of each line's runi and runj, interleaved: the order of the reference's sums."""
    keys = np.empty(2 * len(lines), dtype=np.int64)
    qn = lines.q * nr
    keys[0::2] = qn + lines.a
    keys[1::2] = qn + lines.b
    return keys


def query_rankings_from_prefs(pf: PrefFile, lines: Lines, measure: str, qmask: np.ndarray | None,
                              keys: np.ndarray | None = None, common: tuple | None = None) -> dict[str, list[str]]:
    """{qid: ranking} for a preference measure, queries in order of first appearance.

    score(run) = Σ +v over its lines as runi, −v as runj, accumulated in file
    order (``np.bincount`` adds in input order, as the reference's loop).
    ``keys``: :func:`_pref_keys` of ``lines`` (computed here if None);
    ``common``: (present cells, query order) of all of ``lines``, used when
    every line counts (the measure on every line, no query subset).
    """
    nq, nr = len(pf.qids), len(pf.runs)
    sel = lines.has[measure] if measure in lines.has else np.zeros(len(lines), bool)
    if qmask is not None:
        sel = sel & qmask[lines.q]
    if keys is None:
        keys = _pref_keys(lines, nr)
    v = lines.vals[measure] if measure in lines.vals else np.zeros(len(lines))
    w = np.empty((len(lines), 2))
    w[:, 0] = v
    np.negative(v, out=w[:, 1])
    w = w.ravel()
    every = bool(sel.all())
    if not every:
        sel2 = np.repeat(sel, 2)
        keys, w = keys[sel2], w[sel2]
    score = np.bincount(keys, weights=w, minlength=nq * nr).reshape(nq, nr)
    if every and common is not None:
        present, qorder = common
    else:
        present = (np.bincount(keys, minlength=nq * nr) > 0).reshape(nq, nr)
        qorder = _query_order(lines.q if every else lines.q[sel])
    ranks = _rank_rows(score, present, qorder, pf.runs)
    return {pf.qids[c]: r for c, r in ranks.items()}


def query_values_from_metrics(pf: PrefFile, lines: Lines, measure: str, qmask: np.ndarray | None):
    """(per-query rankings {qid: ranking}, mean ranking) of a metric.

    A (query, run) seen twice keeps its last value; the mean is Σ v/numq
    over the queries in order of first appearance (numq = queries with the
    metric), as pref_aggregate.py.
    """
    sel = lines.has[measure] if measure in lines.has else np.zeros(len(lines), bool)
    if qmask is not None:
        sel = sel & qmask[lines.q]
    q, a, v = lines.q[sel], lines.a[sel], lines.vals[measure][sel]
    nq, nr = len(pf.qids), len(pf.runs)
    cell = q * nr + a
    last = np.zeros(nq * nr, dtype=np.int64) - 1
    last[cell] = np.arange(len(cell))  # numpy keeps the last write for repeated indices
    present = last >= 0
    value = np.zeros(nq * nr)
    value[present] = v[last[present]]
    qorder = _query_order(q)
    ranks = _rank_rows(value.reshape(nq, nr), present.reshape(nq, nr), qorder, pf.runs)
    # mean: per run, Σ_q v/numq in query order (first appearance of (q, run) within a query is irrelevant)
    numq = float(len(qorder))
    qrank = np.empty(nq, dtype=np.int64)
    qrank[qorder] = np.arange(len(qorder))
    cells = np.flatnonzero(present)
    cq, cr = cells // nr, cells % nr
    o = np.lexsort((cr, qrank[cq]))
    avg = np.bincount(cr[o], weights=value[cells][o] / numq, minlength=nr)
    seen = np.bincount(cr, minlength=nr) > 0
    nrk = _name_ranks(pf.runs)
    idx = np.flatnonzero(seen)
    mean = [pf.runs[c] for c in idx[np.lexsort((nrk[idx], avg[idx]))[::-1]].tolist()]
    return {pf.qids[c]: r for c, r in ranks.items()}, mean


def _positions(rankings: list[list[str]]) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """(names in order of first appearance, then per ranked item: its ranking, name index, 0-based position)."""
    idx: dict[str, int] = {}
    flat = [idx.setdefault(x, len(idx)) for r in rankings for x in r]
    lens = np.fromiter(map(len, rankings), dtype=np.int64, count=len(rankings))
    rr = np.repeat(np.arange(len(rankings)), lens)
    starts = np.cumsum(lens) - lens
    jj = np.arange(len(flat), dtype=np.int64) - np.repeat(starts, lens)
    return list(idx), rr, np.array(flat, dtype=np.int64), jj


def _borda_points(rankings: list[list[str]], pos: tuple | None = None) -> tuple[list[str], np.ndarray]:
    """(names, points): n − j points at 0-based position j, n = length of the first ranking."""
    names, _, ni, jj = pos if pos is not None else _positions(rankings)
    n = len(rankings[0])
    return names, np.bincount(ni, weights=(n - jj).astype(np.float64), minlength=len(names))


def borda(rankings: list[list[str]], *, pos: tuple | None = None) -> list[str]:
    """Borda count: n − j points at 0-based position j (n = length of the first ranking).

    ``pos``: :func:`_positions` of ``rankings`` when the caller has it.
    """
    if not rankings:
        return []
    names, pts = _borda_points(rankings, pos)
    return _sorted_desc(dict(zip(names, pts.astype(np.int64).tolist())))


def _majority(nrank: int, n: int, rr: np.ndarray, ni: np.ndarray, jj: np.ndarray) -> np.ndarray:
    """C[a,b] = Σ_rankings sign(pos_b − pos_a) over rankings holding both (positions ``jj`` of names ``ni`` in ranking ``rr``)."""
    small = n < 30000 and (len(jj) == 0 or int(jj.max()) < 30000)
    pos = np.full((nrank, n), -1, dtype=np.int16 if small else np.int64)
    pos[rr, ni] = jj
    complete = bool((pos >= 0).all())
    C = np.zeros((n, n), dtype=np.int64)
    block = max(1, (1 << 22) // max(1, n * n))
    for k in range(0, nrank, block):
        p = pos[k:k + block]
        d = np.sign(p[:, None, :] - p[:, :, None])
        if not complete:
            d *= (p[:, :, None] >= 0) & (p[:, None, :] >= 0)
        C += d.sum(axis=0, dtype=np.int64)
    return C.astype(np.float64)


def majority_matrix(rankings: list[list[str]], names: list[str]) -> np.ndarray:
    """C[a,b] = #rankings with a above b − #rankings with b above a, states in the order of ``names``."""
    pnames, rr, ni, jj = _positions(rankings)
    idx = {n: i for i, n in enumerate(names)}
    to_names = np.array([idx[n] for n in pnames], dtype=np.int64)
    return _majority(len(rankings), len(names), rr, to_names[ni], jj)


def mc4_transition(C: np.ndarray) -> np.ndarray:
    """P[a,b] = 1/n if C[a,b] < 0 (b ≠ a); P[a,a] = 1 − Σ (subtracted one by one)."""
    n = len(C)
    P = np.where(C < 0, 1.0 / float(n), 0.0)
    np.fill_diagonal(P, 0.0)
    for i in range(n):
        ii = 1.0
        for _ in range(int((C[i] < 0).sum())):
            ii = ii - 1.0 / float(n)
        P[i, i] = ii
    return P


def mc4(rankings: list[list[str]], *, steps: int | None = None, damping: float = 0.15,
        pos: tuple | None = None) -> list[str]:
    """MC4 ordering; see the module docstring (``steps`` = pref_aggregate.py mode).

    States are the names in order of first appearance; ``pos``: :func:`_positions`
    of ``rankings`` when the caller has it.
    """
    if not rankings:
        return []
    pos = pos if pos is not None else _positions(rankings)
    names, rr, ni, jj = pos
    n = len(names)
    P = mc4_transition(_majority(len(rankings), n, rr, ni, jj))
    if steps is not None:
        e = np.ones(n)
        for _ in range(steps):
            ee = np.zeros(n)
            for j in range(n):  # Σ_j e[j]·P[j,i], summed in j order as the reference
                ee = ee + e[j] * P[j]
            e = ee
        return _sorted_desc(dict(zip(names, e.tolist())))
    pi = stationary(P, damping)
    _, bp = _borda_points(rankings, pos)
    key = [(round(float(p), 12), int(b), nm) for p, b, nm in zip(pi, bp.tolist(), names)]
    return [k[2] for k in sorted(key, reverse=True)]


def stationary(P: np.ndarray, damping: float) -> np.ndarray:
    """Stationary distribution of ``(1−α)P + α/n`` (dense eigen-solve, LAPACK ``geev`` via numpy)."""

    n = len(P)
    if not 0.0 < damping <= 1.0:
        raise UsageError("--damping must be in (0, 1] (use --mc4-steps for the undamped reference chain)")
    G = (1.0 - damping) * P + damping / n
    w, v = np.linalg.eig(G.T)
    k = int(np.argmin(np.abs(w - 1.0)))
    pi = np.real(v[:, k])
    pi = pi / pi.sum()
    return pi


@dataclass
class Aggregation:
    """One sample's results: ``per_query`` {qid: {measure: ranking}}, ``summary`` {measure: {...}}."""

    sample: int
    qids: list
    per_query: dict
    summary: dict


def aggregate(pf: PrefFile, measures: list[str], *, sample: int = 0, source_sample: int = 0,
              qids: list | None = None, mc4_steps: int | None = None, damping: float = 0.15) -> Aggregation:
    """Aggregate one sample (see the module docstring)."""
    empty = Lines(q=np.zeros(0, np.int64), a=np.zeros(0, np.int64), b=np.zeros(0, np.int64), vals={}, has={})
    plines = pf.prefs.get(source_sample, empty)
    mlines = pf.metrics.get(source_sample, empty)
    qmask = None
    if qids is not None:
        qset = set(qids)
        qmask = np.array([q in qset for q in pf.qids], dtype=bool)
    pq: dict[str, dict[str, list[str]]] = {}
    summary: dict[str, dict] = {}
    allq = np.concatenate([plines.q, mlines.q])
    if qmask is not None:
        allq = allq[qmask[allq]]
    order = [pf.qids[c] for c in _query_order(allq).tolist()]
    metric_rank: dict[str, dict[str, list[str]]] = {}
    pkeys = common = None
    for m in measures:
        if m in pf.metric_keys:
            metric_rank[m], mean = query_values_from_metrics(pf, mlines, m, qmask)
            summary[m] = {"type": "metric", "mean": mean}
        else:
            if pkeys is None:
                nr = len(pf.runs)
                pkeys = _pref_keys(plines, nr)
                common = ((np.bincount(pkeys, minlength=len(pf.qids) * nr) > 0).reshape(len(pf.qids), nr),
                          _query_order(plines.q))
            ranks = query_rankings_from_prefs(pf, plines, m, qmask, pkeys, common)
            for q, r in ranks.items():
                pq.setdefault(q, {})[m] = r
            rl = list(ranks.values())
            pos = _positions(rl) if rl else None
            summary[m] = {"type": "preference", "mc4": mc4(rl, steps=mc4_steps, damping=damping, pos=pos),
                          "borda": borda(rl, pos=pos)}
    for m, d in metric_rank.items():
        for q, r in d.items():
            pq.setdefault(q, {})[m] = r
    return Aggregation(sample=sample, qids=order, per_query=pq, summary=summary)


def json_lines(agg: Aggregation, measures: list[str], *, per_query: bool, summary: bool):
    """pref_aggregate.py's lines: per query (preference measures first), then the summary."""
    if per_query:
        prefs = [m for m in measures if agg.summary[m]["type"] == "preference"]
        mets = [m for m in measures if agg.summary[m]["type"] == "metric"]
        for q in agg.qids:
            obj = {"qid": q, "sample": agg.sample}
            for m in prefs + mets:
                if m in agg.per_query.get(q, {}):
                    obj[m] = agg.per_query[q][m]
            yield json.dumps(obj) + "\n"
    if summary:
        obj = {"qid": "all", "sample": agg.sample}
        for m in measures:
            obj[m] = agg.summary[m]
        yield json.dumps(obj) + "\n"

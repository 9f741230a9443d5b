"""Reader of preference JSON lines (the ``-q`` output of ``zelo_eval`` / ``pref_eval.py``).

:func:`read_pref_file` returns a :class:`PrefFile`: per sample, the per-query
preference lines (runi, runj, one value per measure) and metric lines (run,
one value per measure) as numpy columns in file order, with query and run code
tables. Three paths give the same result: the optional C scanner
(:mod:`pref_eval.io.jsonl_scan`), orjson in chunks, and a line-by-line
``json.loads`` fallback that names the first bad line. The rankings computed
from it are in :mod:`pref_eval.rank_aggregation`.
"""
from __future__ import annotations

import json
import math
from dataclasses import field
from operator import itemgetter

import numpy as np

from ..records import record
from ..errors import InputError, shown
from .keys import distinct
from .textfile import DuplicateKey, unique_keys

ID_KEYS = ("qid", "sample", "type", "runi", "runj", "run")


@record
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


@record
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

    def sample_qids(self, sample: int) -> list[str]:
        """Query ids of a sample in order of first appearance (metric lines first, then preference lines)."""
        codes = [x.q for x in (self.metrics.get(sample), self.prefs.get(sample)) if x is not None]
        allq = np.concatenate(codes) if codes else np.zeros(0, np.int64)
        u, first = np.unique(allq, return_index=True)
        return [self.qids[c] for c in u[np.argsort(first, kind="stable")].tolist()]


def _is_number(x, kind: str | None = "preference") -> bool:
    """A JSON number, not ``true``/``false`` (pref_aggregate.py would sum them as 0/1), not
    ``Infinity`` nor an overflowing literal such as ``1e400`` (read as infinity) or an integer literal
    beyond the doubles (``1`` and 400 zeros: ``float()`` raises OverflowError); ``NaN`` only in
    metric lines (an undefined per-query metric, as Python's json writes it), never in a preference."""
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return False
    if isinstance(x, int):
        try:
            x = float(x)
        except OverflowError:
            return False
    return math.isfinite(x) or (kind == "metric" and math.isnan(x))


def _bad_sample(v) -> bool:
    """Sample ids are integers >= 0 (an integral float such as 0.0 is the same sample, as in Python)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return True
    return v < 0 or (isinstance(v, float) and not v.is_integer())


def _records_slow(data: bytes, src: str):
    """Line-by-line parse with file:line errors: [(line, kind, sample, qid, a, b, vals)]."""
    out = []
    for ln, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        obj = _checked_object(raw, src, ln)
        if obj["qid"] == "all":
            continue
        kind = obj.get("type")
        vals = {k: v for k, v in obj.items() if k not in ID_KEYS}
        run_a, run_b = _line_runs(obj, kind, src, ln)
        for k, v in vals.items():
            if not _is_number(v, kind):
                raise InputError(src, ln, f"{k}: expected a number, got {json.dumps(v)} (a finite JSON number)")
        out.append((ln, kind, obj["sample"], str(obj["qid"]), run_a, run_b, vals))
    return out


def _checked_object(raw: bytes, src: str, ln: int) -> dict:
    """Line ``ln`` as a JSON object with no repeated key, a ``qid`` and a ``sample`` id, and string ids
    (a summary line, ``"qid": "all"``, only the first two: it is dropped)."""
    try:
        obj = json.loads(raw, object_pairs_hook=unique_keys)
    except DuplicateKey as err:  # the message of every JSON reader of our formats (textfile.unique_keys)
        raise InputError(src, ln, str(err)) from None
    except (ValueError, RecursionError):
        raise InputError(src, ln, "expected a JSON object (a line of zelo_eval / pref_eval.py output)") from None
    if not isinstance(obj, dict) or "qid" not in obj or "sample" not in obj:
        raise InputError(src, ln, "expected a JSON object with 'qid' and 'sample'")
    if obj["qid"] == "all":  # a summary line, dropped unread (as the scanner's and orjson's paths drop it)
        return obj
    if _bad_sample(obj["sample"]):
        raise InputError(src, ln, f"sample: expected an integer >= 0, got {json.dumps(obj['sample'])}")
    for k in ("qid", "runi", "runj", "run"):
        if k in obj and not isinstance(obj[k], str):
            raise InputError(src, ln, f"{k}: expected a string, got {json.dumps(obj[k])}")
    return obj


def _line_runs(obj: dict, kind, src: str, ln: int) -> tuple[str, str | None]:
    """(runi, runj) of a preference line, (run, None) of a metric line."""
    try:
        if kind == "preference":
            ab = (str(obj["runi"]), str(obj["runj"]))
            if ab[0] == ab[1]:
                raise InputError(src, ln, f"runi and runj are the same run {shown(ab[0])}")
            return ab
        if kind == "metric":
            return str(obj["run"]), None
    except KeyError as err:
        raise InputError(src, ln, f"missing key {err}") from None
    raise InputError(src, ln, f"unknown line type {shown(kind)} (expected preference or metric)")


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
    if objs is None or not _no_repeated_key(chunk, sum(map(len, objs))):
        return -1  # (the second: a line may repeat a key, which the parsed objects no longer show)
    try:
        table: dict = {}
        codes = _codes([o.get("type") for o in objs], table)
    except TypeError:  # an unhashable "type"
        return -1
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(table) + 1))
    for kind, c in table.items():
        idx = order[bounds[c]:bounds[c + 1]]
        try:
            group = _group_columns(kind, [objs[i] for i in idx.tolist()])
        except _Unusual:
            return -1
        if group is None:  # summary lines only
            continue
        keep, first_row, samples, qids, run_a, run_b, vals = group
        n0 = line0 + int(idx[first_row])
        for pos, k in enumerate(vals):
            if k not in first or (n0, pos) < first[k]:
                first[k] = (n0, pos)
        if kind == "metric":
            metric_keys.update(vals)
        parts.append((line0 + idx.astype(np.int64)[keep], kind, samples, qids, run_a, run_b, vals))
    return len(objs)  # = the chunk's lines (checked by _parse_all)


def _no_repeated_key(chunk: bytes, nkeys: int) -> bool:
    """Whether no line of ``chunk`` repeats a key, ``nkeys`` being the number of distinct keys of its lines
    (the parsed objects' lengths: orjson and json keep a repeated key's last value, the line parser refuses
    the line). Each key is followed by its own colon, so the colons are at least as many as the keys, and
    so are the quotes followed by a colon after blanks (a key's closing quote is); either count equal to
    ``nkeys``: no key is repeated. (Colons in strings or nested objects only make the counts larger: the
    line parser decides.) The colons first: one byte counted, a small part of the parse's time."""
    if chunk.count(b":") == nkeys:
        return True
    if b'" ' in chunk or b'"\t' in chunk or b'"\r' in chunk:
        import re

        return len(re.findall(rb'"[ \t\r]*:', chunk)) == nkeys
    return chunk.count(b'":') == nkeys


class _Unusual(Exception):
    """A group of lines the chunked fast path does not take: the line-by-line parser decides."""


def _group_columns(kind, gobjs: list[dict]):
    """The per-query lines of one ``type`` in a chunk as columns, or None if all are summaries.

    Returns ``(keep, first_row, samples, qids, a, b, vals)``: ``keep`` masks the
    per-query lines (``"qid"`` not ``"all"``), ``first_row`` is the group's first
    of them; ``a``/``b`` the runi/runj (or run, None) strings; ``vals`` one float64
    column per measure key, in the key order of the first per-query line. Raises
    :class:`_Unusual` for a missing key, lines with other keys, a non-number value.
    """
    try:
        qid = list(map(itemgetter("qid"), gobjs))
        sample = list(map(itemgetter("sample"), gobjs))
    except KeyError:
        raise _Unusual from None
    n_all = qid.count("all")
    if n_all == len(qid):
        return None
    need: tuple[str, ...] | None = ("runi", "runj") if kind == "preference" else ("run",) if kind == "metric" else None
    if need is None:
        raise _Unusual
    keep = np.ones(len(qid), bool) if n_all == 0 else np.fromiter((q != "all" for q in qid), bool, len(qid))
    sel = np.flatnonzero(keep)
    kt = tuple(gobjs[int(sel[0])])  # key order of the first per-query line
    if set(map(len, gobjs)) != {len(kt)} or any(k not in kt for k in need):
        raise _Unusual
    vkeys = [k for k in kt if k not in ID_KEYS]
    try:
        col = {k: list(map(itemgetter(k), gobjs)) for k in need}
        # all value columns at once: one tuple per line, one numpy conversion
        rows = list(map(itemgetter(*vkeys), gobjs)) if vkeys else []
    except KeyError:  # same number of keys, other names
        raise _Unusual from None
    if n_all:
        ks = sel.tolist()
        qid, sample = [qid[i] for i in ks], [sample[i] for i in ks]
        col = {k: [v[i] for i in ks] for k, v in col.items()}
        rows = [rows[i] for i in ks] if vkeys else rows
    if not set(map(type, sample)) <= {int, str, float}:
        raise _Unusual
    if any(set(map(type, ids)) != {str} for ids in (qid, *col.values())):
        raise _Unusual  # an id that is not a string: the line parser names it (str() would make one up)
    vals = _value_columns(rows, vkeys)
    run_b = list(map(str, col[need[1]])) if kind == "preference" else None
    return keep, int(sel[0]), sample, list(map(str, qid)), list(map(str, col[need[0]])), run_b, vals


def _value_columns(rows: list, vkeys: list[str]) -> dict:
    """``{key: (float64 values, has)}`` from one tuple (or value) per line.

    Numbers only: Python ints / floats / bools give an int, float or bool
    array (each value converted as float() would); anything else (str, None,
    objects, ints beyond 64 bits) another dtype → :class:`_Unusual`.
    """
    vals: dict = {}
    if not vkeys:
        return vals
    try:
        mat = np.array(rows)
    except (ValueError, TypeError, OverflowError):
        raise _Unusual from None
    want = (len(rows), len(vkeys)) if len(vkeys) > 1 else (len(rows),)
    if mat.dtype.kind not in "fiub" or mat.shape != want:
        raise _Unusual
    mat = mat.reshape(len(rows), len(vkeys)).astype(np.float64, copy=False)
    for j, k in enumerate(vkeys):
        vals[k] = (np.ascontiguousarray(mat[:, j]), np.ones(len(rows), bool))
    return vals


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
    from .jsonl_scan import scanner_available
    from .textfile import display_name, plain_file, read_input_bytes

    src = display_name(path)
    scanner = scanner_available()
    if scanner and plain_file(path):
        scanned = _read_mapped(path)  # no copy of the file in memory
        if scanned is not None and _valid(scanned):
            return scanned
        data = read_input_bytes(path, what="preference file")
    else:
        data = read_input_bytes(path, what="preference file")
        scanned = _read_scanned(data) if scanner else None
        if scanned is not None and _valid(scanned):
            return scanned
    # the C scanner found the file unusual (or is not built): the Python readers decide
    fast = None
    if not scanner and not any(w in data for w in (b"true", b"false", b"NaN", b"Infinity", b"null")):
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
    if fast is not None and not _valid(pf):
        _records_slow(data, src)  # names the line
        raise InputError(src, 0, "a sample id, a value or a pair of runs is invalid")
    return pf


def _valid(pf: PrefFile) -> bool:
    """What the fast readers let through and the line parser refuses: a sample id that is not an
    integer >= 0, a preference that is not finite (a metric may be NaN, not infinite), a preference
    of a run over itself."""
    for table in (pf.prefs, pf.metrics):
        for smp, lines in table.items():
            if _bad_sample(smp):
                return False
            ok = np.isfinite if table is pf.prefs else (lambda v: ~np.isinf(v))
            if any(not bool(ok(v).all()) for v in lines.vals.values()):
                return False
    return all(not bool((lines.a == lines.b).any()) for lines in pf.prefs.values())


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
    from .jsonl_scan import scan_columns

    sc = scan_columns(data)
    if sc is None:
        return None
    strtab, shapes = sc
    all_code = strtab.index("all") if "all" in strtab else -1
    first: dict[str, tuple[int, int]] = {}
    metric_keys: set = set()
    groups: list = []  # (kind, sample, line numbers, qid codes, a codes, b codes | None, {key: values})
    try:
        for sh in shapes:
            _shape_groups(sh, strtab, all_code, first, metric_keys, groups)
    except _Unusual:
        return None
    if not groups:
        return None  # the Python reader reports the empty file
    return _scanned_file(groups, strtab, first, metric_keys)


def _shape_groups(sh, strtab: list[str], all_code: int, first: dict, metric_keys: set, groups: list) -> None:
    """Append the groups (one per type and sample) of the lines of one key shape of the scanner."""
    c = sh.cols
    if "qid" not in c or "sample" not in c or c["qid"].kind != "s":
        raise _Unusual
    keep = sh.values("qid") != all_code
    if not keep.any():
        return
    if "type" not in c or c["type"].kind != "s":
        raise _Unusual
    rows = slice(None) if keep.all() else np.flatnonzero(keep)
    typ = sh.values("type", rows)
    vkeys = [k for k in sh.keys if k not in ID_KEYS]
    if any(c[k].kind != "n" for k in vkeys):
        raise _Unusual
    for t in distinct(typ).tolist():
        kind = strtab[t]
        need: tuple[str, ...] | None = (("runi", "runj") if kind == "preference" else ("run",) if kind == "metric"
                                        else None)
        if need is None or any(k not in c or c[k].kind != "s" for k in need):
            raise _Unusual
        r = rows if (typ == t).all() else np.flatnonzero(keep)[typ == t]
        n0 = int(sh.lines[r][0])
        for pos, k in enumerate(vkeys):
            if k not in first or (n0, pos) < first[k]:
                first[k] = (n0, pos)
        if kind == "metric":
            metric_keys.update(vkeys)
        svals = sh.values("sample", r)
        conv = _sample_type(c["sample"], svals, strtab)
        us = distinct(svals)
        for s in us.tolist():
            rs = r if len(us) == 1 else (np.arange(len(sh.lines))[r])[svals == s]
            num = sh.num[rs]  # one copy of the rows (a view when rs is a slice); columns copied contiguous
            # below, as the Python readers give them: numpy 2.4's np.negative misreads inputs strided 64 bytes
            groups.append((kind, conv(s), sh.lines[rs], sh.values("qid", rs), sh.values(need[0], rs),
                           sh.values(need[1], rs) if kind == "preference" else None,
                           {k: np.ascontiguousarray(num[:, c[k].index]) for k in vkeys}))


def _sample_type(scol, svals: np.ndarray, strtab: list[str]):
    """The conversion of the scanner's sample values: a string code or an int. A sample written as a float
    (``0.0``, or ``1e-400``, which is 0.0) goes to the Python readers: a group's key is its first line's value as
    json reads it (``0`` or ``0.0``), which the scanner's column type cannot tell (it keyed such a file's group
    0.0 where its first line said 0)."""
    if scol.kind == "s":
        return strtab.__getitem__
    if scol.integers:
        if np.abs(svals).max() >= 2.0 ** 53:
            raise _Unusual
        return int
    raise _Unusual


def _scanned_file(groups: list, strtab: list[str], first: dict, metric_keys: set) -> PrefFile:
    """The scanner's groups with code tables of the strings in order of first use in the file
    (code numbering never reaches the output)."""
    qused = distinct(np.concatenate([g[3] for g in groups]))
    rused = distinct(np.concatenate([g[4] for g in groups] + [g[5] for g in groups if g[5] is not None]))
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

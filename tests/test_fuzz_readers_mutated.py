"""Differential fuzz of the TREC and text-judgment readers on *mutated* real files.

tests/test_io_fastpath.py and tests/test_zelo_fast_readers.py compare the fast
paths with the general ones on random well-formed files; here real files
(tests/data/trec_eval_test, judgments/) get seeded hostile edits -- bytes
flipped, NUL, invalid UTF-8, BOM, CR-only and mixed line ends, a cut last
line, fields added, removed or emptied, numbers such as ``1e400 nan inf -0
0x10 1_000 +1 .5 5.``, unicode digits, very long tokens, ``#`` mid-line,
tabs/``\\v``/``\\f``, duplicate lines -- and every path must give the same
table or the same refusal (``InputError``, same line, same message), never a
traceback. The paths compared:

* runs, qrels: ``read_run``/``read_qrels`` of the plain file (pyarrow fast
  path, forced on small files, whole and cut in parallel parts) and of its
  gzip twin, against the general tokenizer (``try_fast=False``) on the bytes
  as :func:`~pref_eval.io.textfile.read_input_bytes` gives them (BOM dropped,
  CR-only line ends read as LF: the documented file policy);
* ``-R prefs`` / ``-R qrels_prefs`` (:mod:`pref_eval.io.prefs`): fast path on
  and off;
* clarke3, clarke4, llmlog, carterette, xie judgments: ``read_judgments`` of the
  file and of its gzip twin (vectorised columns, pyarrow forced or not)
  against the format's line parser (``judgments.READERS``) alone;
* zbench ``ai_scores.json`` (tests/data/zelo/zbench, as stored and re-indented):
  ``read_judgments`` of the file and of its gzip twin (the orjson column path
  where it takes the document) and of the file with that path removed, against
  the JSON parser (``judgments.READERS["zbench"]``) alone; both tie rules, with
  and without the case's dataset (``zelo_fit --dataset``: closed queries, an
  unknown document is an error). Besides the byte edits above, the document
  gets JSON edits: a value replaced by ``1e400 NaN Infinity -0 true null "" []
  {}``, a 400-digit integer, an id with a tab or a lone surrogate, a key
  removed or repeated, an element duplicated or replaced, ``scored_pairs``
  empty or not a list;
* zbench dataset and annotated JSON lines (one reader each): the records or
  one ``file:line`` refusal, the same for the gzip twin, never a traceback.

The oracle for *which* answer is right is the format's definition (docs/input-formats.md,
docs/differences.md); the hostile values themselves are pinned in tests/test_io_malformed.py.

trec_eval's preference rel-info files (``-R prefs``, ``-R qrels_prefs``, ``-R qrels_jg``; ``--format
trecprefs`` of the zELO commands) have one reader each: mutated real files
(tests/data/trec_eval_test, tests/data/trec_prefs_generated) are read by it and by a reference parse
written here from trec_eval's description of the format (get_prefs.c: white-space separated fields,
``#`` first on a line a comment) and our documented rules (docs/trec-preferences.md: blank lines
skipped, finite decimal levels, integer ``qrels_jg`` grades, a docno once per (qid, jg)): the same
table (and the same zELO judgments, derived from the reference table as get_prefs.c states) or an
error on the same line, never a traceback. Where the trec_eval 10 binary is at
``/tmp/trec_eval/trec_eval`` (not in CI), ``zelo_trec`` is also run against it on mutated files: the
same stdout where trec_eval accepts the file, else a one-line ``file:line`` refusal, except the
documented differences (docs/differences.md).
"""
from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import traceback
from pathlib import Path

import numpy as np
import pytest

import pref_eval.io.fastparse as fp
from pref_eval.errors import InputError, UsageError
from pref_eval.io import judgment_columns as jc
from pref_eval.io import judgments as formats
from pref_eval.io.prefs import (prefs_from_bytes, qrels_jg_from_bytes, qrels_prefs_from_bytes, read_prefs,
                                read_qrels_jg, read_qrels_prefs)
from pref_eval.io.qrels import qrels_from_lines, read_qrels
from pref_eval.io.runs import read_run, run_from_bytes
from pref_eval.io.textfile import UTF8_BOM, cr_line_ends, decode_utf8
from pref_eval.zelo.judgments import Judgments, from_dataset

from conftest import DATA, ROOT

HOSTILE = [b"1e400", b"-1e400", b"1e-400", b"nan", b"NaN", b"inf", b"-inf", b"Infinity", b"-0", b"0x10", b"1_000",
           b"9" * 400, b"+1", b".5", b"5.", "\u0663".encode(), "\uff11".encode(), b"x" * 5000, b"#", b"# c", b"\t",
           b"\x0b", b"\x0c", b"\x00", b"\xff", b"\xe9", b"\xc2\xa0", b"\x85", b"\x1c", UTF8_BOM, b"\r", b"\r\n",
           b"\n", b"", b" ", b"-", b"e5", b"1e", b"00", b"1.5e+3", b"9223372036854775808", b"2.0"]


def _head(path, n=30) -> bytes:
    return b"".join(path.read_bytes().splitlines(keepends=True)[:n])


def mutate(rng: np.random.Generator, data: bytes) -> bytes:
    """One to three seeded hostile edits of ``data``."""
    b = data
    for _ in range(int(rng.integers(1, 4))):
        k = int(rng.integers(0, 10))
        pos = int(rng.integers(0, max(len(b), 1)))
        h = HOSTILE[int(rng.integers(0, len(HOSTILE)))]
        lines = b.split(b"\n")
        i = int(rng.integers(0, len(lines)))
        sep = b"\t" if b"\t" in lines[i] else b" "
        f = lines[i].split(sep)
        j = int(rng.integers(0, len(f)))
        if k == 0 and b:
            b = b[:pos] + bytes([int(rng.integers(0, 256))]) + b[pos + 1:]
        elif k == 1:
            b = b[:pos] + h + b[pos:]
        elif k in (2, 3):  # a field replaced by (or extended with) a hostile value, the line's separator kept
            f[j] = h if k == 2 else f[j] + h
            lines[i] = sep.join(f)
            b = b"\n".join(lines)
        elif k == 4:
            b = b[:pos]
        elif k == 5:
            b = b.replace(b"\n", b"\r", int(rng.integers(1, 3)))
        elif k == 6:
            lines.insert(i, lines[i])
            b = b"\n".join(lines)
        elif k == 7:  # a field removed or added
            if rng.random() < 0.5:
                f.pop(j)
            else:
                f.append(b"extra")
            lines[i] = sep.join(f)
            b = b"\n".join(lines)
        elif k == 8:
            b = b.replace(sep, b"\t" if sep == b" " else b" ", 1)
        else:
            b = UTF8_BOM + b
    return b


def _as_read(raw: bytes) -> bytes:
    """``raw`` as the file readers see it (textfile policy: BOM dropped, CR-only line ends)."""
    return cr_line_ends(raw[3:] if raw[:3] == UTF8_BOM else raw)


def _outcome(fn, *names):
    try:
        return ("ok", fn())
    except (InputError, UsageError) as err:
        msg = str(err)
        for name in names:
            msg = msg.replace(name, "f")
        return ("error", msg)
    except Exception:  # noqa: BLE001 -- a traceback is the failure this test looks for
        return ("traceback", traceback.format_exc())


def _run_table(r):
    return r.qid.tolist(), r.docno.tolist(), r.score.tolist(), r.line.tolist(), r.tag


def _qrels_table(q):
    return q.qid.tolist(), q.iter.tolist(), q.docno.tolist(), q.rel.tolist(), q.line.tolist()


def _prefs_table(p):
    return p.qid.tolist(), p.jg.tolist(), p.jsg.tolist(), p.docno.tolist(), p.rel.tolist(), p.line.tolist()


def _judgments_table(j):
    return (j.queries, {q: list(d) for q, d in j.docs.items()}, [c.tolist() for c in j.arrays()], j.missing,
            repr(j.votes))


def _trec_seeds():
    runs = [_head(DATA / "trec_eval_test" / "results.test"), _head(ROOT / "runs" / sorted(
        p.name for p in (ROOT / "runs").iterdir() if p.suffix != ".md")[0])]
    runs.append(b"".join(b" ".join(ln.split()) + b"\n" for ln in runs[0].splitlines()))  # regular: fast path
    qrels = [_head(DATA / "trec_eval_test" / "qrels.test"), _head(ROOT / "qrels" / "dl19-sample.qrels")]
    prefs = [_head(DATA / "trec_eval_test" / "prefs.test")]
    return runs, qrels, prefs


def _judgment_seeds():
    c3 = _head(ROOT / "judgments" / "dl19-sample.judge")
    rng = np.random.default_rng(0)
    cart = b"".join(b"%s %s %s %d\n" % (*ln.split()[:3], rng.integers(-2, 3)) for ln in c3.splitlines())
    xie = b"".join(b"q%d\tbaidu/q_%d.jpg,baidu/q_%d.jpg\t%d\t%d\t%d\n" % (k % 3, k, k + 1, *rng.integers(-2, 3, 3))
                   for k in range(20))
    return {"clarke3": c3, "clarke4": _head(ROOT / "judgments" / "dl21-crowd-sample.txt"),
            "llmlog": _head(ROOT / "judgments" / "dl21-gpt4o-sample.human"), "carterette": cart, "xie": xie}


def _files(tmp_path, raw: bytes):
    p, g = tmp_path / "f", tmp_path / "f.gz"
    p.write_bytes(raw)
    g.write_bytes(gzip.compress(raw))
    return str(p), str(g)


def _agree(results: dict, what: str, raw: bytes) -> None:
    want = results.pop("general")
    assert want[0] != "traceback", (what, raw[:300], want[1])
    for path, got in results.items():
        assert got == want, (what, path, raw[:300], got if got[0] != "ok" else "a different table",
                             want if want[0] != "ok" else "ok")


def sweep_trec(tmp_path, n: int, seed: int) -> int:
    """``n`` mutated runs, qrels and prefs files; returns how many the fast path took."""
    runs, qrels, prefs = _trec_seeds()
    rng = np.random.default_rng(seed)
    took = 0
    for k in range(n):
        kind = ("run", "qrels", "prefs")[k % 3]
        seeds = {"run": runs, "qrels": qrels, "prefs": prefs}[kind]
        raw = mutate(rng, seeds[int(rng.integers(0, len(seeds)))])
        data = _as_read(raw)
        p, g = _files(tmp_path, raw)
        fp.SPLIT_MIN = 0 if k % 2 else 1 << 40
        if kind == "run":
            res = {"general": _outcome(lambda data=data: _run_table(run_from_bytes(data, "f", try_fast=False))),
                   "file": _outcome(lambda p=p: _run_table(read_run(p)), p),
                   "gzip": _outcome(lambda g=g: _run_table(read_run(g)), g),
                   "bytes": _outcome(lambda data=data: _run_table(run_from_bytes(data, "f")))}
        elif kind == "qrels":
            res = {"general": _outcome(lambda data=data: _qrels_table(qrels_from_lines(data, "f", try_fast=False))),
                   "file": _outcome(lambda p=p: _qrels_table(read_qrels(p)), p),
                   "gzip": _outcome(lambda g=g: _qrels_table(read_qrels(g)), g),
                   "bytes": _outcome(lambda data=data: _qrels_table(qrels_from_lines(data, "f")))}
        else:  # prefs: each reader with the fast path off (general) and on
            for reader in (prefs_from_bytes, qrels_prefs_from_bytes):
                fp.PYARROW_MIN = 1 << 40
                general = _outcome(lambda reader=reader, data=data: _prefs_table(reader(data, "f")))
                fp.PYARROW_MIN = 0
                fast = _outcome(lambda reader=reader, data=data: _prefs_table(reader(data, "f")))
                _agree({"general": general, "fast": fast}, reader.__name__, raw)
            res = {"general": ("ok", None)}
        took += fp.fast_columns(data, min_fields=4, max_fields=None, kinds={0: "S"}) is not None
        _agree(res, kind, raw)
    return took


def sweep_judgments(tmp_path, n: int, seed: int) -> None:
    seeds = _judgment_seeds()
    fmts = list(seeds)
    rng = np.random.default_rng(seed)
    for k in range(n):
        fmt = fmts[k % len(fmts)]
        raw = mutate(rng, seeds[fmt])
        p, g = _files(tmp_path, raw)

        def parser(raw=raw, fmt=fmt):
            out = Judgments()
            out.format = fmt
            # the text formats take bytes that are not UTF-8 as an id's (session 25, w35)
            formats.READERS[fmt](_as_read(raw).decode("utf-8", "surrogateescape"), "f", out, "half")
            return _judgments_table(out)

        jc.PYARROW_MIN = 0 if k % 2 else 1 << 40
        _agree({"general": _outcome(parser),
                "file": _outcome(lambda p=p, fmt=fmt: _judgments_table(formats.read_judgments(p, fmt)), p),
                "gzip": _outcome(lambda g=g, fmt=fmt: _judgments_table(formats.read_judgments(g, fmt)), g)}, fmt, raw)


ZB = DATA / "zelo" / "zbench"
ZB_KEYS = (("pair", "query_id"), ("pair", "document_a", "document_id"), ("pair", "document_b", "document_id"),
           ("openai_score", "score"), ("anthropic_score", "score"), ("gemini_score", "score"), ("pair",),
           ("pair", "document_a"), ("openai_score",), ("gemini_score", "thought"))
ZB_VALUES = ["", " ", "a b", "a\tb", "a\nb", "\x00", "\ud800", "d000", "zz", "x" * 5000, 1, 0, -0.0, 1.5, -1, 2,
             0.5, 10 ** 400, 2 ** 64, -(2 ** 63) - 1, True, False, None, [], {}, [0.5], {"score": 1}, "0.5",
             float("nan"), float("inf"), -float("inf"), 1e-320]
ZB_TEXT = [b"1e400", b"-1e400", b"NaN", b"Infinity", b"-Infinity", b"-0", b"1E2", b"1.0e-2", b"0.50", b"true",
           b"null", b'"1"', b"[]", b"{}", b'"\\u0000"', b'"\\ud800"', b'"\\udc00x"', b"9" * 400, b'""', b'" "',
           b'"a\\tb"', b'"\\u00e9"', "\"\u00e9\"".encode(), b"01", b"+1", b".5"]


_VALUE_AT = re.compile(rb'"(?:score|document_id|query_id)": ?')
_LITERAL = re.compile(rb'"(?:[^"\\]|\\.)*"|[^,}\]\s]*')


def _zbench_seeds():
    """(document bytes, dataset) of case_small as stored and of case_soft's first 40 pairs, indented."""
    small = gzip.decompress((ZB / "case_small" / "ai_scores.json.gz").read_bytes())
    soft = json.loads(gzip.decompress((ZB / "case_soft" / "ai_scores.json.gz").read_bytes()))
    soft["scored_pairs"] = soft["scored_pairs"][:40]
    return [(small, formats.read_zbench_dataset(str(ZB / "case_small" / "dataset.jsonl"))),
            (json.dumps(soft, indent=2).encode(), formats.read_zbench_dataset(str(ZB / "case_soft" / "dataset.jsonl")))]


def _json_edit(rng: np.random.Generator, obj):
    """One seeded structural edit of a parsed ``ai_scores.json`` (in place where it can; returns the object)."""
    sp = obj.get("scored_pairs") if isinstance(obj, dict) else None
    if not isinstance(sp, list) or not sp or rng.random() < 0.04:
        return [{"scored_pairs": []}, {"scored_pairs": {}}, [obj], {"other": sp}, {}, None, 1][int(rng.integers(0, 7))]
    k = int(rng.integers(0, len(sp)))
    m = int(rng.integers(0, 6))
    if m == 3:
        sp.insert(k, json.loads(json.dumps(sp[k])))
        return obj
    if m == 4:
        sp[k] = ZB_VALUES[int(rng.integers(0, len(ZB_VALUES)))]
        return obj
    node = sp[k]
    path = ZB_KEYS[int(rng.integers(0, len(ZB_KEYS)))]
    for key in path[:-1]:
        if not isinstance(node, dict) or key not in node:
            return obj
        node = node[key]
    if not isinstance(node, dict):
        return obj
    if m == 5:
        node.pop(path[-1], None)
    else:
        node[path[-1]] = ZB_VALUES[int(rng.integers(0, len(ZB_VALUES)))]
    return obj


def mutate_zbench(rng: np.random.Generator, doc: bytes) -> bytes:
    """JSON edits (re-serialised compact or indented, as json writes them), then maybe text and byte edits."""
    b = doc
    if rng.random() < 0.7:
        obj = json.loads(b)
        for _ in range(int(rng.integers(1, 3))):
            obj = _json_edit(rng, obj)
        b = json.dumps(obj, indent=None if rng.random() < 0.5 else int(rng.integers(0, 3)),
                       ensure_ascii=bool(rng.random() < 0.5)).encode("utf-8", "surrogatepass")
    r = rng.random()
    if r < 0.35:  # a value as written: a literal json.dumps would not write, or a repeated key
        keys = [m.end() for m in _VALUE_AT.finditer(b)]
        if keys:
            at = keys[int(rng.integers(0, len(keys)))]
            end = at + len(_LITERAL.match(b, at).group(0))
            h = ZB_TEXT[int(rng.integers(0, len(ZB_TEXT)))]
            b = b[:at] + (h if rng.random() < 0.8 else b[at:end] + b', "score": ' + h) + b[end:]
    elif r < 0.6:
        b = mutate(rng, b)
    return b


def _zbench_paths(raw: bytes, dataset, ties: str, tmp_path) -> dict:
    p, g = _files(tmp_path, raw)

    def table():
        return from_dataset(dataset) if dataset is not None else None

    def parser():
        out = from_dataset(dataset) if dataset is not None else Judgments()
        out.format = "zbench"
        formats.READERS["zbench"](decode_utf8(_as_read(raw), "f"), "f", out, ties)
        return _judgments_table(out)

    def read(path):
        return _judgments_table(formats.read_judgments(path, "zbench", ties=ties, into=table()))

    res = {"general": _outcome(parser), "file": _outcome(lambda: read(p), p), "gzip": _outcome(lambda: read(g), g)}
    fast = jc.FAST_READERS.pop("zbench")
    try:
        res["no columns"] = _outcome(lambda: read(p), p)
    finally:
        jc.FAST_READERS["zbench"] = fast
    return res


def sweep_zbench(tmp_path, n: int, seed: int) -> int:
    """``n`` mutated zbench documents; returns how many the column path took."""
    seeds = _zbench_seeds()
    rng = np.random.default_rng(seed)
    took = 0
    for k in range(n):
        doc, dataset = seeds[k % len(seeds)]
        raw = mutate_zbench(rng, doc)
        ties = ("half", "zbench")[(k // 2) % 2]
        dataset = dataset if (k // 4) % 2 else None
        took += jc.zbench_columns(_as_read(raw), "", ties) is not None
        _agree(_zbench_paths(raw, dataset, ties, tmp_path), "zbench", raw)
    return took


PREFS_DATA = DATA / "trec_prefs_generated"
# (format, rel file, run file, extra trec_eval options, measures)
PREFS_SEEDS = [("prefs", PREFS_DATA / "case1.prefs", PREFS_DATA / "case1.run", [], "all_prefs"),
               ("prefs", PREFS_DATA / "case2.prefs", PREFS_DATA / "case2_missing.run", ["-c"], "all_prefs"),
               ("prefs", DATA / "trec_eval_test" / "prefs.comment.test", DATA / "trec_eval_test" / "prefs.results.test",
                [], "all_prefs"),
               ("qrels_prefs", PREFS_DATA / "case3.qrels", PREFS_DATA / "case3.run", [], "all_prefs"),
               ("qrels_jg", PREFS_DATA / "case4.qrels", PREFS_DATA / "case4.run", ["-l2", "-J"], "qrels_jg")]
_DECIMAL = re.compile(rb"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")
_GRADE = re.compile(rb"[+-]?[0-9]+(\.0*)?")


def reference_prefs(raw: bytes, fmt: str):
    """The table of a ``prefs``/``qrels_prefs``/``qrels_jg`` file, or ``("error", line)``, by plain Python.

    From get_prefs.c's description: fields separated by white space (C ``isspace``: what ``bytes.split``
    splits on), ``qid jg jsg docno rel_level`` (qrels_prefs: ``qid jg docno rel_level``, jsg ``0``;
    qrels_jg: ``qid jg docno rel``), ``#`` as a line's first byte a comment. Our documented rules on
    top (docs/trec-preferences.md, docs/input-formats.md): the BOM/CR file policy, blank lines
    skipped, the first line with another number of fields is the error, then an empty file (line 0),
    then the first level that is not a finite decimal (qrels_jg: a grade that is not an integer),
    then (qrels_jg) a docno given again in one (qid, jg). Before all of these, a NUL byte anywhere is the
    error (its line): C (trec_eval's ``strcmp``, ``atof``) would end the field there, ``3\\0`` and ``3``,
    ``ab\\0`` and ``ab`` would read alike.
    """
    nf = 5 if fmt == "prefs" else 4
    rows = []
    text = _as_read(raw)
    if b"\0" in text:
        return ("error", text[:text.index(b"\0")].count(b"\n") + 1)
    for no, line in enumerate(text.split(b"\n"), 1):
        f = line.split()
        if line.startswith(b"#") or not f:
            continue
        if len(f) != nf or max(map(len, f)) > 1 << 16:
            return ("error", no)
        rows.append((no, f))
    if not rows:
        return ("error", 0)
    for no, f in rows:
        v = f[-1]
        if fmt == "qrels_jg":
            if not _GRADE.fullmatch(v) or abs(int(v.split(b".")[0])) >= 1 << 63:
                return ("error", no)
        elif not _DECIMAL.fullmatch(v) or not np.isfinite(float(v)):
            return ("error", no)
    ids = [f[:-1] for _, f in rows]
    if fmt == "qrels_jg":
        seen = set()
        for (no, _), f in zip(rows, ids, strict=True):
            if tuple(f) in seen:
                return ("error", no)
            seen.add(tuple(f))
        return ("ok", [f[0] for f in ids], [f[1] for f in ids], [f[2] for f in ids],
                [int(f[-1].split(b".")[0]) for _, f in rows], [no for no, _ in rows])
    if fmt == "qrels_prefs":
        ids = [[q, jg, b"0", d] for q, jg, d in ids]
    return ("ok", *([f[k] for f in ids] for k in range(4)), [float(f[-1]) for _, f in rows], [no for no, _ in rows])


def reference_pairs(table) -> list:
    """get_prefs.c's judgments of a prefs table: inside each (qid, jg, jsg), lines i < j (file order) with
    different levels and docnos, the higher level winning; a (qid, jg, winner, loser) stated again is not
    another judgment. As ``(qid, doc of line i, doc of line j, 1.0 if line j wins else 0.0)``."""
    qid, jg, jsg, docno, rel = table[1:6]
    groups: dict = {}
    for k in range(len(qid)):
        groups.setdefault((qid[k], jg[k], jsg[k]), []).append(k)
    out, seen = [], set()
    for members in groups.values():
        for x, i in enumerate(members):
            for j in members[x + 1:]:
                if rel[i] == rel[j] or docno[i] == docno[j]:
                    continue
                win, lose = (i, j) if rel[i] > rel[j] else (j, i)
                key = (qid[i], jg[i], docno[win], docno[lose])
                if key not in seen:
                    seen.add(key)
                    out.append((qid[i], docno[i], docno[j], float(rel[j] > rel[i])))
    return out


def _prefs_reference_table(x, fmt: str) -> tuple:
    """A reader's table in :func:`reference_prefs`'s layout."""
    cols = (x.qid, x.jg, x.docno) if fmt == "qrels_jg" else (x.qid, x.jg, x.jsg, x.docno)
    return ("ok", *(c.tolist() for c in cols), x.rel.tolist(), x.line.tolist())


def _prefs_outcome(fn):
    """``("ok", table)``, ``("error", line)`` or ``("traceback", text)``."""
    try:
        return ("ok", fn())
    except InputError as err:
        return ("error", err.line)
    except Exception:  # noqa: BLE001 -- a traceback is the failure this test looks for
        return ("traceback", traceback.format_exc())


def sweep_trec_prefs(tmp_path, n: int, seed: int) -> None:
    """``n`` mutated prefs / qrels_prefs / qrels_jg files: each reader (bytes, file, gzip; fast path on or
    off) against :func:`reference_prefs`; prefs files also as zELO judgments against :func:`reference_pairs`."""
    readers = {"prefs": (prefs_from_bytes, read_prefs), "qrels_prefs": (qrels_prefs_from_bytes, read_qrels_prefs),
               "qrels_jg": (qrels_jg_from_bytes, read_qrels_jg)}
    rng = np.random.default_rng(seed)
    for k in range(n):
        fmt, rel = PREFS_SEEDS[k % len(PREFS_SEEDS)][:2]
        raw = mutate(rng, _head(rel, 60))
        want = reference_prefs(raw, fmt)
        from_bytes, from_file = readers[fmt]
        p, g = _files(tmp_path, raw)

        fp.PYARROW_MIN = 0 if k % 2 else 1 << 40
        data = _as_read(raw)
        for path, fn in (("bytes", lambda fb=from_bytes, data=data: fb(data, "f")),
                         ("file", lambda ff=from_file, p=p: ff(p)), ("gzip", lambda ff=from_file, g=g: ff(g))):
            got = _prefs_outcome(lambda fn=fn, fmt=fmt: _prefs_reference_table(fn(), fmt))
            assert got[0] != "traceback", (fmt, path, raw[:300], got[1])
            assert (got[1] if got[0] == "ok" else got) == want, (fmt, path, raw[:300], got, want)
        if fmt == "prefs" and want[0] == "ok" and _utf8(_as_read(raw)):
            j = formats.read_judgments(p, "trecprefs")
            q, a, b, score = (c.tolist() for c in j.arrays()[:4])
            judged = [(j.queries[x], j.docs[j.queries[x]][y], j.docs[j.queries[x]][z], v)
                      for x, y, z, v in zip(q, a, b, score, strict=True)]
            assert judged == [(x.decode(), y.decode(), z.decode(), v) for x, y, z, v in reference_pairs(want)], \
                raw[:300]


TREC_EVAL = Path("/tmp/trec_eval/trec_eval")


def trec_eval_difference(raw: bytes, te_stderr: bytes) -> str | None:
    """The documented difference (docs/differences.md, docs/input-formats.md) behind trec_eval's answer on
    ``raw``, or None: a BOM (part of trec_eval's first qid), a NUL (trec_eval stops reading there or
    corrupts its heap), two comment lines in a row or a comment last (trec_eval 10 reads the second
    as data, or past its buffer), a blank line (refused by trec_eval), CR-only line ends (one line for
    trec_eval), a rel-info topic the run lacks (trec_eval stops; we warn and go on)."""
    if raw.startswith(UTF8_BOM):
        return "BOM"
    if b"\0" in raw:
        return "NUL"
    lines = raw.split(b"\n")
    comment = [ln.startswith(b"#") for ln in lines]
    if any(a and b for a, b in zip(comment, comment[1:], strict=False)) or comment[-1] or (
            len(lines) > 1 and not lines[-1] and comment[-2]):
        return "comment lines"
    if any(not ln.split() for ln in (lines[:-1] if raw.endswith(b"\n") else lines)):
        return "blank line"
    if b"\n" not in raw and b"\r" in raw:
        return "CR-only"
    if b"not found in qrels" in te_stderr:
        return "topic missing from the run"
    return None


# our refusals of what trec_eval reads with atof/atol (docs/differences.md)
_STRICTER = re.compile(r"(rel_level|relevance grade) '.*' is not (a number|a finite number|an integer)")


def compare_with_trec_eval(tmp_path, n: int, seed: int) -> dict:
    """``n`` mutated rel-info files, trec_eval 10 and ``zelo_trec`` on each; returns the tally of outcomes."""
    from cli_harness import run_module_inproc

    rng = np.random.default_rng(seed)
    tally: dict = {}
    for k in range(n):
        fmt, rel, run, extra, measures = PREFS_SEEDS[k % len(PREFS_SEEDS)]
        raw = mutate(rng, rel.read_bytes())
        (tmp_path / "rel").write_bytes(raw)
        args = ["-q", "-m", measures, *extra, "-R", fmt, str(tmp_path / "rel"), str(run)]
        te = subprocess.run([str(TREC_EVAL), *args], capture_output=True, timeout=60)
        ours = run_module_inproc("trec", ["-Q", *args], text=False)
        err = ours.stderr.decode("utf-8", "replace").strip()
        what = (fmt, raw[:200], te.returncode, te.stderr[:200], err[-300:])
        assert ours.returncode in (0, 2) and "Traceback" not in err, what
        if ours.returncode:
            assert len(err.splitlines()) == 1, what
            assert re.match(rf"zelo_trec: {re.escape(str(tmp_path))}/rel(:\d+)?: ", err), what  # no line: empty
        why = trec_eval_difference(raw, te.stderr)
        if te.returncode == 0 and ours.returncode == 0:
            assert te.stdout == ours.stdout or why in ("BOM", "NUL"), what
            kind = "same output" if te.stdout == ours.stdout else why
        elif te.returncode == 0:
            assert why == "NUL" or _STRICTER.search(err), what
            kind = "we refuse: " + (why or "atof/atol")
        elif ours.returncode == 0:
            assert why is not None, what
            kind = "trec_eval fails: " + why
        else:
            kind = "both refuse"
        tally[kind] = tally.get(kind, 0) + 1
    return tally


@pytest.mark.skipif(not os.access(TREC_EVAL, os.X_OK), reason="trec_eval 10 binary not at /tmp/trec_eval")
def test_mutated_prefs_files_against_trec_eval(tmp_path):
    tally = compare_with_trec_eval(tmp_path, 40, seed=1)
    assert tally.get("same output", 0) >= 5 and tally.get("both refuse", 0) >= 5, tally


@pytest.mark.slow
@pytest.mark.skipif(not os.access(TREC_EVAL, os.X_OK), reason="trec_eval 10 binary not at /tmp/trec_eval")
def test_many_mutated_prefs_files_against_trec_eval(tmp_path):
    compare_with_trec_eval(tmp_path, 1000, seed=2)


def _utf8(b: bytes) -> bool:
    try:
        b.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def sweep_zbench_jsonl(tmp_path, n: int, seed: int) -> None:
    """``n`` mutated zbench dataset / annotated JSON lines (one reader each: no second path to compare): the
    records, or one ``file:line`` refusal naming a line of the file, never a traceback; gzip gives the same."""
    seeds = [(formats.read_zbench_dataset, _head(ZB / "case_small" / "dataset.jsonl", 8)),
             (formats.read_zbench_annotated, _head(ZB / "case_small" / "zbench_annotated.jsonl", 8))]
    rng = np.random.default_rng(seed)
    for k in range(n):
        reader, doc = seeds[k % len(seeds)]
        raw = mutate_zbench_lines(rng, doc)
        p, g = _files(tmp_path, raw)
        got = _outcome(lambda reader=reader, p=p: reader(p), p)
        assert got[0] != "traceback", (reader.__name__, raw[:300], got[1])
        if got[0] == "error":
            assert 0 <= int(got[1].split(":")[1]) <= _as_read(raw).count(b"\n") + 1, got
        assert _outcome(lambda reader=reader, g=g: reader(g), g) == got, (reader.__name__, raw[:300])


def mutate_zbench_lines(rng: np.random.Generator, doc: bytes) -> bytes:
    """A JSON-lines document: one line's record edited as :func:`_json_edit` edits a pair, or byte edits."""
    lines = doc.split(b"\n")
    i = int(rng.integers(0, max(len(lines) - 1, 1)))
    if rng.random() < 0.6 and lines[i].strip():
        rec = json.loads(lines[i])
        where = [rec, rec.get("query"), *rec.get("documents", [])]
        node = where[int(rng.integers(0, len(where)))]
        key = ("id", "score", "documents", "query")[int(rng.integers(0, 4))]
        if isinstance(node, dict):
            if rng.random() < 0.2:
                node.pop(key, None)
            else:
                node[key] = ZB_VALUES[int(rng.integers(0, len(ZB_VALUES)))]
        lines[i] = json.dumps(rec, ensure_ascii=bool(rng.random() < 0.5)).encode("utf-8", "surrogatepass")
        return b"\n".join(lines)
    return mutate(rng, doc)


@pytest.fixture
def _fast_everywhere(monkeypatch):
    monkeypatch.setattr(fp, "PYARROW_MIN", 0)
    monkeypatch.setattr(fp, "SPLIT_MIN", fp.SPLIT_MIN)  # restored after the sweep sets it
    monkeypatch.setattr(jc, "PYARROW_MIN", jc.PYARROW_MIN)


def test_trec_readers_agree_on_mutated_files(tmp_path, _fast_everywhere):
    took = sweep_trec(tmp_path, 240, seed=1)
    assert took >= 30  # the fast path is exercised, not only refused


def test_judgment_readers_agree_on_mutated_files(tmp_path, _fast_everywhere):
    sweep_judgments(tmp_path, 150, seed=1)


def test_zbench_dataset_readers_on_mutated_lines(tmp_path):
    sweep_zbench_jsonl(tmp_path, 80, seed=1)


def test_trec_prefs_readers_match_the_reference_on_mutated_files(tmp_path, _fast_everywhere):
    sweep_trec_prefs(tmp_path, 150, seed=1)


def test_zbench_readers_agree_on_mutated_documents(tmp_path):
    took = sweep_zbench(tmp_path, 120, seed=1)
    assert took >= 25  # the column path is exercised, not only refused


@pytest.mark.slow
def test_readers_agree_on_many_mutated_files(tmp_path, _fast_everywhere):
    sweep_trec(tmp_path, 4000, seed=2)
    sweep_judgments(tmp_path, 3000, seed=2)
    sweep_zbench(tmp_path, 1000, seed=2)
    sweep_zbench_jsonl(tmp_path, 1000, seed=2)
    sweep_trec_prefs(tmp_path, 2000, seed=2)


@pytest.mark.parametrize("level", [b"inf", b"-inf", b"1e400", b"Infinity"])
@pytest.mark.parametrize("reader,text", [(prefs_from_bytes, b"q 1 1 d1 2\nq 1 1 d2 %s\n"),
                                         (qrels_prefs_from_bytes, b"q 1 d1 2\nq 1 d2 %s\n")])
def test_prefs_infinite_level_quotes_the_text_on_both_paths(monkeypatch, reader, text, level):
    """Found by the sweep: the fast path said ``rel_level inf`` for ``1e400`` (pyarrow's value)."""
    data = text.replace(b"%s", level)
    for floor in (0, 1 << 40):
        monkeypatch.setattr(fp, "PYARROW_MIN", floor)
        with pytest.raises(InputError) as err:
            reader(data, "f")
        assert err.value.line == 2
        assert err.value.message == f"rel_level {level.decode()!r} is not a finite number"

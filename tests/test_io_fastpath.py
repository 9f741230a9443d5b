"""The pyarrow fast path and the general tokenizer give the same columns.

Oracle: a plain Python split of every line (``bytes.split()``, trec_eval's
``isspace`` fields, ``#`` comments, blank lines skipped), written here
independently of both readers. Random files mix spaces, tabs, CRLF, extra
columns, comments, blank lines, leading/trailing white space, ``\\v``/``\\f``.
"""
from __future__ import annotations

import gzip

import numpy as np
import pytest

from pref_eval.errors import InputError
import pref_eval.io.fastparse as fp
from pref_eval.io.fastparse import fast_columns
from pref_eval.io.qrels import qrels_from_lines, read_qrels
from pref_eval.io.runs import read_run, run_from_bytes
from pref_eval.io.tokenize import split_lines


@pytest.fixture(autouse=True)
def _fast_path_for_small_files(monkeypatch):
    """The fast path is skipped below 1 MB (fastparse.PYARROW_MIN); these tests exercise it on small files."""
    monkeypatch.setattr(fp, "PYARROW_MIN", 0)


def oracle_run(data: bytes):
    """(qid, docno, score, line, tag) by the textbook rule, or None if some line is bad."""
    q, d, s, ln = [], [], [], []
    tag = None
    for i, raw in enumerate(data.split(b"\n"), 1):
        if raw[:1] == b"#":
            continue
        f = raw.split()
        if not f:
            continue
        if len(f) < 6:
            return None
        q.append(f[0])
        d.append(f[2])
        s.append(float(f[4]))
        ln.append(i)
        tag = f[5]
    if not q:
        return None
    return q, d, s, ln, tag.decode()


def _tok(rng, alphabet=b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.#"):
    n = int(rng.integers(1, 9))
    return bytes(rng.choice(list(alphabet), size=n).tolist()).replace(b"#", b"x", 1 if rng.random() < 0.5 else 0)


def make_run(rng, *, irregular: bool) -> bytes:
    lines = []
    nextra = int(rng.integers(0, 3))
    for _ in range(int(rng.integers(1, 60))):
        qid = b"q%d" % rng.integers(1, 5)
        doc = _tok(rng)
        if doc[:1] == b"#":
            doc = b"d" + doc
        score = rng.choice([b"1", b"1.5", b"-2e3", b"0.25", b"%.6g" % rng.normal(), b"inf", b"3"])
        fields = [qid, b"Q0", doc, b"%d" % rng.integers(0, 100), score, b"tag" + _tok(rng)[:2]]
        fields += [b"x%d" % k for k in range(nextra)]
        if irregular:
            seps = [rng.choice([b" ", b"\t", b"  ", b" \t", b"\x0b", b"\x0c"]) for _ in fields[1:]]
            line = fields[0] + b"".join(s + f for s, f in zip(seps, fields[1:], strict=False))
            if rng.random() < 0.15:
                line = b"  " + line
            if rng.random() < 0.15:
                line = line + b" \t"
            if rng.random() < 0.2:
                line += b"\r"
            lines.append(line)
            if rng.random() < 0.1:
                lines.append(b"# a comment with  few fields")
            if rng.random() < 0.1:
                lines.append(rng.choice([b"", b"   ", b"\t"]))
        else:
            lines.append(b" ".join(fields))
    eol = b"\r\n" if (not irregular and rng.random() < 0.3) else b"\n"
    body = eol.join(lines)
    return body + (eol if rng.random() < 0.8 else b"")


@pytest.mark.parametrize("irregular", [False, True])

def test_fast_and_general_run_readers_agree_with_oracle(irregular, tmp_path, monkeypatch):
    import pref_eval.io.fastparse as fp

    monkeypatch.setattr(fp, "SPLIT_MIN", 0)  # small files too are cut in parts
    rng = np.random.default_rng(7 + irregular)
    fast_hits = 0
    for k in range(60):
        data = make_run(rng, irregular=irregular)
        want = oracle_run(data)
        assert want is not None
        path = tmp_path / f"run{k}"
        path.write_bytes(data)
        fast = fast_columns(str(path), min_fields=6, max_fields=None, kinds={0: "S", 2: "S", 4: "f8"})
        fast_hits += fast is not None
        cols, lines = split_lines(data, "x", min_fields=6, max_fields=None, expected="6", keep=6)
        for run in (read_run(path), run_from_bytes(data, "x"), run_from_bytes(data, "x", try_fast=False)):
            assert run.qid.tolist() == want[0]
            assert run.docno.tolist() == want[1]
            assert run.score.tolist() == want[2]
            assert run.line.tolist() == want[3]
            assert run.tag == want[4]
        assert cols[0].tolist() == want[0] and lines.tolist() == want[3]
        if fast is not None:
            assert fast[0].tolist() == want[0] and fast[2].tolist() == want[1]
            assert fast[4].tolist() == want[2]
    if irregular:
        assert fast_hits == 0  # every irregular file must leave the fast path
    else:
        assert fast_hits == 60


@pytest.mark.parametrize("split", [False, True])
def test_fast_path_refuses_what_would_change_fields(tmp_path, monkeypatch, split):
    import pref_eval.io.fastparse as fp

    if split:
        monkeypatch.setattr(fp, "SPLIT_MIN", 0)
    good = b"1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n"
    kinds = {0: "S", 2: "S", 4: "f8"}
    assert fast_columns(good, min_fields=6, max_fields=None, kinds=kinds) is not None
    bad = [
        b"1 Q0 d1 1 2.0 t\n1  Q0 d2 2 1.0\n",        # double space: an empty field for pyarrow
        b"1 Q0 d1 1 2.0 t\n 1 Q0 d2 2 1.0\n",
        b"1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 \n",
        b"1 Q0 d1 1 2.0 t\r1 Q0 d2 2 1.0 t\n",        # lone CR: one line for trec_eval
        b"1 Q0 d1 1 2.0 t\n1 Q0 d2\t2 1.0 t\n",
        b"1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0\x0bt\n",
        b"1 Q0 d1 1 2.0 t\n#1 Q0 d2 2 1.0 t\n",       # a comment with six fields
        b"1 Q0 d1 1 2.0 t\n\n1 Q0 d2 2 1.0 t\n",
        b"1 Q0 d1 1 nan t\n",
        b"1 Q0 d1 1 1_0 t\n",
    ]
    for data in bad:
        assert fast_columns(data, min_fields=6, max_fields=None, kinds=kinds) is None, data
        p = tmp_path / "r"
        p.write_bytes(data)
        assert fast_columns(str(p), min_fields=6, max_fields=None, kinds=kinds) is None, data


@pytest.mark.parametrize("parts", [1, 2, 3])
def test_fast_path_across_blocks_chunks_and_parts(tmp_path, monkeypatch, parts):
    """Values are stitched correctly across pyarrow blocks, raw-scan chunks and the byte
    ranges parsed by parallel threads (small sizes forced)."""
    import pref_eval.io.fastparse as fp

    monkeypatch.setattr(fp, "BLOCK", 1 << 10)
    monkeypatch.setattr(fp, "_CHUNK", 777)
    monkeypatch.setattr(fp, "SPLIT_MIN", 0)
    monkeypatch.setattr(fp, "PARTS", parts)
    rng = np.random.default_rng(3)
    n = 3000
    docs = [b"d" * int(w) + b"%d" % i for i, w in enumerate(rng.integers(0, 30, size=n))]
    lines = [b"%d Q0 %s %d %.17g r1" % (i // 100, d, i, s)
             for i, (d, s) in enumerate(zip(docs, rng.normal(size=n), strict=False))]
    for eol in (b"\n", b"\r\n"):
        data = eol.join(lines) + eol
        p = tmp_path / "run"
        p.write_bytes(data)
        for src in (str(p), data):
            fast = fp.fast_columns(src, min_fields=6, max_fields=None, kinds={0: "S", 2: "S", 4: "f8"})
            assert fast is not None
            want = oracle_run(data)
            assert fast[2].tolist() == want[1] and fast[0].tolist() == want[0] and fast[4].tolist() == want[2]
    bad = data.replace(b"\r\n", b"\r", 1)
    p.write_bytes(bad)
    assert fp.fast_columns(str(p), min_fields=6, max_fields=None, kinds={0: "S", 2: "S", 4: "f8"}) is None


def test_qrels_fast_general_and_gzip_agree(tmp_path):
    rng = np.random.default_rng(11)
    rows = [(b"q%d" % rng.integers(0, 20), b"0", b"doc%d" % i, b"%d" % rng.integers(-1, 4)) for i in range(500)]
    data = b"".join(b" ".join(r) + b"\n" for r in rows)
    p = tmp_path / "qrels"
    p.write_bytes(data)
    g = tmp_path / "qrels.gz"
    g.write_bytes(gzip.compress(data))
    a = read_qrels(p)
    b = read_qrels(g)
    c = qrels_from_lines(data, "x", try_fast=False)
    for q in (a, b, c):
        assert q.qid.tolist() == [r[0] for r in rows]
        assert q.docno.tolist() == [r[2] for r in rows]
        assert q.rel.tolist() == [int(r[3]) for r in rows]
        assert q.line.tolist() == list(range(1, 501))


def test_fast_path_errors_still_name_the_line(tmp_path):
    p = tmp_path / "run"
    p.write_bytes(b"1 Q0 d1 1 2.0 t\n1 Q0 d2 2 abc t\n")
    with pytest.raises(InputError) as ei:
        read_run(p)
    assert ei.value.line == 2 and "abc" in ei.value.message

"""The vectorised judgment readers (pref_eval/io/judgment_columns.py) give the same table as the line parsers.

Each case is read twice: by ``read_judgments`` (fast path when it takes the
file) and by the format's line-by-line parser alone (``formats.READERS``).
Queries, documents (order of first appearance) and every judgment column
must be equal, and a file the fast path refuses must still be read (or
refused with the parser's message).
"""
from __future__ import annotations

import numpy as np
import pytest

from pref_eval.errors import InputError
from pref_eval.io import judgment_columns as jc
from pref_eval.io.jsonl_scan import scanner_available
from pref_eval.io import judgments as formats
from pref_eval.zelo.judgments import Judgments, from_dataset


def _table(j: Judgments):
    return (j.queries, {q: list(d) for q, d in j.docs.items()}, [c.tolist() for c in j.arrays()], j.missing,
            repr(j.votes))


def _slow(text: str, fmt: str, into=None) -> Judgments:
    out = into if into is not None else Judgments()
    formats.READERS[fmt](text, "f", out, "half")
    return out



def _reader_equals_parser(p, text: str, fmt: str) -> None:
    """Reading file ``p`` (holding ``text``) gives the line parser's table, or its error message."""
    try:
        want = _table(_slow(text, fmt))
    except InputError as err:
        with pytest.raises(InputError) as got:
            formats.read_judgments(str(p), fmt)
        assert str(got.value) == str(err).replace("f:", f"{p}:", 1)
    else:
        assert _table(formats.read_judgments(str(p), fmt)) == want

def _both(tmp_path, fmt, text, fast_expected=True):
    p = tmp_path / f"j.{fmt}"
    p.write_bytes(text.encode("utf-8"))
    if fmt == "jsonl":
        fast = jc.jsonl_columns(text.encode())
        fast_expected = fast_expected and scanner_available()
    else:
        fast = jc.FAST_READERS[fmt](text.encode(), text)
    assert (fast is not None) == fast_expected
    assert _table(formats.read_judgments(str(p), fmt)) == _table(_slow(text, fmt))


def _random_pairs(rng, n, nq=7, nd=9):
    q = rng.integers(0, nq, n)
    a = rng.integers(0, nd, n)
    b = (a + rng.integers(1, nd, n)) % nd
    return q, a, b


def test_jsonl_fast_equals_parser(tmp_path):
    rng = np.random.default_rng(1)
    q, a, b = _random_pairs(rng, 500)
    s = rng.integers(0, 7, 500) / 6
    lines = []
    for k in range(500):
        rec = f'{{"qid": "q{q[k]}", "doc_a": "d{a[k]}", "doc_b": "d{b[k]}", "score": {float(s[k])!r}'
        if k % 3 == 0:
            rec += f', "weight": {k % 5}'
        if k % 7 == 0:
            rec += ', "judge": "m1"'
        lines.append(rec + "}")
    _both(tmp_path, "jsonl", "\n".join(lines) + "\n\n")


def test_jsonl_integer_ids_share_names_with_strings(tmp_path):
    text = ('{"qid": 7, "doc_a": 1, "doc_b": "2", "score": 1}\n'
            '{"qid": "7", "doc_a": "1", "doc_b": 3, "score": 0.25}\n')
    _both(tmp_path, "jsonl", text)
    j = formats.read_judgments(str(tmp_path / "j.jsonl"))
    assert j.queries == ["7"] and j.docs["7"] == ["1", "2", "3"]


@pytest.mark.parametrize("text", [
    '{"qid": "q", "doc_a": "a", "doc_b": "b", "votes": [1, -1, null]}\n',  # a list: parser
    '{"qid": "q", "doc_a": "a", "doc_b": "b", "score": 1.5}\n',  # out of range: parser's error
    '{"qid": "q", "doc_a": "a", "doc_b": "b", "score": 1, "weight": -1}\n',
])
def test_jsonl_refused_files_go_to_the_parser(tmp_path, text):
    p = tmp_path / "j.jsonl"
    p.write_text(text)
    assert jc.jsonl_columns(text.encode()) is None
    _reader_equals_parser(p, text, "jsonl")


def test_clarke_formats(tmp_path):
    rng = np.random.default_rng(2)
    q, a, b = _random_pairs(rng, 300)
    win = np.where(rng.random(300) < 0.5, a, b)
    rows = (f"t{x} doc{y}\tdoc{z}  doc{w}\r\n" for x, y, z, w in zip(q, a, b, win, strict=True))
    _both(tmp_path, "clarke4", "".join(rows))
    _both(tmp_path, "clarke3", "".join(f"t{x} doc{y} doc{z}\n" for x, y, z in zip(q, a, b, strict=False)))
    # long ids (more than 8 bytes) take the other factorisation branch
    rows = (f"topic-{x} document-{y} document-{z}\n" for x, y, z in zip(q, a, b, strict=True))
    _both(tmp_path, "clarke3", "".join(rows))


def test_llmlog_and_carterette(tmp_path):
    rng = np.random.default_rng(3)
    q, a, b = _random_pairs(rng, 300)
    marks = rng.choice(["!", "=", "?"], 300)
    _both(tmp_path, "llmlog", "".join(f"@ {x} d{y} d{z} {m}\n" for x, y, z, m in zip(q, a, b, marks, strict=False)))
    pref = rng.choice([-2, -1, 0, 1, 2], 300)
    rows = []
    for x, y, z, p in zip(q, a, b, pref, strict=False):
        da, db = (f"d{y}", "NA") if p == -2 else ("na", f"d{z}") if p == 2 else (f"d{y}", f"d{z}")
        rows.append(f"{x} {da} {db} {p}\n")
    _both(tmp_path, "carterette", "".join(rows))
    _both(tmp_path, "carterette", "1 a b +1\n", fast_expected=False)  # int() takes "+1"; the fast path does not


@pytest.mark.parametrize("text", [
    "# note\nt a b a\n",  # a '#' line is data for the parser (here: 2 fields -> its error)
    "t a\u00a0x b b\n",  # NBSP splits fields for str.split()
    "t a b b\nt a\x1cb c b\n",
])
def test_text_files_the_fast_path_refuses(tmp_path, text):
    assert jc.clarke4_columns(text.encode(), text) is None
    p = tmp_path / "j.c4"
    p.write_bytes(text.encode())
    _reader_equals_parser(p, text, "clarke4")


def test_dataset_order_and_unknown_document_line(tmp_path):
    text = "q1 b c c\nq2 x y y\nq1 a b a\n"
    ds = [("q1", ["a", "b", "c"])]
    p = tmp_path / "j.c4"
    p.write_text(text)
    fast = formats.read_judgments(str(p), "clarke4", into=from_dataset(ds))
    assert _table(fast) == _table(_slow(text, "clarke4", into=from_dataset(ds)))
    bad = tmp_path / "bad.c4"
    bad.write_text("q1 a b a\nq2 x y y\nq1 a z z\n")
    with pytest.raises(InputError, match=r"bad.c4:3: document 'z' is not among"):
        formats.read_judgments(str(bad), "clarke4", into=from_dataset(ds))


def test_two_files_append(tmp_path):
    p1, p2 = tmp_path / "a.c4", tmp_path / "b.c4"
    p1.write_text("q1 a b a\nq2 x y y\n")
    p2.write_text("q2 z x z\nq1 b c c\nq3 u v v\n")
    j = formats.read_judgments(str(p1), "clarke4")
    formats.read_judgments(str(p2), "clarke4", into=j)
    ref = _slow(p1.read_text(), "clarke4")
    _slow(p2.read_text(), "clarke4", into=ref)
    assert _table(j) == _table(ref)


def test_pyarrow_path_for_large_files(tmp_path, monkeypatch):
    monkeypatch.setattr(jc, "PYARROW_MIN", 0)
    rng = np.random.default_rng(4)
    q, a, b = _random_pairs(rng, 200)
    _both(tmp_path, "clarke3", "".join(f"t{x} doc{y} doc{z}\n" for x, y, z in zip(q, a, b, strict=False)))


@pytest.mark.parametrize("nu,n,hi", [(1, 5, 10), (3, 100000, 2**62), (1100, 300000, 2**63 - 1),
                                     (40000, 200000, 50000), (150000, 200000, 2**40)])
def test_positions_distinct_unique_first_equal_numpy(nu, n, hi):
    from pref_eval.io.keys import distinct, positions
    from pref_eval.zelo.judgments import unique_first

    rng = np.random.default_rng(nu)
    keys = rng.integers(0, hi, nu, dtype=np.int64)[rng.integers(0, nu, n)]
    u, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    assert np.array_equal(distinct(keys), u)
    assert np.array_equal(positions(u, keys), inv)
    assert np.array_equal(positions(u.view(np.uint64), keys.view(np.uint64)), inv)
    got = unique_first(keys)
    assert all(np.array_equal(x, y) for x, y in zip(got, (u, first, inv), strict=True))
    with pytest.raises(ValueError):
        positions(u, np.array([-1], dtype=np.int64))  # not among the keys


@pytest.mark.parametrize("pure", [False, True])
@pytest.mark.parametrize("nu,n,lo,hi", [(1, 0, 0, 10), (1, 5, 0, 10), (3, 100000, -2**62, 2**62),
                                        (1100, 300000, -2**63, 2**63 - 1), (150000, 200000, 0, 2**40)])
def test_factorize_equals_numpy_unique(nu, n, lo, hi, pure, monkeypatch):
    """keys.factorize (the compiled hash table, or distinct + positions) is np.unique's (uniq, inverse),
    for signed keys and for the uint64 keys of the text readers (high bit set: unsigned order)."""
    from pref_eval.io import keys as K

    if pure:
        monkeypatch.setenv("PREF_EVAL_PURE_PYTHON", "1")
    rng = np.random.default_rng(nu + n)
    keys = rng.integers(lo, hi, nu, dtype=np.int64)[rng.integers(0, nu, n)]
    for k in (keys, keys.view(np.uint64)):
        u, inv = np.unique(k, return_inverse=True)
        gu, ginv = K.factorize(k)
        assert gu.dtype == k.dtype and np.array_equal(gu, u) and np.array_equal(ginv, inv.ravel())


def test_detection_head_of_a_long_ascii_file(tmp_path):
    # 64 KB hold fewer than 50 lines: detection reads on (same format as on the whole file)
    long = "q1 " + "a" * 3000 + " b b\n"
    text = long * 40 + "".join(f"q{k} a b a\n" for k in range(2000))  # 126 KB: past 64 KB, below 4 MB
    p = tmp_path / "j.c4"
    p.write_text(text)
    assert formats._ascii_head(text.encode()).count("\n") >= 50
    assert _table(formats.read_judgments(str(p))) == _table(_slow(text, "clarke4"))


def _both_ties(tmp_path, fmt, text, fast_expected=True, into=None):
    """As :func:`_both`, under both tie rules (the vote formats)."""
    p = tmp_path / f"j.{fmt}"
    p.write_bytes(text.encode("utf-8"))
    for ties in ("half", "zbench"):
        assert (jc.FAST_READERS[fmt](text.encode(), text, ties) is not None) == fast_expected
        fast = formats.read_judgments(str(p), fmt, ties=ties, into=into() if into else None)
        slow = into() if into else Judgments()
        formats.READERS[fmt](text, "f", slow, ties)
        assert _table(fast) == _table(slow)


def _scored_pair(q, a, b, votes):
    return {"pair": {"query_id": q, "document_a": {"document_id": a, "content": "x"},
                     "document_b": {"document_id": b}}, "openai_score": {"score": votes[0]},
            "anthropic_score": {"score": votes[1], "reason": "r"}, "gemini_score": {"score": votes[2]}}


def test_zbench_fast_equals_parser(tmp_path):
    import json

    rng = np.random.default_rng(5)
    q, a, b = _random_pairs(rng, 400)
    votes = rng.choice([-1, -0.5, 0, 0.25, 1, 0.0], (400, 3)).tolist()
    votes[3][1] = 1  # an int among floats
    pairs = [_scored_pair(f"q{x}", f"d{y}", f"é{z}", v) for x, y, z, v in zip(q, a, b, votes, strict=True)]
    text = json.dumps({"scored_pairs": pairs}, indent=1, ensure_ascii=False)
    _both_ties(tmp_path, "zbench", text)
    # a dataset closes its queries: known documents take the fast path, an unknown one gets the parser's message
    ds = [(f"q{k}", [f"d{i}" for i in range(9)] + [f"é{i}" for i in range(9)]) for k in range(7)]
    _both_ties(tmp_path, "zbench", text, into=lambda: from_dataset(ds))
    pairs[250]["pair"]["document_b"]["document_id"] = "zz"
    p = tmp_path / "bad.json"
    p.write_text(json.dumps({"scored_pairs": pairs}, indent=1))
    with pytest.raises(InputError, match=r"bad.json:\d+: scored_pairs\[250\]: document 'zz' is not among"):
        formats.read_judgments(str(p), "zbench", into=from_dataset(ds))


@pytest.mark.parametrize("change", [
    lambda sp: sp[1]["pair"].update(query_id=7),  # an integer id: the parser's str()
    lambda sp: sp[2]["openai_score"].update(score=True),  # a boolean vote: the parser's error
    lambda sp: sp[0]["gemini_score"].update(score="1"),
    lambda sp: sp[0].pop("pair"),
    lambda sp: sp.append([1, 2]),
])
def test_zbench_unusual_files_go_to_the_parser(tmp_path, change):
    import json

    sp = [_scored_pair("q1", "a", "b", [1, -1, 0]), _scored_pair("q1", "b", "c", [0.5, 1, 1]),
          _scored_pair("q2", "a", "c", [-1, -1, 1])]
    change(sp)
    text = json.dumps({"scored_pairs": sp})
    assert jc.zbench_columns(text.encode(), text) is None
    p = tmp_path / "j.json"
    p.write_text(text)
    _reader_equals_parser(p, text, "zbench")


def test_xie_fast_equals_parser(tmp_path):
    rng = np.random.default_rng(6)
    q, a, b = _random_pairs(rng, 300)
    votes = rng.choice(["-2", "-1", "0", "1", "2", "1.0", "-2.0"], (300, 3))
    rows = [f"query {x} with spaces\tim {y}.jpg,im{z}.jpg\t" + "\t".join(v) + "\n"
            for x, y, z, v in zip(q, a, b, votes, strict=True)]
    body = "".join(rows)
    _both_ties(tmp_path, "xie", "Query\tPair\tJ1\tJ2\tJ3\n" + body)
    _both_ties(tmp_path, "xie", body.rstrip("\n"))  # no header, no final newline
    one = "".join(f"q{x}\td{y},d{z}\t{v[0]}\n" for x, y, z, v in zip(q, a, b, votes, strict=True))
    _both_ties(tmp_path, "xie", one)  # a single vote per pair


@pytest.mark.parametrize("text", [
    "q\ta,b\t1\t2\nq\tb,c\t1\n",  # vote counts differ: the parser takes it
    "q\ta,b\t1\t2\n\nq\tb,c\t1\t0\n",  # a blank line
    "q\ta,b\t1\r\nq\tb,c\t-1\r\n",  # CRLF
    "q\ta,b\t 1\n",  # float(' 1') is 1 for the parser
    "q\ta,b\t3\n",  # out of range: the parser's error
    "q\ta,b,c\t1\n",
    "q\ta,\t1\n",
    "q\t,b\t1\n",
    "q\tab\t1\n",
    "\ta,b\t1\n",  # an empty query id
    "q\ta,b\t1e0\n",
    "Query\tPair\tJ1\n",  # a header only
])
def test_xie_unusual_files_go_to_the_parser(tmp_path, text):
    assert jc.xie_columns(text.encode(), text) is None
    p = tmp_path / "j.xie"
    p.write_text(text, newline="")
    _reader_equals_parser(p, text, "xie")


def test_trecprefs_unknown_document_line(tmp_path):
    p = tmp_path / "j.prefs"
    p.write_text("q1 1 1 a 1\nq1 1 1 b 2\nq1 2 1 z 0\n")
    with pytest.raises(InputError, match=r"j.prefs:3: document 'z' is not among"):
        formats.read_judgments(str(p), "trecprefs", into=from_dataset([("q1", ["a", "b"])]))

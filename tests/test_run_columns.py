"""The compiled run reader (``_kernels.run_columns``) against the tokenizer path it stands in for.

``run_from_bytes`` first asks the kernels for the columns; on anything unusual they answer None and
the tokenizer (pref_eval.io.tokenize + io.numbers, numpy) reads the file. Both must give the same
Run (same dtypes, same score bits, same line numbers, same tag) or the same error with its line.
"""
from __future__ import annotations

import random
import struct

import numpy as np
import pytest

from pref_eval.errors import InputError
from pref_eval.io.runs import run_from_bytes
from pref_eval.native import kernels

kern = kernels()
pytestmark = pytest.mark.skipif(kern is None or not hasattr(kern, "run_columns"),
                                reason="compiled kernels not built")


def _outcome(data: bytes, compiled: bool):
    try:
        r = run_from_bytes(data, "f.run", try_fast=False, try_compiled=compiled)
    except InputError as e:
        return ("error", str(e))
    lines = r.line_numbers
    return ("run", r.qid_values.dtype.str, r.qid_values.tobytes(), r.qid_lengths.tolist(), r.docno.dtype.str,
            r.docno.tobytes(), r.score.dtype.str, r.score.tobytes(), None if lines is None else lines.tolist(),
            r.tag, r.name, r.source)


def same(data: bytes) -> tuple:
    a, b = _outcome(data, True), _outcome(data, False)
    assert a == b, data[:200]
    return a


def taken(data: bytes) -> bool:
    """Whether the compiled reader answers (not None) for ``data``."""
    from pref_eval.io.tokenize import column_budget

    return kern.run_columns(data, column_budget(len(data))) is not None


def test_plain_run_is_read_by_the_kernels():
    data = b"".join(f"{q} Q0 D{q}_{k} {k + 1} {1 - k / 7:.6f} tagA\n".encode() for q in (3, 1, 2) for k in range(9))
    assert taken(data)
    out = same(data)
    assert out[0] == "run" and out[9] == "tagA"


HARD_SCORES = [
    "0.1", "-0.0", "+0.0", "0", "-0", "1e-7", "5e-324", "4.9406564584124654e-324", "2.4703282292062328e-324",
    "2.4703282292062327e-324", "1e16", "1e308", "1.7976931348623157e308", "1.7976931348623158e308",
    "2.2250738585072011e-308", "2.2250738585072012e-308", "0.30000000000000004",
    "123456789012345678901234567890", "9007199254740993", "9007199254740992.5", ".5", "5.", "-.5e-3", "+1E+2",
    "1e-400", "0.000000000000000000001", "3.14159265358979323846264338327950288419716939937510", "00012.5000",
    "1e0", "7E-10", "999999999999999", "0.999999999999999", "123456789012345.6", "-999999999999999.9e0"
]


def test_hard_scores_bits():
    data = "".join(f"q Q0 d{k} {k} {s} t\n" for k, s in enumerate(HARD_SCORES)).encode()
    assert taken(data)
    out = same(data)
    got = struct.unpack(f"{len(HARD_SCORES)}d", out[7])
    for s, v in zip(HARD_SCORES, got, strict=True):  # float() is the oracle (correctly rounded)
        assert struct.pack("d", v) == struct.pack("d", float(s)), s


def test_random_scores_bits():
    rng = random.Random(3)
    toks = []
    for _ in range(3000):
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 25)))
        cut = rng.randint(0, len(digits))
        t = rng.choice(["", "-", "+"]) + digits[:cut] + "." + digits[cut:] if rng.random() < 0.8 else digits
        if t.strip("+-.") == "" or t.lstrip("+-") == ".":
            t = "1"
        if rng.random() < 0.3:
            t += rng.choice("eE") + rng.choice(["", "+", "-"]) + str(rng.randint(0, 280))
        toks.append(t)
    data = "".join(f"q Q0 d{k} 1 {t} t\n" for k, t in enumerate(toks)).encode()
    out = same(data)
    assert taken(data)
    assert np.array_equal(np.frombuffer(out[7]).view(np.int64),
                              np.array([float(t) for t in toks]).view(np.int64))


LAYOUTS = [
    b"",  # empty: error
    b"\n\n  \n",  # blank only: error
    b"1 Q0 d 1 0.5 r\n\n\t \n2 Q0 e 1 0.25 s",  # blank lines, no final newline
    b"1\tQ0\td\t1\t0.5\tr\r\n2\x0bQ0\x0ce 1 0.25 s\r\n",  # tabs, CR, VT, FF are white space
    b"1 Q0 d 1 0.5 r extra fields here\n2 Q0 e 1 0.25 s x\n",
    b"  1 Q0 d 1 0.5 r\n",  # leading blanks
    b"1 Q0 d\xc3\xa9 1 0.5 r\xff\n",  # non-ASCII bytes in fields, invalid UTF-8 tag
    b"1 Q0 d\x01x 1 0.5 r\n",  # other control bytes are field bytes
    b"# comment\n1 Q0 d 1 0.5 r\n",  # comment line: tokenizer
    b"1 Q0 d 1 0.5 r\n#x\n",
    b"1 Q0 d 1 0.5 r\n 1 Q0 #d 1 0.5 r\n",  # '#' not first byte: a field
    b"1 Q0 d 1 0.5\n",  # 5 fields: error
    b"1 Q0 d 1 0.5 r\n2 Q0\n",
    b"1 Q0 d 1 0.5 r\n2 Q0 e 1 0\x00.5 r\n",  # NUL: error with its line
    b"1 Q0 d 1 abc r\n",
    b"1 Q0 d 1 nan r\n",
    b"1 Q0 d 1 NaN r\n",
    b"1 Q0 d 1 inf r\n2 Q0 e 1 -Infinity r\n",
    b"1 Q0 d 1 1e400 r\n",
    b"1 Q0 d 1 0x10 r\n",
    b"1 Q0 d 1 1_0 r\n",
    b"1 Q0 d 1 1e r\n",
    b"1 Q0 d 1 . r\n",
    b"1 Q0 d 1 -.e1 r\n",
    b"1 Q0 d 1 ++1 r\n",
    b"1 Q0 d 1 1.2.3 r\n",
    b"1 Q0 d 1 \xd9\xa1 r\n",  # a non-ASCII digit
    b"1 Q0 " + b"d" * 255 + b" 1 0.5 r\n",
    b"1 Q0 " + b"d" * 256 + b" 1 0.5 r\n",
    b"1 Q0 d 1 0.5 " + b"r" * 300 + b"\n",
    b"1 Q0 d 1 0.5 r\n" + b"1 Q0 " + b"d" * 70000 + b" 1 0.5 r\n",  # longer than MAX_FIELD: error
]


@pytest.mark.parametrize("data", LAYOUTS)
def test_layouts(data):
    same(data)


def test_columns_over_budget(monkeypatch):
    from pref_eval.io import tokenize

    monkeypatch.setattr(tokenize, "MIN_BUDGET", 64)  # column_budget(n) = max(64, 4 n)
    data = b"1 Q0 d 1 0.5 r\n" * 20 + b"1 Q0 " + b"d" * 200 + b" 1 0.5 r\n"
    assert not taken(data)
    assert same(data)[0] == "error"


def test_mutated_runs():
    """Random byte edits of a small run: same Run or same error on both paths."""
    rng = random.Random(11)
    base = b"".join(f"{q} Q0 D{q}_{k} {k + 1} {rng.random() * 10 - 5:.{rng.randint(0, 17)}g} t{q}\n".encode()
                    for q in range(3) for k in range(6))
    alphabet = b" \t\n\r#.-+eE0123456789abnfiQ\x00\x0b\xc3"
    for _ in range(400):
        b = bytearray(base)
        for _ in range(rng.randint(1, 4)):
            op, i = rng.random(), rng.randrange(len(b))
            if op < 0.4:
                b[i] = rng.choice(alphabet)
            elif op < 0.7:
                b.insert(i, rng.choice(alphabet))
            else:
                del b[i]
        same(bytes(b))


@pytest.mark.parametrize("tail", [b"", b"# a comment\n", b"9 Q0 x 1 nan r\n", b"9 Q0 x 1\n"])
def test_read_run_large_file_compiled_equals_pyarrow_and_tokenizer(tmp_path, monkeypatch, tail):
    """A plain file above pyarrow's threshold: the kernels read it whole (up to COMPILED_MAX); with them off
    it goes to pyarrow (or the tokenizer); the same Run or the same error either way. A file the kernels
    refuse (comment, NaN, short line) falls through to pyarrow / the tokenizer as before."""
    from pref_eval.io import fastparse, runs

    monkeypatch.setattr(fastparse, "PYARROW_MIN", 1 << 12)  # pyarrow from 4 KB: a small file stands in
    rng = random.Random(5)
    body = b"".join(f"{q} Q0 D{q}_{k} {k + 1} {rng.random():.6f} tagL\n".encode()
                    for q in range(20) for k in range(200))
    path = tmp_path / "big.run"
    path.write_bytes(body + tail)
    assert len(body) > fastparse.PYARROW_MIN and len(body) < runs.COMPILED_MAX

    def outcome():
        try:
            r = runs.read_run(path)
        except InputError as e:
            return ("error", str(e))
        line = r.line.tolist()
        return ("run", r.qid.tobytes(), r.qid.dtype.str, r.docno.tobytes(), r.docno.dtype.str, r.score.tobytes(),
                line, r.tag)

    calls = []
    real = runs._compiled_columns
    monkeypatch.setattr(runs, "_compiled_columns", lambda d: calls.append(1) or real(d))
    got = outcome()
    assert calls
    monkeypatch.setenv("PREF_EVAL_PURE_PYTHON", "1")
    assert outcome() == got
    if not tail:
        assert got[0] == "run" and got[-1] == "tagL"


def test_rpp_levels_and_pref_lines_refuse_hostile_arguments():
    """Wrong dtypes, shapes, lengths, out-of-range indices and malformed orjson bounds: TypeError /
    ValueError / IndexError / BufferError, and nothing written outside ``acc`` (sentinels around it;
    tools/sanitize.sh runs this under AddressSanitizer)."""
    import contextlib

    ok = (TypeError, ValueError, IndexError, BufferError, OverflowError)
    i8 = np.int64
    grid = np.zeros((3, 2, 4), np.int32)
    grid[:, :, 1] = 1
    w = np.ones((3, 2))
    ib, jb, active = np.array([0, 1, 2], i8), np.array([1, 2, 3], i8), np.array([2, 1, 0], i8)

    def acc_call(**bad):
        big = np.full((3, 2 * 3 + 4), 7.25)
        acc = big[:, 2:-2]  # rows of a larger array: not contiguous -> refused, or a contiguous stand-in
        args = dict(grid=grid, ws=[w], ib=ib, jb=jb, active=active, acc=[np.zeros((2, 3))])
        args.update(bad)
        with contextlib.suppress(*ok):
            kern.rpp_levels(args["grid"], args["ws"], args["ib"], args["jb"], args["active"], args["acc"])
        assert (big[:, :2] == 7.25).all() and (big[:, -2:] == 7.25).all()
        with contextlib.suppress(*ok):
            kern.rpp_levels(grid, [w], ib, jb, active, [acc])

    acc_call()
    for bad in [dict(grid=grid.astype(np.int16)), dict(grid=grid[0]), dict(grid=grid.astype(np.float64)),
                dict(ws=[w[:2]]), dict(ws=[w.astype(np.float32)]), dict(ws=[w, w]), dict(ws=[w] * 9, acc=[w] * 9),
                dict(ib=ib + 4), dict(ib=-ib - 1), dict(jb=jb[:2]), dict(active=np.array([3, 1, 0], i8)),
                dict(active=np.array([-1, 0, 0], i8)), dict(active=active[:2]), dict(acc=[np.zeros((2, 2))]),
                dict(acc=[np.zeros((2, 3), np.float32)]), dict(acc=[np.zeros((2, 3))[:, ::-1]]), dict(ws=w),
                dict(grid=None), dict(ib=ib.astype(np.int32))]:
        with pytest.raises(ok):
            kern.rpp_levels(*[bad.get(k, v) for k, v in
                              dict(grid=grid, ws=[w], ib=ib, jb=jb, active=active, acc=[np.zeros((2, 3))]).items()])

    v = np.array([[0.5, 1e-5], [2.0, -0.0]])
    raw = b"[0.5,1e-5,2.0,-0.0]"
    bounds = np.array([0, 4, 9, 13, 18], i8)
    good = [[(0, ["a", "b"], 0), (1, v, None, ":", "\n", raw, bounds)]]
    kinds, cols, qs = np.zeros(2, i8), np.array([0, 1], i8), np.array([0, 1], i8)
    assert kern.pref_lines(good, kinds, cols, qs, 0) == "a:0.5\nb:-0.0\n"
    for bad_kinds, k, c, q in [
            (good, kinds + 1, cols, qs), (good, kinds, cols + 2, qs), (good, kinds, cols, qs - 2),
            (good, kinds[:1], cols, qs), ([[(0, ["a"], 0)]], kinds, cols, qs),
            ([[(1, v, None, ":", "\n", raw, bounds[:-1])]], kinds, cols, qs),
            ([[(1, v, None, ":", "\n", raw, bounds[::-1].copy())]], kinds, cols, qs),
            ([[(1, v, None, ":", "\n", raw, bounds + 100)]], kinds, cols, qs),
            ([[(1, v, None, ":", "\n", raw[:5], bounds)]], kinds, cols, qs),
            ([[(1, v, np.zeros(3, np.uint8), ":", "\n", None, None)]], kinds, cols, qs),
            ([[(1, v.ravel(), None, ":", "\n", None, None)]], kinds, cols, qs),
            ([[(2, v, ":", "\n")]], kinds, cols, qs), ([[(1, v, None, 1, "\n", None, None)]], kinds, cols, qs),
            ([[(3, v)]], kinds, cols, qs), ([[[0]]], kinds, cols, qs), ([(0, ["a"], 0)], kinds, cols, qs),
            ([[(0, ["a", 5], 1)]], kinds, cols, qs), ([[(0, ["a", "b"], 2)]], kinds, cols, qs)]:
        with pytest.raises(ok):
            kern.pref_lines(bad_kinds, k, c, q, 0)

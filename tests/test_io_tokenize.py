"""The vectorised tokenizer against a line-by-line Python oracle (``bytes.split``).

Random byte soup of fields, every ASCII white-space byte, comments, blank
lines, CR, NUL (refused at its line) and other control bytes, non-ASCII bytes, with the chunk size
forced small so lines straddle chunk cuts.
"""
from __future__ import annotations

import numpy as np
import pytest

import pref_eval.io.tokenize as tk
from pref_eval.errors import InputError


def oracle(data: bytes, lo: int, hi: int | None, keep: int):
    if b"\0" in data:  # refused before anything else, at its line (C would end the field there)
        return ("error", data[:data.index(b"\0")].count(b"\n") + 1, None)
    cols = [[] for _ in range(keep)]
    nums = []
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        if not raw or raw[:1] == b"#":
            continue
        parts = raw.split()
        if not parts:
            continue
        if len(parts) < lo or (hi is not None and len(parts) > hi):
            return ("error", lineno, len(parts))
        for k in range(keep):
            cols[k].append(parts[k])
        nums.append(lineno)
    return cols, nums


def soup(rng, nlines: int, lo: int, hi: int) -> bytes:
    seps = [b" ", b"\t", b"\r", b"\x0b", b"\x0c", b"  \t"]
    alpha = list(b"ab#Z09.-_") + [0, 0x1C, 0x85, 0xFF]
    out = []
    for _ in range(nlines):
        r = rng.random()
        if r < 0.05:
            out.append(b"")
        elif r < 0.1:
            out.append(b"#" + b" x" * int(rng.integers(0, 9)))
        elif r < 0.13:
            out.append(bytes(rng.choice(list(b" \t\r"), size=int(rng.integers(1, 4))).tolist()))
        else:
            nf = int(rng.integers(lo, hi + 1))
            f = [bytes(rng.choice(alpha, size=int(rng.integers(1, 12))).tolist()) for _ in range(nf)]
            line = b"".join(seps[int(rng.integers(len(seps)))] + x for x in f)
            out.append(line if rng.random() < 0.5 else line.lstrip())
    return b"\n".join(out) + (b"\n" if rng.random() < 0.5 else b"")


@pytest.mark.parametrize("chunk", [7, 64, 1 << 24])
def test_split_lines_matches_python_split(monkeypatch, chunk):
    monkeypatch.setattr(tk, "CHUNK", chunk)
    rng = np.random.default_rng(chunk)
    for trial in range(40):
        data = soup(rng, int(rng.integers(0, 60)), 4, 7)
        if trial % 4:
            data = data.replace(b"\0", b"Z")  # a NUL in a quarter of the soups
        lo, hi, keep = (4, None, 4) if trial % 2 else (4, 6, 3)
        want = oracle(data, lo, hi, keep)
        if want and want[0] == "error":
            with pytest.raises(InputError) as ei:
                tk.split_lines(data, "f", min_fields=lo, max_fields=hi, expected="x", keep=keep)
            what = "a NUL byte" if want[2] is None else f"found {want[2]} field"
            assert ei.value.line == want[1] and what in ei.value.message
            continue
        cols, lines = tk.split_lines(data, "f", min_fields=lo, max_fields=hi, expected="x", keep=keep)
        assert lines.tolist() == want[1]
        for k in range(keep):
            assert cols[k].tolist() == want[0][k]


def test_keep_more_than_min_and_errors_name_first_bad_line(monkeypatch):
    monkeypatch.setattr(tk, "CHUNK", 16)
    data = b"# c\n1 Q0 d 1 2.0 t extra\n\n1 Q0 e 2 1.0 t\n1 Q0 f\n1 Q0\n"
    with pytest.raises(InputError) as ei:
        tk.split_lines(data, "run", min_fields=6, max_fields=None, expected="6", keep=6)
    assert ei.value.line == 5 and "found 3 fields" in ei.value.message
    cols, lines = tk.split_lines(data[:-12], "run", min_fields=6, max_fields=None, expected="6", keep=6)
    assert lines.tolist() == [2, 4] and cols[5].tolist() == [b"t", b"t"] and cols[2].tolist() == [b"d", b"e"]

"""Text tables align by terminal columns, not ``len``: a CJK run name takes two columns per character, a
combining accent none (pref_eval.output.markup.display_width).

Oracles: hand-worked widths and a hand-worked zelo_agree text table; the ``wcwidth`` package
(https://github.com/jquast/wcwidth) computed live on names and on whole Unicode blocks whose properties have
not changed since Python's Unicode tables.
"""
from __future__ import annotations

import io
import math
import re
import unicodedata

import numpy as np
import pytest

from pref_eval.agree.records import Record
from pref_eval.output.agree import write_records
from pref_eval.output.comparisons import format_orderings, format_pref_table
from pref_eval.output.markup import display_width, ljust_display

NAMES = ["bm25", "日本語", "한국어", "ｱｲｳ", "e\u0301cole", "naïve", "😀run", "❤\ufe0f", "❤", "👍🏽",
         "👨\u200d👩\u200d👧", "🇯🇵", "🇯🇵🇫", "a\u200bb", "soft\u00adhyphen", "\u1100\u1161\u11a8",
         "全角ＡＢ", "Ｒｕｎ", "α①", "e\u20dd",
         "\u0915\u093e", "\u0e01\u0e33", "x\u0600"]


@pytest.mark.parametrize("s, w", [("bm25", 4), ("日本語", 6), ("e\u0301cole", 5), ("😀run", 5), ("❤\ufe0f", 2),
                                  ("👨\u200d👩\u200d👧", 2), ("🇯🇵", 2), ("a\u200bb", 2), ("\u1100\u1161\u11a8", 2),
                                  ("Ｒｕｎ", 6), ("α①", 2), ("", 0), ("a\x01b", 2)])
def test_hand_worked_widths(s, w):
    assert display_width(s) == w
    assert display_width(ljust_display(s, 7)) == max(7, w)


def test_agree_text_table_hand_worked():
    nan = math.nan
    recs = [Record("日本語", "bm25", "pair", "pairs", 3.0, nan, nan, 3),
            Record("e\u0301cole", "🇯🇵x", "pair", "kappa", 0.5, 0.1, 0.9, 3)]
    buf = io.StringIO()
    write_records(buf, recs, "text")
    # columns: judge_a 7 (the header), judge_b 7, level 5, statistic 9, value 6, ci_low 6, ci_high 7, n 1;
    # 日本語 takes 6 columns (one space of padding), école 5 (two), 🇯🇵x 3 (four)
    assert buf.getvalue().splitlines() == [
        "judge_a  judge_b  level  statistic  value   ci_low  ci_high  n",
        "日本語   bm25     pair   pairs      3       -       -        3",
        "e\u0301cole    🇯🇵x      pair   kappa      0.5000  0.1000  0.9000   3",
    ]


def _starts(line: str) -> list[int]:
    """The display column where each field of a line of two-space-separated cells starts."""
    return [0] + [display_width(line[:m.end()]) for m in re.finditer(r"  +(?=\S)", line)]


def test_pref_table_columns_line_up():
    import pandas as pd

    names = ["日本語", "run-b", "e\u0301cole", "한국어한국어"]
    rows = [{"measure": "ppref", "run_a": a, "run_b": b, "mean_diff": 0.25, "significant": True,
             "test": "t", "n_queries": 5} for a in names for b in names if a < b]
    text = format_pref_table(pd.DataFrame(rows), "text", "t", 0.05, "holm", 4)
    lines = text.split("\n\n")[0].splitlines()
    starts = [_starts(ln) for ln in lines]
    assert all(s == starts[0] for s in starts), lines
    assert len(starts[0]) == 3


def test_orderings_text_lines_up():
    res = {"n_systems": 2, "kendall_tau_b": 1.0, "kendall_p": 0.5, "tau_ap_b_given_a": 1.0,
           "tau_ap_a_given_b": 1.0, "tau_ap_sym": 1.0, "swapped": [], "n_pairs": 1, "only_a": [], "only_b": [],
           "ties_a": False, "ties_b": False}
    text = format_orderings(res, "text", "日本語", "b")
    values = [ln for ln in text.splitlines() if ln.startswith(("systems", "kendall", "tau_ap")) and "  " in ln]
    assert len(values) == 6
    assert len({_starts(ln)[1] for ln in values}) == 1


def test_against_wcwidth_names():
    wcwidth = pytest.importorskip("wcwidth")
    for s in NAMES:
        assert display_width(s) == wcwidth.wcswidth(s), s


# blocks whose widths Python's Unicode tables (13.0 in 3.10) and wcwidth's (newest) agree on
BLOCKS = [(0x20, 0x7E), (0xA0, 0x2FF), (0x300, 0x36F), (0x370, 0x52F), (0x1100, 0x11FF), (0x3040, 0x30FF),
          (0x4E00, 0x9FFF), (0xAC00, 0xD7A3), (0xFF01, 0xFFEE), (0x1F600, 0x1F64F), (0x1F300, 0x1F5FF)]


def test_against_wcwidth_blocks():
    wcwidth = pytest.importorskip("wcwidth")
    for lo, hi in BLOCKS:
        for o in range(lo, hi + 1):
            c = chr(o)
            if unicodedata.category(c) in ("Cn", "Cs", "Co", "Cc"):
                continue
            assert display_width(c) == wcwidth.wcswidth(c), hex(o)
    # random names of letters, CJK, combining marks and emoji
    pool = [chr(o) for lo, hi in [(0x61, 0x7A), (0x4E00, 0x4E40), (0x300, 0x30F), (0x1F600, 0x1F610), (0xAC00, 0xAC10)]
            for o in range(lo, hi + 1)]
    rng = np.random.default_rng(30)
    for _ in range(300):
        s = "".join(rng.choice(pool, int(rng.integers(1, 9))))
        if unicodedata.combining(s[0]):
            s = "x" + s
        assert display_width(s) == wcwidth.wcswidth(s), repr(s)

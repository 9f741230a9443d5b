"""zelo_fit's score TSV read at once (``io/zelo_scores._score_columns``, session 30): the per-line reader's table
(the same ids, floats and order: queries by first appearance, documents in file order), and every file it
leaves alone (a CR, a blank line, fields of several counts, a bad number, a document twice) is the per-line
reader's, which names the line. Oracle: Python's ``float`` of each field and the file's own order."""
from __future__ import annotations

import random

import pytest

from pref_eval.errors import InputError
from pref_eval.io import zelo_scores as zs

SPOILS = ["", " ", "\t", "nan", "inf", "-1", "-0.0", "1_0", " 2", "x", "1e400", "NaN", "-inf", "+3", "\u0661"]


def _file(rng: random.Random) -> str:
    width = rng.choice([4, 4, 5, 6])
    rows = [[f"q{q}", f"d{d}", repr(rng.gauss(0, 1)), rng.choice(["0.1", "nan", "0"]), *["x"] * (width - 4)]
            for q in range(rng.randint(1, 5)) for d in range(rng.randint(1, 5))]
    if rng.random() < 0.4:
        rng.shuffle(rows)
    lines = ["\t".join(r) for r in rows]
    for _ in range(rng.choice([0, 0, 1, 2])):
        k, kind = rng.randrange(len(lines)), rng.randrange(6)
        f = lines[k].split("\t")
        if kind == 1:
            lines.insert(k, rng.choice(["", " ", "\t\t\t"]))
            continue
        if kind == 2:
            lines.insert(k, lines[k])
            continue
        if kind == 0:
            f[rng.randrange(len(f))] = rng.choice(SPOILS)
        elif kind == 3:
            f = f[:rng.randint(1, len(f))]
        elif kind == 4:
            f = [*f, "y"]
        elif len(f) > 1:
            f[1] = rng.choice(["d0", "d1"])
        lines[k] = "\t".join(f)
    head = "\t".join(["qid", "docno", "score", "se", *["c"] * (width - 4)])
    return head + "\n" + "\n".join(lines) + rng.choice(["\n", "", "\n\n"])


def test_the_table_at_once_is_the_per_line_readers():
    rng = random.Random(4)
    taken = 0
    for _ in range(600):
        lines = _file(rng).split("\n")
        fast = zs._score_columns(lines)
        try:
            slow = zs._score_rows(lines, "s.tsv")
        except InputError:
            slow = None
        if fast is not None:
            taken += 1
            assert slow is not None and list(fast) == list(slow) and repr(fast) == repr(slow)
    assert 100 < taken < 500


def test_queries_apart_are_brought_together_in_file_order(tmp_path):
    path = tmp_path / "s.tsv"
    path.write_text("qid\tdocno\tscore\tse\nq2\tb\t1.5\tnan\nq1\ta\t-0.0\t0.1\nq2\ta\t2\t0\nq1\tc\t1e-3\t0.2\n")
    cols, table = zs.score_table_with_header(str(path))
    assert cols == ["qid", "docno", "score", "se"]
    assert repr(table) == repr({"q2": (["b", "a"], [1.5, 2.0], [float("nan"), 0.0]),
                                "q1": (["a", "c"], [-0.0, 0.001], [0.1, 0.2])})
    assert zs._score_columns(path.read_text().split("\n")) is not None


@pytest.mark.parametrize("row, message", [
    ("q1\ta\t1\t0.1", "s.tsv:4: document 'a' appears twice for query 'q1'"),
    ("q1\tb\tinf\t0.1", "s.tsv:4: expected a finite score"),
    ("q1\tb\t1\t-0.5", "s.tsv:4: expected a non-negative se"),
    ("q1\tb\t1", "s.tsv:4: expected 4 tab-separated fields"),
    ("q1\tb\tone\t0.1", "s.tsv:4: expected numbers as score and se"),
])
def test_a_bad_row_is_named(tmp_path, row, message):
    path = tmp_path / "s.tsv"
    path.write_text(f"qid\tdocno\tscore\tse\nq1\ta\t1\t0.1\nq2\ta\t1\t0.1\n{row}\nq2\tb\t1\t0.1\n")
    with pytest.raises(InputError, match=message.replace(".", r"\.")):
        zs.score_table_with_header(str(path))

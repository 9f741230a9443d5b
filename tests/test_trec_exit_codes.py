"""zelo_trec's exit statuses beside trec_eval 10's (docs/exit-codes.md, "zelo_trec and trec_eval's exit
statuses"): every row of the page's table run with zelo_trec (its status as the page says), and with trec_eval
itself where a built binary is at /tmp/trec_eval/trec_eval (its status as the page says: the oracle, live).
Every fault is non-zero in both but the two the table marks 0 (a script's ``||`` / ``set -e`` behaves the
same)."""
from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

from cli_harness import run_inproc

DOC = Path(__file__).resolve().parent.parent / "docs" / "exit-codes.md"
TREC_EVAL = Path("/tmp/trec_eval/trec_eval")

FILES = {
    "q.qrels": "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 1\n",
    "r.run": "q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\nq2 Q0 d1 1 1.0 r\n",
    "empty.run": "",
    "short.run": "q1 Q0 d1\n",
    "short.qrels": "q1 0 d1\n",
    "dup.run": "q1 Q0 d1 1 2.0 r\nq1 Q0 d1 2 1.0 r\nq2 Q0 d1 1 1.0 r\n",
    "dup.qrels": "q1 0 d1 1\nq1 0 d1 0\nq2 0 d1 1\n",
    "none.run": "q9 Q0 d1 1 1.0 r\n",
    "some.run": "q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\nq3 Q0 d1 1 1.0 r\n",
    "abc.run": "q1 Q0 d1 1 abc r\nq2 Q0 d1 1 1.0 r\n",
}


def _rows() -> list[tuple[str, list[str], int, int]]:
    """(fault, zelo_trec's arguments, trec_eval's status, zelo_trec's status) of the page's table."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## zelo_trec and trec_eval's exit statuses", 1)[1].split("\n## ", 1)[0]
    rows = []
    for m in re.finditer(r"^\| ([^|]+?) \| `zelo_trec ([^`]*)` \| (\d+) \| (\d+)[^|]*\|$", section, re.M):
        rows.append((m[1], shlex.split(m[2]), int(m[3]), int(m[4])))
    return rows


ROWS = _rows()


def _ws(tmp_path: Path) -> Path:
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_the_table_is_read():
    assert len(ROWS) == 15
    assert {r[2] for r in ROWS} == {0, 1, 2, 4} and {r[3] for r in ROWS} == {0, 2}


@pytest.mark.parametrize(("fault", "args", "theirs", "ours"), ROWS, ids=[r[0] for r in ROWS])
def test_zelo_trec_status(tmp_path, fault, args, theirs, ours):
    res = run_inproc("zelo_trec", args, _ws(tmp_path))
    assert res.returncode == ours, (fault, res.stderr)
    assert "Traceback" not in res.stderr
    if ours:
        assert res.stdout == b"", fault  # nothing printed before the refusal


@pytest.mark.skipif(not TREC_EVAL.exists(), reason="trec_eval not built at /tmp/trec_eval")
@pytest.mark.parametrize(("fault", "args", "theirs", "ours"), ROWS, ids=[r[0] for r in ROWS])
def test_trec_eval_status_live(tmp_path, fault, args, theirs, ours):
    proc = subprocess.run([str(TREC_EVAL), *args], cwd=_ws(tmp_path), capture_output=True, timeout=30)
    assert proc.returncode == theirs, (fault, proc.stderr)

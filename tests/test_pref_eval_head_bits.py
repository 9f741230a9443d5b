"""``zelo_eval --pref-eval-head``: diazf/pref_eval HEAD's graded RPP family to the last bit.

HEAD (28d7bd3) computes ``Σ_g m_g·rpp_g / Σ_g m_g`` with every term the cached binary RPP r (its relevance-vector
cache): the same ``m·r`` added once per grade of the query, then divided by ``G·m`` -- which rounds differently
from r itself (a unit in the last place on the DL-2019 sample's graded queries; the old code printed r). Oracle:
HEAD's own output, stored (tests/data/pref_eval_ref/head/README.md says how it was made) and, when a mirror of
diazf/pref_eval is present, run live.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
QRELS = ROOT / "qrels" / "dl19-sample.qrels"
RUNS = [ROOT / "runs" / f"{n}.run" for n in ("bm25", "dense", "rerank")]
STORED = ROOT / "tests" / "data" / "pref_eval_ref" / "head" / "dl19-sample.q.jsonl"
MIRROR = Path("/work/.mirror/diazf+pref_eval/repo")  # `fetch github:diazf/pref_eval` (test-only)


def _ours(*args: str) -> str:
    import contextlib
    import io

    from pref_eval.cli.eval import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            main(["--pref-eval-head", "-q", *args, "-R", str(QRELS), *map(str, RUNS)])
        except SystemExit as exc:
            assert exc.code in (0, None), exc.code
    return out.getvalue()


def test_per_query_and_summary_lines_are_heads_bytes():
    assert _ours("-m", "rpp", "-m", "invrpp", "-m", "dcgrpp") == STORED.read_text()


@pytest.mark.skipif(not MIRROR.exists(), reason="needs a local mirror of diazf/pref_eval (HEAD)")
def test_every_measure_against_head_live(tmp_path):
    """pref_eval.py HEAD run live with its default measures (-M all): every per-query line the same bytes."""
    archive = subprocess.run(["git", "-C", str(MIRROR), "archive", "HEAD"], capture_output=True, check=True)
    subprocess.run(["tar", "x", "-C", str(tmp_path)], input=archive.stdout, check=True)
    head = subprocess.run([sys.executable, "pref_eval.py", "-q", "-R", str(QRELS), *map(str, RUNS)],
                          cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    ours = _ours()
    per_query = [ln for ln in head.splitlines() if not ln.startswith('{"qid": "all"')]
    assert [ln for ln in ours.splitlines() if not ln.startswith('{"qid": "all"')] == per_query
    assert len(per_query) > 20

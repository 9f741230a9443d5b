"""NTCIR's topic-by-run matrix from ``zelo_eval -c -o topics`` (docs/zelo_eval.md, "NTCIR's topic-by-run matrix";
session 28, k38): the page's filter gives the bytes of NTCIREVAL 190111's own ``Topicsys-matrix`` (the oracle, run
under /tmp and stored in tests/data/ntcir/ with how it was run) for AP, P@0010, MSnDCG@0010, RR, Hit@0010 and RBP on
the shipped sample's three runs and a fourth lacking two topics (0 there, as ``-c`` scores them)."""
from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from cli_harness import run_inproc

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "ntcir"
MEASURES = {"AP": "map", "P@0010": "P.10", "MSnDCG@0010": "ndcg_cut.10", "RR": "recip_rank", "Hit@0010": "success.10",
            "RBP": "rbp.p=0.95"}
RUNS = ["runs/bm25.run", "runs/dense.run", "runs/rerank.run"]

pytestmark = pytest.mark.skipif(shutil.which("sed") is None or shutil.which("awk") is None,
                                reason="the page's filter needs sed and awk")


def _page_line() -> tuple[list[str], str]:
    """(zelo_eval's arguments, the filter between the first ``|`` and ``>``) of the page's matrix line."""
    text = (ROOT / "docs" / "zelo_eval.md").read_text(encoding="utf-8")
    line = next(ln.strip() for ln in text.splitlines() if ln.strip().startswith("zelo_eval ") and "tsmatrix" in ln)
    command, rest = line.split(" | ", 1)
    flt = re.sub(r"\s*>\s*\S+$", "", rest)
    return shlex.split(command)[1:], flt


def _matrix(args: list[str], flt: str, cwd: Path) -> bytes:
    res = run_inproc("zelo_eval", args, cwd)
    assert res.returncode == 0, res.stderr
    proc = subprocess.run(["sh", "-c", flt], input=res.stdout, capture_output=True, timeout=60, check=True)
    return proc.stdout


def _partial(tmp_path: Path) -> Path:
    """runs/bm25.run without topics 1037798 and 1110199, tagged ``partial`` (README.md of the data)."""
    lines = (ROOT / "runs" / "bm25.run").read_text(encoding="utf-8").splitlines()
    keep = [ln.rsplit(" ", 1)[0] + " partial" for ln in lines if ln.split()[0] not in ("1037798", "1110199")]
    assert len(keep) < len(lines)
    (tmp_path / "partial").write_text("\n".join(keep) + "\n", encoding="utf-8")
    return tmp_path / "partial"


def test_the_page_line_is_ntcireval_matrix():
    """The page's own command (three runs, ndcg_cut.10): NTCIREVAL's MSnDCG@0010 matrix, its first three columns."""
    args, flt = _page_line()
    assert "-c" in args and tuple(args[args.index("-m"):args.index("-m") + 2]) == ("-m", "ndcg_cut.10")
    want = [" ".join(row.split(" ")[:3]) for row in (DATA / "MSnDCG@0010.tsmatrix").read_text().splitlines()]
    assert _matrix(args, flt, ROOT).decode().splitlines() == want


@pytest.mark.parametrize(("ntcir", "ours"), MEASURES.items())
def test_matrices_equal_ntcireval(tmp_path, ntcir, ours):
    args, flt = _page_line()
    m = args.index("-m")
    args = args[:m] + ["-m", ours] + [a for a in args[m + 2:] if a not in RUNS] + RUNS + [str(_partial(tmp_path))]
    assert _matrix(args, flt, ROOT) == (DATA / f"{ntcir}.tsmatrix").read_bytes()

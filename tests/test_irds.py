"""``irds:<dataset-id>`` as a PyTerrier / ir-measures user names qrels: values against ir-measures live on the
qrels ir_datasets itself reads (the oracle), and every failure one stderr line naming ``irds:<id>``, exit 2.

Datasets are registered locally (``LocalDownload`` of files under tmp_path); the "needs a download" dataset
downloads from ``127.0.0.1:9`` (the discard port: refused at once, no DNS, no internet), through ir_datasets'
own ``RequestsDownload`` and its log lines.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ir_datasets")  # both are only imported in the subprocesses (ir_datasets' import makes
pytest.importorskip("ir_measures")  # the directories of IR_DATASETS_HOME)

ROOT = Path(__file__).resolve().parent.parent
QRELS = ROOT / "qrels" / "dl19-sample.qrels"
RUNS = [ROOT / "runs" / "bm25.run", ROOT / "runs" / "rerank.run"]

REGISTER = """
import os, sys
import ir_datasets
from ir_datasets.formats import TrecQrels, TsvQueries
from ir_datasets.util import Cache, LocalDownload, RequestsDownload
from ir_datasets.util.download import Download
d = os.environ["PREF_EVAL_IRDS_DIR"]
reg = ir_datasets.registry.register
grades = {0: "no", 1: "a", 2: "b", 3: "c"}
reg("pref-eval-irds/graded", ir_datasets.Dataset(TrecQrels(LocalDownload(d + "/graded.qrels"), grades)))
reg("pref-eval-irds/topics", ir_datasets.Dataset(TsvQueries(LocalDownload(d + "/q.tsv"))))
reg("pref-eval-irds/bad-grade", ir_datasets.Dataset(TrecQrels(LocalDownload(d + "/bad-grade.qrels"), grades)))
reg("pref-eval-irds/bad-columns", ir_datasets.Dataset(TrecQrels(LocalDownload(d + "/bad-columns.qrels"), grades)))
reg("pref-eval-irds/bad-gz", ir_datasets.Dataset(TrecQrels(LocalDownload(d + "/bad.qrels.gz"), grades)))
reg("pref-eval-irds/download", ir_datasets.Dataset(TrecQrels(
    Cache(Download([RequestsDownload("http://127.0.0.1:9/qrels.txt")]), ir_datasets.util.home_path() / "pe" / "q"),
    {0: "no"})))
if sys.argv[1] == "-":  # the oracle: ir-measures on the qrels ir_datasets reads
    import ir_measures
    names = {"AP(rel=2)": "map", "P(rel=2)@10": "P_10", "nDCG@10": "ndcg_cut_10"}
    qrels = ir_datasets.load("pref-eval-irds/graded").qrels_iter()
    for r in ir_measures.iter_calc([ir_measures.AP(rel=2), ir_measures.P(rel=2) @ 10, ir_measures.nDCG @ 10],
                                   qrels, ir_measures.read_trec_run(sys.argv[2])):
        print(names[str(r.measure)], r.query_id, repr(r.value))
    sys.exit(0)
import runpy
sys.argv = [sys.argv[1], *sys.argv[2:]]
runpy.run_module(sys.argv[0], run_name="__main__")
"""


def run(tmp_path: Path, module: str, *args: str, home: str | None = None) -> subprocess.CompletedProcess:
    data = tmp_path / "data"
    if not data.exists():
        data.mkdir()
        (data / "graded.qrels").write_bytes(QRELS.read_bytes())
        (data / "q.tsv").write_text("1037798\twho is robert gray\n")
        # ir_datasets' TrecQrels skips a line that is exactly "\n": record 4 (d4) is line 6
        (data / "bad-grade.qrels").write_bytes(b"1 0 d1 1\n\n1 0 d2 0\r\n1 0 d3 1\n\n1 0 d4 x\n1 0 d5 1\n")
        (data / "bad-columns.qrels").write_bytes(b"1 0 d1 1\n1 0 d2 0\n1 d3 1\n")
        (data / "bad.qrels.gz").write_bytes(__import__("gzip").compress(b"1 0 d1 1\n1 0 d2 x\n"))
    env = dict(os.environ, PREF_EVAL_IRDS_DIR=str(data), IR_DATASETS_HOME=home or str(tmp_path / "home"),
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-c", REGISTER, module, *args], capture_output=True, timeout=60,
                          env=env)


def one_error_line(proc: subprocess.CompletedProcess, *parts: str) -> str:
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert proc.stdout == b""
    assert err.count("\n") == 1 and "Traceback" not in err and "[INFO]" not in err and "[WARNING]" not in err, err
    for p in parts:
        assert p in err, err
    return err


def test_values_match_ir_measures_on_irds_qrels(tmp_path):
    """zelo_trec -q on irds: qrels = ir-measures on ``dataset.qrels_iter()`` (graded nDCG, binary P at rel=2)."""
    proc = run(tmp_path, "pref_eval.cli.trec", "-q", "-l", "2", "-m", "map", "-m", "P.10", "-m", "ndcg_cut.10",
               "irds:pref-eval-irds/graded", str(RUNS[0]))
    assert proc.returncode == 0, proc.stderr
    ours = {}
    for line in proc.stdout.decode().splitlines():
        m, q, v = line.split()
        ours[(m, q)] = float(v)
    oracle = run(tmp_path, "-", str(RUNS[0]))
    assert oracle.returncode == 0, oracle.stderr
    checked = 0
    for line in oracle.stdout.decode().splitlines():
        m, q, v = line.split()
        assert ours[(m, q)] == pytest.approx(float(v), abs=5e-5), (m, q)
        checked += 1
    assert checked == len(ours) - 3 > 3 * 5  # every query, all but the "all" rows


def test_unknown_id_names_close_ids(tmp_path):
    proc = run(tmp_path, "pref_eval.cli.trec", "-m", "map", "irds:pref-eval-irds/grade", str(RUNS[0]))
    one_error_line(proc, "irds:pref-eval-irds/grade: unknown ir_datasets id", "did you mean 'pref-eval-irds/graded'")


def test_dataset_with_topics_but_no_qrels(tmp_path):
    proc = run(tmp_path, "pref_eval.cli.eval", "-R", "irds:pref-eval-irds/topics", "-m", "map", str(RUNS[0]))
    one_error_line(proc, "irds:pref-eval-irds/topics: dataset 'pref-eval-irds/topics' has no qrels")


@pytest.mark.parametrize("module, args", [
    ("pref_eval.cli.trec", ["-m", "map", "irds:pref-eval-irds/download", str(RUNS[0])]),
    ("pref_eval.cli.eval", ["-R", "irds:pref-eval-irds/download", "-m", "map", str(RUNS[0])]),
])
def test_download_needed_fails_in_one_line(tmp_path, module, args):
    """No network: ir_datasets logs an [INFO] and a [WARNING] line per source, then raises a long repr."""
    proc = run(tmp_path, module, *args)
    one_error_line(proc, "irds:pref-eval-irds/download: cannot load qrels:", "downloading them failed",
                   "IR_DATASETS_HOME")


def test_ir_datasets_home_not_a_directory(tmp_path):
    """``import ir_datasets`` makes its home's directories: a home under a file was a traceback (or a
    misleading 'standard output: cannot write')."""
    blocker = tmp_path / "afile"
    blocker.write_text("")
    env = dict(os.environ, IR_DATASETS_HOME=str(blocker / "home"),
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-m", "pref_eval.cli.trec", "-m", "map", "irds:vaswani",
                           str(RUNS[0])], capture_output=True, timeout=60, env=env)
    one_error_line(proc, "irds:vaswani: cannot import ir_datasets", "IR_DATASETS_HOME")


@pytest.mark.parametrize("name, place, what", [
    ("bad-grade", "record 4 ({data}/bad-grade.qrels:6)", "ValueError: invalid literal for int() with base 10: 'x'"),
    ("bad-columns", "record 3 ({data}/bad-columns.qrels:3)", "RuntimeError: expected 4 columns, got 3"),
    ("bad-gz", "record 1 (in {data}/bad.qrels.gz)", "UnicodeDecodeError: "),  # ir_datasets reads it as text
])
def test_a_parse_error_names_the_record_and_the_file(tmp_path, name, place, what):
    """ir_datasets parses the file: its error named no line (``ValueError: invalid literal ...``). Now the record
    it failed on, and the file and line it read when the dataset is one plain TREC qrels file. The lines were
    counted by hand in the files written by :func:`run` (``1 0 d4 x`` is the 4th record, on line 6: the blank
    lines hold none, ``\\r\\n`` ends one line)."""
    proc = run(tmp_path, "pref_eval.cli.trec", "-m", "map", f"irds:pref-eval-irds/{name}", str(RUNS[0]))
    where = place.format(data=tmp_path / "data")
    one_error_line(proc, f"zelo_trec: irds:pref-eval-irds/{name}: cannot load qrels: {where}: {what}")

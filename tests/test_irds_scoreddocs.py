"""``irds:<dataset-id>`` where a run goes: the dataset's ``scoreddocs`` (the baseline ranking ir-measures' and
PyTerrier's users evaluate through ``ds.scoreddocs_iter()``), on the command lines and in the API.

ir_measures' own command line reads its run argument as a file only (``read_trec_run(args.run)``); here the
``irds:`` prefix (which names qrels where qrels go) names the scoreddocs where a run goes. Oracle: ir-measures
live on the records ir_datasets itself gives (``scoreddocs_iter()``). Datasets are registered locally
(``LocalDownload`` of files under tmp_path; no network), as in tests/test_irds.py.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ir_datasets")  # both only imported in the subprocesses (ir_datasets' import makes the
pytest.importorskip("ir_measures")  # directories of IR_DATASETS_HOME)

ROOT = Path(__file__).resolve().parent.parent
QRELS = ROOT / "qrels" / "dl19-sample.qrels"
RUN = ROOT / "runs" / "bm25.run"
DS = "pref-eval-irds/sd"

REGISTER = """
import os, sys
import ir_datasets
from ir_datasets.formats import TrecQrels, TrecScoredDocs, TsvQueries
from ir_datasets.util import LocalDownload
d = os.environ["PREF_EVAL_IRDS_DIR"]
reg = ir_datasets.registry.register
reg("pref-eval-irds/sd", ir_datasets.Dataset(TrecQrels(LocalDownload(d + "/q.qrels"), {0: "no"}),
                                             TrecScoredDocs(LocalDownload(d + "/sd.run"))))
reg("pref-eval-irds/qrels-only", ir_datasets.Dataset(TrecQrels(LocalDownload(d + "/q.qrels"), {0: "no"})))
reg("pref-eval-irds/topics", ir_datasets.Dataset(TsvQueries(LocalDownload(d + "/q.tsv"))))
reg("pref-eval-irds/bad-score", ir_datasets.Dataset(TrecScoredDocs(LocalDownload(d + "/bad.run"))))
reg("pref-eval-irds/empty", ir_datasets.Dataset(TrecScoredDocs(LocalDownload(d + "/empty.run"))))
if sys.argv[1] == "-":  # the oracle: ir-measures on the records ir_datasets gives
    import ir_measures
    ms = [ir_measures.AP, ir_measures.nDCG @ 10, ir_measures.P @ 10, ir_measures.RR]
    names = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@10": "P_10", "RR": "recip_rank"}
    sd = ir_datasets.load("pref-eval-irds/sd").scoreddocs_iter()
    for r in ir_measures.iter_calc(ms, ir_measures.read_trec_qrels(sys.argv[2]), sd):
        print(names[str(r.measure)], r.query_id, repr(r.value))
    sys.exit(0)
if sys.argv[1] == "exec":
    exec(sys.argv[2])
    sys.exit(0)
import runpy
sys.argv = [sys.argv[1], *sys.argv[2:]]
runpy.run_module(sys.argv[0], run_name="__main__")
"""


def run(tmp_path: Path, module: str, *args: str) -> subprocess.CompletedProcess:
    data = tmp_path / "data"
    if not data.exists():
        data.mkdir()
        (data / "q.qrels").write_bytes(QRELS.read_bytes())
        (data / "sd.run").write_bytes(RUN.read_bytes())
        (data / "q.tsv").write_text("1037798\twho is robert gray\n")
        (data / "bad.run").write_text("1 Q0 d1 1 0.5 r\n1 Q0 d2 2 nan r\n")
        (data / "empty.run").write_text("")
    env = dict(os.environ, PREF_EVAL_IRDS_DIR=str(data), IR_DATASETS_HOME=str(tmp_path / "home"),
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-c", REGISTER, module, *args], capture_output=True, timeout=90,
                          env=env, cwd=tmp_path)


def _values(text: str) -> dict[tuple[str, str], float]:
    out = {}
    for line in text.splitlines():
        m, q, v = line.split()
        out[(m, q)] = float(v)
    return out


@pytest.mark.slow  # three processes, each importing ir_datasets
def test_zelo_trec_on_scoreddocs_is_ir_measures_on_scoreddocs_iter(tmp_path):
    proc = run(tmp_path, "pref_eval.cli.trec", "-q", "-m", "map", "-m", "ndcg_cut.10", "-m", "P.10", "-m",
               "recip_rank", "-m", "runid", str(QRELS), f"irds:{DS}")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == b""
    lines = proc.stdout.decode().splitlines()
    assert [ln.split() for ln in lines if ln.startswith("runid")] == [["runid", "all", "run"]]  # ir_datasets
    # export's --runtag default
    ours = _values("\n".join(ln for ln in lines if not ln.startswith("runid")))
    oracle = run(tmp_path, "-", str(QRELS))
    assert oracle.returncode == 0, oracle.stderr
    theirs = _values(oracle.stdout.decode())
    assert len(theirs) == len(ours) - 4 > 4 * 5  # every query of every measure, all but the "all" rows
    for key, v in theirs.items():
        assert ours[key] == pytest.approx(v, abs=5e-5), key
    # and the very bytes of the same ranking read from its file (tag "bm25" there)
    file = run(tmp_path, "pref_eval.cli.trec", "-q", "-m", "map", "-m", "ndcg_cut.10", "-m", "P.10", "-m",
               "recip_rank", str(QRELS), str(RUN))
    assert file.stdout == "\n".join(ln for ln in lines if not ln.startswith("runid")).encode() + b"\n"


@pytest.mark.slow  # two processes
def test_zelo_eval_and_compare_name_the_run_by_its_id(tmp_path):
    proc = run(tmp_path, "pref_eval.cli.eval", "-R", str(QRELS), "-m", "map", "-o", "tsv", f"irds:{DS}", str(RUN))
    assert proc.returncode == 0, proc.stderr
    rows = [ln.split("\t") for ln in proc.stdout.decode().splitlines()[1:]]
    assert {r[0] for r in rows} == {f"irds:{DS}", "bm25.run"}
    values = {r[0]: r[-1] for r in rows}
    assert values[f"irds:{DS}"] == values["bm25.run"]  # the same ranking
    cmp = run(tmp_path, "pref_eval.cli.compare", "-R", str(QRELS), "-m", "map", "--tests", "t",
              "--baseline", f"irds:{DS}", f"irds:{DS}", str(ROOT / "runs" / "rerank.run"))
    assert cmp.returncode == 0, cmp.stderr
    assert f"irds:{DS}" in cmp.stdout.decode()


def test_api_on_scoreddocs_is_ir_measures_on_scoreddocs_iter(tmp_path):
    """``calc_aggregate`` / ``iter_calc`` / ``evaluate`` with ``'irds:ID'`` as the run: ir-measures' values on
    ``ds.scoreddocs_iter()`` (one process: the oracle beside ours); the run is named by its id."""
    code = f"""
import json, ir_datasets, ir_measures, pref_eval
ms = [ir_measures.AP, ir_measures.nDCG @ 10, ir_measures.P @ 10, ir_measures.RR]
sd = list(ir_datasets.load("{DS}").scoreddocs_iter())
qrels = list(ir_measures.read_trec_qrels({str(QRELS)!r}))
theirs = [(str(r.measure), r.query_id, r.value) for r in ir_measures.iter_calc(ms, qrels, sd)]
ours = [(str(r.measure), r.query_id, r.value) for r in pref_eval.iter_calc(ms, {str(QRELS)!r}, "irds:{DS}")]
agg = pref_eval.calc_aggregate(ms, {str(QRELS)!r}, "irds:{DS}")
df = pref_eval.evaluate({str(QRELS)!r}, ["irds:{DS}"], ["map"])
print(json.dumps([theirs, ours, {{str(k): v for k, v in agg.items()}},
                  {{str(k): v for k, v in ir_measures.calc_aggregate(ms, qrels, sd).items()}}, sorted(set(df.run))]))
"""
    proc = run(tmp_path, "exec", code)
    assert proc.returncode == 0, proc.stderr
    import json

    theirs, ours, agg, agg_theirs, names = json.loads(proc.stdout)
    assert len(theirs) == 4 * 8
    assert len(ours) == len(theirs)
    want = {(m, q): v for m, q, v in theirs}
    for m, q, v in ours:
        assert v == pytest.approx(want[(m, q)], rel=1e-12, abs=1e-15), (m, q)
    assert agg == pytest.approx(agg_theirs, rel=1e-12)
    assert names == [f"irds:{DS}"]


def test_a_file_named_so_is_a_file(tmp_path, monkeypatch):
    """A run file whose name starts with ``irds:`` is read as the file (ir_datasets is not asked)."""
    import pref_eval

    (tmp_path / "irds:mine").write_bytes(RUN.read_bytes())
    monkeypatch.chdir(tmp_path)
    assert (pref_eval.calc_aggregate(["map"], str(QRELS), "irds:mine")
            == pref_eval.calc_aggregate(["map"], str(QRELS), str(RUN)))


FAILURES = [
    ("pref-eval-irds/qrels-only", "irds:pref-eval-irds/qrels-only: dataset 'pref-eval-irds/qrels-only' has no "
                                  "scoreddocs, the ranking irds:ID names where a run goes (its qrels: irds:ID where "
                                  "the qrels go)"),
    ("pref-eval-irds/topics", "irds:pref-eval-irds/topics: dataset 'pref-eval-irds/topics' has no scoreddocs"),
    ("pref-eval-irds/sdd", "irds:pref-eval-irds/sdd: unknown ir_datasets id 'pref-eval-irds/sdd'; did you mean "
                           "'pref-eval-irds/sd'"),
    ("pref-eval-irds/bad-score", "irds:pref-eval-irds/bad-score: scoreddocs record 2: NaN score"),
    ("pref-eval-irds/empty", "irds:pref-eval-irds/empty: dataset has no scoreddocs records"),
]


def test_failures_are_one_line(tmp_path):
    """The command: exit 2, one line; each failure through the API (one process): an InputError saying it."""
    proc = run(tmp_path, "pref_eval.cli.trec", "-m", "map", str(QRELS), f"irds:{FAILURES[0][0]}")
    err = proc.stderr.decode()
    assert proc.returncode == 2 and proc.stdout == b"", err
    assert err.count("\n") == 1 and "Traceback" not in err and "[INFO]" not in err, err
    assert err.startswith("zelo_trec: " + FAILURES[0][1]), err
    code = f"""
import pref_eval
for ds in {[d for d, _ in FAILURES]!r}:
    try:
        pref_eval.calc_aggregate(["map"], {str(QRELS)!r}, "irds:" + ds)
    except pref_eval.errors.InputError as e:
        print(str(e).replace("\\n", " "))
"""
    proc = run(tmp_path, "exec", code)
    assert proc.returncode == 0, proc.stderr
    got = proc.stdout.decode().splitlines()
    assert len(got) == len(FAILURES), got
    for line, (_ds, message) in zip(got, FAILURES, strict=True):
        assert line.startswith(message), (line, message)


EXPORT = """
import runpy, sys
sys.argv = ["ir_datasets", "export", "pref-eval-irds/sd", "scoreddocs", "--format", "trec"]
runpy.run_module("ir_datasets", run_name="__main__")
"""


@pytest.mark.slow  # four processes, each importing ir_datasets
def test_run_types_and_groups_take_the_tag_ir_datasets_exports(tmp_path):
    """``--run-types`` / ``--groups`` with ``irds:ID`` (was: "no such file", the tags read again from a file): the
    scoreddocs go by the tag ir_datasets' own export writes (``ir_datasets export ID scoreddocs --format trec``,
    run live here: its default ``--runtag``), so the tables are those of the exported file, byte for byte but the
    run's name."""
    exported = run(tmp_path, "exec", EXPORT)
    assert exported.returncode == 0, exported.stderr
    assert {ln.split()[5] for ln in exported.stdout.decode().splitlines()} == {"run"}  # the oracle's tag
    (tmp_path / "exported.run").write_bytes(exported.stdout)
    rerank = str(ROOT / "runs" / "rerank.run")
    (tmp_path / "types.txt").write_text("run base\nrerank neural\n")  # 'run' first: data (a header before k38)
    args = ["-R", str(QRELS), "-m", "map", "-m", "P_10", "-o", "topics", "--quartiles", "--run-types", "types.txt"]
    ours = run(tmp_path, "pref_eval.cli.eval", *args, f"irds:{DS}", rerank)
    assert ours.returncode == 0, ours.stderr
    theirs = run(tmp_path, "pref_eval.cli.eval", *args, "exported.run", rerank)
    assert theirs.returncode == 0, theirs.stderr
    assert b"\tbase\t" in ours.stdout and b"\tneural\t" in ours.stdout
    assert ours.stdout == theirs.stdout.replace(b"exported.run", f"irds:{DS}".encode())
    (tmp_path / "groups.txt").write_text("run g2\nrerank g1\n")
    pool = ["pool", "--depth", "5", "-Q", "--contributions", "c.tsv", "--groups", "groups.txt", "-o", "p.txt"]
    ours = run(tmp_path, "pref_eval.cli.pairs", *pool, f"irds:{DS}", rerank)
    assert ours.returncode == 0, ours.stderr
    got = (tmp_path / "c.tsv").read_bytes()
    assert b"\ng2\t1\t" in got
    theirs = run(tmp_path, "pref_eval.cli.pairs", *pool, "exported.run", rerank)
    assert theirs.returncode == 0, theirs.stderr
    assert got == (tmp_path / "c.tsv").read_bytes()


def test_run_types_without_the_tag_say_why(tmp_path, monkeypatch):
    """A types file with no line for the scoreddocs' tag: one line saying which tag they carry and why (no
    ir_datasets: its columns are given by hand), exit 2; the same run with the line is typed."""
    import numpy as np
    from cli_harness import run_inproc

    import pref_eval.io.irds as irds

    cols = {"qid": np.array([b"1037798"] * 2), "docno": np.array([b"8760871", b"x"]),
            "score": np.array([2.0, 1.0])}
    monkeypatch.setattr(irds, "irds_run_columns", lambda dataset_id: cols)
    (tmp_path / "q.txt").write_text("1037798 0 8760871 1\n")
    (tmp_path / "types.txt").write_text("bm25 base\n")
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "P_10", "-o", "topics", "--run-types", "types.txt",
                                   "irds:x/y"], tmp_path)
    err = res.stderr
    assert res.returncode == 2 and res.stdout == b"" and err.count("\n") == 1, err
    assert err.startswith("zelo_eval: types.txt: no type for irds:x/y: an ir_datasets dataset's scoreddocs carry "
                          "no run tag, so they are read with the tag 'run' (trec_eval's runid of `ir_datasets "
                          "export ID scoreddocs`"), err
    (tmp_path / "types.txt").write_text("bm25 base\nrun auto\n")
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "P_10", "-o", "topics", "--run-types", "types.txt",
                                   "irds:x/y"], tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.decode().splitlines()[1].split("\t")[:4] == ["1037798", "P_10", "auto", "1"]

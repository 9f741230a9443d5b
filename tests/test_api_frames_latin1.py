"""Qrels, runs and per-query tables given to the Python API as data whose ids are not UTF-8 (session 28, b38):
a Latin-1 topic or docno as the surrogate escape our readers give (``'q\\udce9'``, in a column of dtype object:
pandas' own strings cannot hold it) or as the ``bytes`` a file holds (``b'q\\xe9'``), in a DataFrame
(``query_id, doc_id``; PyTerrier's ``qid, docno, label`` / ``qid, docno, score, rank, query``; a categorical
column), records or a dict.

Before: every frame was a UnicodeEncodeError / UnicodeDecodeError traceback from pandas' ``astype(str)``, and
``bytes`` ids in records, dicts, ``compare``'s per-query frame or ``pairs``' queries were taken as the text
``"b'q\\xe9'"`` (matching nothing, or printed so). Oracle: trec_eval 10 (live, /tmp/trec_eval) on the same data
written as files -- its per-query table, byte for byte, is ours formatted as it prints; without trec_eval, the
API's values on those files.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

import pandas as pd
import pytest

import pref_eval
from pref_eval.errors import UsageError

ROOT = Path(__file__).resolve().parents[1]
TREC_EVAL = Path("/tmp/trec_eval/trec_eval")
MEASURES = ["map", "ndcg_cut.10", "P.5"]


def _rows(path: Path) -> list[list[bytes]]:
    return [ln.split() for ln in path.read_bytes().split(b"\n") if ln.strip()]


QRELS = [[r[0] + b"\xe9", r[1], r[2] + b"\xe9", r[3]] for r in _rows(ROOT / "qrels" / "dl19-sample.qrels")]
RUN = [[r[0] + b"\xe9", r[1], r[2] + b"\xe9", *r[3:]] for r in _rows(ROOT / "runs" / "bm25.run")]


def _sur(b: bytes) -> str:
    return b.decode("utf-8", "surrogateescape")


def _forms():
    """(name, qrels, run) in every shape, the ids as surrogate escapes or as bytes."""
    for tag, f in (("sur", _sur), ("bytes", lambda b: b)):
        def col(rows, k, f=f):
            return pd.Series([f(r[k]) for r in rows], dtype=object)

        qf = pd.DataFrame({"query_id": col(QRELS, 0), "doc_id": col(QRELS, 2), "relevance": [int(r[3]) for r in QRELS]})
        rf = pd.DataFrame({"query_id": col(RUN, 0), "doc_id": col(RUN, 2), "score": [float(r[4]) for r in RUN]})
        yield f"frame-{tag}", qf, rf
        pt_q = pd.DataFrame({"qid": col(QRELS, 0), "docno": col(QRELS, 2), "label": [int(r[3]) for r in QRELS]})
        pt_r = pd.DataFrame({"qid": col(RUN, 0), "docno": col(RUN, 2), "score": [float(r[4]) for r in RUN],
                             "rank": [int(r[3]) - 1 for r in RUN], "query": "text"})
        yield f"pyterrier-{tag}", pt_q, pt_r
        yield (f"records-{tag}", [(f(r[0]), f(r[2]), int(r[3])) for r in QRELS],
               [(f(r[0]), f(r[2]), float(r[4])) for r in RUN])
        dq: dict = {}
        for r in QRELS:
            dq.setdefault(f(r[0]), {})[f(r[2])] = int(r[3])
        dr: dict = {}
        for r in RUN:
            dr.setdefault(f(r[0]), {})[f(r[2])] = float(r[4])
        yield f"dict-{tag}", dq, dr
    # pandas cannot make a category of surrogate escapes; of bytes it can
    yield ("category-bytes", pd.DataFrame({"query_id": pd.Series([r[0] for r in QRELS], dtype="category"),
                                           "doc_id": [r[2] for r in QRELS], "relevance": [int(r[3]) for r in QRELS]}),
           pd.DataFrame({"query_id": [r[0] for r in RUN], "doc_id": pd.Series([r[2] for r in RUN], dtype="category"),
                         "score": [float(r[4]) for r in RUN]}))


FORMS = {name: (q, r) for name, q, r in _forms()}


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> tuple[Path, Path]:
    d = tmp_path_factory.mktemp("latin1")
    (d / "q.qrels").write_bytes(b"".join(b" ".join(r) + b"\n" for r in QRELS))
    (d / "r.run").write_bytes(b"".join(b" ".join(r) + b"\n" for r in RUN))
    return d / "q.qrels", d / "r.run"


def _table(df) -> list[tuple[bytes, str, str]]:
    """evaluate's per-query rows as trec_eval -q prints them: (topic bytes, measure, value to 4 decimals)."""
    return sorted((q.encode("utf-8", "surrogateescape"), m, f"{v:.4f}")
                  for q, m, v in zip(df["qid"], df["measure"], df["value"], strict=True) if q != "all")


@pytest.fixture(scope="module")
def oracle(files) -> list[tuple[bytes, str, str]]:
    """trec_eval's per-query table of the files (or, without trec_eval, the API's on the files)."""
    q, r = files
    if not TREC_EVAL.is_file():
        return _table(pref_eval.evaluate(str(q), str(r), measures=MEASURES))
    out = subprocess.run([str(TREC_EVAL), "-q", *(f"-m{m}" for m in MEASURES), str(q), str(r)],
                         capture_output=True, check=True).stdout
    rows = [ln.split(b"\t") for ln in out.splitlines()]
    return sorted((t, m.strip().decode(), v.decode()) for m, t, v in rows if t != b"all")


@pytest.mark.parametrize("form", sorted(FORMS))
def test_evaluate_data_with_latin1_ids_equals_trec_eval_on_files(form, oracle):
    qrels, run = FORMS[form]
    got = pref_eval.evaluate(qrels, run, measures=MEASURES)
    assert _table(got) == oracle
    assert {q.encode("utf-8", "surrogateescape") for q in got["qid"]} - {b"all"} == {r[0] for r in RUN}


def test_evaluate_mixes_data_and_files(files, oracle):
    """Qrels as a file, the run as bytes records (was: ids "b'...'" matching no topic): the same table."""
    q, _r = files
    run = [(r[0], r[2], float(r[4])) for r in RUN]
    assert _table(pref_eval.evaluate(str(q), run, measures=MEASURES)) == oracle


def test_iter_calc_and_evaluator_keys_are_the_ids(oracle):
    qrels, run = FORMS["frame-bytes"]
    want = {(t, v) for t, m, v in oracle if m == "map"}
    assert {(x.query_id.encode("utf-8", "surrogateescape"), f"{x.value:.4f}")
            for x in pref_eval.iter_calc(["AP"], qrels, run)} == want
    per_query = pref_eval.evaluator(["AP"], qrels).evaluate(run)
    assert {(k.encode("utf-8", "surrogateescape"), f"{v['AP']:.4f}") for k, v in per_query.items()} == want


def test_compare_frame_with_bytes_run_names_and_topics():
    """compare()'s per-query frame with run names and topics as bytes: the same records as with their
    surrogate escapes (was: runs named "b'r\\xe9'", and baseline='r\\udce9' not found), the t-test's p-value
    scipy's."""
    from scipy import stats

    base = pref_eval.evaluate(*FORMS["frame-sur"], measures=["map"])
    runs = []
    for k, name in enumerate(["r\udce9a", "plain", "\udcfcber"]):
        runs.append(base.assign(run=pd.Series([name] * len(base), dtype=object),
                                value=base["value"] * (1 + 0.1 * k) + 0.01 * k * (base.index % 3)))
    sur = pd.concat(runs, ignore_index=True)
    raw = sur.assign(run=pd.Series([x.encode("utf-8", "surrogateescape") for x in sur["run"]], dtype=object),
                     qid=pd.Series([x.encode("utf-8", "surrogateescape") for x in sur["qid"]], dtype=object))
    a = pref_eval.compare(sur, baseline="r\udce9a", tests=["t"])
    b = pref_eval.compare(raw, baseline="r\udce9a", tests=["t"])
    pd.testing.assert_frame_equal(a.records, b.records)
    assert set(b.records["run_a"]) | set(b.records["run_b"]) == {"r\udce9a", "plain", "\udcfcber"}
    x = sur[(sur["run"] == "r\udce9a") & (sur["qid"] != "all")].sort_values("qid")["value"].to_numpy()
    y = sur[(sur["run"] == "plain") & (sur["qid"] != "all")].sort_values("qid")["value"].to_numpy()
    row = b.records[(b.records["run_b"] == "plain") | (b.records["run_a"] == "plain")].iloc[0]
    assert row["p_value"] == pytest.approx(stats.ttest_rel(x, y).pvalue, rel=1e-12)
    pt = raw.rename(columns={"run": "name"})  # PyTerrier's per-query table
    pd.testing.assert_frame_equal(pref_eval.compare(pt, baseline="r\udce9a", tests=["t"]).records, a.records)


def test_preferences_data_is_a_usage_error():
    """preferences() reads files: data was a TypeError traceback from os.fspath."""
    qrels, run = FORMS["frame-sur"]
    with pytest.raises(UsageError, match=r"^qrels: expected a path, got DataFrame"):
        pref_eval.preferences(qrels, [str(ROOT / "runs" / "bm25.run")])
    with pytest.raises(UsageError, match=r"^runs: expected a path or a list of paths, got DataFrame"):
        pref_eval.preferences(str(ROOT / "qrels" / "dl19-sample.qrels"), run)


def test_pairs_queries_as_bytes(tmp_path):
    """pairs() with bytes ids: the TSV holds the bytes, the JSON lines \\udcNN (was: "b'q\\xe9'" in the TSV, a
    TypeError in the JSON lines); the same pairs as the surrogate escapes give."""
    raw = {b"q\xe9": [b"d\xe91", b"d2", b"d\xfc3"]}
    sur = {_sur(k): [_sur(d) for d in v] for k, v in raw.items()}
    assert pref_eval.pairs(raw, cycles=2, seed=4) == pref_eval.pairs(sur, cycles=2, seed=4)
    pref_eval.pairs(raw, cycles=1, seed=4, output=str(tmp_path / "p.tsv"), output_format="tsv")
    lines = (tmp_path / "p.tsv").read_bytes().splitlines()[1:]
    assert {tuple(ln.split(b"\t")) for ln in lines} == {(b"q\xe9", a.encode("utf-8", "surrogateescape"),
                                                         b.encode("utf-8", "surrogateescape"))
                                                        for _q, a, b in pref_eval.pairs(sur, cycles=1, seed=4)}
    pref_eval.pairs(raw, cycles=1, seed=4, output=str(tmp_path / "p.jsonl"))
    assert b'"q\\udce9"' in (tmp_path / "p.jsonl").read_bytes()


@pytest.mark.parametrize("form", ["sur", "bytes"])
def test_dask_fit_frame_with_latin1_ids(tmp_path, form):
    """``pref_eval.dask.fit_frame`` (one partition of ``fit_judgments``) on judgments whose ids are not UTF-8 (was a
    UnicodeEncodeError / UnicodeDecodeError from pandas' strings): the scores and ids of ``fit`` on the same
    judgments as a JSON lines file (``\\udcNN``, the escape every JSON reader of ours reads as the byte)."""
    pytest.importorskip("dask")
    import json

    from pref_eval.dask import fit_frame

    rows = [(b"q\xe9", b"a\xe9", b"b", 1.0), (b"q\xe9", b"b", b"\xfcc", 0.0), (b"q\xe9", b"a\xe9", b"\xfcc", 1.0),
            (b"q\xe9", b"b", b"a\xe9", 0.5), (b"r", b"x\xe9", b"y", 0.0)]
    f = _sur if form == "sur" else (lambda b: b)
    df = pd.DataFrame({c: pd.Series([f(r[k]) for r in rows], dtype=object) for k, c in enumerate(["qid", "doc_a",
                                                                                                   "doc_b"])})
    df["score"] = [r[3] for r in rows]
    (tmp_path / "j.jsonl").write_text("".join(json.dumps({"qid": _sur(q), "doc_a": _sur(a), "doc_b": _sur(b),
                                                          "score": s}) + "\n" for q, a, b, s in rows))
    got = fit_frame(df)
    want = pref_eval.fit(str(tmp_path / "j.jsonl"))
    assert got["qid"].tolist() == want["qid"].tolist() and got["docno"].tolist() == want["docno"].tolist()
    assert got["score"].tolist() == want["score"].tolist() and got["se"].tolist() == want["se"].tolist()
    assert {d.encode("utf-8", "surrogateescape") for d in got["docno"]} == {b"a\xe9", b"b", b"\xfcc", b"x\xe9", b"y"}

"""zelo_fit on odd but valid inputs, checked by hand (an outside user's trial, session 9).

* ``--prior 0 --qrels``: the scores of a pure-MLE fit are centred inside each strongly connected
  component (SCC), so the whole-query order is (level, then score) -- docs/zelo.md. The quantile bins
  ranked by score alone: a perfect chain d > c > b > a (every document its own SCC, every score 0)
  gave all four the same grade, and documents of a dominated SCC could get a higher grade than the
  documents that beat them.
* ``--bins fixed:`` and ``--output-format zbench`` need one comparable score per document: refused
  with ``--prior 0``; so are zbench's measures (``zelo_eval -R``) and best items (``-B``) over a
  ``--prior 0`` table.
* ``--compat zbench`` ignored ``--prior``, ``--weights``, ``--weight-power``, ``--tol``, ``--max-iter``
  and the judgments' ``weight`` field (zbench's iteration has none of them): refused.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_harness import run_module_inproc

ROOT = Path(__file__).resolve().parent.parent
ZB = ROOT / "tests/data/zelo/zbench/case_small"


def _run(mod, *args, cwd):
    """``python -m pref_eval.cli.<mod> ARGS`` in process (what is checked here needs no process; the commands'
    real processes are tested by test_docs.py and test_startup_imports.py)."""
    return run_module_inproc(mod, args, cwd)


def _jsonl(path, rows):
    path.write_text("".join(json.dumps({"qid": q, "doc_a": a, "doc_b": b, "score": s}) + "\n"
                            for q, a, b, s in rows))
    return path


def _qrels(path):
    return {ln.split()[2]: ln.split()[3] for ln in path.read_text().splitlines()}


def test_prior0_quantile_grades_follow_level_then_score_chain(tmp_path):
    # score 1 = doc_b better: d > c > b > a, each its own SCC (levels 0, 1, 2, 3), every score 0
    _jsonl(tmp_path / "j.jsonl", [("q", "a", "b", 1), ("q", "b", "c", 1), ("q", "c", "d", 1)])
    r = _run("fit", "-J", "j.jsonl", "--prior", "0", "--qrels", "out.qrels", "-o", "s.tsv", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    # rank r (worst first) 1..4, grade floor(4 (r - 1/2) / 4): a 0, b 1, c 2, d 3 (was 2 2 2 2)
    assert _qrels(tmp_path / "out.qrels") == {"a": "0", "b": "1", "c": "2", "d": "3"}


def test_prior0_quantile_grades_hand_worked(tmp_path):
    # SCC {a, b}: a beat b twice, b beat a once -> a = +ln2/2, b = -ln2/2 (MLE, centred in the SCC), level 0;
    # c lost to a and to b -> its own SCC, score 0, level 1; {d, e} beat each other once -> scores 0, and c beat d
    # -> level 2. Whole-query order, worst first: d = e (mid-rank 1.5), c (3), b (4), a (5); with G = 4 grades,
    # grade = floor(4 (r - 1/2) / 5): d, e 0; c 2; b 2; a 3. By score alone b (-0.35) was the lowest (grade 0)
    # and d, e (beaten by c) shared c's grade 2.
    rows = [("q", "b", "a", 1), ("q", "b", "a", 1), ("q", "a", "b", 1), ("q", "c", "a", 1), ("q", "c", "b", 1),
            ("q", "d", "e", 1), ("q", "e", "d", 1), ("q", "d", "c", 1)]
    _jsonl(tmp_path / "j.jsonl", rows)
    r = _run("fit", "-J", "j.jsonl", "--prior", "0", "--qrels", "out.qrels", "-o", "s.tsv", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    levels = {ln.split("\t")[1]: ln.split("\t")[5] for ln in (tmp_path / "s.tsv").read_text().splitlines()[1:]}
    assert levels == {"a": "0", "b": "0", "c": "1", "d": "2", "e": "2"}
    assert _qrels(tmp_path / "out.qrels") == {"a": "3", "b": "2", "c": "2", "d": "0", "e": "0"}


def test_prior_default_quantile_grades_unchanged(tmp_path):
    """With the prior the scores are one scale: bins by score, as before (same chain: 0 1 2 3)."""
    _jsonl(tmp_path / "j.jsonl", [("q", "a", "b", 1), ("q", "b", "c", 1), ("q", "c", "d", 1)])
    r = _run("fit", "-J", "j.jsonl", "--qrels", "out.qrels", "-o", "s.tsv", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert _qrels(tmp_path / "out.qrels") == {"a": "0", "b": "1", "c": "2", "d": "3"}


@pytest.mark.parametrize("args,msg", [
    (["--qrels", "o.qrels", "--bins", "fixed:-1,0,1"], "--bins fixed: needs scores comparable across a query"),
    (["--output-format", "zbench"], "--output-format zbench has one score per document"),
])
def test_prior0_single_score_outputs_refused(tmp_path, args, msg):
    _jsonl(tmp_path / "j.jsonl", [("q", "a", "b", 1)])
    r = _run("fit", "-J", "j.jsonl", "--prior", "0", *args, "-o", "s.out", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.startswith(f"zelo_fit: {msg}") and r.stderr.count("\n") == 1
    assert not (tmp_path / "s.out").exists() and not (tmp_path / "o.qrels").exists()


def test_prior0_table_refused_by_zbench_measures_and_best_items(tmp_path):
    _jsonl(tmp_path / "j.jsonl", [("q", "a", "b", 1), ("q", "b", "c", 1)])
    assert _run("fit", "-J", "j.jsonl", "--prior", "0", "-o", "m0.tsv", cwd=tmp_path).returncode == 0
    (tmp_path / "r.run").write_text("q Q0 a 1 3 r\nq Q0 b 2 2 r\nq Q0 c 3 1 r\n")
    (tmp_path / "q.qrels").write_text("q 0 a 1\nq 0 b 1\nq 0 c 1\n")
    for args in (["-R", "m0.tsv", "r.run"], ["-R", "q.qrels", "-B", "m0.tsv", "-m", "BestRR", "r.run"]):
        r = _run("eval", *args, cwd=tmp_path)
        assert r.returncode == 2, r.stdout
        assert r.stderr.startswith("zelo_eval: m0.tsv:1: a zelo_fit --prior 0 table"), r.stderr
    # the default fit's table is read as before
    assert _run("fit", "-J", "j.jsonl", "-o", "m.tsv", cwd=tmp_path).returncode == 0
    assert _run("eval", "-R", "m.tsv", "r.run", cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("opt", [["--prior", "0"], ["--prior", "0.5"], ["--weights", "agreement"],
                                 ["--weight-power", "2"], ["--tol", "1e-3"], ["--max-iter", "5"]])
def test_compat_zbench_refuses_options_it_cannot_use(tmp_path, opt):
    r = _run("fit", "-J", str(ZB / "ai_scores.json.gz"), "--dataset", str(ZB / "dataset.jsonl"), "--compat",
             "zbench", *opt, "-o", "out.tsv", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr == f"zelo_fit: {opt[0]} applies only with the default fit (not with --compat zbench)\n"
    assert not (tmp_path / "out.tsv").exists()


def test_compat_zbench_refuses_judgment_weights(tmp_path):
    p = tmp_path / "w.jsonl"
    p.write_text('{"qid": "q_n2", "doc_a": "d000", "doc_b": "d001", "score": 1, "weight": 3}\n')
    r = _run("fit", "-J", "w.jsonl", "--dataset", str(ZB / "dataset.jsonl"), "--compat", "zbench", "-Q",
             cwd=tmp_path)
    assert r.returncode == 2 and "zbench's fit has no judgment weights" in r.stderr
    p.write_text('{"qid": "q_n2", "doc_a": "d000", "doc_b": "d001", "score": 1, "weight": 1}\n')
    r = _run("fit", "-J", "w.jsonl", "--dataset", str(ZB / "dataset.jsonl"), "--compat", "zbench", "-Q",
             cwd=tmp_path)
    assert r.returncode == 0, r.stderr


def test_api_compat_zbench_refuses_non_default_fit_options():
    from pref_eval import api
    from pref_eval.errors import UsageError

    with pytest.raises(UsageError, match="^prior, weight_power applies only with the default fit"):  # keywords
        api.fit(ZB / "ai_scores.json.gz", dataset=str(ZB / "dataset.jsonl"), compat="zbench", prior=1.0,
                weight_power=2.0)


@pytest.mark.parametrize("w", [1e-3, 1e-9, 1e-20, 1e-300])
def test_prior0_tiny_weights_hand_worked(tmp_path, w):
    """The MLE inside an SCC does not depend on the scale of the weights: b beat a with weight 0.7w, a beat b with
    0.3w -> b - a = ln(7/3), centred +-ln(7/3)/2; the SE of a centred score of a 2-document SCC is
    sqrt(L+_ii) = 1/(2 sqrt(h)), h = w p (1 - p) = 0.21 w. The absolute gradient tolerance stopped at once on such
    weights: scores 0 from 1e-9 on (1e-6: off by 2e-4), SE 0.0 from 1e-20 on."""
    import math

    (tmp_path / "j.jsonl").write_text(json.dumps({"qid": "q", "doc_a": "a", "doc_b": "b", "score": 0.7, "weight": w})
                                      + "\n")
    r = _run("fit", "-J", "j.jsonl", "--prior", "0", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = {ln.split("\t")[1]: ln.split("\t") for ln in r.stdout.splitlines()[1:]}
    half = math.log(7 / 3) / 2
    assert float(rows["b"][2]) == pytest.approx(half, rel=1e-12)
    assert float(rows["a"][2]) == pytest.approx(-half, rel=1e-12)
    assert float(rows["a"][3]) == pytest.approx(1 / (2 * math.sqrt(0.21 * w)), rel=1e-9)


def test_prior0_tiny_weights_equal_choix():
    """A 4-document SCC with weights ~1e-10 equals choix's exact MLE of the same data times 1e10 (scale-invariant)."""
    choix = pytest.importorskip("choix")
    import numpy as np

    from pref_eval.zelo.fit import fit_bt

    rng = np.random.default_rng(3)
    a = np.array([0, 1, 2, 3, 0, 1])
    b = np.array([1, 2, 3, 0, 2, 3])
    s = rng.uniform(0.1, 0.9, len(a))
    w = rng.uniform(0.5, 2.0, len(a)) * 1e-10
    res = fit_bt([4], np.zeros(len(a), int), a, b, s, w, prior=0.0)
    W = np.zeros((4, 4))
    np.add.at(W, (b, a), s * w * 1e10)  # choix: W[i, j] = times i beat j
    np.add.at(W, (a, b), (1 - s) * w * 1e10)
    ref = choix.ilsr_pairwise_dense(W, alpha=0.0, tol=1e-14, max_iter=100000)
    assert res.score == pytest.approx(ref - ref.mean(), abs=1e-9)
    assert res.converged.all()


@pytest.mark.parametrize("name,text,fmt,line,what", [
    ("tab.jsonl", '{"qid": "q", "doc_a": "a", "doc_b": "c", "score": 1}\n'
                  '{"qid": "q\\t1", "doc_a": "a", "doc_b": "c", "score": 1}\n', "jsonl", 2, "qid"),
    ("nl.jsonl", '{"qid": "q", "doc_a": "a", "doc_b": "c\\nd", "score": 1}\n', "jsonl", 1, "doc_b"),
    ("empty.jsonl", '{"qid": "", "doc_a": "a", "doc_b": "c", "score": 1}\n', "jsonl", 1, "qid"),
    ("cr.tsv", "q\ta\r1,b\t1\t1\t1\n", "xie", 1, "left"),
])
def test_ids_with_tabs_or_line_breaks_are_refused(tmp_path, name, text, fmt, line, what):
    """An id with a tab or a line break (or an empty one) came out as a broken TSV row and qrels line:
    refused where it is read."""
    (tmp_path / name).write_bytes(text.encode())
    r = _run("fit", "-J", name, "--format", fmt, "-o", "s.tsv", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.startswith(f"zelo_fit: {name}:{line}: expected {what} not empty and without tabs, line breaks "
                               "or NUL")
    assert not (tmp_path / "s.tsv").exists()


def test_ids_with_spaces_fine_in_tsv_refused_in_qrels(tmp_path):
    """Xie et al.'s queries are texts: a space is kept in the score TSV; TREC qrels cannot hold it ('q 1 0 a 1'
    is five fields), so --qrels is refused instead of writing such a line."""
    (tmp_path / "x.tsv").write_text("q 1\ta,b\t1\t1\t1\n")
    r = _run("fit", "-J", "x.tsv", "-o", "s.tsv", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "s.tsv").read_text().splitlines()[1].split("\t")[:2] == ["q 1", "a"]
    r = _run("fit", "-J", "x.tsv", "-o", "s2.tsv", "--qrels", "s.qrels", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr == "zelo_fit: --qrels: the id 'q 1' holds a space, which TREC qrels cannot hold (the score TSV " \
                       "and --output-format zbench can)\n"
    assert not (tmp_path / "s.qrels").exists() and not (tmp_path / "s2.tsv").exists()


def test_dataset_ids_with_tabs_are_refused(tmp_path):
    (tmp_path / "ds.jsonl").write_text('{"query": {"id": "q1"}, "documents": [{"id": "d0"}, {"id": "d\\t1"}]}\n')
    _jsonl(tmp_path / "j.jsonl", [("q1", "d0", "d0", 1)])
    r = _run("fit", "-J", "j.jsonl", "--dataset", "ds.jsonl", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.startswith("zelo_fit: ds.jsonl:1: expected ids not empty and without tabs")

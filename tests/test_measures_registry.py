"""Registry-wide checks over EVERY registered measure (scikit-learn's ``test_common`` habit).

For each spec of ``pref_eval.measures.registry()`` -- the families added later
included, without listing them here:

* documentation: a formula and a citation;
* bounds: every per-query value of a float measure lies in ``spec.bounds``
  (default [0, 1]; NaN only where the empty-query value is NaN or not constant);
* invariance to the line order of the qrels and of the run, and to the order
  of the runs;
* per-query rows vs the summary: mean / sum / geometric mean (floor 1e-5) /
  count of the per-query values, as ``spec.aggregate`` says;
* the empty-query value: on a query whose ranking is empty (every retrieved
  document unjudged, removed by ``judged_only``) the value is
  ``spec.empty_value`` (None: depends on the qrels; not checked).

Measures that read another rel-info format (trec_eval's ``prefs`` and
``qrels_jg`` families, ``ctx.extra``) are driven through ``zelo_trec -R``
on the committed generated cases instead (line order and summary checks).
"""
from __future__ import annotations

import math
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pref_eval.collection import build_collection
from pref_eval.engine import MIN_GEO_MEAN, evaluate_ranked
from pref_eval.io.qrels import qrels_from_records
from pref_eval.io.runs import run_from_records
from pref_eval.measures import EvalContext, MeasureRequest, registry

ROOT = Path(__file__).resolve().parents[1]
EXTRA_FORMAT = ("prefs_", "_avgjg")  # read through ctx.extra (zelo_trec -R prefs / qrels_jg)


def _specs(extra: bool):
    out = []
    for name, spec in sorted(registry().items()):
        is_extra = name.startswith("prefs_") or name.endswith("_avgjg")
        if is_extra == extra:
            out.append(spec)
    return out


def qrels_records(seed: int = 7, shuffle: bool = False) -> list[tuple]:
    """(qid, subtopic, doc, grade): graded and negative judgments, two subtopics, a query without relevant doc."""
    rng = random.Random(seed)
    recs = []
    for q in range(1, 9):
        for i in range(25):
            for st in ("1", "2"):
                g = rng.choice([-1, 0, 0, 1, 2, 3]) if q != 4 else rng.choice([-1, 0])
                recs.append((str(q), st, f"d{i}", g))
    if shuffle:
        random.Random(99).shuffle(recs)
    return recs


def run_records(seed: int, shuffle: bool = False) -> list[tuple]:
    rng = random.Random(seed)
    recs = []
    for q in range(1, 9):
        if q == 6:  # only unjudged documents: empty ranking under judged_only
            recs += [(str(q), f"x{i}", float(i)) for i in range(5)]
            continue
        docs = rng.sample([f"d{i}" for i in range(25)] + [f"x{i}" for i in range(10)], rng.randint(1, 30))
        recs += [(str(q), d, float(rng.choice([0.1, 0.2, 0.3, rng.random()]))) for d in docs]
    if shuffle:
        random.Random(98).shuffle(recs)
    return recs


def judgment_lines(qrels_recs, shuffle: bool = False) -> list[str]:
    """clarke3 lines ``topic winner loser`` from the subtopic-1 grades (for measures computed from judgments)."""
    by_q: dict[str, list[tuple[str, int]]] = {}
    for q, st, d, g in qrels_recs:
        if st == "1" and g >= 0:
            by_q.setdefault(q, []).append((d, g))
    lines = []
    for q, docs in sorted(by_q.items()):
        docs.sort()
        for i, (a, ga) in enumerate(docs[:12]):
            for b, gb in docs[i + 1:12]:
                if ga != gb:
                    lines.append(f"{q} {a} {b}\n" if ga > gb else f"{q} {b} {a}\n")
    if shuffle:
        random.Random(97).shuffle(lines)
    return lines


def best_lines(qrels_recs, shuffle: bool = False) -> list[str]:
    """Best-item set in qrels form: per query, the documents with the top grade of subtopic 1."""
    top: dict[str, int] = {}
    for q, st, _, g in qrels_recs:
        if st == "1":
            top[q] = max(top.get(q, 0), g)
    lines = sorted(f"{q} Q0 {d} 1\n" for q, st, d, g in qrels_recs if st == "1" and g > 0 and g == top[q])
    if shuffle:
        random.Random(96).shuffle(lines)
    return lines


def _evaluate(spec, runs_recs, qrels_recs, judged_only=False, tmp=None, shuffle=False):
    subtopics = "subtopics" in spec.needs
    if subtopics:
        qrels = qrels_from_records(qrels_recs, subtopics=True)
    else:  # one judgment per (qid, doc): subtopic 1
        qrels = qrels_from_records([(q, d, g) for q, st, d, g in qrels_recs if st == "1"])
    runs = [run_from_records(r, name=name) for name, r in runs_recs]
    col = build_collection(qrels, runs, judged_only=judged_only)
    req = _request(spec)
    ctx = EvalContext()
    inputs: dict = {}
    if "judgments" in spec.needs:
        path = tmp / f"judgments{int(shuffle)}.txt"
        path.write_text("".join(judgment_lines(qrels_recs, shuffle)))
        inputs.update(judgments=str(path), judgments_format="clarke3")
    if "best" in spec.needs:
        path = tmp / f"best{int(shuffle)}.qrels"
        path.write_text("".join(best_lines(qrels_recs, shuffle)))
        inputs["best"] = str(path)
    unknown = spec.needs - {"subtopics", "judgments", "best"}
    assert not unknown, f"{spec.name} needs {unknown}: teach this test to build that input"
    if inputs:
        from pref_eval.api import extra_inputs

        ctx = EvalContext(extra=extra_inputs([req], **inputs))
    out = []
    for r in col.runs:
        res = evaluate_ranked(r, [req], ctx)
        out.append({c.name: (list(c.values) if c.value_type == "str" else np.asarray(c.values, dtype=float),
                             c.summary, res.qids) for c in res.columns})
    return out


AGGREGATES = {
    "mean": lambda v, nq: float(np.sum(v)) / nq,
    "sum": lambda v, nq: float(np.sum(v)),
    "gmean": lambda v, nq: math.exp(float(np.sum(np.log(np.maximum(v, MIN_GEO_MEAN)))) / nq),
    "count": lambda v, nq: float(nq),
}
SAMPLE = {"max_rel": 3}  # parameters some families require (C/W/L's highest grade)


def _request(spec) -> MeasureRequest:
    """The spec with its defaults; through its ir-measures name when it needs a parameter (BPM(max_rel=3))."""
    from pref_eval.errors import UsageError
    from pref_eval.measures import parse_measure
    from pref_eval.measures.params import NOT_GIVEN

    req = MeasureRequest(spec, tuple(spec.defaults), None)
    if spec.needs - {"subtopics"}:
        return req
    try:
        req.compute(_tiny(), EvalContext())
        return req
    except UsageError:
        fam = spec.irm.rstrip("@")
        kw = ", ".join(f"{p.name}={SAMPLE[p.name]!r}" for p in spec.keywords
                       if p.default is NOT_GIVEN and p.name in SAMPLE)
        name = f"{fam}({kw})" + ("@10" if spec.irm.endswith("@") else "")
        (r,) = parse_measure(name)
        return r


def _tiny():
    qrels = qrels_from_records([("1", "a", 1)])
    return build_collection(qrels, [run_from_records([("1", "a", 1.0)])]).runs[0]


def _same(a, b) -> bool:
    """Equal lists of str; float arrays equal to 1e-12 (NaN = NaN): sums may run in another order."""
    if isinstance(a, list):
        return a == b
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-12, atol=1e-15, equal_nan=True))


@pytest.mark.parametrize("spec", _specs(extra=False), ids=lambda s: s.name)
def test_documented(spec):
    assert spec.formula.strip() and spec.citation.strip() and spec.description.strip(), spec.name


@pytest.mark.parametrize("spec", _specs(extra=False), ids=lambda s: s.name)
def test_invariances_bounds_summary_empty_query(spec, tmp_path):
    runs = [("a", run_records(1)), ("b", run_records(2))]
    base = _evaluate(spec, runs, qrels_records(), tmp=tmp_path)
    # line order of qrels, run (and judgments)
    shuffled = _evaluate(spec, [("a", run_records(1, True)), ("b", run_records(2, True))],
                         qrels_records(shuffle=True), tmp=tmp_path, shuffle=True)
    # order of runs
    swapped = _evaluate(spec, runs[::-1], qrels_records(), tmp=tmp_path)[::-1]
    for other in (shuffled, swapped):
        for a, b in zip(base, other, strict=True):
            assert a.keys() == b.keys()
            for k in a:
                assert _same(a[k][0], b[k][0]), (spec.name, k)
                assert a[k][1] == b[k][1] or (a[k][1] != a[k][1] and b[k][1] != b[k][1]), (spec.name, k)
    for res in base:
        for name, (vals, summ, qids) in res.items():
            if spec.value_type == "str":
                continue
            nq = len(qids)
            if spec.bounds is not None and spec.value_type == "float":
                lo, hi = spec.bounds
                ok = np.isnan(vals) if spec.empty_value is None or math.isnan(spec.empty_value) else False
                assert np.all(((vals >= lo) & (vals <= hi)) | ok), (spec.name, name, vals)
            if summ is not None and spec.summarize is None and spec.aggregate in AGGREGATES:
                want = AGGREGATES[spec.aggregate](vals, nq)
                assert summ == pytest.approx(want, rel=1e-12, abs=1e-12, nan_ok=True), (spec.name, name)
    if spec.empty_value is None or spec.value_type == "str":
        return
    empty = _evaluate(spec, runs, qrels_records(), judged_only=True, tmp=tmp_path)
    for res in empty:
        for name, (vals, _, qids) in res.items():
            v = vals[qids.index("6")]
            e = spec.empty_value
            assert v == e or (math.isnan(e) and math.isnan(v)), (spec.name, name, v, e)


PREF_CASES = sorted((ROOT / "tests" / "data" / "trec_prefs_generated").glob("case*.prefs"))


@pytest.mark.parametrize("prefs", PREF_CASES[:3], ids=lambda p: p.stem)
def test_rel_info_format_measures_line_order_and_summary(prefs, tmp_path):
    """prefs_* through ``zelo_trec -R prefs``: line order of both files, summary = mean/sum of the rows."""
    run = prefs.with_suffix(".run")
    if not run.exists():
        pytest.skip("no run for this case")
    names = [s.name for s in _specs(extra=True) if s.name.startswith("prefs_")]

    def go(p, r):
        args = [a for n in names for a in ("-m", n)]
        out = subprocess.run([sys.executable, "-m", "pref_eval.cli.trec", "-Q", "-q", "-R", "prefs", *args,
                              str(p), str(r)], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        return out.stdout

    base = go(prefs, run)
    sp, sr = tmp_path / "p", tmp_path / "r"
    for src, dst in ((prefs, sp), (run, sr)):
        lines = src.read_text().splitlines(keepends=True)
        random.Random(5).shuffle(lines)
        dst.write_text("".join(lines))
    assert go(sp, sr) == base
    rows: dict[str, list[float]] = {}
    summ: dict[str, float] = {}
    for line in base.splitlines():
        n, q, v = (x.strip() for x in line.split("\t"))
        if n in ("runid", "num_q"):
            continue
        (rows.setdefault(n, []).append(float(v)) if q != "all" else summ.__setitem__(n, float(v)))
    spec_of = registry()
    for n, vals in rows.items():
        agg = spec_of[n].aggregate
        want = sum(vals) / len(vals) if agg == "mean" else sum(vals)
        assert summ[n] == pytest.approx(want, abs=6e-5), n  # printed with 4 decimals


def test_trec_family_index_matches_the_registry():
    """parse.TREC_FAMILIES (families loaded on demand for trec_eval names) names the module that
    registers each measure of trec_eval's table, and covers every nickname's members."""
    from pref_eval.measures.nicknames import NICKNAMES, TREC_TABLE
    from pref_eval.measures.parse import TREC_FAMILIES

    reg = registry()
    expected = {n: reg[n].compute.__module__.rsplit(".", 1)[1] for n in TREC_TABLE if n in reg}
    assert expected == TREC_FAMILIES
    assert {m for members in NICKNAMES.values() for m in members} <= set(TREC_FAMILIES)


@pytest.mark.parametrize("measures", [["official"], ["map", "P.5"], ["all_prefs"], ["ndcg_cut.10"]])
def test_trec_names_load_only_their_families(measures):
    """A fresh interpreter parsing trec_eval names imports their families only, and gets the
    same requests as with every family loaded."""
    code = ("import json, sys; from pref_eval.measures.parse import parse_trec_measures as p; "
            f"r = p({measures!r}); "
            "print(json.dumps([m for m in sys.modules if m.startswith('pref_eval.measures.') and m.count('.') == 2])); "
            "print([(q.spec.name, q.params) for q in r])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ROOT).stdout.splitlines()
    from pref_eval.measures.parse import TREC_FAMILIES, parse_trec_measures

    import json

    loaded = {m.rsplit(".", 1)[1] for m in json.loads(out[0])}
    assert "families" not in loaded and "diversity" not in loaded and "cwl" not in loaded
    assert {TREC_FAMILIES[r.spec.name] for r in parse_trec_measures(measures)} <= loaded
    assert out[1] == str([(q.spec.name, q.params) for q in parse_trec_measures(measures)])

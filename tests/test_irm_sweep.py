"""Every ir-measures name, live: accepted with ir-measures' values, or refused in one line.

The candidate names are generated from ``ir_measures.measures.registry`` (every
registry name and alias; bare, ``@k``, each documented parameter alone with a
sample value, the parameter with ``@k``, ``cutoff=`` repeated by ``@``, dicts
written in another key order, the forms of ir-measures' own parse tests), not
from a hand list. A name is *valid* when
ir-measures' default pipeline parses it and computes it on the collection
below; every valid name must then either be refused by pref_eval with a
one-line UsageError or give, per query, ir-measures' value (within the
printing precision of the provider: gdeval prints 5 decimals). The share of
valid names pref_eval accepts is printed (``-s``) and must stay ≥ the floor.

The collection: numeric query ids (gdeval needs them), grades -1..4 (gdeval's
maximum), score ties (exact in float32 too) broken differently by the
providers, a query without relevant document, a run query without qrels, a
qrels query the run lacks, a one-document ranking.
"""
from __future__ import annotations

import math
import random
import re

import pytest

from conftest import warns_missing_topics

import pref_eval
from pref_eval.errors import UsageError
from pref_eval.measures import parse_measure

ir_measures = pytest.importorskip("ir_measures")
pytest.importorskip("pytrec_eval")

SAMPLE = {"rel": [2, 0], "judged_only": [True], "dcg": ["'exp-log2'"], "gains": ["{0: 0, 1: 1, 2: 3, 3: 7, 4: 15}",
                                                                               "{4: 1, 1: 4}"],
          "p": [0.5], "alpha": [0.3], "beta": [0.7, 2.0], "T": [2.0], "min_rel": [1], "max_rel": [4],
          "recall": [0.4], "relative": [True, False], "normalize": [False]}
FLOOR = 0.95  # acceptance share of the valid names (issue #12's target)
TOL = {"gdeval": 5e-6, "cwl_eval": 5e-5}


def candidate_names() -> list[str]:
    out: list[str] = []
    for name, m in ir_measures.measures.registry.items():
        params = getattr(m, "SUPPORTED_PARAMS", {})
        at = "@0.2" if "recall" in params else "@10"
        forms = [name]
        for p in params:
            if p == "cutoff":
                forms += [f"{name}(cutoff=5)"]
                continue
            forms += [f"{name}({p}={v})" for v in SAMPLE[p]]
        for f in forms:  # with @: the form's own cutoff=/recall= value (two different cutoffs are refused)
            own = re.search(r"(?:cutoff|recall)=([0-9.]+)", f)
            out += [f, f + (f"@{own.group(1)}" if own else at)]
        if "cutoff" in params:  # (two different cutoffs, cutoff=20 and @5, are refused: test_irm_edges)
            out.append(f"{name}(cutoff=5)@5")
        if "recall" in params:
            out.append(f"{name}(recall=0.2)@0.2")
        if "cutoff" in params and "rel" in params:
            out.append(f"{name}(rel=2, cutoff=5)")
        if "dcg" in params:  # ir-measures' own parse tests: double quotes (their cutoff=20 beside @10 is refused)
            out += [f'{name}(dcg="exp-log2", cutoff=10)@10', f'{name}(dcg="exp-log2", cutoff=20)']
        if "recall" in params and "rel" in params:
            out += [f"{name}(rel=2, recall=0.4)@0.4", f"{name}(rel=2, recall=0.4)"]
    return list(dict.fromkeys(out))


def collection(seed: int = 12):
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(1, 13):
        docs = [f"d{i}" for i in range(30)]
        for d in docs[:22]:
            g = rng.choice([-1, 0, 0, 0, 1, 1, 2, 3, 4]) if q != 5 else rng.choice([0, -1])
            qrels.append(ir_measures.Qrel(str(q), d, g))
        if q == 12:
            continue  # qrels query the run lacks
        n = 1 if q == 7 else rng.randint(8, 28)
        for d in rng.sample(docs, n):
            s = rng.choice([0.5, 0.25, 1.0]) if q % 2 else round(rng.random(), 3)  # ties on odd queries
            run.append(ir_measures.ScoredDoc(str(q), d, s))
    run += [ir_measures.ScoredDoc("99", "d1", 1.0), ir_measures.ScoredDoc("99", "d2", 0.5)]
    return qrels, run


def trec_order(run):
    """The run in trec_eval's order (score desc, docno desc): cwl_eval keeps the file's order for ties."""
    by_docno_desc = sorted(run, key=lambda r: r.doc_id.encode(), reverse=True)
    return sorted(by_docno_desc, key=lambda r: (r.query_id, -r.score))


def theirs(name, qrels, run):
    import contextlib
    import io

    try:
        m = ir_measures.parse_measure(name)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            res = list(ir_measures.iter_calc([m], qrels, trec_order(run)))
    except Exception:  # noqa: BLE001 -- not a valid ir-measures name here
        return None, None
    prov = next((p.NAME for p in ir_measures.DefaultPipeline.providers if p.supports(m)), "")
    return {r.query_id: float(r.value) for r in res}, prov


def _write(tmp, qrels, run):
    qp, rp = tmp / "qrels", tmp / "run"
    qp.write_text("".join(f"{q.query_id} {q.iteration} {q.doc_id} {q.relevance}\n" for q in qrels))
    rp.write_text("".join(f"{r.query_id} Q0 {r.doc_id} 0 {r.score!r} t\n" for r in run))
    return str(qp), str(rp)


def _cli_values(argv: list[str], fmt: str) -> dict[tuple[str, str], float]:
    import subprocess
    import sys

    out = subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    vals = {}
    for line in out.stdout.splitlines()[(1 if fmt == "tsv" else 0):]:
        parts = line.split("\t")
        name, qid, v = (parts[2], parts[1], parts[3]) if fmt == "tsv" else (parts[0].strip(), parts[1], parts[2])
        vals[(name, qid)] = float("nan") if v.strip() in ("nan", "-nan") else float(v)
    return vals


def _check_command_lines(tmp, qrels, run, accepted, ours):
    """zelo_trec -m and zelo_eval -m print, for every accepted name, the API's values."""
    qp, rp = _write(tmp, qrels, run)
    ms = [a for n in accepted for a in ("-m", n)]
    trec = _cli_values(["-m", "pref_eval.cli.trec", "-Q", "-q", "-n", *ms, qp, rp], "trec")
    ev = _cli_values(["-m", "pref_eval.cli.eval", "-Q", "-R", qp, "-o", "tsv", "-q", "-n", *ms, rp], "tsv")
    bad = []
    for n in accepted:
        for q, v in ours.get(n, {}).items():
            for got, tol in ((trec.get((n, q)), 5.1e-5), (ev.get((n, q)), 1e-12)):
                if got is None or not (math.isclose(got, v, abs_tol=tol) or (math.isnan(got) and math.isnan(v))):
                    bad.append((n, q, got, v))
    return bad


SEEDS = [12] + [pytest.param(s, marks=pytest.mark.slow) for s in range(1, 6)]


@pytest.mark.parametrize("seed", SEEDS)
def test_every_ir_measures_name(capsys, tmp_path, seed):
    qrels, run = collection(seed)
    valid, accepted, wrong, bad_refusals = [], [], [], []
    names = candidate_names()
    expected = {}
    for n in names:
        v, prov = theirs(n, qrels, run)
        if v is not None:
            valid.append(n)
            expected[n] = (v, prov)
    for n in valid:
        try:
            parse_measure(n)
        except UsageError as e:
            if "\n" in str(e) or not str(e):
                bad_refusals.append((n, str(e)))
            continue
        accepted.append(n)
    run_dict: dict = {}
    for r in run:
        run_dict.setdefault(r.query_id, {})[r.doc_id] = r.score
    with warns_missing_topics({q.query_id for q in qrels}, {"run": run_dict}):
        df = pref_eval.evaluate([(q.query_id, q.doc_id, q.relevance) for q in qrels], run_dict, accepted)
    in_run = {r.query_id for r in run}
    ours: dict[str, dict[str, float]] = {}
    for m, q, v in zip(df.measure, df.qid, df.value, strict=True):
        ours.setdefault(m, {})[q] = float(v)
    for n in accepted:
        v, prov = expected[n]
        tol = TOL.get(prov, 1e-9)
        mine = ours.get(n, {})
        for q, x in v.items():
            if q not in in_run:
                continue  # ir-measures reports 0 for a qrels query the run lacks (every measure, even NumRel)
            same = q in mine and (math.isclose(mine[q], x, abs_tol=tol) or (math.isnan(mine[q]) and math.isnan(x)))
            if not same:  # NaN = NaN: ndeval's nNRBP of a query without a relevant subtopic
                wrong.append((n, prov, q, mine.get(q), x))
        for q in set(mine) - set(v):  # queries the provider leaves out: documented value 0
            if mine[q] != 0.0:
                wrong.append((n, prov, q, mine[q], None))
    share = len(accepted) / len(valid)
    with capsys.disabled():
        print(f"\nir-measures names: {len(names)} generated, {len(valid)} valid in ir-measures, "
              f"{len(accepted)} accepted by pref_eval ({share:.1%})")
        refused = sorted(set(valid) - set(accepted))
        if refused:
            print("refused:", ", ".join(refused))
    assert not bad_refusals, bad_refusals
    assert not wrong, "\n".join(map(str, wrong))
    cli_bad = _check_command_lines(tmp_path, qrels, run, accepted, ours)
    assert not cli_bad, cli_bad[:20]
    assert share >= FLOOR

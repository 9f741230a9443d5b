"""Compat, compatibility and Accuracy against their references, run live; hand-worked examples.

Compat and Accuracy: ir-measures' compat and accuracy providers; compatibility:
Clarke's own compatibility.py (claclark/Compatibility, from a local snapshot,
``COMPATIBILITY_REFERENCE`` or the fetched mirror; skipped without it) on the
preference qrels prefs.dl19 of Narabzad/llm-relevance-judgement-comparison.

Generated qrels (grades -1..3, a query without relevant document, qrels
queries the run lacks) and runs with score ties and zero scores. Accuracy's
provider keeps its input order for ties, so it gets the run in pref_eval's
order (score desc, docno desc); Compat's sorts ties by docno ascending, as
pref_eval's Compat does.
"""
from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from family_data import make, ours, write_qrels, write_run

ir_measures = pytest.importorskip("ir_measures")


def _trec_order(run: dict) -> dict:
    out = {}
    for q, docs in run.items():
        by_docno = sorted(docs.items(), key=lambda kv: kv[0].encode(), reverse=True)
        out[q] = dict(sorted(by_docno, key=lambda kv: -kv[1]))
    return out


def _reference(provider, qp, rp, name):
    return {m.query_id: m.value for m in provider.iter_calc(
        [ir_measures.parse_measure(name)], ir_measures.read_trec_qrels(str(qp)), ir_measures.read_trec_run(str(rp)))}


@pytest.mark.parametrize("seed", [31, 32])
def test_compat_and_accuracy_match_ir_measures(tmp_path, seed):
    qrels, run = make(seed, max_grade=3)
    run = _trec_order(run)
    qp, rp = write_qrels(tmp_path / "q", qrels), write_run(tmp_path / "r", run)
    n = 0
    compat = ["Compat", "Compat(p=0.5)", "Compat(normalize=False)", "Compat(p=0.99, normalize=False)"]
    accuracy = ["Accuracy", "Accuracy@5", "Accuracy(rel=2)", "Accuracy(rel=0)@10"]
    for provider, names in ((ir_measures.compat, compat), (ir_measures.accuracy, accuracy)):
        for name in names:
            got = ours(qp, rp, name)
            try:
                ref = _reference(provider, qp, rp, name)
            except ZeroDivisionError:  # ir-measures' Accuracy when every retrieved document is relevant
                continue
            for q, v in ref.items():
                if q in run:
                    assert got[q] == pytest.approx(v, abs=1e-12), (name, q)
                    n += 1
            for q in set(got) - set(ref):  # queries the provider leaves out: 0
                assert got[q] == 0.0, (name, q)
    assert n > 100


def test_compat_hand_worked(tmp_path):
    """Ideal I = a (grade 2), b (1); run R = b, a, x; p = 0.5; depth 3.

    Σ p^(i-1)|R[:i] ∩ I[:i]|/i = 0 + 0.5·2/2 + 0.25·2/3 = 2/3; the ideal's own: 1 + 0.5 + 0.25·2/3 = 5/3;
    Compat = 0.4; unnormalised: (2/3)/(1 + 0.5 + 0.25).
    """
    (tmp_path / "q").write_text("1 0 a 2\n1 0 b 1\n1 0 x 0\n")
    (tmp_path / "r").write_text("1 Q0 b 1 3 t\n1 Q0 a 2 2 t\n1 Q0 x 3 1 t\n")
    assert ours(tmp_path / "q", tmp_path / "r", "Compat(p=0.5)")["1"] == pytest.approx(0.4, abs=1e-15)
    assert ours(tmp_path / "q", tmp_path / "r", "Compat(p=0.5, normalize=False)")["1"] == pytest.approx(
        (2 / 3) / 1.75, abs=1e-15)


def test_accuracy_hand_worked(tmp_path):
    """Relevant, non-relevant, relevant, non-relevant: n = 0, 1; N' = R' = 2 → 1 − 1/4."""
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n1 0 c 2\n")
    (tmp_path / "r").write_text("1 Q0 a 1 4 t\n1 Q0 b 2 3 t\n1 Q0 c 3 2 t\n1 Q0 u 4 1 t\n")
    assert ours(tmp_path / "q", tmp_path / "r", "Accuracy")["1"] == 0.75
    assert ours(tmp_path / "q", tmp_path / "r", "Accuracy@2")["1"] == 1.0
    assert ours(tmp_path / "q", tmp_path / "r", "Accuracy(rel=2)")["1"] == pytest.approx(1 - 2 / 3, abs=1e-15)


# ------------------------------------------------ Clarke's compatibility.py on preference qrels
PREFS_DL19 = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "llm_relevance_judgement_comparison" \
    / "Pref" / "prefs.dl19"
CLARKE_MIRROR = Path("/work/.mirror/claclark+Compatibility/repo")


def _clarke_script(tmp_path: Path) -> Path | None:
    env = os.environ.get("COMPATIBILITY_REFERENCE")
    if env and Path(env).is_file():
        return Path(env)
    if CLARKE_MIRROR.exists():
        out = subprocess.run(["git", "-C", str(CLARKE_MIRROR), "show", "HEAD:compatibility.py"],
                             capture_output=True, text=True)
        if out.returncode == 0:
            (tmp_path / "compatibility.py").write_text(out.stdout)
            return tmp_path / "compatibility.py"
    return None


@pytest.mark.parametrize("run", ["bm25", "dense", "rerank"])
def test_compatibility_matches_clarke_on_prefs_dl19(tmp_path, run):
    """Preference qrels (win counts of GPT-4o preferences, TREC DL 2019) and the repository's sample runs."""
    script = _clarke_script(tmp_path)
    if script is None or not PREFS_DL19.exists():
        pytest.skip("claclark/Compatibility compatibility.py or ../shared prefs.dl19 not available")
    root = Path(__file__).resolve().parents[1]
    for p, norm in ((0.95, True), (0.8, True), (0.9, False)):
        args = [sys.executable, str(script), "-p", str(p), str(PREFS_DL19), str(root / "runs" / f"{run}.run")]
        if not norm:  # the script's NORMALIZE switch is a constant: a copy with it off
            text = script.read_text().replace("NORMALIZE = True", "NORMALIZE = False")
            (tmp_path / "compat_nonorm.py").write_text(text)
            args[1] = str(tmp_path / "compat_nonorm.py")
        out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
        ref = {row[1]: float(row[2]) for row in csv.reader(io.StringIO(out)) if row[1] not in ("topic", "average")}
        name = f"compatibility(p={p}, normalize={norm})"
        got = ours(PREFS_DL19, root / "runs" / f"{run}.run", name)
        assert ref
        for q, v in ref.items():
            assert got[q] == pytest.approx(v, abs=1e-12), (name, q)


def test_compatibility_hand_worked(tmp_path):
    """Preference values a 5, b 5, c 3; run b, x, a. Ideal: a and b tie, the run's rank puts b first: b, a, c.

    Overlaps at depths 1, 2, 3, ≥ 3: 1, 1, 2, 2 (c never retrieved); the ideal's own: 1, 2, 3, 3 …
    """
    (tmp_path / "q").write_text("1 Q0 a 5\n1 Q0 b 5\n1 Q0 c 3\n")
    (tmp_path / "r").write_text("1 Q0 b 1 3 t\n1 Q0 x 2 2 t\n1 Q0 a 3 1 t\n")
    p = 0.9
    num = sum(p ** i * min(1 if i < 2 else 2, i + 1) / (i + 1) for i in range(1000))
    best = sum(p ** i * min(i + 1, 3) / (i + 1) for i in range(1000))
    assert ours(tmp_path / "q", tmp_path / "r", "compatibility(p=0.9)")["1"] == pytest.approx(num / best, abs=1e-14)


def test_compatibility_unnormalized_hand_worked(tmp_path):
    """``normalize=False``: compatibility.py's ``rbo()`` itself, score / normalizer with normalizer =
    sum of p^i over its DEPTH = 1000 (NORMALIZE = False reproduces papers #2 and #3; claclark/Compatibility).
    The same example as above: overlaps 1, 1, 2, 2, ...; the reference comparison above skips without the
    mirror, and no other test ran this path (m33's coverage run)."""
    (tmp_path / "q").write_text("1 Q0 a 5\n1 Q0 b 5\n1 Q0 c 3\n")
    (tmp_path / "r").write_text("1 Q0 b 1 3 t\n1 Q0 x 2 2 t\n1 Q0 a 3 1 t\n")
    p = 0.9
    num = sum(p ** i * min(1 if i < 2 else 2, i + 1) / (i + 1) for i in range(1000))
    normalizer = sum(p ** i for i in range(1000))
    got = ours(tmp_path / "q", tmp_path / "r", "compatibility(p=0.9, normalize=False)")["1"]
    assert got == pytest.approx(num / normalizer, abs=1e-14)

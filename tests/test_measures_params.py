"""Declared keyword parameters: honoured (equal to ir-measures' providers, live) or refused in one line.

The two former silent wrong numbers: ``NumRet(rel=k)`` counted every retrieved
document, ``RBP(rel=k)`` used graded gains. Oracles: pytrec_eval and cwl_eval
through ir-measures, computed live on ir-measures' own test fixture.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import pref_eval
from pref_eval.errors import UsageError
from pref_eval.measures import parse_measure, registry
from pref_eval.measures.params import NOT_GIVEN, Param

DATA = Path(__file__).resolve().parent / "data" / "irm"
QRELS, RUN = DATA / "fixture.qrels", DATA / "fixture.run"


def _ours(name: str) -> dict[str, float]:
    df = pref_eval.evaluate(QRELS, RUN, [name])
    return dict(zip(df.qid, df.value, strict=True))


def _theirs(name: str) -> dict[str, float]:
    irm = pytest.importorskip("ir_measures")
    m = irm.parse_measure(name)
    res = irm.iter_calc([m], list(irm.read_trec_qrels(str(QRELS))), list(irm.read_trec_run(str(RUN))))
    return {x.query_id: float(x.value) for x in res}


def test_numret_rel_is_honoured():
    assert _ours("NumRet(rel=1)") == {"0": 3.0, "1": 1.0}
    for name in ("NumRet", "NumRet(rel=1)", "NumRet(rel=2)", "NumRet(rel=3)", "NumRelRet", "NumRelRet(rel=2)"):
        assert _ours(name) == _theirs(name), name


def test_rbp_rel_is_honoured():
    assert _ours("RBP(p=0.8,rel=1)")["0"] == pytest.approx(0.3904, abs=1e-12)
    for name in ("RBP(p=0.8,rel=1)", "RBP(rel=1)", "RBP(p=0.5,rel=2)", "RBP(p=0.95,rel=0)"):
        theirs = _theirs(name)
        ours = _ours(name)
        assert set(ours) == set(theirs)
        for q in theirs:
            assert ours[q] == pytest.approx(theirs[q], abs=1e-12), (name, q)


def test_rbp_cutoff_truncates_and_p_defaults_to_ir_measures():
    full = _ours("RBP(rel=1)")
    assert _ours("RBP(p=0.8,rel=1)") == full
    # top 2 of query 0: D0 (grade 0), D2 (grade 1) → 0.2 · 0.8
    assert _ours("RBP(rel=1)@2")["0"] == pytest.approx(0.2 * 0.8, abs=1e-15)
    assert _ours("RBP(rel=1, cutoff=2)") == _ours("RBP(rel=1)@2")


@pytest.mark.parametrize("name, needle", [
    ("AP(foo=1)", "does not support parameter 'foo'"),
    ("P(rel=-1)@5", "rel (an integer ≥ 0"),
    ("P(rel=1.5)@5", "rel (an integer"),
    ("RBP(p=1.5)", "p (a number ≥ 0 and ≤ 1"),
    ("RBP(p=1.0)", "p = 1 needs rel="),
    ("Compat(p=1.5)", "p (a number ≥ 0 and ≤ 1"),
    ("INST(max_rel=3, T=0.0)", "T (a number > 0"),
    ("nDCG(dcg='exp')@10", "dcg (one of 'log2', 'exp-log2'"),
    ("nDCG(gains={0: 0, 1: 1}, dcg='exp-log2')@10", "cannot be combined"),
    ("nDCG(gains={-1: 0})@10", "gains keys must be grades"),
    ("nDCG(gains={1: 0.5})@10", "gains values must be integers"),
    ("Bpref@10", "Bpref takes no cutoff"),
    ("Success", "Success needs a cutoff, e.g. Success@10"),
    ("P@0", "cutoff (an integer ≥ 1"),
    ("IPrec@1.5", "recall (a number ≥ 0 and ≤ 1"),
    ("SetF(beta=-0.5)", "beta (a number ≥ 0"),
    ("AP(judged_only=1)", "judged_only (True or False"),
    ("NumQ(rel=2)", "NumQ does not support parameter 'rel' (supported: none)"),
])
def test_unsupported_or_out_of_range_is_refused(name, needle):
    with pytest.raises(UsageError) as e:
        parse_measure(name)
    msg = str(e.value)
    assert needle in msg and "\n" not in msg


def test_every_declared_parameter_is_well_formed():
    roles = {"cutoff", "truncate", "level", "judged_only", "compute"}
    for spec in registry().values():
        names = [p.name for p in spec.keywords]
        assert len(names) == len(set(names)), spec.name
        for p in spec.keywords:
            assert isinstance(p, Param) and p.role in roles and p.doc, (spec.name, p)
            if p.default is not NOT_GIVEN:
                assert p.check(spec.name, p.default) is not None
        if spec.keywords:
            assert spec.irm, f"{spec.name}: keyword parameters only exist in ir-measures syntax"
        if spec.irm and spec.irm.endswith("@"):
            assert any(p.role == "cutoff" for p in spec.keywords), spec.name


# Every rendering of a declared parameter (refusals, docs/measures.md, --help texts) goes through Param.describe:
# a number as a human writes it -- digits, a decimal point, an optional e-exponent without "+" or leading zeros.
_HUMAN_NUMBER = re.compile(r"-?(\d{1,16}(\.\d+)?|\d(\.\d+)?e-?[1-9]\d*)")


def _numbers_of(text: str) -> list[str]:
    return re.findall(r"[≤≥<>] (\S+?)(?=[,;)]| and)|default ([^,;)]+)", text)


def test_range_bounds_read_as_written():
    """INSQ/INST/NERR11/BPM's T bound 1e300 was shown as its 301-digit integer (docs, refusals)."""
    with pytest.raises(UsageError) as e:
        parse_measure("INSQ(T=1e301)")
    msg = str(e.value)
    assert msg == ("measure 'INSQ(T=1e301)': parameter T (a number ≥ 0 and ≤ 1e300, default 1.0) got 1e301"), msg
    spec = registry()["INST"]
    assert "T (a number > 0 and ≤ 1e300, default 1.0)" in [p.describe() for p in spec.keywords]
    page = (Path(__file__).resolve().parents[1] / "docs" / "measures.md").read_text(encoding="utf-8")
    assert "≤ 1e300" in page and "00000000000000" not in page
    assert Param("x", float, 2.5e-7, "d", low=-1e20, high=1e16).describe() == \
        "x (a number ≥ -1e20 and ≤ 1e16, default 2.5e-7)"
    assert Param("x", float, 1e6, "d", low=0.01, high=999999999999999.0).describe() == \
        "x (a number ≥ 0.01 and ≤ 999999999999999, default 1000000.0)"


def test_every_declared_parameter_reads_as_written():
    seen = 0
    for spec in registry().values():
        for p in (*spec.keywords, *spec.trec_params):
            text = p.describe()
            for bound, default in _numbers_of(text):
                word = bound or default
                if word[0] in "'TF":  # a choice or a bool default
                    continue
                seen += 1
                assert _HUMAN_NUMBER.fullmatch(word), (spec.name, text)
            assert len(text) < 120, (spec.name, text)
    assert seen > 30


def test_command_lines_honour_rel():
    for mod, files in (("pref_eval.cli.trec", [str(QRELS), str(RUN)]),
                       ("pref_eval.cli.eval", ["-R", str(QRELS), str(RUN)])):
        out = subprocess.run([sys.executable, "-m", mod, "-q", "-m", "NumRet(rel=1)", *files],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        vals = {tuple(line.split()[:2]): line.split()[2] for line in out.stdout.splitlines()}
        assert vals[("NumRet(rel=1)", "0")] in ("3", "3.0000")
        bad = subprocess.run([sys.executable, "-m", mod, "-m", "RBP(p=2)", *files],
                             capture_output=True, text=True, timeout=60)
        assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr

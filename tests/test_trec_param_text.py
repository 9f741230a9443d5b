"""trec_eval-syntax measure parameters (``-m NAME.PARAMS``): honoured as written or refused, never misread.

trec_eval 10.0 reads a cutoff with C ``atol`` and a float or a gain with ``atof``
(the longest numeric prefix, 0 when there is none) and skips a ``name=value``
pair whose name is neither a grade nor a keyword its measure reads
(``gain_init.c``: ``if (!valid_int(pairs[i].name)) continue;``; ``m_rbp.c`` reads
only ``p``). So, in trec_eval 10.0 (built from source and run on
qrels/dl19-sample.qrels, runs/bm25.run, u21): ``P.1e3`` prints ``P_1``, ``set_F.x`` is
F with β = 0 (= set_P), ``rbp.P=0.5`` is rbp with p = 0.9, ``ndcg.foo=3`` and
``ndcg.1.5=2`` are plain ndcg, ``ndcg.1=abc`` gives grade 1 a gain of 0,
``rbp.p=0.5x`` is p = 0.5, ``utility.1,x,0,0`` has b = 0, ``iprec_at_recall.abc``
is the 0.00 point. Each is a typo answered with another measure's number; zelo_trec
and the API refuse them (exit 2, one line naming the text). The well-formed
spellings trec_eval reads the same way stay accepted (a decimal cutoff is truncated, as in
trec_eval's quicktest ``ndcg_cut.10,20,23.4`` → ``ndcg_cut_23``) and give the canonical form's
value (which the gains/trec_eval reference tests check against trec_eval's own output).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import pref_eval
from pref_eval.errors import UsageError
from pref_eval.measures import parse_measure

ROOT = Path(__file__).resolve().parents[1]
QRELS, RUN = ROOT / "qrels" / "dl19-sample.qrels", ROOT / "runs" / "bm25.run"

MISREAD = [
    # (text, what the message must name)
    ("P.1e3", "'1e3'"), ("P.5x", "'5x'"), ("P.5.5.5", "'5.5.5'"), ("success.1,2x", "'2x'"), ("recall.10k", "'10k'"),
    ("map_cut.5,", "''"), ("ndcg_cut.1e1", "'1e1'"), ("P.-", "'-'"), ("relative_P.x5", "'x5'"), ("unj.5x", "'5x'"),
    ("relstring.5x", "'5x'"),
    ("set_F.x", "'x'"), ("set_F.0.5x", "'0.5x'"), ("iprec_at_recall.abc", "'abc'"),
    ("iprec_at_recall.0.5x", "'0.5x'"), ("Rprec_mult.2x", "'2x'"), ("11pt_avg.x", "'x'"),
    ("utility.1,x,0,0", "'x'"), ("utility.1,2,3,4e", "'4e'"),
    ("rbp.P=0.5", "'P'"), ("rbp.depth=3", "'depth'"), ("rbp.p=0.5x", "'0.5x'"), ("rbp.p=", "''"),
    ("rbp_resid.1=2", "'1'"), ("rbp_resid.q=0.5", "'q'"),
    ("ndcg.foo=3", "'foo'"), ("ndcg.l=3", "'l'"), ("ndcg.1.5=2", "'1.5'"), ("ndcg.=2", "''"),
    ("ndcg.p=0.5", "'p'"), ("ndcg. 1=2", "' 1'"), ("ndcg.1=abc", "'abc'"), ("ndcg.1=", "''"),
    ("ndcg.1=2=3", "'2=3'"), ("G.x=1", "'x'"), ("ndcg_rel.a=2", "'a'"), ("Rndcg.b=1", "'b'"),
    ("dcg.1=2,2=x", "'x'"), ("ideal_dcg.k=1", "'k'"),
]

SAME = [
    # (spelling trec_eval reads as the canonical one, canonical)
    ("P.+5", "P.5"), ("P.05", "P.5"), ("P.5,10", "P.10,5"), ("set_F.0.50", "set_F.0.5"), ("set_F..5", "set_F.0.5"),
    ("iprec_at_recall.0.50", "iprec_at_recall.0.5"), ("Rprec_mult.2", "Rprec_mult.2.0"),
    ("utility.1,-1,0,0", "utility.1.0,-1.0,0.0,0.0"), ("rbp.p=.5", "rbp.p=0.5"), ("ndcg.+1=2", "ndcg.1=2"),
    ("ndcg.01=2", "ndcg.1=2"), ("ndcg.1=2.0,2=4", "ndcg.1=2,2=4"), ("rbp.p=0.5,1=0.3", "rbp.1=0.3,p=0.5"),
    ("G.1=1e1", "G.1=10"),
    ("ndcg_cut.23.4", "ndcg_cut.23"), ("P.5.0", "P.5"),  # atol's truncation: trec_eval's own test
]


def _zelo_trec(*measures: str) -> subprocess.CompletedProcess:
    args = [a for m in measures for a in ("-m", m)]
    return subprocess.run([sys.executable, "-m", "pref_eval.cli.trec", "-q", *args, str(QRELS), str(RUN)],
                          capture_output=True, text=True, cwd=ROOT)


@pytest.mark.parametrize("text, needle", MISREAD)
def test_misread_parameter_text_is_refused_by_the_parser(text, needle):
    with pytest.raises(UsageError) as e:
        parse_measure(text)
    msg = str(e.value)
    assert "\n" not in msg and needle in msg, msg


def test_misread_parameter_text_is_refused_by_zelo_trec():
    for text, needle in MISREAD[::6] + [("rbp.P=0.5", "'P'"), ("P.1e3", "'1e3'")]:
        got = _zelo_trec(text)
        assert got.returncode == 2, (text, got.stdout[:200])
        assert got.stdout == "" and needle in got.stderr and len(got.stderr.splitlines()) == 1, (text, got.stderr)
        assert got.stderr.startswith("zelo_trec: ") and "Traceback" not in got.stderr


def test_api_refuses_too():
    with pytest.raises(UsageError, match="'P'"):
        pref_eval.evaluate(QRELS, RUN, ["rbp.P=0.5"])


@pytest.mark.parametrize("text, canonical", SAME)
def test_well_formed_spellings_give_the_canonical_value(text, canonical):
    a = pref_eval.evaluate(QRELS, RUN, [text])
    b = pref_eval.evaluate(QRELS, RUN, [canonical])
    assert list(a.qid) == list(b.qid) and len(a) > 0
    assert sorted(a.value.tolist()) == sorted(b.value.tolist()), (text, canonical)


def test_printed_names_unchanged_for_well_formed_text():
    # trec_eval prints cutoffs with %ld and floats with %3.2f; pairs as written
    got = _zelo_trec("P.+5", "set_F.0.50", "ndcg.01=2", "rbp.p=.5")
    assert got.returncode == 0, got.stderr
    names = {ln.split()[0] for ln in got.stdout.splitlines()}
    assert names == {"P_5", "set_F_0.50", "ndcg_01=2", "rbp_p=.5"}, names

"""zelo_agree on the real TREC DL 2021 pairs: the crowd (XinyiYan/duelingBandits judgments.txt) as the
reference, GPT-4o re-judging the same pairs (Narabzad/llm-relevance-judgement-comparison
Pref/DL2021/judge.human, markers ! = ?) as the other judge.

The pair-level figures are recomputed here from the raw files with plain Python and numpy (no pref_eval
code) and compared with the command's; the GPT-4o file's markers are checked against its documented counts.
"""
from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict

import numpy as np
import pytest

from conftest import ROOT, SHARED

DATA = SHARED / "data"
CROWD = DATA / "duelingBandits" / "judgments.txt"
GPT = DATA / "llm_relevance_judgement_comparison" / "Pref" / "DL2021" / "judge.human"

pytestmark = pytest.mark.shared("data/duelingBandits/judgments.txt",
                                "data/llm_relevance_judgement_comparison/Pref/DL2021/judge.human")


def test_llmlog_reads_judge_human_markers():
    from pref_eval.io.judgments import detect_format, read_judgments

    text = GPT.read_text()
    assert detect_format(text) == "llmlog"
    t = read_judgments(str(GPT))
    marks = [line.split()[4] for line in text.splitlines()]
    assert (marks.count("!"), marks.count("="), marks.count("?")) == (6993, 2423, 2265)
    assert len(t) == 6993 + 2423 and len(t.missing) == 2265
    s = np.array(t.score)
    assert (s == 0.0).sum() == 6993 and (s == 0.5).sum() == 2423
    # '!' = the first document (docA) preferred: score 0 = A better
    first = text.splitlines()[0].split()
    assert first[4] == "!" and t.score[0] == 0.0
    assert t.docs[first[1]][t.a[0]] == first[2]
    # a '?' pair keeps its documents and its place among the missing pairs
    q = next(line.split() for line in text.splitlines() if line.endswith("?"))
    qi, a, b = t.missing[0]
    assert (t.queries[qi], t.docs[q[1]][a], t.docs[q[1]][b]) == (q[1], q[2], q[3])


def _independent():
    """Per unordered pair (qid, sorted docs): mean preference for the lexicographically second document."""
    crowd = defaultdict(list)
    for line in CROWD.read_text().splitlines():
        t, a, b, w = line.split()
        lo, hi = sorted((a, b))
        crowd[(t, lo, hi)].append(1.0 if w == hi else 0.0)
    gpt = defaultdict(list)
    gpt_names = set()
    for line in GPT.read_text().splitlines():
        _, t, a, b, m = line.split()
        lo, hi = sorted((a, b))
        gpt_names.add((t, lo, hi))
        if m == "?":
            continue
        v = 0.5 if m == "=" else (1.0 if a == hi else 0.0)  # '!' = a preferred
        gpt[(t, lo, hi)].append(v)
    return crowd, gpt, gpt_names


@pytest.fixture(scope="module")
def reported():
    """The command's pair-level records (one run, shared by the tests below)."""
    out = subprocess.run([sys.executable, "-m", "pref_eval.cli.agree", "-J", str(CROWD), "-J", str(GPT),
                          "-n", "crowd", "-n", "gpt4o", "-l", "pair", "-o", "jsonl", "--resamples", "0"],
                         capture_output=True, text=True, cwd=ROOT, check=True).stdout
    return {(r["judge_a"], r["judge_b"], r["statistic"]): r for r in map(json.loads, out.splitlines())}


def _cat(x: float) -> int:
    return 0 if x < 0.5 else (1 if x == 0.5 else 2)


def test_pair_level_figures_recomputed_independently(reported):
    crowd, gpt, gpt_names = _independent()
    got = reported
    matched = set(crowd) & gpt_names
    assert got["crowd", "gpt4o", "matched"]["value"] == len(matched) == 8685
    pairs = sorted(k for k in matched if k in gpt)
    la = np.array([_cat(float(np.mean(crowd[k]))) for k in pairs])
    lb = np.array([_cat(float(np.mean(gpt[k]))) for k in pairs])
    table = np.zeros((3, 3))
    np.add.at(table, (la, lb), 1)
    n = table.sum()
    decided = table[0, 0] + table[0, 2] + table[2, 0] + table[2, 2]
    assert got["crowd", "gpt4o", "agreement_decided"]["value"] == pytest.approx(
        (table[0, 0] + table[2, 2]) / decided, abs=1e-12)
    assert got["crowd", "gpt4o", "agreement_decided"]["n"] == decided
    po = np.trace(table) / n
    pe = (table.sum(1) * table.sum(0)).sum() / n ** 2
    assert got["crowd", "gpt4o", "cohen_kappa"]["value"] == pytest.approx((po - pe) / (1 - pe), abs=1e-12)
    # Krippendorff's alpha (ordinal), two coders, no missing within these pairs: coincidences t + t'
    o = table + table.T
    nc = o.sum(1)
    N = nc.sum()
    delta = np.zeros((3, 3))
    for c in range(3):
        for k in range(3):
            lo, hi = min(c, k), max(c, k)
            delta[c, k] = (nc[lo:hi + 1].sum() - (nc[c] + nc[k]) / 2) ** 2
    alpha = 1 - (N - 1) * (o * delta).sum() / (np.outer(nc, nc) * delta).sum()
    assert got["crowd", "gpt4o", "krippendorff_alpha"]["value"] == pytest.approx(alpha, abs=1e-12)
    # GPT-4o tie rate among its judged pairs; missing rate = pairs with only '?'
    assert got["gpt4o", "", "tie_rate"]["value"] == pytest.approx(np.mean(lb == 1), abs=1e-12)
    assert got["gpt4o", "", "missing_rate"]["value"] == pytest.approx(
        len([k for k in gpt_names if k not in gpt]) / len(gpt_names), abs=1e-12)
    assert got["crowd", "", "tie_rate"]["value"] == pytest.approx(
        np.mean([_cat(float(np.mean(v))) == 1 for v in crowd.values()]), abs=1e-12)


def test_docs_show_the_scripts_table():
    page = (ROOT / "docs" / "zelo_agree.md").read_text(encoding="utf-8")
    start = page.index("<!-- agree_dl2021 table start -->\n") + len("<!-- agree_dl2021 table start -->\n")
    shown = page[start:page.index("<!-- agree_dl2021 table end -->")]
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "agree_dl2021.py"), str(CROWD), str(GPT)],
                         capture_output=True, text=True, check=True).stdout
    assert shown == out


def test_consensus_and_weighted_kappa_recomputed_independently(reported):
    crowd, gpt, _ = _independent()
    got = reported
    # consensus: the crowd judged the pair at least twice, always for the same document
    hits = n = 0
    for k, votes in crowd.items():
        if len(votes) >= 2 and len(set(votes)) == 1 and k in gpt:
            n += 1
            hits += _cat(float(np.mean(gpt[k]))) == (2 if votes[0] == 1.0 else 0)
    r = got["crowd", "gpt4o", "consensus_agreement"]
    assert (r["n"], r["value"]) == (n, pytest.approx(hits / n, abs=1e-12))
    # weighted kappa, linear weights |i - j| / 2
    pairs = sorted(k for k in crowd if k in gpt)
    t = np.zeros((3, 3))
    for k in pairs:
        t[_cat(float(np.mean(crowd[k]))), _cat(float(np.mean(gpt[k])))] += 1
    w = np.abs(np.subtract.outer(np.arange(3), np.arange(3))) / 2
    e = np.outer(t.sum(1), t.sum(0)) / t.sum()
    assert got["crowd", "gpt4o", "weighted_kappa"]["value"] == pytest.approx(1 - (w * t).sum() / (w * e).sum(),
                                                                             abs=1e-12)


def test_real_figures_and_one_interval_equal_the_packages(reported):
    """The same figures through the packages (computed live, session 12): statsmodels' cohens_kappa (plain and
    linear), the krippendorff package's ordinal alpha -- between the judges, and among each judge's own repeated
    judgments of a pair (coders = the k-th judgment of the pair, missing where fewer) -- and the percentile
    interval of Cohen's kappa from scipy.stats.bootstrap over the 50 topics (same seed, same draws), statsmodels
    recomputing kappa on every resample."""
    krippendorff = pytest.importorskip("krippendorff")
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    from scipy.stats import bootstrap

    crowd, gpt, _ = _independent()
    pairs = sorted(k for k in crowd if k in gpt)
    la = [_cat(float(np.mean(crowd[k]))) for k in pairs]
    lb = [_cat(float(np.mean(gpt[k]))) for k in pairs]
    t = np.zeros((3, 3))
    np.add.at(t, (la, lb), 1)
    got = reported
    assert got["crowd", "gpt4o", "cohen_kappa"]["value"] == pytest.approx(inter_rater.cohens_kappa(t).kappa,
                                                                          abs=1e-12)
    assert got["crowd", "gpt4o", "weighted_kappa"]["value"] == pytest.approx(
        inter_rater.cohens_kappa(t, wt="linear").kappa, abs=1e-12)
    assert got["crowd", "gpt4o", "krippendorff_alpha"]["value"] == pytest.approx(
        krippendorff.alpha(reliability_data=np.array([la, lb], float), level_of_measurement="ordinal"), abs=1e-12)
    for name, votes in (("crowd", crowd), ("gpt4o", gpt)):
        multi = [v for v in votes.values() if len(v) >= 2]
        width = max(map(len, multi))
        data = np.full((width, len(multi)), np.nan)
        for u, v in enumerate(multi):
            data[:len(v), u] = [_cat(x) for x in v]
        r = got[name, "", "votes_alpha"]
        assert r["n"] == len(multi)
        assert r["value"] == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal",
                                                              value_domain=[0, 1, 2]), abs=1e-12)
    # the interval: queries in the order zelo_agree numbers them (by id; the GPT-4o file names the same topics)
    order = sorted({line.split()[0] for line in CROWD.read_text().splitlines()})
    by_q: dict = defaultdict(list)
    for p, a, b in zip(pairs, la, lb, strict=True):
        by_q[p[0]].append((a, b))

    def kappa(i):
        tt = np.zeros((3, 3))
        ab = [x for j in i for x in by_q[order[j]]]
        np.add.at(tt, tuple(np.array(ab).T), 1)
        return inter_rater.cohens_kappa(tt).kappa

    ci = bootstrap((np.arange(len(order)),), kappa, vectorized=False, n_resamples=200, method="percentile",
                   random_state=np.random.default_rng(3)).confidence_interval
    out = subprocess.run([sys.executable, "-m", "pref_eval.cli.agree", "-J", str(CROWD), "-J", str(GPT),
                          "-n", "crowd", "-n", "gpt4o", "-l", "pair", "-o", "jsonl", "--resamples", "200",
                          "--seed", "3"], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    r = next(r for r in map(json.loads, out.splitlines()) if r["statistic"] == "cohen_kappa")
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((ci.low, ci.high), abs=1e-12)

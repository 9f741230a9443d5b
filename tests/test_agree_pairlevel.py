"""zelo_agree, pair level: kappa, weighted kappa and Fleiss' kappa equal statsmodels', alpha equals
``krippendorff.alpha`` (computed live) on generated judgments with ties, missing votes and ensembles."""
from __future__ import annotations

import json
from pathlib import Path
import math

import numpy as np
import pytest

from pref_eval.api import agree
from pref_eval.errors import InputError

krippendorff = pytest.importorskip("krippendorff")
inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")


def _cat(v):
    """Oracle's category of one vote / pair score: 0 (A), 1 (tie), 2 (B), nan (none)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return math.nan
    return 0 if v < 0.5 else (1 if v == 0.5 else 2)


def _generate(tmp_path, seed=1, n_q=12, n_docs=9, n_judges=3):
    """Judges over shared pairs: judge 0 an ensemble of 3 (votes -1/0/1 or null), judge 1 single scores
    written in the reverse orientation, judge 2 an ensemble with some pairs absent. Returns paths and, per
    judge, {(qid, lo, hi): [vote values on the canonical (lo, hi) scale]}."""
    rng = np.random.default_rng(seed)
    truth = [dict() for _ in range(n_judges)]
    lines = [[] for _ in range(n_judges)]
    for q in range(n_q):
        qid = f"q{q}"
        strength = rng.normal(size=n_docs)
        for i in range(n_docs):
            for j in range(i + 1, n_docs):
                if rng.random() < 0.4:
                    continue
                a, b = f"d{i}", f"d{j}"
                p = 1 / (1 + math.exp(-(strength[j] - strength[i]) * 2))
                for k in range(n_judges):
                    if k == 2 and rng.random() < 0.2:
                        continue  # pair absent from judge 2
                    if k == 1:
                        u = rng.random()
                        s = 0.5 if u < 0.15 else float(rng.random() < p)
                        # written reversed: doc_b first, so the file's score is 1 - s
                        lines[k].append({"qid": qid, "doc_a": b, "doc_b": a, "score": 1 - s})
                        truth[k][(qid, a, b)] = [s]
                        continue
                    votes = []
                    for _ in range(3):
                        u = rng.random()
                        if u < 0.1:
                            votes.append(None)
                        elif u < 0.25:
                            votes.append(0)
                        else:
                            votes.append(1 if rng.random() < p else -1)
                    lines[k].append({"qid": qid, "doc_a": a, "doc_b": b, "votes": votes})
                    truth[k][(qid, a, b)] = [None if v is None else (v + 1) / 2 for v in votes]
    paths = []
    for k in range(n_judges):
        path = tmp_path / f"j{k}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in lines[k]))
        paths.append(str(path))
    return paths, truth


def _label(votes, ties="half"):
    """Pair label from votes as zelo_fit scores them (failed = 1/2) unless every vote failed."""
    valid = [v for v in votes if v is not None]
    if not valid:
        return math.nan
    s = sum(0.5 if v is None else v for v in votes) / len(votes)
    return _cat(s)


def _get(records, a, b, stat, level="pair"):
    hit = [r for r in records if (r.judge_a, r.judge_b, r.level, r.statistic) == (a, b, level, stat)]
    assert len(hit) == 1, (a, b, stat, hit)
    return hit[0]


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    paths, truth = _generate(tmp_path_factory.mktemp("agree"))
    recs = agree(paths, names=["ref", "single", "ens"], levels=["pair"], resamples=200, seed=3)
    return paths, truth, recs


def test_cohen_and_weighted_kappa_equal_statsmodels(generated):
    _, truth, recs = generated
    for k, name in ((1, "single"), (2, "ens")):
        pairs = [key for key in truth[0] if key in truth[k]]
        la = np.array([_label(truth[0][key]) for key in pairs])
        lb = np.array([_label(truth[k][key]) for key in pairs])
        ok = ~np.isnan(la) & ~np.isnan(lb)
        table = np.zeros((3, 3))
        np.add.at(table, (la[ok].astype(int), lb[ok].astype(int)), 1)
        assert table[1].sum() > 0 and table[:, 1].sum() > 0  # ties on both sides
        rk = _get(recs, "ref", name, "cohen_kappa")
        assert rk.n == ok.sum()
        assert rk.value == pytest.approx(inter_rater.cohens_kappa(table).kappa, abs=1e-12)
        rw = _get(recs, "ref", name, "weighted_kappa")
        assert rw.value == pytest.approx(inter_rater.cohens_kappa(table, wt="linear").kappa, abs=1e-12)
        rd = _get(recs, "ref", name, "agreement_decided")
        assert rd.value == pytest.approx((table[0, 0] + table[2, 2]) / table[[0, 0, 2, 2], [0, 2, 0, 2]].sum())
        assert rk.ci_low < rk.value < rk.ci_high
        ra = _get(recs, "ref", name, "krippendorff_alpha")
        ref = krippendorff.alpha(reliability_data=np.vstack([la, lb]), level_of_measurement="ordinal")
        assert ra.value == pytest.approx(ref, abs=1e-12)


def test_alpha_over_all_judges_with_missing_equals_krippendorff(generated):
    _, truth, recs = generated
    keys = sorted(set().union(*[set(t) for t in truth]))
    data = np.array([[_label(t[key]) if key in t else math.nan for key in keys] for t in truth])
    assert np.isnan(data).any()
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal")
    assert _get(recs, "all", "", "krippendorff_alpha").value == pytest.approx(ref, abs=1e-12)
    full = ~np.isnan(data).any(axis=0)
    counts = np.stack([(data[:, full] == c).sum(0) for c in range(3)], axis=1)
    rf = _get(recs, "all", "", "fleiss_kappa")
    assert rf.n == full.sum()
    assert rf.value == pytest.approx(inter_rater.fleiss_kappa(counts), abs=1e-12)


def test_ensemble_members_alpha_and_fleiss(generated):
    _, truth, recs = generated
    keys = list(truth[0])
    votes = np.array([[math.nan if v is None else _cat(v) for v in truth[0][key]] for key in keys]).T
    ref = krippendorff.alpha(reliability_data=votes, level_of_measurement="ordinal")
    assert _get(recs, "ref", "", "votes_alpha").value == pytest.approx(ref, abs=1e-12)
    full = ~np.isnan(votes).any(axis=0)
    counts = np.stack([(votes[:, full] == c).sum(0) for c in range(3)], axis=1)
    rf = _get(recs, "ref", "", "votes_fleiss_kappa_m3")
    assert rf.n == full.sum()
    assert rf.value == pytest.approx(inter_rater.fleiss_kappa(counts), abs=1e-12)
    # failed votes: share of null votes; missing pairs: all three votes null
    allv = [v for key in keys for v in truth[0][key]]
    assert _get(recs, "ref", "", "failed_vote_rate").value == pytest.approx(allv.count(None) / len(allv))
    none = sum(all(v is None for v in truth[0][key]) for key in keys)
    assert _get(recs, "ref", "", "missing_rate").value == pytest.approx(none / len(keys))


def test_coverage_and_consensus(generated):
    _, truth, recs = generated
    both = [key for key in truth[0] if key in truth[2]]
    assert _get(recs, "ref", "ens", "matched").value == len(both)
    assert _get(recs, "ref", "ens", "only_in_a").value == len(truth[0]) - len(both)
    assert _get(recs, "ref", "ens", "only_in_b").value == 0
    hits = n = 0
    for key in both:
        vv = [v for v in truth[0][key] if v is not None]
        other = _label(truth[2][key])
        if len(vv) >= 2 and (all(v == 0 for v in vv) or all(v == 1 for v in vv)) and not math.isnan(other):
            n += 1
            hits += other == _cat(vv[0])
    r = _get(recs, "ref", "ens", "consensus_agreement")
    assert (r.n, r.value) == (n, pytest.approx(hits / n))


def test_orientation_does_not_matter(tmp_path):
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    a.write_text("1 x y x\n1 y z z\n1 x z x\n2 p q q\n")
    b.write_text("1 y x x\n1 z y z\n1 z x z\n2 q p q\n")  # same pairs, written reversed; last two disagree? no
    recs = agree([str(a), str(b)], levels=["pair"], resamples=0)
    assert _get(recs, "a.txt", "b.txt", "matched").value == 4
    assert _get(recs, "a.txt", "b.txt", "agreement_decided").value == pytest.approx(3 / 4)


def test_position_bias_on_both_orders(tmp_path):
    # judge shows (x, y) twice and (y, x) twice; the first-shown document wins 3 of 4 decisive votes
    p = tmp_path / "c.txt"
    p.write_text("1 x y x\n1 x y x\n1 y x y\n1 y x x\n1 u v u\n")
    other = tmp_path / "o.txt"
    other.write_text("1 x y x\n")
    recs = agree([str(p), str(other)], levels=["pair"], resamples=0)
    r = _get(recs, "c.txt", "", "position_bias")
    assert (r.value, r.n) == (0.75, 4)


def test_position_bias_reads_zelo_judge_orders(tmp_path):
    """zelo_judge writes each vote oriented to the line's (doc_a, doc_b) and says in ``orders`` which document
    was shown first ("BA": doc_b). A judge that always prefers the first-shown document, asked in both orders
    (``--both-orders``: one line, votes [-1, 1], orders [AB, BA]), has position bias 1 on its 4 decisive votes
    (hand count); read in line order the bias was invisible (every vote taken as shown a-first, the pair as
    shown in one order). A pair served from the store in the other orientation (a pairs file listing (x, y)
    and (y, x): one question, two lines, the second with orders [BA]) was asked in one order only: no bias
    figure from it (it was read as shown both ways: 1/2)."""
    both = tmp_path / "both.jsonl"
    both.write_text("".join(json.dumps(r) + "\n" for r in (
        {"qid": "1", "doc_a": "x", "doc_b": "y", "votes": [-0.8, 0.8], "judges": ["j", "j"], "orders": ["AB", "BA"]},
        {"qid": "1", "doc_a": "z", "doc_b": "y", "votes": [-1, 0.5], "judges": ["j", "j"], "orders": ["AB", "BA"]},
        {"qid": "1", "doc_a": "x", "doc_b": "z", "votes": [0, 0], "judges": ["j", "j"], "orders": ["AB", "BA"]})))
    copies = tmp_path / "copies.jsonl"
    copies.write_text("".join(json.dumps(r) + "\n" for r in (
        {"qid": "1", "doc_a": "x", "doc_b": "y", "votes": [-0.8], "judges": ["j"], "orders": ["AB"]},
        {"qid": "1", "doc_a": "y", "doc_b": "x", "votes": [0.8], "judges": ["j"], "orders": ["BA"]})))
    recs = agree([str(both), str(copies)], names=["both", "copies"], levels=["pair"], resamples=0)
    r = _get(recs, "both", "", "position_bias")
    assert (r.value, r.n) == (1.0, 4)
    r = _get(recs, "copies", "", "position_bias")
    assert r.n == 0 and math.isnan(r.value)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"qid": "1", "doc_a": "x", "doc_b": "y", "votes": [1], "orders": ["AB", "BA"]}) + "\n")
    with pytest.raises(InputError, match=r"bad.jsonl:1: expected \"orders\" a list"):
        agree([str(bad), str(copies)], levels=["pair"], resamples=0)


def test_same_seed_same_intervals(generated):
    paths, _, _ = generated
    r1 = agree(paths, levels=["pair"], resamples=100, seed=7)
    r2 = agree(paths, levels=["pair"], resamples=100, seed=7)
    r3 = agree(paths, levels=["pair"], resamples=100, seed=8)
    import io

    from pref_eval.output.agree import write_records

    def text(r):
        buf = io.StringIO()
        write_records(buf, r, "tsv")
        return buf.getvalue()

    assert text(r1) == text(r2)
    assert text(r1) != text(r3)


def test_rewriting_pairs_in_the_other_order_changes_nothing(generated, tmp_path):
    """Swap doc_a/doc_b (and the score or votes) on a random half of every file's lines: every figure
    except position bias is unchanged (to rounding: 1 - 1/3 is not 2/3 in floating point)."""
    paths, _, _ = generated
    rng = np.random.default_rng(9)
    swapped = []
    for k, p in enumerate(paths):
        out = []
        for line in Path(p).read_text().splitlines():
            r = json.loads(line)
            if rng.random() < 0.5:
                r["doc_a"], r["doc_b"] = r["doc_b"], r["doc_a"]
                if "score" in r:
                    r["score"] = 1 - r["score"]
                else:
                    r["votes"] = [None if v is None else -v for v in r["votes"]]
            out.append(json.dumps(r) + "\n")
        q = tmp_path / f"s{k}.jsonl"
        q.write_text("".join(out))
        swapped.append(str(q))

    def rows(ps):
        recs = agree(ps, names=["ref", "single", "ens"], levels=["pair", "calibration", "document"],
                     calibration="always", resamples=50, seed=1)
        return [r.row() for r in recs if r.statistic != "position_bias"]

    a, b = rows(paths), rows(swapped)
    assert len(a) == len(b) > 50
    for x, y in zip(a, b, strict=True):
        assert x[:4] == y[:4] and x[7] == y[7]
        assert np.allclose(x[4:7], y[4:7], rtol=1e-9, atol=1e-12, equal_nan=True), (x, y)


@pytest.mark.slow  # a cmd: judge process per zelo_judge run (about 2 s)
def test_position_bias_of_a_first_preferring_judge_through_zelo_judge(tmp_path):
    """End to end: a `cmd:` judge that always prefers the document shown first, asked `--both-orders` by zelo_judge
    over a pairs list that names one pair twice (the second time reversed). By construction its position bias is
    1 on every decisive vote (2 per distinct pair); the pair listed twice is one question. Read in line order
    (before) the figure was missing; both the -o file and the export give 1 now."""
    import sys

    from pref_eval.api import judge, judge_export

    pairs = [("1", "a", "b"), ("1", "b", "c"), ("1", "c", "a"), ("1", "b", "a"), ("2", "x", "y")]
    (tmp_path / "pairs.jsonl").write_text("".join(json.dumps({"qid": q, "doc_a": a, "doc_b": b}) + "\n"
                                                  for q, a, b in pairs))
    (tmp_path / "q.tsv").write_text("1\tquery one\n2\tquery two\n")
    (tmp_path / "d.tsv").write_text("".join(f"{d}\ttext {d}\n" for d in "abcxy"))
    prog = tmp_path / "first.py"
    prog.write_text("import json, sys\nfor line in sys.stdin:\n"
                    "    print(json.dumps({'id': json.loads(line)['id'], 'score': -1}), flush=True)\n")
    judge(str(tmp_path / "pairs.jsonl"), judges=[f"cmd:{sys.executable} {prog}"], both_orders=True,
          queries=str(tmp_path / "q.tsv"), docs=str(tmp_path / "d.tsv"), store=str(tmp_path / "s.sqlite"),
          output=str(tmp_path / "o.jsonl"))
    judge_export(str(tmp_path / "s.sqlite"), output=str(tmp_path / "e.jsonl"))
    ref = tmp_path / "ref.txt"
    ref.write_text("1 a b a\n2 x y x\n")
    # -o repeats the answers of the pair listed twice (copies: 2 votes more, documented); export has each once
    for f, n in (("o.jsonl", 2 * 5), ("e.jsonl", 2 * 4)):
        recs = agree([str(ref), str(tmp_path / f)], names=["ref", "first"], levels=["pair"], resamples=0)
        r = _get(recs, "first", "", "position_bias")
        assert (r.value, r.n) == (1.0, n), f

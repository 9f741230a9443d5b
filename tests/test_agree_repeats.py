"""zelo_agree: a judge's repeated answers to a pair (self-consistency) and its ensemble's agreement, reported
apart (session 21, j30): ``repeat_*`` over the same member's votes of a pair judged on several lines,
``members_fleiss_kappa_mM`` among the members' votes of one line. Hand-worked figures, and oracles computed live
on the same tables: statsmodels' fleiss_kappa, the krippendorff package's alpha. (No Cohen's kappa of a first vs
a second answer: the lines of a file are exchangeable, and no figure may depend on their order.)"""
from __future__ import annotations

import json

import numpy as np
import pytest

# judges [m0, m1]; votes in -1..1, > 0: doc_b (which sorts after doc_a: lo = doc_a) better
LINES = [("q1", "a", "b", [1, 1]), ("q1", "a", "b", [1, -1]), ("q1", "c", "d", [-1, -1]), ("q1", "c", "d", [-1, 0]),
         ("q2", "a", "b", [1, 1]), ("q2", "a", "b", [1, 1]), ("q2", "c", "d", [0, 1])]
LO, TIE, HI = 0, 1, 2


def write(path, lines):
    path.write_text("".join(json.dumps({"qid": q, "doc_a": a, "doc_b": b, "votes": v, "judges": ["m0", "m1"]}) + "\n"
                            for q, a, b, v in lines))
    return str(path)


def records(tmp_path, lines):
    from pref_eval.api import agree

    a = write(tmp_path / "a.jsonl", lines)
    b = write(tmp_path / "b.jsonl", [(q, x, y, [1, 1]) for q, x, y, _ in lines])
    return {r.statistic: r for r in agree([a, b], names=["A", "B"], levels=["pair"], resamples=50)
            if r.judge_a == "A" and r.judge_b == ""}


def cat(v):
    return LO if v < 0 else TIE if v == 0 else HI


def test_hand_worked(tmp_path):
    got = records(tmp_path, LINES)
    assert got["repeat_pairs"].value == 3  # q1 a-b, q1 c-d, q2 a-b
    assert got["repeat_identical"].value == pytest.approx(1 / 3)  # q2 a-b's two lines are the same
    # units (pair, member): [HI HI] [HI LO] [LO LO] [LO TIE] [HI HI] [HI HI]: Pbar 4/6, p = (4, 1, 7)/12,
    # Pe = 66/144, kappa = (2/3 - 11/24) / (13/24) = 5/13
    assert got["repeat_fleiss_kappa_m2"].value == pytest.approx(5 / 13, abs=1e-12)
    assert got["repeat_fleiss_kappa_m2"].n == 6
    # Krippendorff's alpha (ordinal) of the same units, by the krippendorff package computed live
    kr = pytest.importorskip("krippendorff")
    units = np.array([[HI, HI], [HI, LO], [LO, LO], [LO, TIE], [HI, HI], [HI, HI]], dtype=float).T
    assert got["repeat_alpha"].value == pytest.approx(
        kr.alpha(reliability_data=units, level_of_measurement="ordinal", value_domain=[LO, TIE, HI]), abs=1e-12)
    assert got["repeat_alpha"].n == 6
    # members within a line (7 lines): Pbar 4/7, p = (4, 2, 8)/14, Pe 3/7: kappa 1/4
    assert got["members_fleiss_kappa_m2"].value == pytest.approx(1 / 4, abs=1e-12)
    assert got["members_fleiss_kappa_m2"].n == 7


@pytest.mark.slow  # ~6 s: statsmodels' import and two reports
def test_against_statsmodels(tmp_path):
    """A random file (pairs asked 1-4 times of 3 members, some failed votes): the same tables given to
    statsmodels."""
    irr = pytest.importorskip("statsmodels.stats.inter_rater")
    rng = np.random.default_rng(7)
    lines = []
    for qi in range(6):
        for pi_ in range(8):
            for _ in range(int(rng.integers(1, 5))):
                lines.append((f"q{qi}", f"d{pi_}", f"e{pi_}",
                              [None if rng.random() < 0.05 else float(rng.choice([-1, -0.5, 0, 0.5, 1]))
                               for _ in range(3)]))
    rng.shuffle(lines)
    (tmp_path / "a.jsonl").write_text("".join(json.dumps({"qid": q, "doc_a": a, "doc_b": b, "votes": v,
                                                          "judges": ["m0", "m1", "m2"]}) + "\n"
                                              for q, a, b, v in lines))
    (tmp_path / "b.jsonl").write_text("".join(json.dumps({"qid": q, "doc_a": a, "doc_b": b, "score": 1}) + "\n"
                                              for q, a, b, _ in lines))
    from pref_eval.api import agree

    got = {r.statistic: r for r in agree([str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")], names=["A", "B"],
                                         levels=["pair"], resamples=0) if r.judge_a == "A" and r.judge_b == ""}
    units: dict = {}
    by_pair: dict = {}
    for n, (q, a, b, _) in enumerate(lines):
        by_pair.setdefault((q, a, b), []).append(n)
    for key, ns in by_pair.items():
        if len(ns) < 2:
            continue
        for m in range(3):
            units[(key, m)] = [cat(lines[n][3][m]) for n in ns if lines[n][3][m] is not None]
    sizes = [len(u) for u in units.values() if len(u) >= 2]
    R = max(set(sizes), key=lambda s: (sizes.count(s), -s))
    table = np.array([np.bincount(u, minlength=3) for u in units.values() if len(u) == R])
    assert got[f"repeat_fleiss_kappa_m{R}"].value == pytest.approx(irr.fleiss_kappa(table, method="fleiss"),
                                                                   abs=1e-12)
    # no figure depends on the order of the lines (repeats are exchangeable)
    order = rng.permutation(len(lines))
    (tmp_path / "a.jsonl").write_text("".join(json.dumps({"qid": q, "doc_a": a, "doc_b": b, "votes": v,
                                                          "judges": ["m0", "m1", "m2"]}) + "\n"
                                              for q, a, b, v in (lines[i] for i in order)))
    again = {r.statistic: r for r in agree([str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")], names=["A", "B"],
                                           levels=["pair"], resamples=0) if r.judge_a == "A" and r.judge_b == ""}
    assert {k: (repr(r.value), r.n) for k, r in again.items()} == {k: (repr(r.value), r.n) for k, r in got.items()}
    assert got["repeat_pairs"].value == sum(len(ns) >= 2 for ns in by_pair.values())
    per_line = [[cat(x) for x in v if x is not None] for _, _, _, v in lines]
    sizes = [len(u) for u in per_line if len(u) >= 2]
    M = max(set(sizes), key=lambda s: (sizes.count(s), -s))
    table = np.array([np.bincount(u, minlength=3) for u in per_line if len(u) == M])
    assert got[f"members_fleiss_kappa_m{M}"].value == pytest.approx(irr.fleiss_kappa(table, method="fleiss"),
                                                                    abs=1e-12)


def test_copies_read_as_identical(tmp_path):
    """zelo_judge -o of a pairs list naming a pair twice: its one answer written twice. repeat_identical is 1 and
    the members' agreement is computed on the lines as they are (the copies' repeat kappa is 1 or undefined)."""
    got = records(tmp_path, [("q1", "a", "b", [1, -1]), ("q1", "a", "b", [1, -1]), ("q1", "c", "d", [1, 1])])
    assert got["repeat_pairs"].value == 1 and got["repeat_identical"].value == 1.0


def test_no_repeat_no_ensemble_no_record(tmp_path):
    from pref_eval.api import agree

    a = tmp_path / "a.jsonl"
    a.write_text('{"qid": "q", "doc_a": "a", "doc_b": "b", "score": 1}\n{"qid": "q", "doc_a": "a", "doc_b": "c", '
                 '"score": 0}\n')
    got = {r.statistic for r in agree([str(a), str(a)], levels=["pair"], resamples=0)}
    assert not {s for s in got if s.startswith(("repeat_", "members_"))}


def test_identical_lines_is_the_definition():
    """``repeat_identical``'s per-pair test, vectorised (it was a Python loop per vote and a scan of every vote per
    pair), against the definition written out: a repeat pair's lines are identical when each holds the same multiset
    of (member, value rounded to 12 decimals), NaN equal to NaN; 500 random tables with missing members, -0.0, NaN and
    values that only rounding makes equal."""
    from pref_eval.agree.pairlevel import _identical_lines

    rng = np.random.default_rng(21)
    checked = 0
    for _ in range(500):
        n_pairs, n_lines, M = int(rng.integers(1, 6)), int(rng.integers(2, 16)), int(rng.integers(1, 4))
        rows = [(int(p), j, int(m), float(rng.choice([0.0, -0.0, 0.5, 1.0, np.nan, 0.1 + 0.2, 0.3, 1e-13])))
                for j in range(n_lines) for p in [rng.integers(n_pairs)]
                for m in rng.permutation(M)[:int(rng.integers(1, M + 1))]]
        rng.shuffle(rows)
        pi, judgment, member = (np.array([r[i] for r in rows]) for i in range(3))
        value, q = np.array([r[3] for r in rows]), pi.copy()  # query = pair: each pair's answer identified
        lines_of = {p: {r[1] for r in rows if r[0] == p} for p in set(pi.tolist())}
        rep = np.array([len(lines_of[r[0]]) >= 2 for r in rows])
        if not rep.any():
            continue
        want = {}
        for p in sorted(p for p, ls in lines_of.items() if len(ls) >= 2):
            sig = {tuple(sorted((r[2], None if r[3] != r[3] else round(r[3], 12)) for r in rows
                                if r[0] == p and r[1] == j)) for j in lines_of[p]}
            want[p] = (p, len(sig) == 1)
        pair_q, same = _identical_lines(pi, judgment, member, value, q, rep)
        assert sorted(zip(pair_q.tolist(), same.tolist(), strict=True)) == sorted(want.values())
        assert len(same) == len(want)
        checked += 1
    assert checked > 400


def test_copies_are_warned_about_on_stderr_and_quiet_silences(tmp_path):
    """repeat_identical = 1 (every repeat pair's lines hold the same votes) measures no self-consistency: zelo_agree
    says so on stderr for that judge only; -Q silences it and stdout is the same either way."""
    from cli_harness import run_module_inproc

    copies = write(tmp_path / "a.jsonl", [("q1", "a", "b", [1, -1]), ("q1", "a", "b", [1, -1]),
                                          ("q1", "c", "d", [1, 1]), ("q1", "c", "d", [1, 1])])
    asked = write(tmp_path / "b.jsonl", [("q1", "a", "b", [1, -1]), ("q1", "a", "b", [1, 1]),
                                         ("q1", "c", "d", [1, 1]), ("q1", "c", "d", [1, 1])])
    args = ["-J", asked, "-J", copies, "-n", "asked", "-n", "copies", "-l", "pair", "--resamples", "0"]
    res, quiet = run_module_inproc("agree", args), run_module_inproc("agree", [*args, "-Q"])
    assert res.returncode == quiet.returncode == 0, res.stderr
    warned = [x for x in res.stderr.splitlines() if "warning" in x]
    assert len(warned) == 1 and warned[0].startswith("zelo_agree: warning: copies: every one of its 2 pairs"), \
        res.stderr
    assert quiet.stderr == "" and quiet.stdout == res.stdout

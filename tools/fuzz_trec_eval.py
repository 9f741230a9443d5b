#!/usr/bin/env python3
"""Differential fuzz: zelo_trec against the trec_eval 10.0 binary, live.

Runs only where a trec_eval binary is given (it is not shipped: build it under /tmp from
https://github.com/usnistgov/trec_eval, tag v10.0, plain ``make``)::

    python tools/fuzz_trec_eval.py --peer /tmp/trec_eval/trec_eval --cases 3000 --seed 1
    python tools/fuzz_trec_eval.py --peer /tmp/trec_eval/trec_eval --case 1:137 --keep /tmp/fz   # one case, kept

Each case is made from (seed, index) alone: a rel-info file (qrels; a fraction in ``-R prefs``,
``qrels_prefs`` or ``qrels_jg`` form) and a run full of hostile-but-legal content -- graded,
negative and huge grades, topics without a relevant document, docnos that differ only in case, in
byte order (``d9``/``d10``), by a unicode or invalid-UTF-8 byte, 200-character ids, ids that look
like numbers, a topic named ``all``, subtopic values in the iteration column, tabs, runs of
spaces, CRLF, single comment lines; score ties (also ties only in float32, decimal strings equal
after rounding to a double), scientific, subnormal, huge, negative scores and ``-0``, ranks out of
order, shuffled lines, topics only in the run or only in the qrels, one-line runs, several run
tags in one file, rankings longer than the cutoffs -- and random options, singly and combined
(``-q -c -n -J -o -l N -N N -M N -Z FILE -T trec_results``, long spellings, ``-`` for the run on
stdin, ``-m`` lists over every measure family with parameters and the nicknames).

Session 20 added, from an RNG of their own (``make_case(..., blind=False)`` gives session 19's cases
byte for byte): long options by a prefix (``--query_ev``, ``--meas=map``; sometimes the ambiguous
``--Re``), ``-D N`` with N >= 1 (trec_eval's debugging lines are removed from its stdout before the
comparison: :func:`strip_debug`) and ``-D N.qid`` (that topic only; a missing or empty qid), ``-Z``
files without guard entries (checked, when the outputs differ or trec_eval crashes, against trec_eval
on the file with guards added: ``documented_z_unguarded``), with infinite / subnormal / odd-looking
numbers, tabs, leading and trailing blanks, CRLF, topics nobody evaluates; fractional gain maps
(``ndcg.1023=2.5e2``, ``rbp.p=0.8,4999=0.001``) over grades up to 5000; topic ids that are not UTF-8.

Session 21 (``make_case(..., blind=2)``, the tool's cases; ``blind=True`` keeps session 20's byte for byte):
fractional gain maps naming grades above 5000 (up to 20,000, in one topic; ``big_gains``), and ``--help`` /
``--version`` by a prefix (``--h``, ``--ver``) or ``-h`` / ``-v``, first or last among the options (the texts
differ, documented: exit status, stream and ``trec_eval 10.0`` in our version line are compared). Documented
differences are masked, not skipped: a qrels starting with a BOM is given to trec_eval without it, a topic whose
grades are all negative with a non-relevant document it does not retrieve added (as we read it), and dcg /
ideal_dcg / ndcg with gain parameters (one parameter block in trec_eval) are compared measure set by measure set
(:func:`compare_split`) -- also where trec_eval crashes or stops on a qrels topic the run lacks; a -Z file
naming a (qid, measure) twice is read by both without the later lines, and ours must print the same on the file
with them (``documented_z_duplicate+...``).

Session 22 (``blind=3``, the tool's cases; ``blind=2`` keeps session 21's): a topic judged only below 0 is added
to 4 % of the qrels cases without another hostile input, and such topics get ``-l`` 0 / -1 / -2 and retrieve
unjudged documents; under ``-l`` <= 0 they are compared without the repair (a grade-0 document would be relevant
there): lines may differ only in the measures that read trec_eval's leftover table of grades (``bpref``,
``gm_bpref``, the gain measures) on that topic and ``all`` (``documented_all_negative_leftover``).

Session 23 (the same cases): a qrels with a blank line (documented: trec_eval stops on it, we skip it) is given to
trec_eval without it and compared byte for byte (``documented_blank_qrels``; was ``documented_peer_fails_blank_qrels``
without comparing), and the gain-split comparison drops a plain ``dcg`` / ``ideal_dcg`` named with the same measure's
parameters as it did ``ndcg`` (71:543: ``-mdcg --measure=dcg.-3=2.75,1=7.``, one dcg in both programs); a
crash on an unguarded -Z file whose guarded rerun differs is compared as any output (71:2197: then only rbp's
documented uninitialised min/max: ``documented_z_unguarded+documented_rbp``), and every spelling of the -Z
option is guarded (:func:`guarded_opts`; ``--Zscore=zscores`` was not); all_trec's plain ``Zndcg`` is
left out beside ``-m ndcg.PARAMS`` as its ``ndcg`` was (73:3); under ``-l`` <= 0 the leftover table's lines of the
all-negative topic and rbp's uninitialised min/max elsewhere in one case are both allowed, rbp checked alone
(74:1273: ``documented_all_negative_leftover+documented_rbp``), and so are rbp's in a gain-split measure set (75:552:
``documented_gain_shared+documented_rbp``).

A fraction of the cases (``--hostile``) gets one input that docs/differences.md documents as
answered differently (a duplicate qrels line or ranked document, a blank qrels line, a topic
whose grades are all negative, an empty run, a NaN / hexadecimal / non-numeric score, a
non-integer grade, a qrels topic missing from the run without ``-c``): there a refusal of ours
must be one stderr line naming ``file:line`` (or the file), exit 2.

Both programs read the same files: trec_eval as a child process, zelo_trec in this process
(``pref_eval.cli.trec.main``; put the checkout to test first on PYTHONPATH) or as a child
(``python -m pref_eval.cli.trec``) when the run comes on stdin. stdout is compared byte for byte,
with the exit status; stderr only classifies a failure. Every case ends in one class:

* ``same`` -- the same bytes and status (``same_failure``: both refuse, ours in one line, exit 2);
* ``documented_*`` -- a difference docs/differences.md or docs/differences-measures.md lists, checked where it
  can be: without ``-c`` trec_eval stops on a qrels topic the run lacks, so our output is compared with
  trec_eval on the qrels cut to the run's topics (``documented_missing``; a cut on which trec_eval still fails
  is a finding, not a documented case); an ``rbp`` line that differs (trec_eval's min/max read uninitialised) is
  compared with trec_eval run on that measure alone (``documented_rbp``); ``documented_bom`` (equal to trec_eval
  on the qrels without its BOM), ``documented_all_negative`` (equal with an unretrieved grade-0 document added
  to that topic; under ``-l`` <= 0 ``documented_all_negative_leftover``, above), ``documented_gain_shared``
  (dcg/ideal_dcg/ndcg with gain parameters: equal measure set by measure set), ``documented_help`` /
  ``documented_version``; the others:
  ``documented_rnonrel_negative`` (prefs_avgjg_Rnonrel with negative levels, docs/trec-preferences.md),
  ``documented_refusal_*`` (what we refuse and trec_eval reads: NaN / hexadecimal / text scores, non-integer
  grades, an empty run, inconsistent preferences, a duplicate when only runid / num_q are asked),
  ``documented_peer_fails_*``;
* ``peer_crash`` -- trec_eval killed by a signal (documented classes only count as such);
* anything else (``diff``, ``we_refuse``, ``peer_fails``, ``refusal_unclear``, ``our_traceback``)
  is a finding: printed with its case id, exit status 1.

Session 25 (f35): the tool imports the pref_eval of its own checkout (run without PYTHONPATH it tested a copy
installed in the environment); the all-negative topic's repair (a grade-0 document) is not neutral where a gain
parameter gives grade 0 a gain (trec_eval counts it in ``ideal_dcg``): differences in the gain measures alone are
``documented_all_negative_gain0`` there (77:406; also in the measure-by-measure comparison of the gain measures
sharing trec_eval's parameter block, session 30: 601:2228).

Exit status 0 when every case agrees or is documented; 1 otherwise.
"""
from __future__ import annotations

import ast
import contextlib
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

# the checkout this file belongs to, not a pref_eval installed elsewhere (`pip install .` is not editable: run
# without PYTHONPATH, session 24's tools tested the installed copy -- 77:372 of session 25 was an old zelo_trec)
ROOT = Path(__file__).resolve().parents[1]
if sys.path[:1] != [str(ROOT)]:
    sys.path.insert(0, str(ROOT))
CHILD_ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}

# ----------------------------------------------------------------------------------------- measures
# every trec_eval 10 measure of the qrels path, with parameter spellings trec_eval's own tests use
MEASURES: dict[str, list[str]] = {
    "P": ["P", "P.5,10", "P.1", "P.1000,3", "P.200,1,2"],
    "recall": ["recall", "recall.5,10", "recall.1000", "recall.1"],
    "base": ["map", "gm_map", "Rprec", "bpref", "gm_bpref", "recip_rank", "infAP", "num_ret", "num_rel",
             "num_rel_ret", "num_q", "runid", "num_nonrel_judged_ret", "yaap"],
    "iprec": ["iprec_at_recall", "iprec_at_recall.0,.5,1", "iprec_at_recall..1,.33", "iprec_at_recall.1"],
    "11pt": ["11pt_avg", "11pt_avg..25,.5,.75", "11pt_avg.0.5,0.1,0.9,0", "11pt_avg.1"],
    "cut": ["map_cut", "map_cut.3,1000", "map_cut.1", "ndcg_cut", "ndcg_cut.3", "ndcg_cut.5,10,23",
            "ndcg_cut.1,2000"],
    "ndcg": ["ndcg", "ndcg.1=3,2=9,4=4.5", "ndcg.1=1,2=3", "ndcg.3=0.5", "ndcg.0=1,1=2", "ndcg_rel",
             "ndcg_rel.2=5", "Rndcg", "G", "G.1=2,2=5", "binG", "dcg", "ideal_dcg", "dcg.1=2,2=1"],
    "rbp": ["rbp", "rbp.p=0.8", "rbp.p=0.5", "rbp.p=0.95,2=3", "rbp.p=0.99", "rbp_resid", "rbp_resid.p=0.8"],
    "unj": ["unj", "unj.5,10", "unj.1"],
    "relp": ["relative_P", "relative_P.5,10", "relative_P.1"],
    "rmult": ["Rprec_mult", "Rprec_mult.0.5,2,3", "Rprec_mult.1.5"],
    "success": ["success", "success.1", "success.1,5,10", "success.1000"],
    "relstring": ["relstring", "relstring.20", "relstring.3", "relstring.1"],
    "set": ["set_P", "set_recall", "set_relative_P", "set_map", "set_F", "set_F.0.5", "set_F.2", "set_F.0"],
    "utility": ["utility", "utility.1,-1,0,0", "utility.2,-1,0,1", "utility.0.5,-0.25,1,0"],
    "nick": ["official", "all_trec", "set"],
}
PREF_MEASURES = ["all_prefs", "prefs", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
                 "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret",
                 "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp",
                 "prefs_pair_imp", "prefs_avgjg_imp", "runid", "num_q"]
JG_MEASURES = ["qrels_jg", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "P_avgjg.5,10", "Rprec_mult_avgjg.0.5,2"]
# printed names for -Z files (a subset on purpose: the rest print -1000000)
Z_NAMES = ["num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank", "P_5", "P_10",
           "P_1", "recall_10", "iprec_at_recall_0.00", "iprec_at_recall_0.50", "infAP", "ndcg", "ndcg_cut_10",
           "ndcg_cut_3", "success_1", "map_cut_10", "rbp", "set_F", "set_P", "utility", "Rndcg", "G", "unj_10",
           "num_nonrel_judged_ret", "11pt_avg", "relative_P_5", "Rprec_mult_1.00"]
GAIN_MEASURES = {"ndcg", "ndcg_cut", "ndcg_rel", "Rndcg", "G", "binG", "dcg", "ideal_dcg", "rbp", "rbp_resid",
                 "all_trec"}
GAIN_SHARED = ("dcg", "ideal_dcg", "ndcg")  # one parameter block in trec_eval's m_ndcg.c (documented)


# ----------------------------------------------------------------------------------------- generator
def _qid(r: random.Random, n: int, style: str) -> str:
    if style == "num":
        return str(n)
    if style == "strcmp":  # 1 10 100 2 ... and leading zeros: byte order, not numeric order
        return r.choice([str(n), f"0{n}", f"{n}0", f"{n}.0", f"{n}e0"])
    if style == "case":
        return r.choice(["q", "Q"]) + str(n % 4)
    if style == "uni":
        return r.choice(["é", "Ω", "查", "😀", "ß", "e\u0301", "Å", "ﬁ"]) + str(n)
    if style == "long":
        return "t" * 199 + str(n % 10)
    if style == "all":
        return "all" if n % 3 == 0 else str(n)
    if style == "sym":
        return r.choice(["x#", "a-b", "1/2", "q_", "~", "a.b", "(1)", "+1", "-1"]) + str(n)
    return _qid(r, n, r.choice(["num", "strcmp", "case", "uni", "long", "all", "sym"]))


def _docno(r: random.Random, n: int, style: str) -> str:
    if style == "plain":
        return f"d{n}"
    if style == "case":  # d3 / D3 / d3a / D3A: differ only in case
        return r.choice(["d", "D"]) + str(n // 2) + r.choice(["", "a", "A"])
    if style == "order":  # d9 < d10 only numerically; d-1 / d_1 / d.1 sort by punctuation bytes
        return r.choice(["d", "d-", "d_", "d.", "d0", "D"]) + str(n)
    if style == "uni":
        return r.choice(["é", "e\u0301", "Ω", "查", "ß", "ss", "😀", "Å", "Å"]) + str(n)
    if style == "latin1":  # not UTF-8: trec_eval compares bytes
        return "d" + str(n) + r.choice(["\udce9", "\udcff", "\udc80", "x"])
    if style == "long":
        return "D" * 195 + f"{n:05d}"
    if style == "num":
        return r.choice([str(n), f"{n}.0", f"0{n}", f"{n}e1", f"-{n}"])
    return _docno(r, n, r.choice(["plain", "case", "order", "uni", "long", "num"]))


def _score(r: random.Random, style: str, k: int) -> str:
    if style == "ties":
        return r.choice(["1", "1.0", "1.00", "0", "-0", "-0.0", "0.0", "2", "+1", "1e0", "10e-1"])
    if style == "f32":  # equal as float32, distinct as doubles
        return r.choice(["1.0", "1.00000001", "1.00000002", "0.99999999", "16777216", "16777217", "0.1",
                         "0.100000001"])
    if style == "round":  # decimal strings equal (or not) after rounding to a double
        return r.choice(["0.1", "0.10000000000000000001", "0.1000000000000000055511151231257827",
                         "0.09999999999999999", "0.3", "0.30000000000000004", "0.29999999999999998",
                         "9007199254740993", "9007199254740992", "9007199254740992.5", "2.5",
                         "2.50000000000000000000001"])
    if style == "sci":
        x = r.choice([-1, 1]) * r.random() * 10 ** r.randint(-300, 300)
        return r.choice(["%e", "%E", "%.3e", "%g", "%.17g"]) % x
    if style == "sub":  # subnormal, huge, signed zeros, infinity-adjacent
        return r.choice(["5e-324", "-5e-324", "1e-310", "2.2250738585072014e-308", "1e308", "-1e308",
                         "1.7976931348623157e308", "-0", "0", "-0.0", "4.9e-324", "1e-320"])
    if style == "neg":
        return f"{-r.random() * 10:.{r.randint(0, 4)}f}"
    if style == "int":
        return str(r.randint(-3, 3))
    if style == "desc":  # strictly decreasing, the usual run
        return f"{1000 - k * 0.5:.2f}"
    return f"{r.gauss(0, 1):.{r.randint(1, 6)}f}"


SCORE_STYLES = ["ties", "f32", "round", "sci", "sub", "neg", "int", "desc", "normal"]


def make_case(seed: int, idx: int, hostile_rate: float, blind: int = True) -> dict:  # noqa: C901 (one flat recipe)
    """Case ``idx`` of ``seed``; ``blind`` (1 or True): also draw session 20's blind spots (:func:`_blind_spots`,
    from an RNG of their own, so that ``blind=False`` gives the cases of session 19 byte for byte); 2: also
    session 21's (:func:`_blind_spots_2`, again from an RNG of their own: ``blind=True`` keeps session 20's); 3:
    also session 22's (:func:`_blind_spots_3`; ``blind=2`` keeps session 21's)."""
    r = random.Random(f"trec:{seed}:{idx}")
    fmt = r.choices(["qrels", "prefs", "qrels_prefs", "qrels_jg"], [0.82, 0.06, 0.06, 0.06])[0]
    nq = r.choice([1, 1, 2, 3, 5, 8, 12])
    qstyle = r.choice(["num", "num", "strcmp", "case", "uni", "long", "all", "sym", "mixed"])
    dstyle = r.choice(["plain", "plain", "case", "order", "uni", "latin1", "long", "num", "mixed"])
    qids = list(dict.fromkeys(_qid(r, r.randint(0, 40), qstyle) for _ in range(nq)))
    feats: set[str] = set()
    pool = {q: list(dict.fromkeys(_docno(r, r.randint(0, 3 * r.choice([1, 3, 10, 30, 100])), dstyle)
                                  for _ in range(r.choice([1, 2, 4, 10, 30, 60, 200])))) for q in qids}
    maxg = r.choice([1, 1, 2, 3, 4, 12, 127, 1000, 1000000])
    grade_style = r.choice(["plain", "plain", "neg", "signs"])
    iter_style = r.choice(["0", "0", "Q0", "sub", "word"])
    qrels_rows: list[tuple[str, str, str, str]] = []
    for q in qids:
        kind = r.random()
        docs = pool[q]
        judged = r.sample(docs, max(1, int(len(docs) * r.choice([0.2, 0.5, 1.0]))))
        if kind < 0.1:
            judged = judged[:1]
        for d in judged:
            g = r.randint(0, maxg) if r.random() < 0.5 else r.choice([0, 0, 1])
            if kind > 0.9:
                g = 0  # a topic without relevant documents
            elif grade_style == "neg" and r.random() < 0.3:
                g = -r.randint(1, 3)
            gs = str(g)
            if grade_style == "signs" and r.random() < 0.3 and g >= 0:
                gs = r.choice([f"+{g}", f"00{g}", gs])
            it = {"0": "0", "Q0": "Q0", "sub": str(r.randint(0, 3)), "word": r.choice(["aspect1", "x", "-"])}[
                iter_style]
            qrels_rows.append((q, it, d, gs))
        # a topic with all grades negative crashes or stops trec_eval (documented): keep one >= 0
        if all(int(x[3]) < 0 for x in qrels_rows if x[0] == q):
            qrels_rows.append((q, "0", judged[0] + "_z", "0"))
    # topics only in the qrels: legal with -c; without it trec_eval stops (documented, checked on cut qrels)
    run_qids = [q for q in qids if r.random() > 0.12 or fmt in ("prefs", "qrels_jg")] or qids[:1]
    extra = [x for x in (_qid(r, 50 + i, qstyle) for i in range(r.choice([0, 0, 0, 1, 2]))) if x not in pool]
    run_qids += extra  # topics only in the run: ignored by both
    sstyle = r.choice(SCORE_STYLES + ["mixed"])
    tags = [r.choice(["run", "r1", "STANDARD", "x" * 40, "é"])]
    if r.random() < 0.2:
        tags += ["other", "tag2"]  # several run names: runid is the last line's
    run_lines: list[list[str]] = []
    long_topic = r.random() < 0.1
    for q in run_qids:
        cand = list(pool.get(q, [])) + [_docno(r, 1000 + i, dstyle) for i in range(r.randint(0, 8))]
        cand = list(dict.fromkeys(cand))
        if long_topic and q == run_qids[0]:
            cand = list(dict.fromkeys(cand + [f"L{i}" for i in range(r.choice([1001, 1500, 2100]))]))
        n = r.choice([1, 1, 2, 5, len(cand) // 2 + 1, len(cand)])
        docs = r.sample(cand, min(n, len(cand)))
        for k, d in enumerate(docs):
            st = sstyle if sstyle != "mixed" else r.choice(SCORE_STYLES)
            s = _score(r, st, k)
            rk = str(k + 1) if r.random() < 0.8 else str(r.randint(-5, 5000))
            t = r.choice(tags)
            line = [q, r.choice(["Q0", "Q0", "0", "iter"]), d, rk, s, t]
            if r.random() < 0.03:
                line.append(r.choice(["junk", "1 2 3"]))
            run_lines.append(line)
    if r.random() < 0.9:
        r.shuffle(run_lines)  # unsorted topics, ranks out of order
    if r.random() < 0.05:
        run_lines = run_lines[:1]  # a one-line run
    if not any(x[0] in pool for x in run_lines):
        q0 = qids[0]
        run_lines.append([q0, "Q0", pool[q0][0], "1", "1.5", tags[-1]])
    opts: list[str] = []
    z = None
    if fmt == "qrels":
        pick: list[str] = []
        u = r.random()
        if u < 0.12:
            pass  # no -m: official
        elif u < 0.2:
            pick = [r.choice(MEASURES["nick"])]
        else:
            fams = r.sample(sorted(MEASURES), r.randint(1, 5))
            pick = [r.choice(MEASURES[f]) for f in fams]
            if r.random() < 0.2:
                pick += [r.choice(MEASURES[r.choice(fams)])]
        pick = list(dict.fromkeys(pick))
        shared = [m for m in pick if m.split(".")[0] in GAIN_SHARED]
        if len(shared) > 1 and any("." in m for m in shared) or any("." in m for m in shared) and "all_trec" in pick:
            feats.add("gain_shared")
        if maxg > 1000 and any(m.split(".")[0] in GAIN_MEASURES for m in pick):
            # trec_eval's gain measures take minutes on a grade of 10^6 (quadratic in the levels)
            qrels_rows[:] = [(q, it, d, str(int(g) % 1001) if int(g) > 1000 else g) for q, it, d, g in qrels_rows]
        for m in pick:
            opts += r.choice([["-m", m], ["-m" + m], ["--measure", m], [f"--measure={m}"]])
    else:
        ms = JG_MEASURES if fmt == "qrels_jg" else PREF_MEASURES
        for m in dict.fromkeys(r.sample(ms, r.randint(1, 3))):
            opts += ["-m", m]
        opts += r.choice([["-R", fmt], ["-R" + fmt], ["--Rel_info_format", fmt]])
    if r.random() < 0.6:
        opts.append(r.choice(["-q", "-q", "--query_eval_wanted"]))
    if r.random() < 0.3:
        opts.append(r.choice(["-c", "-c", "--complete_rel_info_wanted"]))
    if r.random() < 0.1:
        opts.append(r.choice(["-n", "--nosummary"]))
    if r.random() < 0.1:
        opts.append(r.choice(["-J", "--Judged_docs_only"]))
    if r.random() < 0.15:
        v = str(r.choice([0, 1, 2, 3, 5, -1, 1000]))
        opts += r.choice([["-l", v], ["-l" + v], ["--level_for_rel", v]])
    if r.random() < 0.15:
        v = str(r.choice([0, 1, 2, 3, 5, 10, 50, 1000, 100000]))
        opts += r.choice([["-M", v], ["-M" + v], ["--Max_retrieved_per_topic", v]])
    if r.random() < 0.08:
        v = str(r.choice([0, 1, 10, 1000, 1000000]))
        opts += r.choice([["-N", v], ["-N" + v], ["--Number_docs_in_coll", v]])
    if r.random() < 0.04:
        opts += r.choice([["-o"], ["--Output_old_results_format", "1"], ["--Output_old_results_format=x"]])
    if r.random() < 0.04:
        opts += r.choice([["-T", "trec_results"], ["--Results_format", "trec_results"]])
    if r.random() < 0.03:
        opts += ["-D", "0"]
    if fmt == "qrels" and r.random() < 0.08:
        z = make_zscores(r, qids)
        opts += r.choice([["-Z", "zscores"], ["--Zscore", "zscores"]])
    stdin = r.random() < 0.03
    sep = r.choice([" ", " ", "\t", "  ", " \t "])
    eol = "\r\n" if r.random() < 0.08 else "\n"
    case: dict = {"fmt": fmt, "opts": opts, "z": z, "stdin": stdin, "feats": feats, "sep": sep, "eol": eol,
                  "qrels_rows": qrels_rows, "run_lines": run_lines, "qids": qids, "pool": pool}
    if fmt in ("prefs", "qrels_jg"):
        case["rel_text"] = make_pref_file(r, fmt, qids, pool, feats)
    if r.random() < hostile_rate:
        feats.add(_make_hostile(r, case))
    no_c = "-c" not in opts and "--complete_rel_info_wanted" not in opts
    rel_q = set(qids) if fmt in ("prefs", "qrels_jg") else {x[0] for x in qrels_rows if not isinstance(x, str)}
    if no_c and rel_q - {x[0] for x in run_lines}:
        feats.add("missing_no_c")
    case["opts_full"] = list(opts)
    if blind:
        _blind_spots(random.Random(f"trec-blind:{seed}:{idx}"), case)
    if blind >= 2:
        _blind_spots_2(random.Random(f"trec-blind2:{seed}:{idx}"), case)
    if blind >= 3:
        _blind_spots_3(random.Random(f"trec-blind3:{seed}:{idx}"), case)
    case.setdefault("rel_text", _join(qrels_rows, sep, eol, r))
    case["run_text"] = _join(run_lines, sep, eol, r)
    case.pop("pool")
    return case


def _join(rows: list, sep: str, eol: str, r: random.Random) -> str:
    out = []
    for i, row in enumerate(rows):
        line = sep.join(row) if isinstance(row, (list, tuple)) else row
        if r.random() < 0.03:
            line = r.choice([" ", "\t"]) + line  # leading white space
        if r.random() < 0.03:
            line += r.choice([" ", "\t", "  "])  # trailing white space
        out.append(line)
        if 0 < i < len(rows) - 1 and r.random() < 0.01:
            out.append("# a comment line")  # one at a time, never last (trec_eval 10 reads one only)
    return eol.join(out) + (eol if out and r.random() < 0.95 else "")


def make_zscores(r: random.Random, qids: list[str]) -> str:
    lines = []
    for q in qids:
        if r.random() < 0.15:
            continue  # a topic without z entries
        for m in Z_NAMES:
            if r.random() < 0.3:
                continue
            sd = "0" if r.random() < 0.1 else f"{r.uniform(0.05, 0.5):.4f}"
            lines.append(f"{q} {m} {r.uniform(0, 1):.4f} {sd}")
        # trec_eval's binary search (convert_zscores.c) reads one entry past the end of a list:
        # a measure that sorts last in each topic and a topic that sorts last keep it in bounds
        lines.append(f"{q} zzz_sentinel 0 1")
    lines.append("\U0010fffd zzz_sentinel 0 1")
    r.shuffle(lines)
    return "\n".join(lines) + "\n"


def make_pref_file(r: random.Random, fmt: str, qids: list[str], pool: dict, feats: set[str]) -> str:
    """Consistent judgments (one level per document and judgment group); ``pref_conflict`` otherwise."""
    conflict = r.random() < 0.1
    if conflict:
        feats.add("pref_conflict")  # two levels for a document in one JG, or a cycle: refused (documented)
    lines = []
    for q in qids:
        docs = pool[q]
        for g in range(r.randint(1, 3)):
            level = {d: r.choice(["0", "1", "2", "3.5", "0.0", "1e1", "2"]) for d in docs}
            if fmt == "prefs":
                for s in range(r.randint(1, 3)):
                    for d in r.sample(docs, min(len(docs), r.randint(1, 6))):
                        lv = r.choice(["0", "1", "2", "3.5"]) if conflict else level[d]
                        lines.append(f"{q} jg{g} sub{s} {d} {lv}")
            else:
                for d in r.sample(docs, min(len(docs), r.randint(1, 10))):
                    lines.append(f"{q} {g} {d} {r.choice(['0', '0', '1', '2', '-1'])}")
    return "\n".join(lines) + "\n"


def _make_hostile(r: random.Random, case: dict) -> str:  # noqa: C901
    """One input docs/differences.md documents as answered differently by us and trec_eval."""
    kind = r.choice(["dup_qrels", "dup_run_doc", "blank_qrels", "all_negative", "empty_run", "nan_score",
                     "hex_score", "text_score", "float_grade", "bom", "missing_topic"])
    rows, lines = case["qrels_rows"], case["run_lines"]
    if case["fmt"] != "qrels" and kind in ("dup_qrels", "blank_qrels", "all_negative", "float_grade", "bom"):
        kind = "dup_run_doc"
    if kind == "dup_qrels":  # the same (qid, docno) twice with another grade
        q, it, d, g = r.choice(rows)
        rows.insert(r.randrange(len(rows) + 1), (q, it, d, str(int(g) + 1)))
    elif kind == "blank_qrels":
        rows.insert(r.randrange(1, len(rows) + 1), "")
    elif kind == "all_negative":
        rows.extend([("negq", "0", "n1", "-1"), ("negq", "0", "n2", r.choice(["-1", "-2"]))])
        lines.append(["negq", "Q0", "n1", "1", "1.0", "run"])
    elif kind == "empty_run":
        lines.clear()
    elif kind == "dup_run_doc":
        ln = list(r.choice(lines))
        ln[4] = _score(r, "normal", 0)
        lines.insert(r.randrange(len(lines) + 1), ln)
    elif kind in ("nan_score", "hex_score", "text_score"):
        ln = r.choice(lines)
        ln[4] = r.choice({"nan_score": ["nan", "NaN", "-nan"], "hex_score": ["0x10", "0x1p-2"],
                          "text_score": ["abc", "1e5x", "1_0", "1,5"]}[kind])
    elif kind == "float_grade":
        i = r.randrange(len(rows))
        q, it, d, _ = rows[i]
        rows[i] = (q, it, d, r.choice(["2.7", "0.5", "1e0"]))
    elif kind == "bom":
        q, it, d, g = rows[0]
        rows[0] = ("\ufeff" + q, it, d, g)
    elif kind == "missing_topic":
        rows.append(("only_in_qrels", "0", "dq", "1"))
    return kind


# trec_eval 10's getopt_long table (trec_eval.c): long options it also reads by an unambiguous prefix
TREC_LONG = ["--help", "--version", "--query_eval_wanted", "--measure", "--complete_rel_info_wanted",
             "--level_for_rel", "--nosummary", "--Debug_level", "--Judged_docs_only", "--Number_docs_in_coll",
             "--Max_retrieved_per_topic", "--Rel_info_format", "--Results_format", "--Output_old_results_format",
             "--Zscore"]
SHORT_LONG = {"-q": "--query_eval_wanted", "-c": "--complete_rel_info_wanted", "-n": "--nosummary",
              "-J": "--Judged_docs_only"}
GUARD_QID = "\udcff" * 8  # sorts after every qid drawn here (bytes 0xff), the -Z files' guard topic
GAIN_NAMES = ["ndcg", "ndcg_rel", "Rndcg", "G", "rbp", "dcg", "ideal_dcg"]
FRACTIONS = ["0.5", "0.25", "1.5", "0.001", "2.75", "0.1", "1000.5", "123456.25", "0", "3", "0.3333333333",
             "1e-3", "2.5e2", ".5", "7."]


def _abbreviate(r: random.Random, word: str) -> str:
    """``--name[=value]`` as a random prefix getopt_long may read (or find ambiguous: ``--R``, ``--Re``)."""
    name, eq, value = word.partition("=")
    if name not in TREC_LONG:
        return word
    return name[:r.randint(3, len(name))] + eq + value


def _rename_qids(r: random.Random, case: dict) -> None:
    """Topic ids that are not UTF-8 (bytes 0x80-0xff; trec_eval compares and prints bytes)."""
    qids = {x[0] for x in case["qrels_rows"] if not isinstance(x, str)} | {x[0] for x in case["run_lines"]}
    m = {q: r.choice(["\udce9", "\udcff", "\udc80", "q\udcfe", ""]) + q + r.choice(["\udce9", "\udca0", ""])
         for q in sorted(qids)}  # sorted: a set's order changes with the hash seed
    m = {k: (v if v != k else v + "\udcb5") for k, v in m.items()}
    case["qrels_rows"][:] = [x if isinstance(x, str) else (m.get(x[0], x[0]), *x[1:]) for x in case["qrels_rows"]]
    for ln in case["run_lines"]:
        ln[0] = m.get(ln[0], ln[0])
    case["qids"] = [m.get(q, q) for q in case["qids"]]
    if case["z"] is not None:
        case["z"] = "".join(" ".join([m.get(f[0], f[0]), *f[1:]]) + "\n" if (f := ln.split()) else ln + "\n"
                            for ln in case["z"].splitlines()).replace("\U0010fffd", GUARD_QID)
    case["feats"].add("latin1_qid")


def _z_shapes(r: random.Random, case: dict) -> None:
    """-Z files as trec_eval reads them: no guard entries, odd numbers and white space, CRLF."""
    lines = case["z"].splitlines()
    feats = case["feats"]
    if r.random() < 0.6:  # no guards: trec_eval's binary search reads one entry past a list (documented)
        lines = [ln for ln in lines if "zzz_sentinel" not in ln]
        feats.add("z_unguarded")
    if r.random() < 0.3:
        out = []
        for ln in lines:
            f = ln.split()
            if r.random() < 0.3:
                f[r.choice([2, 3])] = r.choice(["1e400", "-1e400", "inf", "-0", "5e-324", ".5", "+0.25", "1.", "0",
                                                "1e-320", "2.5E1", "-.75", "00.5"])
            out.append(f)
        lines = [r.choice([" ", "\t", "  ", " \t"]).join(f) for f in out]
    if r.random() < 0.2:
        lines = [r.choice(["", " ", "\t"]) + ln + r.choice(["", " ", "\t "]) for ln in lines]
    if r.random() < 0.15:
        extra = [f"{q} {m} 0.5 0.25" for q in (GUARD_QID[:2] + "x", "nosuch", "0", "~") for m in ("map", "P_5")]
        lines += extra  # topics that are not evaluated
    r.shuffle(lines)
    eol = "\r\n" if r.random() < 0.15 else "\n"
    case["z"] = eol.join(lines) + (eol if r.random() < 0.9 else "")


def _int(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None  # a hostile non-integer grade (2.7, 1e0)


def _gain_measure(r: random.Random, case: dict) -> str:
    """A gain measure with a fractional gain map over grades up to 5000 (trec_eval's gain search is
    quadratic in the levels: slow above ~10^4, docs/differences.md)."""
    rows = case["qrels_rows"]
    rows[:] = [x if isinstance(x, str) or not _int(x[3]) or _int(x[3]) <= 5000 else (*x[:3], str(_int(x[3]) % 5001))
               for x in rows]
    if r.random() < 0.6:  # some judged documents get a huge grade
        for i in r.sample(range(len(rows)), max(1, len(rows) // r.choice([2, 5, 20]))):
            if not isinstance(rows[i], str) and _int(rows[i][3]) is not None:
                q, it, d, _ = rows[i]
                rows[i] = (q, it, d, str(r.choice([r.randint(100, 5000), 4999, 5000, 1023, 1024])))
    grades = sorted({g for x in rows if not isinstance(x, str) and (g := _int(x[3])) is not None}
                    | {r.randint(0, 5000)})
    pick = r.sample(grades, min(len(grades), r.randint(1, 4)))
    gains = ",".join(f"{g}={r.choice(FRACTIONS)}" for g in pick)
    name = r.choice(GAIN_NAMES)
    if name == "rbp" and r.random() < 0.5:
        gains = f"p={r.choice(['0.5', '0.8', '0.95'])}," + gains
    return f"{name}.{gains}"


def _add_gain_measure(r: random.Random, case: dict, m: str) -> None:
    """Ask for gain measure ``m`` (as ``-m m`` or ``--measure=m``); mark the case ``gain_shared`` when gain
    parameters meet another measure of the family sharing them (or all_trec)."""
    case["opts"] += r.choice([["-m", m], [f"--measure={m}"]])
    case["opts_full"] += ["-m", m]
    shared = [x for x in measure_args(case["opts_full"]) if x.split(".")[0] in GAIN_SHARED]
    if len(shared) > 1 and any("." in x for x in shared) or any("." in x for x in shared) \
            and "all_trec" in measure_args(case["opts_full"]):
        case["feats"].add("gain_shared")


def _blind_spots(r: random.Random, case: dict) -> None:  # noqa: C901
    """Session 20: what the cases of session 19 never drew -- long options by prefix, -D >= 1 and
    -D N.qid, -Z files without guard entries and of other shapes, fractional gain maps with grades up to
    5000, topic ids that are not UTF-8."""
    opts, feats = case["opts"], case["feats"]
    if case["fmt"] == "qrels":
        if r.random() < 0.15:
            _add_gain_measure(r, case, _gain_measure(r, case))
        if r.random() < 0.15:
            _rename_qids(r, case)
        if case["z"] is None and r.random() < 0.06:
            case["z"] = make_zscores(r, case["qids"]).replace("\U0010fffd", GUARD_QID)
            opts += r.choice([["-Z", "zscores"], ["--Zscore", "zscores"], ["-Zzscores"]])
            case["opts_full"] += ["-Z", "zscores"]
        if case["z"] is not None:
            case["z"] = case["z"].replace("\U0010fffd", GUARD_QID)
            if r.random() < 0.7:
                _z_shapes(r, case)
    if r.random() < 0.12:
        lvl = r.choice(["1", "2", "3", "5", "0", "1"])
        if r.random() < 0.45:
            qs = [x[0] for x in case["run_lines"]] + case["qids"]
            lvl += "." + r.choice(qs + ["nosuch", ""] if qs else ["nosuch"])
            feats.add("debug_query")
        if lvl[0] != "0":
            feats.add("debug")
        d = r.choice([["-D", lvl], ["-D" + lvl], ["--Debug_level", lvl], [f"--Debug_level={lvl}"]])
        opts += d
        case["opts_full"] += d
    if r.random() < 0.3:  # long options by an unambiguous prefix (getopt_long), or an ambiguous one
        for i, o in enumerate(opts):
            if o in SHORT_LONG and r.random() < 0.5:
                opts[i] = SHORT_LONG[o]
            if opts[i].startswith("--") and r.random() < 0.7:
                opts[i] = _abbreviate(r, opts[i])
        if r.random() < 0.05:
            opts += [r.choice(["--R", "--Re"]), case["fmt"]]  # ambiguous: both refuse
        feats.add("abbrev")


HELP_VERSION = ["--help", "--version", "-h", "-v"]
BIG_GRADES = [5001, 6000, 8191, 8192, 9999, 12000, 16383, 16384, 20000]


def _big_gain_measure(r: random.Random, case: dict) -> str:
    """A gain measure whose map names grades above 5000 (up to 20,000: trec_eval's gain search is quadratic in
    a topic's largest grade, 0.3 s user at 20,000, 1.8 s at 50,000, 8 s at 100,000, per topic and measure) and
    fractional gains; one to three documents of one topic get such grades, every other grade is cut to the
    same bound."""
    top = r.choice(BIG_GRADES)
    rows = case["qrels_rows"]
    rows[:] = [x if isinstance(x, str) or (g := _int(x[3])) is None or g <= top else (*x[:3], str(g % (top + 1)))
               for x in rows]
    big_q = r.choice(sorted({x[0] for x in rows if not isinstance(x, str)}) or [""])  # one topic: cost
    mine = [i for i, x in enumerate(rows) if not isinstance(x, str) and x[0] == big_q and _int(x[3]) is not None]
    for i in r.sample(mine, min(len(mine), r.randint(1, 3))):
        q, it, d, _ = rows[i]
        rows[i] = (q, it, d, str(r.choice([top, top - 1, r.randint(5001, top)])))
    grades = sorted({g for x in rows if not isinstance(x, str) and (g := _int(x[3])) is not None} | {top})
    pick = r.sample(grades, min(len(grades), r.randint(1, 5)))
    if r.random() < 0.3:
        pick.append(r.randint(5001, top))  # a grade no document has
    gains = ",".join(f"{g}={r.choice(FRACTIONS)}" for g in dict.fromkeys(pick))
    name = r.choice(GAIN_NAMES)
    if name == "rbp" and r.random() < 0.5:
        gains = f"p={r.choice(['0.5', '0.8', '0.95'])}," + gains
    return f"{name}.{gains}"


def _blind_spots_2(r: random.Random, case: dict) -> None:
    """Session 21: fractional gain maps over grades above 5000, and ``--help`` / ``--version`` (also by a
    prefix, ``--h`` / ``--v``; and ``-h`` / ``-v``) before or after the other options."""
    opts, feats = case["opts"], case["feats"]
    if case["fmt"] == "qrels" and r.random() < 0.08:
        _add_gain_measure(r, case, _big_gain_measure(r, case))
        feats.add("big_gains")
    if r.random() < 0.03:
        o = r.choice(HELP_VERSION)
        if o.startswith("--"):
            o = o[:r.randint(3, len(o))]
        if r.random() < 0.5:
            opts.insert(0, o)
        else:
            opts.append(o)
        feats.add("help" if o[:3] in ("--h", "-h") else "version")


HOSTILE = {"dup_qrels", "dup_run_doc", "blank_qrels", "all_negative", "empty_run", "nan_score", "hex_score",
           "text_score", "float_grade", "bom", "missing_topic"}


def _blind_spots_3(r: random.Random, case: dict) -> None:
    """Session 22: a topic judged only below 0 (the hostile ``all_negative``; added to 4 % of the qrels cases
    without another hostile input) under ``-l`` <= 0 and retrieving unjudged documents too (with ``-l`` <= -1
    they count as relevant in map / gm_map / binG while R is 0: trec_eval's sum / 0 = inf)."""
    opts, feats, rows, lines = case["opts"], case["feats"], case["qrels_rows"], case["run_lines"]
    if case["fmt"] != "qrels":
        return
    if not feats & HOSTILE and r.random() < 0.04:
        rows.extend([("negq", "0", "n1", "-1"), ("negq", "0", "n2", r.choice(["-1", "-1", "-2"]))])
        lines.append(["negq", "Q0", "n1", "1", "1.0", "run"])
        feats.add("all_negative")
    if "all_negative" not in feats:
        return
    nq = next((x[0] for x in rows if not isinstance(x, str) and x[2] == "n1"), None)
    if nq is None:
        return
    if r.random() < 0.7:
        v = r.choice(["0", "0", "-1", "-2"])
        o = r.choice([["-l", v], ["-l" + v], ["--level_for_rel", v]])
        opts += o
        case["opts_full"] += o
    if r.random() < 0.6:
        for k in range(r.choice([1, 2, 5])):
            lines.append([nq, "Q0", f"nx{k}", str(k + 2), _score(r, "normal", k), "run"])
        if r.random() < 0.5:
            lines.append([nq, "Q0", "n2", "9", "0.25", "run"])


def write_case(case: dict, d: Path) -> None:
    d.mkdir(parents=True, exist_ok=True)
    enc = {"encoding": "utf-8", "errors": "surrogateescape"}
    (d / "rel").write_bytes(case["rel_text"].encode(**enc))
    (d / "run").write_bytes(case["run_text"].encode(**enc))
    if case["z"] is not None:
        (d / "zscores").write_bytes(case["z"].encode(**enc))


# ----------------------------------------------------------------------------------------- runners
def _cpu_limit() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_CPU, (PEER_TIMEOUT, PEER_TIMEOUT + 1))


def run_peer(peer: Path, args: list[str], cwd: Path, stdin: bytes | None) -> tuple[int, bytes, str]:
    """trec_eval's exit status, stdout, stderr; ``PEER_TIMEOUT`` seconds of *CPU* (a wall-clock bound timed out
    big-gain cases of 1.2 s CPU at load 24: 77:319, 77:486), ten times that of wall time."""
    import signal

    p = subprocess.run([str(peer), *args], cwd=cwd, capture_output=True, timeout=10 * PEER_TIMEOUT, input=stdin,
                       preexec_fn=_cpu_limit)
    if p.returncode == -signal.SIGXCPU:
        raise subprocess.TimeoutExpired([str(peer), *args], PEER_TIMEOUT)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def run_ours(args: list[str], cwd: Path, stdin: bytes | None) -> tuple[int, bytes, str]:
    if stdin is not None:  # a child: the run on its stdin
        p = subprocess.run([sys.executable, "-m", "pref_eval.cli.trec", *args], cwd=cwd, capture_output=True,
                           env=CHILD_ENV, timeout=300, input=stdin)
        return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")
    from fuzz_pref_eval import in_process  # tools/ is sys.path[0] when this script runs

    return in_process("pref_eval.cli.trec", args, cwd)


# ----------------------------------------------------------------------------------------- comparison
def one_line_error(err: str) -> bool:
    lines = [ln for ln in err.splitlines() if ln.strip() and "warning" not in ln]
    return len(lines) == 1 and "Traceback" not in err


def names_file(err: str, files: tuple[str, ...]) -> bool:
    return any(re.search(rf"(^|\s){re.escape(f)}(:\d+)?:", err) for f in files)


def differing_measures(a: bytes, b: bytes) -> set[str] | None:
    """Measure names of the lines that differ, or None when the line structure differs."""
    lines = differing_lines(a, b)
    return None if lines is None else {m for m, _ in lines} - {""}


# trec_eval 10.0's measures that read a topic's table of grades (rel_levels, num_rel_levels): gain_init.c's
# users and bpref's count of judged nonrelevant documents; on a topic judged only below 0 that table is the
# previous topic's (form_res_rels.c: te_chk_and_malloc of max_rel + 1 <= 0 keeps the old buffer, unzeroed)
LEFTOVER_MEASURES = {"ndcg", "ndcg_rel", "Rndcg", "G", "dcg", "ideal_dcg", "rbp", "rbp_resid", "bpref", "gm_bpref"}


def _only_leftover(case: dict, ours: bytes, theirs: bytes) -> bool:
    """Under -l <= 0 (no repair) a topic judged only below 0 gets trec_eval's table of grades of the topic before
    (form_res_rels.c: not re-zeroed, its size max_rel + 1 <= 0): true when only the lines of the measures that
    read that table (gain measures, bpref's nonrelevant count) differ, on that topic or ``all``."""
    negq = case.get("neg_le0")
    lines = differing_lines(ours, theirs) if negq else None
    return bool(lines) and all(q in (negq, "all") and _leftover_measure(m) for m, q in lines)


def _leftover_measure(name: str) -> bool:
    """A printed measure name (``ndcg_cut_10``, ``rbp_0=0,-2=0.5``, ``Zndcg``) of :data:`LEFTOVER_MEASURES`."""
    n = name.removeprefix("Z")  # -Z prints Zmap, Zndcg, ...
    return any(n == m or n.startswith(m + "_") for m in LEFTOVER_MEASURES)


def differing_lines(a: bytes, b: bytes) -> set[tuple[str, str]] | None:
    """(measure, qid) of the lines that differ, or None when the line structure differs."""
    la, lb = a.split(b"\n"), b.split(b"\n")
    if len(la) != len(lb):
        return None
    out = set()
    for x, y in zip(la, lb, strict=True):
        if x != y:
            fx, fy = x.split(b"\t"), y.split(b"\t")
            if len(fx) != 3 or fx[:2] != fy[:2]:
                return None
            out.add((fx[0].strip().decode("utf-8", "replace"), fx[1].decode("utf-8", "surrogateescape")))
    return out


def first_diff(a: bytes, b: bytes) -> str:
    la, lb = a.split(b"\n"), b.split(b"\n")
    for n, (x, y) in enumerate(zip(la, lb, strict=False)):
        if x != y:
            return f"line {n + 1}:\n    ours {x[:300]!r}\n    te   {y[:300]!r}"
    return f"{len(la)} lines vs trec_eval {len(lb)}"


def cut_qrels(case: dict) -> bytes:
    """The rel-info file without the topics the run lacks (what our default evaluates)."""
    run_q = {x[0] for x in case["run_lines"]}
    if case["fmt"] in ("prefs", "qrels_jg"):
        keep_lines = [ln for ln in case["rel_text"].split("\n") if ln.split() and ln.split()[0] in run_q]
        return ("\n".join(keep_lines) + "\n").encode("utf-8", "surrogateescape")
    keep = [row for row in case["qrels_rows"] if isinstance(row, str) or row[0] in run_q]
    r = random.Random(0)
    return _join(keep, case["sep"], case["eol"], r).encode("utf-8", "surrogateescape")


def strip_debug(out: bytes) -> bytes:
    """trec_eval's stdout under ``-D N`` (N >= 1) without its debugging text (lines that are not
    ``name<TAB>qid<TAB>value``, the preference dumps' indented tab-separated lines, and gm_bpref's
    ``gm_bpref: bpref X, gm_bpref Y`` printed without a newline): the results only."""
    num = rb"(?:-?[0-9]+\.[0-9]{4}|-?nan|-?inf)"  # %6.4f: the next line's text follows at once
    out = re.sub(rb"gm_bpref: bpref +" + num + rb", gm_bpref +" + num, b"", out)
    return b"".join(ln + b"\n" for ln in out.split(b"\n") if re.fullmatch(rb"[^\s]\S* *\t[^\t]*\t[^\t]*", ln))


def guarded_opts(opts: list[str]) -> list[str]:
    """``opts`` with the -Z file ``zscores`` replaced by ``zscores.g`` (its guarded copy): ``-Z zscores``,
    ``-Zzscores``, ``--Zscore zscores``, ``--Zscore=zscores`` and the long option's prefixes (``--Zs=zscores``)."""
    return [("zscores.g" if o == "zscores" else o + ".g" if o.startswith(("-Z", "--Z")) and o.endswith("zscores")
             else o) for o in opts]


def guarded_z(text: str) -> str:
    """The -Z file with guard entries (a last-sorting measure in every topic, a last-sorting topic):
    trec_eval's binary search then stays inside its lists; the z-scores are the same."""
    qids = {f[0] for ln in text.splitlines() if (f := ln.split())}
    return text + ("" if text.endswith("\n") or not text else "\n") + \
        "".join(f"{q} zzz_sentinel 0 1\n" for q in sorted(qids | {GUARD_QID}))


def compare_stdout(peer: Path, case: dict, d: Path, oo: bytes, po: bytes, rel: str) -> tuple[str, str]:
    """Both exit 0: the same bytes, or a documented difference checked where it can be."""
    feats = case["feats"]
    if "debug" in feats:
        po = strip_debug(po)
    if po == oo:
        return "same", ""
    if "z_unguarded" in feats:  # trec_eval read past a list: equal with the guards?
        cls, msg = rerun_guarded(peer, case, d, oo, rel)
        if cls:
            return cls, msg
    diff = differing_measures(oo, po)
    if _only_leftover(case, oo, po):
        return "documented_all_negative_leftover", f"-l <= 0: only {sorted(differing_lines(oo, po) or ())} " \
            "(a leftover grade table)"
    if "all_negative" in feats and not case.get("neg0") and not case.get("neg_le0"):
        return "documented_all_negative", "a topic with all grades negative: trec_eval reuses a leftover grade table"
    if "gain_shared" in feats:
        return compare_split(peer, case, d, oo, rel, "")
    if diff and case["fmt"] in ("prefs", "qrels_prefs") and diff <= {"prefs_avgjg_Rnonrel", "prefs_avgjg_Rnonrel_ret"} \
            and any(not isinstance(x, str) and x[3].startswith("-") for x in case["qrels_rows"]):
        return "documented_rnonrel_negative", "negative rel_levels: trec_eval reads past a class (trec-preferences.md)"
    z = "Z" if case["z"] is not None else ""  # -Z prints Zmap, Zrbp, ...
    leftover = ""
    if diff and case.get("neg_le0"):
        # both documented differences at once (74:1273): the leftover table's lines of the all-negative topic under
        # -l <= 0, and rbp's uninitialised min/max elsewhere -- the rest must be rbp lines, checked below
        rest = {(m, q) for m, q in differing_lines(oo, po) or set()
                if not (q in (case["neg_le0"], "all") and _leftover_measure(m))}
        diff = {m for m, _ in rest}
        leftover = "documented_all_negative_leftover+"
    if diff and all(m.startswith(z + "rbp") and not m.startswith(z + "rbp_resid") for m in diff):
        # trec_eval rescales with min/max read uninitialised: compare with it on rbp alone
        rbps = [m for m in measure_args(case["opts_full"]) if m.split(".")[0] == "rbp" or m == "all_trec"]
        margs = [x for m in rbps for x in ("-m", "rbp" if m == "all_trec" else m)]
        c2, o2, _ = run_peer(peer, [*strip_measures(case["opts_full"]), *margs, rel, "run"], d, None)
        if "debug" in feats:
            o2 = strip_debug(o2)
        zb = z.encode()
        mine = b"".join(x + b"\n" for x in oo.split(b"\n")
                        if x.startswith(zb + b"rbp") and not x.startswith(zb + b"rbp_res"))
        if c2 == 0 and mine == o2:
            return leftover + "documented_rbp", "rbp: trec_eval's uninitialised min/max (equal run alone)"
        return "diff", "rbp alone differs too: " + first_diff(mine, o2)
    return "diff", f"measures {sorted(diff) if diff else '?'}: " + first_diff(oo, po)


def compare_split(peer: Path, case: dict, d: Path, oo: bytes, rel: str, note: str) -> tuple[str, str]:
    """dcg / ideal_dcg / ndcg with gain parameters share one parameter block in trec_eval (documented; it then
    prints another measure's parameters or crashes): trec_eval is run once on each of those measures alone and
    once on every other measure, and our output's lines of each run's measure names must be that run's
    output byte for byte (and every line of ours belongs to one of them): ``documented_gain_shared``."""
    specs = measure_args(case["opts_full"])
    shared = [m for m in specs if m.split(".")[0] in GAIN_SHARED]
    # a measure named twice with other parameters (-m ndcg.A -m ndcg.B): the first one counts, in both programs
    first = {m.split(".")[0]: m for m in reversed([m for m in shared if "." in m])}
    shared = [m for m in shared if "." not in m or first[m.split(".")[0]] == m]
    groups = [[m for m in specs if m.split(".")[0] not in GAIN_SHARED]] + [[m] for m in dict.fromkeys(shared)]
    # -m ndcg with -m ndcg.PARAMS: one ndcg in both programs, printed with its parameters (63:845); the same for
    # dcg and ideal_dcg (71:543: -mdcg with --measure=dcg.-3=2.75,1=7.)
    with_params = {m.split(".")[0] for m in shared if "." in m}
    groups = [g for g in groups if not (len(g) == 1 and g[0] in with_params)]
    base = strip_measures(case["opts_full"])
    if "missing_no_c" in case["feats"] and rel in ("rel", "rel.nobom", "rel.noblank", "rel.neg0"):
        (d / "rel.cut").write_bytes(cut_qrels(case))
        rel = "rel.cut"
    if "z_unguarded" in case["feats"]:
        (d / "zscores.g").write_bytes(guarded_z(case["z"]).encode("utf-8", "surrogateescape"))
        base = guarded_opts(base)
    ours = [ln for ln in oo.split(b"\n") if ln]
    covered: set[bytes] = set()
    seen: set[str] = set()  # documented classes met in the measure sets
    for g in groups:
        if not g:
            continue
        c2, o2, e2 = run_peer(peer, [*base, *[x for m in g for x in ("-m", m)], rel, "run"], d, None)
        if "debug" in case["feats"]:
            o2 = strip_debug(o2)
        if c2 != 0:
            return "diff", f"{note}gain measures apart: trec_eval -m {' -m '.join(g)} exit {c2}: {e2.strip()[:200]}"
        if "all_trec" in g and any(m.split(".")[0] == "ndcg" for m in shared):
            # all_trec's ndcg is the one -m ndcg.PARAMS names (one ndcg in both programs, printed with its
            # parameters): the all_trec run's plain ndcg lines are not ours to match, nor their -Z form (73:3)
            o2 = b"".join(ln + b"\n" for ln in o2.split(b"\n")
                          if ln and ln.split(b"\t")[0].strip() not in (b"ndcg", b"Zndcg"))
        names = {ln.split(b"\t")[0].strip() for ln in o2.split(b"\n") if ln}
        if names & covered:  # two runs print one name: ours cannot be told apart line by line
            return "diff", f"{note}gain measures apart: the name(s) {sorted(names & covered)} printed by two runs"
        covered |= names
        mine = b"".join(ln + b"\n" for ln in ours if ln.split(b"\t")[0].strip() in names)
        if mine != o2:
            kind = _set_documented(peer, case, d, g, base, rel, mine, o2)
            if kind is None:
                return "diff", f"{note}gain measures apart, -m {' -m '.join(g)}: " + first_diff(mine, o2)
            seen.add(kind)
    left = [ln for ln in ours if ln.split(b"\t")[0].strip() not in covered]
    if left:
        return "diff", f"{note}gain measures apart: lines of ours no run printed: {left[:3]!r}"
    if "leftover" in seen:
        return "documented_all_negative_leftover", f"{note}gain measures apart: -l <= 0, a leftover grade table"
    if "gain0" in seen:
        return "documented_all_negative_gain0", f"{note}gain measures apart: the added grade-0 document has a gain"
    rbp = "rbp" in seen
    return ("documented_gain_shared" + ("+documented_rbp" if rbp else ""),
            f"{note}equal to trec_eval on each of {len([g for g in groups if g])} measure sets"
            + (" (rbp run alone)" if rbp else ""))


def _rbp_alone_equal(peer: Path, case: dict, d: Path, g: list[str], base: list[str], rel: str, mine: bytes,
                     theirs: bytes) -> bool:
    """Only rbp lines differ in the measure set ``g`` (trec_eval's uninitialised min/max, documented), and
    ours are trec_eval's on those rbp measures alone."""
    z = "Z" if case["z"] is not None else ""
    diff = differing_measures(mine, theirs)
    if not diff or not all(m.startswith(z + "rbp") and not m.startswith(z + "rbp_resid") for m in diff):
        return False
    rbps = [m for m in g if m.split(".")[0] == "rbp" or m == "all_trec"]
    margs = [x for m in rbps for x in ("-m", "rbp" if m == "all_trec" else m)]
    c2, o2, _ = run_peer(peer, [*base, *margs, rel, "run"], d, None)
    if "debug" in case["feats"]:
        o2 = strip_debug(o2)
    zb = z.encode()
    lines = b"".join(x + b"\n" for x in mine.split(b"\n")
                     if x.startswith(zb + b"rbp") and not x.startswith(zb + b"rbp_res"))
    return c2 == 0 and lines == o2


def rerun_guarded(peer: Path, case: dict, d: Path, oo: bytes, rel: str) -> tuple[str, str]:
    """trec_eval again with the -Z file guarded: ``documented_z_unguarded`` when it then prints our bytes."""
    (d / "zscores.g").write_bytes(guarded_z(case["z"]).encode("utf-8", "surrogateescape"))
    if "missing_no_c" in case["feats"] and rel in ("rel", "rel.nobom", "rel.noblank", "rel.neg0"):  # cut: run topics
        (d / "rel.cut").write_bytes(cut_qrels(case))
        rel = "rel.cut"
    args = guarded_opts(case["opts"])
    c2, o2, _ = run_peer(peer, [*args, rel, "-" if case["stdin"] else "run"], d,
                         (d / "run").read_bytes() if case["stdin"] else None)
    if "debug" in case["feats"]:
        o2 = strip_debug(o2)
    if c2 == 0 and o2 == oo:
        return "documented_z_unguarded", "trec_eval reads past a -Z list; equal with guard entries"
    if c2 == 0 and case["feats"] & {"gain_shared"} == set():
        # another documented difference as well (71:2197: -Z unguarded and rbp's uninitialised min/max): the
        # guarded output compared as any (its rbp / leftover-table rules), on the guarded file from here on
        guarded = {**case, "z": guarded_z(case["z"]), "feats": case["feats"] - {"z_unguarded"},
                   "opts_full": guarded_opts(case["opts_full"])}
        cls, msg = compare_stdout(peer, guarded, d, oo, o2, rel)
        if cls.startswith("documented"):
            return f"documented_z_unguarded+{cls}", f"equal with guard entries but for: {msg}"
    return "", ""


def check_case(peer: Path, case: dict, d: Path) -> tuple[str, str]:
    """One case's class and message. A qrels file that starts with a BOM (documented: trec_eval reads it as
    part of the first topic id, we drop it) is given to trec_eval without its BOM, so the rest of the case
    is still compared byte for byte (``documented_bom`` when then equal)."""
    if case["z"] is not None and (dedup := first_z_entries(case["z"])) != case["z"]:
        # a (qid, measure) twice in the -Z file: trec_eval's binary search takes either (documented), ours the
        # first line: both read the file without the later duplicates, and ours must print the same on both
        cls, msg = check_case(peer, {**case, "z": dedup}, d)
        (d / "zscores.dup").write_bytes(case["z"].encode("utf-8", "surrogateescape"))
        args = [*case["opts"], "rel", "run"]
        swap = [("zscores.dup" if o == "zscores" else o.replace("zscores", "zscores.dup") if o.startswith("-Z")
                 else o) for o in args]
        a, b = run_ours(["-Q", *args], d, None), run_ours(["-Q", *swap], d, None)
        if a[:2] != b[:2]:
            return "diff", f"-Z with duplicates: ours differs from ours on the first entries: {first_diff(b[1], a[1])}"
        return (f"documented_z_duplicate+{cls}" if cls in OK or cls.startswith("documented") else cls), msg
    write_case(case, d)
    if "help" in case["feats"] or "version" in case["feats"]:
        return check_help_version(peer, case, d)
    peer_case, peer_rel = case, "rel"
    if case["fmt"] == "qrels" and case["rel_text"].startswith("\ufeff"):
        rows = list(case["qrels_rows"])
        i = next(k for k, x in enumerate(rows) if not isinstance(x, str))
        rows[i] = (rows[i][0].removeprefix("\ufeff"), *rows[i][1:])
        peer_case = {**case, "qrels_rows": rows, "rel_text": case["rel_text"][1:]}
        peer_rel = "rel.nobom"
        (d / peer_rel).write_bytes(peer_case["rel_text"].encode("utf-8", "surrogateescape"))
    if case["fmt"] == "qrels" and "blank_qrels" in case["feats"]:
        # session 23: a blank qrels line (documented: trec_eval stops, "Malformed line"; we skip it) is given to
        # trec_eval without it, so the rest is compared byte for byte (was documented_peer_fails_blank_qrels)
        parts = peer_case["rel_text"].split(case["eol"])
        parts = [x for i, x in enumerate(parts) if x.strip() or i == len(parts) - 1]
        peer_case = {**peer_case, "qrels_rows": [x for x in peer_case["qrels_rows"] if x != ""],
                     "rel_text": case["eol"].join(parts)}
        peer_rel = "rel.noblank"
        (d / peer_rel).write_bytes(peer_case["rel_text"].encode("utf-8", "surrogateescape"))
    of = case["opts_full"]
    levels = [(o[2:] or (of[i + 1] if i + 1 < len(of) else "0")) if o.startswith("-l") else of[i + 1]
              for i, o in enumerate(of) if o.startswith("-l") or o == "--level_for_rel" and i + 1 < len(of)]
    # the last -l counts (getopt); -l <= 0 would make an added grade-0 document relevant: compared unrepaired
    # there, differences allowed only in the measures that read trec_eval's leftover table (compare_stdout)
    level = int(levels[-1]) if levels else 1
    negq = "all_negative" in case["feats"] and level >= 1
    if "all_negative" in case["feats"] and not negq:
        nq = next(x[0] for x in case["qrels_rows"] if not isinstance(x, str) and x[2] == "n1")
        peer_case = {**peer_case, "neg_le0": nq}
    if negq:  # documented: trec_eval's table of grades for it has size <= 0; ours is a topic without a relevant
        # document -- what trec_eval computes once the topic has one judged non-relevant document it does not
        # retrieve (the generator's own repair of such topics, make_case)
        text = peer_case["rel_text"]
        eol = case["eol"]
        nq = next(x[0] for x in case["qrels_rows"] if not isinstance(x, str) and x[2] == "n1")  # renamed: latin1
        text += ("" if not text or text.endswith("\n") else eol) + f"{nq} 0 negq_z0 0{eol}"
        peer_case = {**peer_case, "qrels_rows": [*peer_case["qrels_rows"], (nq, "0", "negq_z0", "0")],
                     "rel_text": text, "neg0": True}
        peer_rel = "rel.neg0"
        (d / peer_rel).write_bytes(text.encode("utf-8", "surrogateescape"))
    cls, msg = _check_case(peer, case, d, peer_case, peer_rel)
    if negq and cls in OK:
        return "documented_all_negative", f"equal to trec_eval with a non-relevant document added to it ({cls})"
    if negq and cls == "diff" and _gain_for_grade_0(case) and _only_gain_measures(msg):
        # 77:406: the repair's grade-0 document is not neutral when a gain parameter gives grade 0 a gain (trec_eval
        # counts it in ideal_dcg: 1000.5 for `0=1000.5`); without it trec_eval reads a leftover table (undefined)
        return "documented_all_negative_gain0", f"the added grade-0 document has a gain here: {msg[:200]}"
    if peer_rel == "rel.noblank" and cls in OK:
        return "documented_blank_qrels", f"equal to trec_eval on the qrels without the blank line ({cls})"
    if peer_rel != "rel" and cls in OK:
        return "documented_bom", f"equal to trec_eval on the qrels without the BOM ({cls})"
    return cls, msg


def first_z_entries(text: str) -> str:
    """The -Z file without the lines whose (qid, measure) an earlier line has (white space as trec_eval splits)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for ln in text.splitlines(keepends=True):
        f = ln.split()
        if len(f) >= 2:
            if (f[0], f[1]) in seen:
                continue
            seen.add((f[0], f[1]))
        out.append(ln)
    return "".join(out)


def check_help_version(peer: Path, case: dict, d: Path) -> tuple[str, str]:
    """``--help`` / ``--version`` (or a prefix, or ``-h`` / ``-v``) among the options. Documented
    (docs/differences.md): the help texts differ (trec_eval's lists the measures; ours is zelo_trec's option
    list) and the version lines differ; compared: the exit status, the stream each text goes to, that the
    version line names trec_eval 10.0, that a help text is printed exactly when trec_eval prints one."""
    args = [*case["opts"], "rel", "run"]
    pc, po, pe = run_peer(peer, args, d, None)
    oc, oo, oe = run_ours(["-Q", *args], d, None)
    if "Traceback" in oe:
        return "our_traceback", oe[-1500:]
    if pc < 0:
        return "peer_crash", f"signal {-pc}"
    if (pc == 0) != (oc == 0) or oc not in (0, 2):
        return "diff", f"help/version: trec_eval exit {pc} {pe.strip()[:200]!r}; ours exit {oc} {oe.strip()[:300]!r}"
    if oc == 2:
        if not one_line_error(oe):
            return "refusal_unclear", oe.strip()[:600]
        return "same_failure", f"trec_eval exit {pc}: {pe.strip()[:120]}; ours: {oe.strip()[:200]}"
    if po.startswith(b"trec_eval [-h]"):  # trec_eval printed its help (on stdout)
        ok = oo.startswith(b"Usage: zelo_trec") and not oe.strip()
        return ("documented_help" if ok else "diff"), f"help: ours {oo[:80]!r} {oe[:200]!r}"
    if po == oo == b"" and pe.startswith("trec_eval version 10.0"):
        ok = "trec_eval 10.0" in oe and one_line_error(oe)
        return ("documented_version" if ok else "diff"), f"version: ours {oe.strip()[:200]!r}"
    return "diff", f"help/version: trec_eval {po[:80]!r} {pe[:120]!r}; ours {oo[:80]!r} {oe[:120]!r}"


def _check_case(peer: Path, case: dict, d: Path, pcase: dict, prel: str) -> tuple[str, str]:  # noqa: C901
    """The comparison of :func:`check_case`; trec_eval reads ``prel`` (the rel-info file of ``pcase``)."""
    stdin = (d / "run").read_bytes() if case["stdin"] else None
    args = [*case["opts"], "rel", "-" if case["stdin"] else "run"]
    pc, po, pe = run_peer(peer, [*case["opts"], prel, args[-1]], d, stdin)
    oc, oo, oe = run_ours(["-Q", *args] if "missing_no_c" not in case["feats"] else args, d, stdin)
    feats = case["feats"]
    if "Traceback" in oe:
        return "our_traceback", oe[-1500:]
    if oc not in (0, 2):
        return "bad_exit", f"ours exit {oc}: {oe.strip()[:500]}"
    if oc == 2 and not (one_line_error(oe) and (names_file(oe, ("rel", "run", "zscores", "<stdin>"))
                                                 or "expects" in oe or "measure" in oe or "ambiguous" in oe
                                                 or "-D:" in oe)):
        return "refusal_unclear", f"ours: {oe.strip()[:600]}; trec_eval exit {pc}: {pe.strip()[:200]}"
    if pc < 0 and "z_unguarded" in feats and oc == 0:  # a crash reading past a -Z list?
        cls, msg = rerun_guarded(peer, pcase, d, oo, prel)
        if cls:
            return cls, f"signal {-pc} without the guards; " + msg
    if pc < 0 and "z_unguarded" in feats and oc == 2:  # we refuse: does trec_eval with the guards refuse too?
        (d / "zscores.g").write_bytes(guarded_z(case["z"]).encode("utf-8", "surrogateescape"))
        pc2, _, pe2 = run_peer(peer, guarded_opts([*case["opts"], prel, args[-1]]), d, stdin)
        if pc2 > 0:
            return "documented_z_unguarded", f"signal {-pc} without the guards; with them both refuse: {pe2[:120]}"
        if pc2 == 0:
            pc = 0  # classified below as any answer of trec_eval's that we refuse
    if pc < 0 and oc == 0 and "gain_shared" in feats:  # trec_eval's shared ndcg block: each measure alone
        return compare_split(peer, pcase, d, oo, prel, f"signal {-pc}; ")
    if pc < 0:  # trec_eval killed by a signal
        known = feats & {"all_negative", "gain_shared", "bom", "dup_qrels", "pref_conflict"} - \
            ({"all_negative"} if pcase.get("neg0") else set())
        return ("documented_peer_crash" if known else "peer_crash"), \
            f"signal {-pc} ({', '.join(sorted(feats))}); ours exit {oc}: {oe.strip()[:200]}"
    if pc == 0 and oc == 0:
        return compare_stdout(peer, pcase, d, oo, po, prel)
    if pc == 0 and oc == 2:
        for k in ("nan_score", "hex_score", "text_score", "float_grade", "empty_run", "pref_conflict"):
            if k in feats:
                return f"documented_refusal_{k}", oe.strip()[:200]
        if "dup_qrels" in feats and "debug_query" in feats:
            # trec_eval checks a topic's judgments when it evaluates it: -D N.qid skips the others
            return "documented_refusal_dup_skipped", oe.strip()[:200]
        if feats & {"dup_run_doc", "dup_qrels"} and set(measure_args(case["opts_full"])) <= {"runid", "num_q"}:
            # trec_eval checks duplicates only where a measure reads the ranking (differences.md)
            return "documented_refusal_dup_runid_only", oe.strip()[:200]
        return "we_refuse", f"ours: {oe.strip()[:500]}"
    if pc != 0 and oc == 2:
        return "same_failure", f"trec_eval exit {pc}: {pe.strip()[:120]}; ours: {oe.strip()[:200]}"
    # trec_eval fails, we answer
    if "missing_no_c" in feats and "not found in qrels" in pe:
        (d / "rel.cut").write_bytes(cut_qrels(pcase))
        args2 = [*case["opts"], "rel.cut", "-" if case["stdin"] else "run"]
        c2, o2, e2 = run_peer(peer, args2, d, stdin)
        if c2 == 0:
            cls, msg = compare_stdout(peer, pcase, d, oo, o2, "rel.cut")
            if cls == "same":
                return "documented_missing", "trec_eval stops on a qrels topic the run lacks; equal on the cut qrels"
            return (cls if cls.startswith("documented") else "diff"), "on the cut qrels: " + msg
        if c2 < 0 and "z_unguarded" in feats and oc == 0:
            cls, msg = rerun_guarded(peer, pcase, d, oo, "rel.cut")
            if cls:
                return cls, f"on the cut qrels: signal {-c2} without the guards; " + msg
        if c2 < 0 and oc == 0 and "gain_shared" in feats:
            return compare_split(peer, pcase, d, oo, "rel.cut", f"on the cut qrels: signal {-c2}; ")
        if "all_negative" in feats and "Can't calculate" in e2:  # that topic first in the cut qrels (-l <= 0)
            return "documented_peer_fails_all_negative", f"on the cut qrels: {e2.strip()[:200]}"
        return "peer_fails", f"on the cut qrels: trec_eval exit {c2} {e2[:200]}"
    for k, pat in (("blank_qrels", "Malformed line"), ("all_negative", "Can't calculate"),
                   ("empty_run", ""), ("bom", "")):
        if k in feats and pat in pe:
            return f"documented_peer_fails_{k}", pe.strip()[:200]
    return "peer_fails", f"trec_eval exit {pc}: {pe.strip()[:300]} ({', '.join(sorted(feats))})"


def _set_documented(peer: Path, case: dict, d: Path, g: list[str], base: list[str], rel: str, mine: bytes,
                    theirs: bytes) -> str | None:
    """The documented class of a measure set whose lines differ from trec_eval's on it, or None."""
    if _only_leftover(case, mine, theirs):
        return "leftover"
    if _rbp_alone_equal(peer, case, d, g, base, rel, mine, theirs):
        return "rbp"  # 75:552: rbp's uninitialised min/max (documented) in a measure set of its own
    if _gain0_repair_only(case, g, mine, theirs):
        return "gain0"  # 601:2228: the all-negative topic's repair has a gain in this measure (as 77:406)
    return None


def _gain0_repair_only(case: dict, g: list[str], mine: bytes, theirs: bytes) -> bool:
    """Only the all-negative topic's lines and the means differ, in gain measures whose parameters give grade 0 a
    gain: the repair's grade-0 document (rel.neg0) is not neutral there (77:406's rule, met in compare_split's
    measure sets: 601:2228, ``ideal_dcg.0=.5,...`` on the cut qrels)."""
    if not case.get("neg0") or not _gain_for_grade_0({"opts_full": [x for m in g for x in ("-m", m)]}):
        return False
    nq = next((x[0] for x in case["qrels_rows"] if not isinstance(x, str) and x[2] == "negq_z0"), None)
    lines = differing_lines(mine, theirs)
    return bool(lines) and all(q in (nq, "all") and _leftover_measure(m) for m, q in lines)


def _gain_for_grade_0(case: dict) -> bool:
    """A measure's gain parameters give grade 0 a non-zero gain (``ndcg.0=1000.5``, ``dcg.1=3,0=2.5e2``)."""
    for m in measure_args(case["opts_full"]):
        for item in m.partition(".")[2].split(","):
            k, eq, v = item.partition("=")
            with contextlib.suppress(ValueError):
                if eq and float(k) == 0 and float(v) != 0:
                    return True
    return False


def _only_gain_measures(msg: str) -> bool:
    """The comparison's message names only measures that read the table of grades' gains."""
    m = re.match(r"measures (\[[^\]]*\])", msg)
    names = ast.literal_eval(m.group(1)) if m else []
    return bool(names) and all(_leftover_measure(n) and not n.removeprefix("Z").startswith("bpref") for n in names)


def measure_args(opts: list[str]) -> list[str]:
    out, i = [], 0
    while i < len(opts):
        o = opts[i]
        if o in ("-m", "--measure"):
            out.append(opts[i + 1])
            i += 2
            continue
        if o.startswith("--measure="):
            out.append(o.split("=", 1)[1])
        elif o.startswith("-m"):
            out.append(o[2:])
        i += 1
    return out


def strip_measures(opts: list[str]) -> list[str]:
    out, i = [], 0
    while i < len(opts):
        o = opts[i]
        if o in ("-m", "--measure"):
            i += 2
            continue
        if not (o.startswith("--measure=") or (o.startswith("-m") and len(o) > 2)):
            out.append(o)
        i += 1
    return out


OK = {"same", "same_failure"}
PEER_TIMEOUT = 30


def main() -> int:
    from fuzz_pref_eval import fuzz_arguments  # tools/ is sys.path[0] when this script runs

    a, todo = fuzz_arguments(__doc__.split("\n")[0], os.environ.get("TREC_EVAL", "/tmp/trec_eval/trec_eval"),
                             "the trec_eval 10.0 binary (default $TREC_EVAL or /tmp/trec_eval/trec_eval)",
                             "fraction of cases with a documented difference", "findings printed per class")
    peer = Path(a.peer)
    if not os.access(peer, os.X_OK) or peer.is_dir():
        print(f"fuzz_trec_eval: no trec_eval binary at {peer}: nothing to do (see the docstring)", file=sys.stderr)
        return 0
    base = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="fuzz_trec_eval_"))
    counts: Counter[str] = Counter()
    shown: Counter[str] = Counter()
    bad = 0
    try:
        for s, i in todo:
            case = make_case(s, i, a.hostile, blind=3)
            d = base / f"case_{s}_{i}"
            try:
                cls, msg = check_case(peer, case, d)
            except subprocess.TimeoutExpired as e:
                cls, msg = "timeout", " ".join(map(str, e.cmd))[:300]
            counts[cls] += 1
            finding = not (cls in OK or cls.startswith("documented"))
            bad += finding
            if (finding or a.case) and shown[cls] < a.show:
                shown[cls] += 1
                print(f"[{s}:{i}] {cls}: {' '.join(case['opts'])} ({', '.join(sorted(case['feats']))})\n  {msg}",
                      flush=True)
            if not a.keep:
                shutil.rmtree(d, ignore_errors=True)
    finally:
        if not a.keep:
            shutil.rmtree(base, ignore_errors=True)
    print(f"cases {len(todo)} (seed {todo[0][0]}, {todo[0][1]}..{todo[-1][1]}): "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""Issue #11 ("one house"): one reader per input format, whatever command reads it.

Every command that reads a format gets the same answer for the same file: accepted by all, or
refused by all with the same ``FILE:LINE: message`` after its own ``PROG:`` prefix (exit 2,
docs/exit-codes.md). The disagreements the issue found are cases here: a ``nan`` rel_level
refused by ``zelo_trec -R prefs`` and accepted by zELO's ``trecprefs`` reader; duplicate qrels
lines refused by ``zelo_eval``'s metric mode and accepted by its preference mode; the
tournament's own qrels reader (``zelo_pairs init``) with a grammar of its own. A test over
the package's sources checks that no module outside ``pref_eval/io/`` opens an input file.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from cli_harness import SCRIPTS, run_inproc
from conftest import ROOT

RUN1 = "q1 Q0 d1 1 3 a\nq1 Q0 d2 2 2 a\nq1 Q0 d3 3 1 a\n"
RUN2 = "q1 Q0 d3 1 3 b\nq1 Q0 d2 2 2 b\nq1 Q0 d1 3 1 b\n"


def cli(module: str, *args) -> tuple[int, str, str]:
    """Run ``pref_eval.cli.MODULE``'s main in-process (tests/cli_harness.run_inproc): (exit code, stdout, stderr)."""
    script = next(s for s, (mod, _f) in SCRIPTS.items() if mod == f"pref_eval.cli.{module}")
    res = run_inproc(script, [str(a) for a in args], os.getcwd())
    return res.returncode, res.stdout.decode("utf-8"), res.stderr


def _strip_prog(stderr: str) -> str:
    """The message without its ``PROG: `` prefix (one line expected)."""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0].split(": ", 1)[1]


# ------------------------------------------------------------------ qrels
def qrels_commands(tmp: Path, qrels: Path) -> dict[str, tuple[str, list]]:
    r1, r2 = tmp / "r1.run", tmp / "r2.run"
    r1.write_text(RUN1)
    r2.write_text(RUN2)
    return {
        "zelo_trec": ("trec", ["-m", "map", qrels, r1]),
        "zelo_eval metric": ("eval", ["-R", qrels, "-m", "map", "-o", "tsv", r1, r2]),
        "zelo_eval diversity": ("eval", ["-R", qrels, "-m", "alpha_nDCG@3", "-o", "tsv", r1, r2]),
        "zelo_eval preferences": ("eval", ["-R", qrels, "-m", "rpp", r1, r2]),
        "zelo_compare metric": ("compare", ["-R", qrels, "-m", "map", "--tests", "t", r1, r2]),
        "zelo_compare preferences": ("compare", ["-R", qrels, "-m", "rpp", "--tests", "t", r1, r2]),
        "zelo_pairs init": ("pairs", ["init", "--state", tmp / "s.json", "--force", "--qrels", qrels]),
    }


BAD_QRELS = {
    # the duplicate pref mode used to accept (it kept the max grade)
    "duplicate line": ("q1 0 d1 1\nq1 0 d2 1\nq1 0 d1 2\n",
                       "duplicate judgment for query q1 document d1 (first at line 1)", 3),
    "nan grade": ("q1 0 d1 1\nq1 0 d2 nan\n", "relevance grade 'nan' is not an integer", 2),
    "fractional grade": ("q1 0 d1 1\nq1 0 d2 0.5\n", "relevance grade '0.5' is not an integer", 2),
    # the tournament's reader took prefj's 'L2' and 3-field lines
    "prefj grade L2": ("q1 0 d1 1\nq1 0 d2 L2\n", "relevance grade 'L2' is not an integer", 2),
    "3 fields": ("q1 0 d1 1\nq1 d2 1\n", "expected 4 fields 'qid iter docno rel'", 2),
    "hex grade": ("q1 0 d1 0x1\n", "relevance grade '0x1' is not an integer", 1),
}


@pytest.mark.parametrize("case", sorted(BAD_QRELS))
def test_bad_qrels_refused_alike_by_every_command(tmp_path: Path, case: str) -> None:
    content, message, line = BAD_QRELS[case]
    qrels = tmp_path / "q.qrels"
    qrels.write_text(content)
    seen = {}
    for label, (module, args) in qrels_commands(tmp_path, qrels).items():
        code, out, err = cli(module, *args)
        assert code == 2, (label, code, err)
        assert out == "", label
        seen[label] = _strip_prog(err)
    assert set(seen.values()) == {seen["zelo_trec"]}, seen
    assert seen["zelo_trec"].startswith(f"{qrels}:{line}: "), seen["zelo_trec"]
    assert message in seen["zelo_trec"]


GOOD_QRELS = {
    "plain": "q1 0 d1 1\nq1 0 d2 0\n",
    "comment, CRLF, integral decimal": "# judged by NIST\r\nq1 0 d1 1.0\r\nq1 0 d2 +2\r\n",
}


@pytest.mark.parametrize("case", sorted(GOOD_QRELS))
def test_good_qrels_accepted_by_every_command(tmp_path: Path, case: str) -> None:
    qrels = tmp_path / "q.qrels"
    qrels.write_text(GOOD_QRELS[case])
    for label, (module, args) in qrels_commands(tmp_path, qrels).items():
        code, out, err = cli(module, *args)
        assert code == 0, (label, err)


def test_subtopic_qrels_same_rule_in_preference_and_diversity_modes(tmp_path: Path) -> None:
    """A document under two subtopics is diazf/pref_eval's format (and the diversity measures'):
    accepted by both modes; the same (qid, subtopic, docno) twice is refused by both, alike."""
    qrels = tmp_path / "q.qrels"
    cmds = qrels_commands(tmp_path, qrels)
    modes = ("zelo_eval diversity", "zelo_eval preferences", "zelo_compare preferences")
    qrels.write_text("q1 1 d1 1\nq1 2 d1 2\nq1 1 d2 1\n")
    for label in modes:
        code, _, err = cli(cmds[label][0], *cmds[label][1])
        assert code == 0, (label, err)
    qrels.write_text("q1 1 d1 1\nq1 2 d1 2\nq1 2 d1 1\n")
    errs = set()
    for label in modes:
        code, _, err = cli(cmds[label][0], *cmds[label][1])
        assert code == 2, (label, err)
        errs.add(_strip_prog(err))
    assert errs == {f"{qrels}:3: duplicate judgment for query q1 subtopic 2 document d1 (first at line 2)"}


def test_pairs_tournament_candidates_from_the_qrels_reader(tmp_path: Path) -> None:
    """zelo_pairs init takes its candidates from pref_eval.io.qrels: grade > 0, best first, file order on ties."""
    import json

    qrels = tmp_path / "q.qrels"
    qrels.write_text("t1 0 a 1\nt1 0 b 3\nt1 0 c 0\nt1 0 d 2.0\nt2 Q0 x 1\n")
    state = tmp_path / "s.json"
    code, _, err = cli("pairs", "init", "--state", state, "--qrels", qrels, "--k", "2")
    assert code == 0, err
    topics = json.loads(state.read_text())["topics"]
    assert list(topics) == ["t1", "t2"]
    assert topics["t1"]["pool"] == ["b", "d"]
    assert topics["t2"]["pool"] == ["x"] and topics["t2"]["phase"] == "done"
    code, out, err = cli("pairs", "result", "--state", state, "--qrels", qrels)
    assert code == 0, err
    # prefj's preference qrels: a finished topic's result docs get wins + max grade + 100
    assert out == "t2 Q0 x 102.0\n"


# ------------------------------------------------------------ trec_eval prefs
def prefs_commands(tmp: Path, prefs: Path) -> dict[str, tuple[str, list]]:
    run = tmp / "r.run"
    run.write_text(RUN1)
    state = tmp / "s.json"
    qrels = tmp / "t.qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 1\n")
    code, _, err = cli("pairs", "init", "--state", state, "--force", "--qrels", qrels)
    assert code == 0, err
    return {
        "zelo_trec -R prefs": ("trec", ["-m", "all_prefs", "-R", "prefs", prefs, run]),
        "zelo_fit --format trecprefs": ("fit", ["-J", prefs, "--format", "trecprefs"]),
        "zelo_fit (detected)": ("fit", ["-J", prefs]),
        "zelo_agree": ("agree", ["-J", prefs, "-J", prefs, "--format", "trecprefs", "--resamples", "0"]),
        "zelo_pairs add": ("pairs", ["add", "--state", state, "-J", prefs, "--format", "trecprefs", "-Q"]),
        "zelo_eval -P": ("eval", ["-R", qrels, "-P", prefs, "--judgments-format", "trecprefs", "-m", "PGC",
                                  "-o", "tsv", run]),
    }


BAD_PREFS = {
    # refused by zelo_trec, accepted by zELO's own reader before #11
    "nan rel_level": ("q1 g s d1 2\nq1 g s d2 nan\n", "rel_level 'nan' is not a finite number", 2),
    "inf rel_level": ("q1 g s d1 inf\nq1 g s d2 1\n", "rel_level 'inf' is not a finite number", 1),
    "word rel_level": ("q1 g s d1 2\nq1 g s d2 high\n", "rel_level 'high' is not a number", 2),
    "hex rel_level": ("q1 g s d1 2\nq1 g s d2 0x1\n", "rel_level '0x1' is not a number", 2),
    "6 fields": ("q1 g s d1 2\nq1 g s d2 1 x\n", "expected 5 fields 'qid jg jsg docno rel_level'", 2),
}


@pytest.mark.parametrize("case", sorted(BAD_PREFS))
def test_bad_prefs_refused_alike_by_every_command(tmp_path: Path, case: str) -> None:
    content, message, line = BAD_PREFS[case]
    prefs = tmp_path / "p.prefs"
    prefs.write_text(content)
    seen = {}
    for label, (module, args) in prefs_commands(tmp_path, prefs).items():
        code, out, err = cli(module, *args)
        assert code == 2, (label, code, err)
        assert out == "", label
        seen[label] = _strip_prog(err)
    assert set(seen.values()) == {seen["zelo_trec -R prefs"]}, seen
    assert seen["zelo_trec -R prefs"].startswith(f"{prefs}:{line}: "), seen
    assert message in seen["zelo_trec -R prefs"]


def test_prefs_comment_lines_accepted_by_every_command(tmp_path: Path) -> None:
    """trec_eval 10 skips ``#`` lines of a prefs file; zELO's reader used to read them as data."""
    prefs = tmp_path / "p.prefs"
    prefs.write_text("# user 1\nq1 g s d1 2\nq1 g s d2 1.5e0\n# end\nq1 g s d3 0\n")
    for label, (module, args) in prefs_commands(tmp_path, prefs).items():
        code, out, err = cli(module, *args)
        assert code == 0, (label, err)


def test_trecprefs_judgments_come_from_the_prefs_reader(tmp_path: Path) -> None:
    """zELO's trecprefs judgments are :func:`pref_eval.io.prefs.preference_pairs` of the -R prefs reader:
    inside a (qid, jg, jsg), each two lines with different levels, the higher winning (hand-worked)."""
    from pref_eval.io.judgments import read_judgments

    prefs = tmp_path / "p.prefs"
    prefs.write_text("q g1 s a 2\nq g2 s x 1\nq g1 s b 1\n# c\nq g1 t c 1\nq g2 s y 1\nq g1 s a 1\n")
    j = read_judgments(str(prefs))
    assert j.docs["q"] == ["a", "x", "b", "c", "y"]
    q, a, b, s, _ = j.arrays()
    got = [(j.docs["q"][x], j.docs["q"][y], v) for x, y, v in zip(a.tolist(), b.tolist(), s.tolist(), strict=True)]
    # g1/s lines in file order: a2, b1, a1 -> (a,b) a wins, (a,a) same doc, (b,a) a1 vs b1 equal; g1/t: c alone
    # (its level is not compared with sub-group s's); g2/s: x1, y1 equal -> nothing
    assert got == [("a", "b", 0.0)]


# ------------------------------------------------------------ no reader outside io/
OPENERS = re.compile(r"\bopen\(|read_input_(bytes|text)\(|\.read_(text|bytes)\(|np\.loadtxt|read_csv\(|json\.load\(")
ALLOWED = {
    # not input files: devices, locks and the outputs' own plumbing
    "pref_eval/cli/common.py", "pref_eval/judge/store.py",
}
RAW_BYTES: set[tuple[str, str]] = {  # (module, code): an input's raw bytes taken whole, then parsed by a reader of io/
    # none: zelo_pairs add reads its batches with io.judgments.read_judgment_batch
}


def test_no_input_file_read_outside_io() -> None:
    """Every input file is read by a module of pref_eval/io/ (writers live in pref_eval/output/)."""
    pkg = ROOT / "pref_eval"
    found = []
    for path in sorted(pkg.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(("pref_eval/io/", "pref_eval/output/")) or rel in ALLOWED:
            continue
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if OPENERS.search(code) and "os.open(" not in code and not any(
                    rel == m and c in code for m, c in RAW_BYTES):
                found.append(f"{rel}:{no}: {line.strip()}")
    assert not found, "input files read outside pref_eval/io/:\n" + "\n".join(found)


def test_trecprefs_judgments_are_trec_evals_documented_examples(tmp_path: Path) -> None:
    """trec_eval's get_prefs.c documents what a prefs file states: preferences inside a judgment sub-group
    (jsg) only, a preference stated by two sub-groups of one jg counted once, different jgs (users)
    separately. Its two examples, to the letter. zELO read every pair of a jg across sub-groups: in the
    first example it added 4 > 3 (docno3 and docno4 are in different sub-groups) and counted 1 > 2, 1 > 3,
    4 > 1, 4 > 2 twice; a sub-group's levels were compared with another's, which can reverse a preference
    (sub1: a 3, b 2; sub2: b 5, c 1 gave b > a)."""
    from pref_eval.io.judgments import read_judgments

    def prefs(text):
        p = tmp_path / "p.prefs"
        p.write_text(text)
        j = read_judgments(str(p))
        q, a, b, s, _ = j.arrays()
        d = j.docs[j.queries[0]]
        return [(d[y], d[x]) if v == 1 else (d[x], d[y]) for x, y, v in zip(a.tolist(), b.tolist(), s.tolist(),
                                                                             strict=True)]

    ex1 = ("qid1 ujg1 sub1 docno1 3.0\nqid1 ujg1 sub1 docno2 2.0\nqid1 ujg1 sub1 docno3 1.0\n"
           "qid1 ujg1 sub2 docno1 2.0\nqid1 ujg1 sub2 docno2 1.0\nqid1 ujg1 sub2 docno4 3.0\n")
    # "expresses 5 preferences (1>2, 1>3, 2 > 3, 4>1, 4>2)"
    assert sorted(prefs(ex1)) == sorted([("docno1", "docno2"), ("docno1", "docno3"), ("docno2", "docno3"),
                                         ("docno4", "docno1"), ("docno4", "docno2")])
    ex2 = ("qid1 ujg1 sub1 docno1 3.0\nqid1 ujg1 sub1 docno2 2.0\nqid1 ujg2 sub1 docno1 0.0\n"
           "qid1 ujg2 sub1 docno3 6.0\nqid1 ujg2 sub1 docno4 2.0\nqid1 ujg2 sub2 docno1 0.0\n"
           "qid1 ujg2 sub2 docno2 8.0\n")
    # "expresses 5 preferences (1>2, 3>1, 4>1, 3>4, 2>1)"
    assert sorted(prefs(ex2)) == sorted([("docno1", "docno2"), ("docno3", "docno1"), ("docno4", "docno1"),
                                         ("docno3", "docno4"), ("docno2", "docno1")])
    assert prefs("q g sub1 a 3\nq g sub1 b 2\nq g sub2 b 5\nq g sub2 c 1\n") == [("a", "b"), ("b", "c")]

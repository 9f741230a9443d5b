"""zelo_trec against trec_eval 10.0's own expected outputs, byte for byte.

1. Every command of trec_eval's quicktest (listed in
   ``tests/data/trec_eval_test/README.md``, trec_eval's own test collection
   committed with its NIST notice (``SOURCE.md``)), except the preference ones
   (``prefs`` / ``qrels_prefs`` / ``qrels_jg``, covered by the preference
   tests), is read from that README, run through ``zelo_trec`` and its stdout
   compared with the expected file.
2. Extra cases in ``tests/data/trec_eval_generated/`` (random runs with heavy
   ties, graded qrels with negative grades, missing topics, ``-c -M -l -J -n
   -Z``, measure parameters); their expected outputs were produced by the
   trec_eval 10.0 binary (see that folder's README.md) and are committed.

Cases whose id contains ``needsB`` use measures of the ndcg / rbp / unj /
set / utility families as well (``-k "not needsB"`` runs the rest).
"""
from __future__ import annotations

import difflib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

TE_TEST = ROOT / "tests" / "data" / "trec_eval_test"
GEN = ROOT / "tests" / "data" / "trec_eval_generated"

# expected files of the README whose command uses measures of other families
NEEDS_B = {"out.test.a", "out.test.aq", "out.test.aqc", "out.test.aqcM", "out.test.aql",
           "out.test.meas_params", "out.test.aqZ"}
PREFERENCE_TESTS = ("prefs", "qrels_jg")

ROW = re.compile(r"^\|\s*`(out\.[^`]+)`[^|]*\|\s*`trec_eval ([^`]+)`\s*\|\s*$")


def readme_commands() -> list[tuple[str, list[str]]]:
    """(expected file, argv) for every quicktest command in the README table."""
    readme = TE_TEST / "README.md"
    if not readme.is_file():
        return []
    out = []
    for line in readme.read_text().splitlines():
        m = ROW.match(line)
        if not m:
            continue
        expected, cmd = m.group(1), m.group(2)
        if any(p in expected or p in cmd for p in PREFERENCE_TESTS):
            continue
        argv = [a[len("test/"):] if a.startswith("test/") else a for a in cmd.split()]
        out.append((expected, argv))
    return out


def generated_cases() -> list[tuple[str, int, list[str]]]:
    rows = []
    for line in (GEN / "cases.tsv").read_text().splitlines():
        name, rc, args = line.split("\t")
        rows.append((name, int(rc), args.split()))
    return rows


def run_zelo_trec(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pref_eval.cli.trec", *argv], cwd=cwd,
                          capture_output=True, timeout=120)


def assert_same_bytes(got: bytes, expected: bytes, label: str) -> None:
    if got == expected:
        return
    diff = difflib.unified_diff(expected.decode(errors="replace").splitlines(),
                                got.decode(errors="replace").splitlines(),
                                "trec_eval", "zelo_trec", lineterm="", n=0)
    lines = list(diff)
    pytest.fail(f"{label}: stdout differs from trec_eval in {sum(1 for x in lines if x[:1] in '+-') - 2} "
                "lines:\n" + "\n".join(lines[:40]))


README_CASES = readme_commands()


def _readme_id(case: tuple[str, list[str]]) -> str:
    exp, argv = case
    tag = "needsB-" if exp in NEEDS_B else ""
    return f"{tag}{exp}:{'_'.join(a.lstrip('-') for a in argv if a.startswith('qrels'))}"


def test_readme_lists_the_quicktest_commands():
    names = [e for e, _ in README_CASES]
    # 15 quicktest commands, 5 of them preference / judgment-group ones
    assert len(README_CASES) == 10, names
    assert names.count("out.test") == 2
    assert {"out.test.aqZ", "out.test.meas_params", "out.test.aqcM", "out.comment.test"} <= set(names)


@pytest.mark.parametrize("case", README_CASES, ids=[_readme_id(c) for c in README_CASES])
def test_trec_eval_quicktest(case):
    expected_name, argv = case
    p = run_zelo_trec(argv, TE_TEST)
    assert p.returncode == 0, p.stderr.decode()
    assert_same_bytes(p.stdout, (TE_TEST / expected_name).read_bytes(), " ".join(argv))


GEN_CASES = generated_cases()


@pytest.mark.parametrize("case", GEN_CASES, ids=[c[0] for c in GEN_CASES])
def test_generated_against_trec_eval_10(case):
    """In this process (the entry point of setup.cfg with stdout captured as bytes): the numbers are what is
    compared here; the quicktest commands above and the zscores errors below run zelo_trec as a process."""
    from cli_harness import run_inproc

    name, rc, argv = case
    p = run_inproc("zelo_trec", argv, GEN)
    assert p.returncode == rc, p.stderr
    assert_same_bytes(p.stdout, (GEN / f"{name}.out").read_bytes(), " ".join(argv))


def test_generated_cases_cover_the_options():
    """The generated set really exercises what it claims (guards against a thinned-out cases.tsv)."""
    flags = {a for _, _, argv in GEN_CASES for a in argv if a.startswith("-") and not a.startswith("-m")}
    assert {"-q", "-c", "-J", "-n", "-Z", "-l0", "-l2", "-M0", "-M20"} <= flags
    outs = b"".join((GEN / f"{n}.out").read_bytes() for n, _, _ in GEN_CASES)
    assert b"-nan" in outs  # nothing retrieved: iprec_at_recall_0.00 is 0/0 in trec_eval
    assert b"-1000000.0000" in outs  # -Z value missing from the zscores file
    assert b"'-'" in outs  # relstring_N of a missing topic under -c is not cleared


@pytest.mark.parametrize("content,line,what", [
    (b"301 map 0.5 0.1\n301 P_5 0.5\n", 2, "expected 4 fields"),
    (b"301 map 0.5 0.1\n\n", 2, "expected 4 fields"),
    (b"301 map 0.5 0.1 extra\n", 1, "expected 4 fields"),
    (b"", 0, "empty zscores file"),
])
def test_malformed_zscores_file(tmp_path, content, line, what):
    z = tmp_path / "z"
    z.write_bytes(content)
    p = run_zelo_trec(["-m", "map", "-Z", str(z), "qrels.test", "results.test"], TE_TEST)
    assert p.returncode == 2
    err = p.stderr.decode().strip()
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1, err
    loc = f"{z}:{line}: " if line else f"{z}: "
    assert loc in err and what in err, err
    assert p.stdout == b""


@pytest.mark.parametrize("argv", [["--Output_old_results_format", "1"], ["--Output_old_results_format=x"], ["-o"]])
def test_output_old_results_format_spellings(argv):
    """trec_eval 10's getopt_long table gives ``--Output_old_results_format`` a required argument
    while ``-o`` takes none; both are ignored, so each prints trec_eval's ``out.test`` (found by
    tools/fuzz_trec_eval.py: the long spelling with its value was refused as a third file)."""
    from cli_harness import run_inproc

    p = run_inproc("zelo_trec", [*argv, "qrels.test", "results.test"], TE_TEST)
    assert p.returncode == 0, p.stderr
    assert_same_bytes(p.stdout, (TE_TEST / "out.test").read_bytes(), " ".join(argv))


def test_stored_fuzz_cases_are_the_fuzz_generator():
    """The fuzz_S_I inputs are what tools/fuzz_trec_eval.py's make_case writes (generate.py's method
    still holds), and the tool does nothing, with exit 0, where no trec_eval binary is given."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import fuzz_trec_eval as fz
    finally:
        sys.path.remove(str(ROOT / "tools"))
    names = [n for n, _, _ in GEN_CASES if n.startswith("fuzz")]
    assert len([n for n in names if n.startswith("fuzz_")]) == 8
    assert len([n for n in names if n.startswith("fuzzb_")]) >= 4  # session 20's blind spots drawn
    for name in names:
        kind, seed, idx, _ = name.split("_", 3)
        case = fz.make_case(int(seed), int(idx), 0.0, blind={"fuzz": 0, "fuzzb": 1, "fuzzc": 2}[kind])
        for ext, key in (("rel", "rel_text"), ("run", "run_text"), ("z", "z")):
            path = GEN / f"{kind}_{seed}_{idx}.{ext}"
            if case[key] is not None or path.exists():
                assert path.read_bytes() == case[key].encode("utf-8", "surrogateescape"), path.name
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "fuzz_trec_eval.py"), "--peer", "/nonexistent/trec_eval"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "nothing to do" in p.stderr, p.stderr


def _te(argv: list[str]):
    from cli_harness import run_inproc

    return run_inproc("zelo_trec", argv, TE_TEST)


@pytest.mark.parametrize("argv,same_as", [
    (["--query_ev", "--meas=map", "--meas", "P.5"], ["-q", "-m", "map", "-m", "P.5"]),
    (["--q", "--m", "map", "--M", "3", "--com"], ["-q", "-m", "map", "-M", "3", "-c"]),
    (["--Out", "x", "--N=10", "--l", "2", "--Judged", "--nos", "--q", "--Results", "trec_results", "--Rel=qrels",
      "--D", "0", "-m", "map"], ["-N", "10", "-l", "2", "-J", "-n", "-q", "-m", "map"]),
])
def test_long_options_by_prefix(argv, same_as):
    """trec_eval reads its long options by any unambiguous prefix (GNU getopt_long; trec_eval 10.0:
    `trec_eval --query_ev --meas=map qrels run` prints what `-q -m map` prints): a script that only
    changes the program name keeps working (found by tools/fuzz_trec_eval.py, session 20: refused before)."""
    p, ref = _te([*argv, "qrels.test", "results.test"]), _te([*same_as, "qrels.test", "results.test"])
    assert (p.returncode, ref.returncode) == (0, 0), p.stderr
    assert p.stdout == ref.stdout and p.stdout


@pytest.mark.parametrize("argv,err", [
    (["--Re", "qrels"], "option '--Re' is ambiguous; possibilities: '--Rel_info_format' '--Results_format'"),
    (["--R=qrels"], "option '--R' is ambiguous; possibilities: '--Rel_info_format' '--Results_format'"),
])
def test_ambiguous_prefix_refused(argv, err):
    """trec_eval 10.0: `trec_eval --Re qrels q r` says "option '--Re' is ambiguous; possibilities:
    '--Rel_info_format' '--Results_format'" and prints its usage (exit 1); here one line, exit 2.
    (getopt_long compares case-sensitively: `--N` is --Number_docs_in_coll, `--n` --nosummary.)"""
    p = _te([*argv, "qrels.test", "results.test"])
    assert p.returncode == 2 and p.stdout == b""
    assert p.stderr.strip() == f"zelo_trec: {err}", p.stderr


def test_prefix_rules_follow_getopt():
    """A value-taking option's value is never read as an option (`-m --q`: the measure '--q', refused as
    trec_eval refuses it: "illegal measure '--q'"); `--vers` prints the version as `--version` (on stderr,
    as trec_eval); this command's own long options (--quiet, --list-measures) only by their whole names,
    so that `--q` stays trec_eval's --query_eval_wanted."""
    p = _te(["-m", "--q", "qrels.test", "results.test"])
    assert p.returncode == 2 and "'--q'" in p.stderr and "measure" in p.stderr
    p = _te(["--vers", "qrels.test"])
    assert p.returncode == 0 and p.stdout == b"" and "trec_eval 10.0" in p.stderr
    p = _te(["--qui", "-m", "map", "qrels.test", "results.test"])
    assert p.returncode == 2 and "--qui" in p.stderr
    p = _te(["--quiet", "--q", "-m", "map", "qrels.test", "results.test"])
    assert p.returncode == 0 and b"\t301\t" not in p.stdout.split(b"\n")[-2] and p.stdout.count(b"\n") > 1


@pytest.mark.parametrize("debug,complete", [("0.nosuch", False), ("0.nosuch", True), ("1.", False)])
def test_debug_query_not_evaluated(debug, complete):
    """`-D N.qid` evaluates topic qid only (trec_eval's debug_query); a topic that is not evaluated
    (`-D 1.` asks for the empty one) stops trec_eval with "No queries with both results and relevance
    info" (exit 7): here one line naming the topic, exit 2."""
    p = _te(["-D", debug, *(["-c"] if complete else []), "qrels.test", "results.test"])
    assert p.returncode == 2 and p.stdout == b""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("zelo_trec: -D: topic ") and "no queries" in lines[0], p.stderr


def test_negative_zero_sums_to_zero(tmp_path):
    """A z-score of -0.0 (value below the mean, stddev 1e400 read as inf) prints -0.0000 per query, but
    trec_eval's summary adds it to an accumulator that starts at +0.0: `Zbpref all 0.0000` (trec_eval
    10.0, found by tools/fuzz_trec_eval.py --case 22:873); the sum printed -0.0000 here before."""
    from cli_harness import run_inproc

    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 b 1 2 r\n1 Q0 a 2 1 r\n")
    (tmp_path / "z").write_text("1 bpref 0.75 1e400\n1 map 0.75 1e400\n")
    p = run_inproc("zelo_trec", ["-q", "-m", "bpref", "-m", "map", "-Z", "z", "q", "r"], tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.decode().splitlines() == [
        f"Z{'map':<22}\t1\t-0.0000", f"Z{'bpref':<22}\t1\t-0.0000",
        f"Z{'map':<22}\tall\t0.0000", f"Z{'bpref':<22}\tall\t0.0000"]


def test_debug_query_kept_by_a_later_level():
    """trec_eval 10.0 reads each -D: `-D 0.q1 -D 1` still evaluates q1 only (a level without a qid leaves
    it), `-D 0.q1 -D 0.q2` evaluates q2 (the last one). Here with trec_eval's test topics 301 and 302."""
    both = _te(["-q", "-m", "num_ret", "qrels.test", "results.test"])
    assert both.returncode == 0 and b"\t302\t" in both.stdout
    p = _te(["-q", "-D", "0.301", "-D", "1", "-m", "num_ret", "qrels.test", "results.test"])
    assert p.returncode == 0 and {ln.split(b"\t")[1] for ln in p.stdout.splitlines()} == {b"301", b"all"}
    p = _te(["-q", "-D", "0.301", "--Debug_level=0.302", "-m", "num_ret", "qrels.test", "results.test"])
    assert p.returncode == 0 and {ln.split(b"\t")[1] for ln in p.stdout.splitlines()} == {b"302", b"all"}


def test_fuzz_strips_trec_eval_debug_text():
    """tools/fuzz_trec_eval.py compares -D N (N >= 1) runs on the result lines only. trec_eval 10.0 prints
    gm_bpref's debugging text without a newline (bytes of `-m gm_bpref -m iprec_at_recall.1 -D 2`, fuzz
    case 42:1190), and the preference dumps indented tab-separated lines: neither is a result line."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import fuzz_trec_eval as fz
    finally:
        sys.path.remove(str(ROOT / "tools"))
    te = (b"gm_bpref: bpref 0.0000, gm_bpref -11.5129iprec_at_recall_1.00  \tall\t0.0000\n"
          b"ndcg: 0 2 1.0 1.0000 2.0 2.0000\n  d1\t1.00\t  1\n"
          b"gm_bpref: bpref   -nan, gm_bpref   -nangm_bpref              \tall\t0.0000\n")
    assert fz.strip_debug(te) == (b"iprec_at_recall_1.00  \tall\t0.0000\n"
                                  b"gm_bpref              \tall\t0.0000\n")


@pytest.mark.slow  # ~3 s: trec_eval run on each measure set
@pytest.mark.skipif(not Path("/tmp/trec_eval/trec_eval").is_file(), reason="trec_eval 10.0 not built here")
def test_fuzz_all_negative_repair_with_gain0_in_a_measure_set(tmp_path):
    """Fuzz case 601:2228 (session 30, z40): an all-negative topic (trec_eval: undefined, docs/differences.md) is
    repaired for trec_eval by a grade-0 document, which ``ideal_dcg.0=.5,...`` gives a gain (trec_eval 10.0 on the
    repaired qrels: 0.5 for that topic, ours on the original 0, so the means 1668.7578 and 1668.6864); the tool
    knew this (77:406) only outside its measure-by-measure comparison (gain measures sharing trec_eval's
    parameter block), where it was a false ``diff``. Now ``documented_all_negative_gain0`` there too."""
    sys.path.insert(0, str(ROOT / "tools"))  # the tool imports fuzz_pref_eval from there as it runs
    try:
        import fuzz_trec_eval as fz
        case = fz.make_case(601, 2228, 0.1, blind=3)
        assert "ideal_dcg.0=.5,5000=0,3018=.5" in case["opts"] and "all_negative" in case["feats"]
        cls, msg = fz.check_case(Path("/tmp/trec_eval/trec_eval"), case, tmp_path / "c")
    finally:
        sys.path.remove(str(ROOT / "tools"))
    assert cls == "documented_all_negative_gain0", msg

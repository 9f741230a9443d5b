"""zelo_agree through the command line: document and system levels against independent paths
(zelo_fit's scores and qrels, zelo_compare's decisions, scipy), the output formats, and fault cases
(bad files, bad options, output faults): one line on stderr, exit code 2, no traceback."""
from __future__ import annotations

import csv
import io
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
CROWD = str(ROOT / "judgments" / "dl21-crowd-sample.txt")
GPT = str(ROOT / "judgments" / "dl21-gpt4o-sample.human")


class Result:
    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def cli(module: str, *args: str, cwd=None) -> Result:
    """Run ``pref_eval.cli.MODULE.main(args)`` in this process (stdout/stderr captured, cwd switched)."""
    import contextlib
    import importlib

    main = importlib.import_module(f"pref_eval.cli.{module}").main
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(cwd or ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(list(args))
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    finally:
        os.chdir(old)
    return Result(code, out.getvalue(), err.getvalue())


def records(out: str) -> dict:
    return {(r["judge_a"], r["judge_b"], r["level"], r["statistic"]): r for r in map(json.loads, out.splitlines())}


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """8 queries x 12 documents, all pairs judged once by judge A (clarke4) from true strengths;
    judge B = A with 25 % of outcomes flipped; judge R = A with every outcome flipped; five runs."""
    d = tmp_path_factory.mktemp("agree_sys")
    rng = np.random.default_rng(4)
    lines = {"A": [], "B": [], "R": []}
    strength = {}
    for q in range(8):
        s = rng.normal(scale=1.5, size=12)
        strength[q] = s
        for i in range(12):
            for j in range(i + 1, 12):
                a, b = f"d{i}", f"d{j}"
                win = b if rng.random() < 1 / (1 + math.exp(s[i] - s[j])) else a
                other = a if win == b else b
                lines["A"].append(f"q{q} {a} {b} {win}\n")
                lines["B"].append(f"q{q} {a} {b} {other if rng.random() < 0.25 else win}\n")
                lines["R"].append(f"q{q} {a} {b} {other}\n")
    paths = {}
    for k, v in lines.items():
        paths[k] = d / f"{k}.txt"
        paths[k].write_text("".join(v))
    runs = []
    for r, noise in enumerate((0.1, 0.5, 1.0, 2.0, 4.0)):
        p = d / f"run{r}.run"
        with p.open("w") as out:
            for q in range(8):
                sc = strength[q] + rng.normal(scale=noise, size=12)
                for rank, i in enumerate(np.argsort(-sc)):
                    out.write(f"q{q} Q0 d{i} {rank + 1} {sc[i]:.6f} run{r}\n")
        runs.append(str(p))
    return paths, runs, d


def test_document_level_against_zelo_fit_scores(synthetic):
    from scipy.stats import kendalltau

    paths, _, d = synthetic
    out = cli("agree", "-J", str(paths["A"]), "-J", str(paths["B"]), "-J", str(paths["R"]), "-n", "A", "-n", "B",
              "-n", "R", "-l", "document", "-o", "jsonl", "--resamples", "0")
    assert out.returncode == 0, out.stderr
    got = records(out.stdout)
    fits = {}
    for k in ("A", "B"):
        res = cli("fit", "-J", str(paths[k]))
        assert res.returncode == 0, res.stderr
        rows = list(csv.reader(io.StringIO(res.stdout), delimiter="\t"))
        head = rows[0]
        fits[k] = {(r[head.index("qid")], r[head.index("docno")]): float(r[head.index("score")]) for r in rows[1:]}
    taus, top1 = [], []
    for q in range(8):
        docs = [f"d{i}" for i in range(12)]
        # equal scores to 9 decimals are ties (as documented)
        xa = np.round([fits["A"][(f"q{q}", x)] for x in docs], 9)
        xb = np.round([fits["B"][(f"q{q}", x)] for x in docs], 9)
        taus.append(kendalltau(xa, xb).statistic)
        # ties at the top broken at random, independently (documented): the expected agreement of the two picks
        ta, tb = set(np.flatnonzero(xa == xa.max())), set(np.flatnonzero(xb == xb.max()))
        top1.append(len(ta & tb) / (len(ta) * len(tb)))
    assert got["A", "B", "document", "kendall_tau_b"]["value"] == pytest.approx(np.mean(taus), abs=1e-9)
    assert got["A", "B", "document", "top1_agreement"]["value"] == pytest.approx(np.mean(top1))
    assert got["A", "R", "document", "kendall_tau_b"]["value"] == pytest.approx(-1.0)
    assert got["A", "R", "document", "top1_agreement"]["value"] == 0.0
    assert got["A", "B", "document", "queries"]["value"] == 8


def test_system_level_against_zelo_fit_qrels_and_zelo_compare(synthetic):
    from scipy.stats import kendalltau

    paths, runs, d = synthetic
    args = ["-J", str(paths["A"]), "-J", str(paths["B"]), "-n", "A", "-n", "B", "-l", "system", "-m", "ndcg_cut.10",
            "--resamples", "50", "-o", "jsonl"]
    for r in runs:
        args += ["--runs", r]
    out = cli("agree", *args)
    assert out.returncode == 0, out.stderr
    got = records(out.stdout)
    means, sig = {}, {}
    for k in ("A", "B"):
        qrels = d / f"{k}.qrels"
        assert cli("fit", "-J", str(paths[k]), "-o", str(d / f"{k}.scores"), "--qrels", str(qrels)).returncode == 0
        ev = cli("eval", "-R", str(qrels), "-m", "ndcg_cut.10", "-o", "tsv", *runs)
        assert ev.returncode == 0, ev.stderr
        rows = [r for r in csv.reader(io.StringIO(ev.stdout), delimiter="\t")][1:]
        means[k] = [float(next(r[3] for r in rows if r[0] == Path(run).name and r[1] == "all")) for run in runs]
        cmp_ = cli("compare", "-R", str(qrels), "-m", "ndcg_cut.10", "--tests", "t", "-o", "jsonl", *runs)
        assert cmp_.returncode == 0, cmp_.stderr
        sig[k] = {(o["run_a"], o["run_b"]): (int(np.sign(o["mean_diff"])) if o["significant"] else 0)
                  for o in map(json.loads, cmp_.stdout.splitlines())}
    assert got["A", "B", "system", "kendall_tau_b"]["value"] == pytest.approx(
        kendalltau(means["A"], means["B"]).statistic, abs=1e-12)
    assert got["A", "B", "system", "significant_a"]["value"] == sum(v != 0 for v in sig["A"].values())
    assert got["A", "B", "system", "significant_b"]["value"] == sum(v != 0 for v in sig["B"].values())
    assert sum(v != 0 for v in sig["A"].values()) > 0
    changed = sum(sig["A"][p] != sig["B"][p] for p in sig["A"])
    assert got["A", "B", "system", "decision_changes"]["value"] == changed
    expected = {}
    for (x, y), sa in sig["A"].items():
        sb = sig["B"][(x, y)]
        if sa != sb:
            s_ = sa or sb
            win, lose = (x, y) if s_ > 0 else (y, x)
            expected[f"flip:{win}>{lose}"] = 2.0 if sa and sb else (1.0 if sa else -1.0)
    assert {k[3]: r["value"] for k, r in got.items() if k[3].startswith("flip:")} == expected
    r = got["A", "B", "system", "tau_ap"]
    assert -1 <= r["ci_low"] <= r["ci_high"] <= 1
    # the interval of tau_b: scipy.stats.bootstrap over the topics (seed 0 as zelo_agree's default: the same
    # draws), scipy's kendalltau of the resampled per-run means (session 12)
    from scipy.stats import bootstrap

    topics = [f"q{q}" for q in range(8)]
    per = {}
    for k in ("A", "B"):
        ev = cli("eval", "-R", str(d / f"{k}.qrels"), "-m", "ndcg_cut.10", "-q", "-o", "tsv", *runs)
        rows = [r for r in csv.reader(io.StringIO(ev.stdout), delimiter="\t")][1:]
        val = {(r[0], r[1]): float(r[3]) for r in rows}
        per[k] = np.array([[val[(Path(run).name, t)] for t in topics] for run in runs])
    ci = bootstrap((np.arange(8),), lambda i: kendalltau(per["A"][:, i].mean(1), per["B"][:, i].mean(1)).statistic,
                   vectorized=False, n_resamples=50, method="percentile",
                   random_state=np.random.default_rng(0)).confidence_interval
    r = got["A", "B", "system", "kendall_tau_b"]
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((ci.low, ci.high), abs=1e-12)


@pytest.mark.parametrize("fmt", ["text", "tsv", "csv", "jsonl", "markdown", "latex"])
def test_output_formats_carry_every_record(fmt):
    out = cli("agree", "-J", CROWD, "-J", GPT, "-n", "crowd", "-n", "gpt4o", "-l", "pair", "--resamples", "20",
              "-o", fmt)
    assert out.returncode == 0, out.stderr
    base = cli("agree", "-J", CROWD, "-J", GPT, "-n", "crowd", "-n", "gpt4o", "-l", "pair", "--resamples", "20",
               "-o", "jsonl").stdout.splitlines()
    lines = [x for x in out.stdout.splitlines() if x.strip()]
    extra = {"text": 1, "tsv": 1, "csv": 1, "jsonl": 0, "markdown": 2, "latex": 6}[fmt]
    assert len(lines) == len(base) + extra
    if fmt == "jsonl":
        first = json.loads(lines[0])
        assert list(first) == ["judge_a", "judge_b", "level", "statistic", "value", "ci_low", "ci_high", "n"]
    if fmt == "tsv":
        rows = list(csv.reader(io.StringIO(out.stdout), delimiter="\t"))
        kappa = next(r for r in rows if r[3] == "cohen_kappa")
        assert float(kappa[4]) == next(json.loads(x)["value"] for x in base if '"cohen_kappa"' in x)


def test_output_file_written_atomically_and_never_over_an_input(tmp_path):
    target = tmp_path / "report.tsv"
    target.write_text("old\n")
    ok = cli("agree", "-J", CROWD, "-J", GPT, "-l", "pair", "--resamples", "0", "-o", "tsv", "--output", str(target))
    assert ok.returncode == 0 and target.read_text().startswith("judge_a\t")
    copy = tmp_path / "crowd.txt"
    copy.write_text(Path(CROWD).read_text())
    before = copy.read_bytes()
    bad = cli("agree", "-J", str(copy), "-J", GPT, "--output", str(copy))
    assert bad.returncode == 2 and "same file" in bad.stderr and copy.read_bytes() == before
    # a failing run leaves the old report in place
    target.write_text("old\n")
    broken = tmp_path / "broken.txt"
    broken.write_text("1 a b c\n")
    res = cli("agree", "-J", CROWD, "-J", str(broken), "--output", str(target))
    assert res.returncode == 2 and target.read_text() == "old\n"


FAULTS = [
    # (files: {name: content}, extra args, expected fragment of the one error line)
    ({"a.txt": "1 x y x\n", "b.txt": "1 x y z\n"}, ["--format", "clarke4"],
     "b.txt:1: expected the winner to be docA or docB"),
    ({"a.txt": "1 x y x\n", "b.txt": "1 x y z\n"}, [], "b.txt:1: cannot detect the judgment format"),
    ({"a.txt": "1 x y x\n", "b.txt": "@ 1 x y !\n@ 1 x y %\n"}, [], "b.txt:2: expected the mark !, = or ?"),
    ({"a.txt": "1 x y x\n", "b.txt": ""}, [], "b.txt: empty judgment file"),
    # a text judgment format takes such bytes as an id's (session 25, w35); JSON must be UTF-8
    ({"a.txt": "1 x y x\n", "b.txt": b'{"qid": "\xff\xfe1", "doc_a": "x", "doc_b": "y", "score": 1}\n'}, [],
     "b.txt:1: byte 0xff is not UTF-8 text"),
    ({"a.txt": "1 x y x\n", "b.jsonl": '{"qid": 1, "doc_a": "x", "doc_b": "y", "votes": [2]}\n'}, [],
     "b.jsonl:1: expected each vote a number in -1..1 or null"),
    ({"a.txt": "1 x y x\n"}, ["-J", "missing.txt"], "missing.txt"),
    ({"a.txt": "1 x y x\n"}, [], "at least two judgment files"),
    ({"a.txt": "1 x y x\n", "b.txt": "1 x y y\n"}, ["-n", "only"], "--name given 1 times for 2"),
    ({"a.txt": "1 x y x\n", "b.txt": "1 x y y\n"}, ["-n", "s", "-n", "s"], "two judges share a name"),
    ({"a.txt": "1 x y x\n", "b.txt": "1 x y y\n"}, ["--format", "nope"], "unknown judgment format 'nope'"),
    ({"a.txt": "1 x y x\n", "b.txt": "1 x y y\n"}, ["--format", "clarke4,clarke4,clarke4"],
     "--format lists 3 formats for 2"),
    ({"a.txt": "1 x y x\n", "b.txt": "1 x y y\n"}, ["-l", "system"], "needs --runs"),
    ({"a.txt": "1 x y x\n", "b.txt": "1 x y y\n"}, ["-l", "pair", "-m", "map"], "--runs/-m are used only"),
    ({"a.txt": "1 x y x\n", "b.txt": "1 x y y\n", "r.run": "1 Q0 x 1 2 r\n1 Q0 y 2 1 r\n",
      "s.run": "1 Q0 y 1 2 s\n1 Q0 x 2 1 s\n"},
     ["--runs", "r.run", "--runs", "s.run", "-m", "map", "--grades", "0,0.5,1"], "--grades must be integers"),
    ({"a.txt": "1 x y x\n", "b.txt": "1 x y y\n", "r.run": "1 Q0 x 1 abc r\n", "s.run": "1 Q0 y 1 2 s\n"},
     ["--runs", "r.run", "--runs", "s.run", "-m", "map"], "r.run:1:"),
    ({"a.txt": "1 x y x\n", "b.txt": "1 x y y\n", "r.run": "1 Q0 x 1 2 r\n"},
     ["--runs", "r.run", "--runs", "r.run", "-m", "map"], "r.run"),
    ({"a.txt": "1 x y x\n", "b.txt": "1 x y y\n", "r.run": "1 Q0 x 1 2 r\n", "s.run": "1 Q0 y 1 2 s\n"},
     ["--runs", "r.run", "--runs", "s.run", "-m", "nosuchmeasure"], "nosuchmeasure"),
    # session 12 (j21): stdin named twice (the second read found it empty); JSON nested too deeply
    ({"a.txt": "1 x y x\n"}, ["-J", "-", "-J", "-"], "standard input can be read once"),
    ({"a.txt": "1 x y x\n", "b.txt": '{"qid": "1", "doc_a": "x", "doc_b": "y", "votes": ' + "[" * 50000 + "]" * 50000
      + "}\n"}, [], "b.txt:1: expected a JSON object per line (nested too deeply)"),
]


@pytest.mark.parametrize("files,extra,fragment", FAULTS, ids=[f[2][:40] for f in FAULTS])
def test_fault_is_one_line_exit_2(tmp_path, files, extra, fragment):
    js = []
    for name, content in files.items():
        p = tmp_path / name
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content)
        if not name.endswith(".run"):
            js += ["-J", name]
    res = cli("agree", *js, *extra, "--resamples", "0", cwd=tmp_path)
    assert res.returncode == 2, (res.stdout, res.stderr)
    assert fragment in res.stderr
    assert "Traceback" not in res.stderr
    assert res.stderr.startswith("zelo_agree: ") and res.stderr.count("\n") == 1
    assert res.stdout == ""


def test_unwritable_output_is_exit_1(tmp_path):
    res = cli("agree", "-J", CROWD, "-J", GPT, "-l", "pair", "--resamples", "0", "--output",
              str(tmp_path / "no" / "dir" / "out.txt"))
    assert res.returncode == 1 and res.stderr.count("\n") == 1 and "out.txt" in res.stderr
    assert "Traceback" not in res.stderr


@pytest.mark.parametrize("opt", [["--resamples", "-1"], ["--buckets", "0"], ["--confidence", "1"],
                                 ["--prior", "0"], ["--top-k", "0"], ["-l", "bogus"], ["-o", "xml"],
                                 ["--ties", "other"], ["--correction", "maybe"], ["--digits", "40"]])
def test_bad_option_values_are_refused(opt):
    res = cli("agree", "-J", CROWD, "-J", GPT, *opt)
    assert res.returncode == 2 and "Traceback" not in res.stderr and res.stdout == ""


def test_closed_pipe_is_not_an_error():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run(f"{sys.executable} -m pref_eval.cli.agree -J {CROWD} -J {GPT} -l pair --resamples 0 | head -1",
                       shell=True, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert p.stdout.startswith("judge_a") and "Traceback" not in p.stderr and "Error" not in p.stderr


def test_python_api_and_zelo_group():
    import pref_eval
    import pref_eval.agree.records  # the subpackage does not shadow the function

    recs = pref_eval.agreement([CROWD, GPT], names=["c", "g"], levels=["pair"], resamples=0)
    assert any(r.statistic == "cohen_kappa" and r.judge_b == "g" for r in recs)
    res = cli("group", "agree", "-J", CROWD, "-J", GPT, "-l", "pair", "--resamples", "0", "-o", "jsonl")
    assert res.returncode == 0 and '"statistic": "cohen_kappa"' in res.stdout


def test_format_list_one_per_file():
    auto = cli("agree", "-J", CROWD, "-J", GPT, "-l", "pair", "--resamples", "0", "-o", "tsv")
    given = cli("agree", "-J", CROWD, "-J", GPT, "-l", "pair", "--resamples", "0", "-o", "tsv",
                "--format", "clarke4,llmlog")
    assert auto.returncode == given.returncode == 0 and auto.stdout == given.stdout
    wrong = cli("agree", "-J", CROWD, "-J", GPT, "-l", "pair", "--resamples", "0", "--format", "llmlog,llmlog")
    assert wrong.returncode == 2 and "dl21-crowd-sample.txt:1:" in wrong.stderr


@pytest.mark.parametrize(("opt", "levels"), [
    (["--buckets", "5"], "calibration"), (["--calibration", "always"], "calibration"),
    (["--consensus-min", "3"], "pair"), (["--prior", "1"], "document or system"),
    (["--top-k", "3"], "document"), (["--grades", "0,1"], "system"), (["--tests", "sign"], "system"),
    (["--correction", "bonferroni"], "system"), (["--alpha", "0.1"], "system")])
def test_an_option_no_requested_level_reads_is_refused(opt, levels):
    """`zelo_agree -l pair --buckets 5` ran and printed the pair level as without the option (as zelo_compare does,
    an option that would not be read is refused, naming the levels that read it)."""
    wanted = "document" if opt[0] == "--consensus-min" else "pair"
    r = cli("agree", "-J", CROWD, "-J", GPT, "-l", wanted, "--resamples", "0", *opt)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == (f"zelo_agree: {opt[0]} is used only by the {levels} level "
                        f"(add --level {levels.split()[0]})\n")

#!/usr/bin/env python3
"""Differential fuzz: zelo_eval's preference mode and pref_aggregate against diazf/pref_eval, live.

Runs only where a checkout of https://github.com/diazf/pref_eval exists (it is not shipped and
not copied: it is run as a separate process, from its own folder). Commit 60e3203 (graded RPP,
before the 2024 vector cache) is the one our default output matches::

    git clone https://github.com/diazf/pref_eval /tmp/pref_eval && git -C /tmp/pref_eval checkout 60e3203
    python tools/fuzz_pref_eval.py --peer /tmp/pref_eval --cases 2000 --seed 1
    python tools/fuzz_pref_eval.py --peer /tmp/pref_eval --case 1:137 --keep /tmp/fz   # one case, kept

Each case is made from (seed, index) alone: graded qrels and 1-8 trec run files full of
hostile-but-legal content (equal / negative / scientific / huge / -0.0 scores, decimal strings
that round to the same double, ids that look like numbers, unicode and 200-character ids,
queries only in the runs or only in the qrels, one-document and unjudged queries, judged
documents no run retrieved, documents under several subtopics, grades +3 / 007 / -5 / 1000000,
CRLF lines, tabs, extra columns, gzip runs, file names without ``input.``) and random options
both programs share (-m lists with parameters and aliases, -M, -q, -n, -b, -f, --topk,
--samples, --label_fraction with the deterministic ``pool`` policy). Inputs on which
docs/differences-pref_eval.md documents a refusal or a different answer (non-integer grades,
a duplicate qrels line, duplicate run ids, a document twice in a run, a blank line, ...) are
made in a fraction of the cases (``--hostile``) to check that our refusal is one stderr line
naming ``file:line`` (or the file) with exit 2.

Both programs run on the same files: pref_eval.py as ``PYTHONHASHSEED=0 python3
PEER/pref_eval.py`` in a child process, zelo_eval in this process (``pref_eval.cli.eval.main``;
put the checkout to test first on PYTHONPATH). Output lines are compared as
tests/test_pref_reference.py does: same number of lines, same keys in the same order, same
JSON types, equal values -- graded rpp/invrpp/dcgrpp to 1e-12 (their last bits depend on
pref_eval.py's set order) -- and the summary lines (``"qid": "all"``) against pref_eval.py on
the same qrels stably sorted by query id (we sum in query-id order, it sums in qrels order).
When pref_eval.py printed per-query lines, pref_aggregate.py and our pref_aggregate
(``--mc4-steps 10``) are then run on its output with random shared options
(-m, -q, -n, --num_samples) and compared line for line, exactly.

Session 23: pref_eval.py's random draws -- ``--query_fraction`` and ``--label_fraction`` under the ``random``
policy (e27's gap: pref_eval.py draws with Python's unseeded ``random.sample``) -- in 25 % of the cases, and
pref_aggregate.py's ``--query_fraction``. Both programs are made to keep the same queries and labels: ours runs
first with its draws recorded (pref_eval.run_preferences.sampling's two functions wrapped; pref_aggregate's from
its per-query lines), then the peer runs with ``random.sample`` replaced by those draws (:data:`PLANNED_PEER`; a
draw the peer asks for that ours did not make, or of another size or population, is ``draw_differs``). What is
compared is everything around the draw: how many are kept, from which population, the numbers of each sample
and the summaries. pref_aggregate.py's ``--query_fraction`` fails on any file with summary lines (its read_qids
reads the ``type`` of every line of sample 0: KeyError), so both read the file without them there.
``make_case(..., sampled=False)`` gives the earlier cases byte for byte.

Exit status 0 when every case agrees or is an expected (documented) refusal; 1 otherwise.
Each difference is printed with its case id; ``--keep DIR`` keeps the case folders.
"""
from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import math
import os
import random
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

GRADED_RPP = {"rpp", "invrpp", "dcgrpp"}
PREFS = ["rpp", "invrpp", "dcgrpp", "lexirecall", "lexiprecision", "rrlexiprecision", "LR", "sgnLR", "sgnLP", "rrLP"]
METRICS = ["ap", "rbp", "rr", "ndcg", "rp"]
ID_KEYS = ("qid", "sample", "type", "runi", "runj", "run")


# ----------------------------------------------------------------------------------------- generator
def _id(r: random.Random, prefix: str, n: int, style: str) -> str:
    if style == "plain":
        return f"{prefix}{n}"
    if style == "num":
        return str(n)
    if style == "zero":
        return f"0{n}"
    if style == "float":
        return r.choice([f"{n}.0", f"{n}e0", f"1e{n}", f"-{n}", f"+{n}", f"0x{n}", f"{n}.50"])
    if style == "uni":
        return r.choice(["é", "Ω", "查", "😀", "ß", "e\u0301", "Å", "ﬁ"]) + f"{prefix}{n}"
    if style == "long":
        return prefix * 100 + str(n) + "z" * r.randint(0, 100)
    # mixed: a bit of everything in one query
    return _id(r, prefix, n, r.choice(["plain", "num", "zero", "float", "uni", "long"]))


def _score(r: random.Random, style: str) -> str:
    if style == "ties":
        return r.choice(["1", "1.0", "1.00", "0", "-0", "-0.0", "0.0", "2"])
    if style == "neg":
        return f"{-r.random() * 10:.{r.randint(0, 4)}f}"
    if style == "sci":
        x = r.choice([-1, 1]) * r.random() * 10 ** r.randint(-300, 300)
        return r.choice(["%e", "%E", "%.3e", "%g", "%.17g"]) % x
    if style == "huge":
        return r.choice(["1e308", "-1e308", "1.7976931348623157e308", "5e-324", "-5e-324", "1e-310",
                         str(r.randint(-10**30, 10**30)), "123456789012345678901234567890"])
    if style == "round":  # decimal strings that round to the same double, or almost
        return r.choice(["0.1", "0.10000000000000000001", "0.1000000000000000055511151231257827",
                         "0.09999999999999999", "0.3", "0.30000000000000004", "0.29999999999999998",
                         "9007199254740993", "9007199254740992", "9007199254740992.5", "2.5",
                         "2.50000000000000000000001"])
    if style == "int":
        return str(r.randint(-3, 3))
    return f"{r.gauss(0, 1):.{r.randint(1, 6)}f}"


def make_case(seed: int, idx: int, hostile_rate: float, sampled: bool = True) -> dict:  # noqa: C901 (one recipe)
    """Case ``idx`` of ``seed``; ``sampled=False`` gives the cases of sessions 16-22 byte for byte (without
    :func:`_random_sampling`'s options)."""
    r = random.Random(f"{seed}:{idx}")
    hostile = r.random() < hostile_rate
    nq = r.choice([1, 1, 2, 3, 5, 8, 12])
    qstyle = r.choice(["plain", "plain", "num", "zero", "float", "uni", "long", "mixed"])
    dstyle = r.choice(["plain", "plain", "num", "zero", "float", "uni", "long", "mixed"])
    qids = list(dict.fromkeys(_id(r, "q", r.randint(0, 60), qstyle) for _ in range(nq)))
    if r.random() < 0.03:
        qids.append("all")  # a query named like the summary lines
    pool = {q: list(dict.fromkeys(_id(r, "D", r.randint(0, 3 * r.choice([1, 3, 10, 30])), dstyle)
                                  for _ in range(r.choice([1, 2, 4, 10, 30, 60])))) for q in qids}
    maxg = r.choice([1, 1, 2, 3, 4, 1000000])
    grade_style = r.choice(["plain", "plain", "neg", "signs"])
    subtopics = r.random() < 0.25
    qrels: list[str] = []
    seen = set()
    for q in qids:
        kind = r.random()
        docs = pool[q]
        judged = r.sample(docs, max(1, int(len(docs) * r.choice([0.2, 0.5, 1.0]))))
        if kind < 0.1:
            judged = judged[:1]  # one-judgment query
        for d in judged:
            g = r.randint(0, maxg) if r.random() < 0.6 else r.choice([0, 1])
            if kind > 0.9:
                g = r.choice([0, -1])  # a query without relevant documents
            elif grade_style == "neg" and r.random() < 0.3:
                g = -r.randint(1, 5)
            gs = str(g)
            if grade_style == "signs" and r.random() < 0.3:
                gs = r.choice([f"+{g}" if g >= 0 else gs, f"00{g}" if g >= 0 else gs, gs])
            sts = ["0"]
            if subtopics:
                sts = r.sample(["1", "2", "3"], r.randint(1, 3)) if r.random() < 0.8 else [r.choice(["0", "Q0"])]
            for st in sts:
                gg = gs if st in ("0", "Q0") or r.random() < 0.5 else str(r.randint(0, max(1, min(maxg, 4))))
                if (q, st, d) in seen:
                    continue
                seen.add((q, st, d))
                qrels.append(f"{q} {st} {d} {gg}")
    # judged documents for queries no run has (queries only in the qrels) come from qids anyway
    r.shuffle(qrels)
    nruns = r.choice([2, 2, 3, 4, 5, 8])
    sstyle = r.choice(["normal", "ties", "neg", "sci", "huge", "round", "int", "mixed"])
    runs: list[dict] = []
    names = set()
    extra_q = [x for x in (_id(r, "x", i, qstyle) for i in range(r.randint(0, 2))) if x not in pool]  # only in runs
    for k in range(nruns):
        while True:
            name = r.choice([f"input.sys{k}", f"input.sys{k}", f"sys{k}.run", f"input.{k}", f"input.é{k}",
                             f"input.r{k}.txt", f"input.{'n' * 60}{k}", f"s{k}", f"x{k}input.r", f"r{k}.gz.txt"])
            gz = r.random() < 0.15
            fname = name + (".gz" if gz else "")
            rid = Path(fname).name.replace("input.", "").replace(".gz", "")
            if rid not in names:
                names.add(rid)
                break
        lines: list[str] = []
        tag = r.choice([f"tag{k}", "same", f"tag{k}"])  # run tags that agree, or not, with the file name
        for q in qids + extra_q:
            if r.random() < 0.15:
                continue  # a query this run does not retrieve for
            cand = pool.get(q) or [_id(r, "D", i, dstyle) for i in range(5)]
            cand = list(dict.fromkeys(cand + [_id(r, "U", i, dstyle) for i in range(r.randint(0, 5))]))  # unjudged
            n = r.choice([1, 1, 2, len(cand) // 2 + 1, len(cand)])
            docs = r.sample(cand, min(n, len(cand)))
            sst = sstyle if sstyle != "mixed" else None
            for rank, d in enumerate(docs):
                s = _score(r, sst or r.choice(["normal", "ties", "neg", "sci", "huge", "round", "int"]))
                rk = str(rank + 1) if r.random() < 0.9 else str(r.randint(0, 1000))
                t = tag if r.random() < 0.95 else f"other{r.randint(0, 9)}"
                lines.append(f"{q} Q0 {d} {rk} {s} {t}")
        r.shuffle(lines)
        if not lines:  # an empty run file is a documented refusal; keep one line for an unjudged query
            lines.append(f"zz Q0 d 1 1.0 {tag}")
        sep = r.choice([" ", " ", "\t", "  "])
        lines = [ln.replace(" ", sep) for ln in lines]
        if r.random() < 0.05:
            lines = [ln + " extra" for ln in lines]
        eol = "\r\n" if r.random() < 0.1 else "\n"
        text = eol.join(lines) + ("" if r.random() < 0.1 else eol)
        runs.append({"name": fname, "gz": gz, "text": text})
    r.shuffle(runs)
    opts: list[str] = []
    u = r.random()
    if u < 0.25:
        opts += ["-M", r.choice(["all", "preferences", "none"])]
    elif u < 0.85:
        pick = r.sample(PREFS, r.randint(0, 4)) + r.sample(METRICS, r.randint(0, 3))
        for _ in range(r.randint(0, 3)):
            k = r.choice([1, 2, 3, 5, 10, 100, 1000])
            gam = r.choice(['0.5', '0.8', '0.95', '0.1'])
            pick.append(r.choice([f"ap@{k}", f"ndcg@{k}", f"p@{k}", f"r@{k}", f"rbp@{gam}", f"rbp@{gam},{k}",
                                  f"rr@{k}"]))
        if r.random() < 0.1:  # spellings both read as the same numbers
            pick.append(r.choice(["p@05", "ap@+3", "rbp@.8", "rbp@0.80,05", "ndcg@010", "rr@03", "r@+2", "rbp@0.5,-1"]))
        pick = list(dict.fromkeys(pick)) or ["rpp"]  # a measure named twice: a hostile case (dup_measure)
        for m in pick:
            opts += ["-m", m]
        if r.random() < 0.1:
            opts += ["-M", "preferences"]
    if r.random() < 0.7:
        opts.append("-q")
    if r.random() < 0.2:
        opts.append("-n")
    if r.random() < 0.2:
        opts += ["-b", r.choice(["1", "2", "3", "0", "-1", "1.5", "1000000"])]
    if r.random() < 0.15:
        opts += ["-f", r.choice(["1", "2", "3", "0.5", "-2"])]
    if r.random() < 0.2:
        opts += ["--topk", str(r.choice([1, 2, 3, 5, 10, 1000]))]
    if r.random() < 0.1:
        opts += ["--samples", str(r.randint(2, 3))]
    if r.random() < 0.1:
        opts += ["--label_fraction", r.choice(["0.5", "0.3", "0.9", "0.01"]), "--label_fraction_policy", "pool"]
    expect = None
    if hostile:
        expect = _make_hostile(r, qrels, runs, opts)
    if sampled:
        _random_sampling(random.Random(f"pref-sample:{seed}:{idx}"), opts)
    return {"qrels": "\n".join(qrels) + "\n", "runs": runs, "opts": opts, "expect": expect}


def _random_sampling(r: random.Random, opts: list[str]) -> None:
    """Session 23: the random draws of ``--query_fraction`` and ``--label_fraction`` (policy ``random``, named
    or by default) in 25 % of the cases, from an RNG of their own. pref_eval.py draws with Python's unseeded
    ``random.sample``: both programs are made to keep the same queries and labels (:func:`check_case` records
    ours and gives them to pref_eval.py through :data:`PLANNED_PEER`), so what is compared is everything
    around the draw -- how many are kept, from which population, and the numbers of each sample."""
    if r.random() >= 0.25:
        return
    pool = "pool" in opts
    u = r.random()
    if u < 0.4 or pool:
        opts += ["--query_fraction", r.choice(["0.5", "0.3", "0.9", "0.01", "0.99", "0.75", "1e-9"])]
    if u >= 0.25 and not pool:
        opts += ["--label_fraction", r.choice(["0.5", "0.3", "0.9", "0.01", "0.6", "0.34"])]
        if r.random() < 0.5:
            opts += ["--label_fraction_policy", "random"]
    if "--samples" not in opts and r.random() < 0.5:
        opts += ["--samples", str(r.randint(2, 4))]


def _make_hostile(r: random.Random, qrels: list[str], runs: list[dict], opts: list[str]) -> str:  # noqa: C901
    """Insert one input that docs/differences-pref_eval.md documents as refused by us."""
    kind = r.choice(["float_grade", "dup_qrels", "dup_doc", "blank_run", "blank_qrels", "qrels_fields",
                     "run_fields", "nan_score", "comma_score", "same_runid", "one_run", "empty_run", "text_score",
                     "dup_measure", "bad_measure"])
    if kind == "float_grade" and qrels:
        i = r.randrange(len(qrels))
        f = qrels[i].split()
        qrels[i] = " ".join(f[:3] + [r.choice(["0.5", "1.5", "1e0", "2.0"])])
    elif kind == "dup_qrels" and qrels:
        qrels.insert(r.randrange(len(qrels) + 1), r.choice(qrels))
    elif kind == "qrels_fields" and qrels:
        i = r.randrange(len(qrels))
        qrels[i] = qrels[i] + r.choice([" 1", ""]) if r.random() < 0.5 else " ".join(qrels[i].split()[:3])
    elif kind == "blank_qrels":
        qrels.insert(r.randrange(len(qrels) + 1), "")
    elif kind == "dup_measure":
        ms = [opts[i + 1] for i, o in enumerate(opts) if o == "-m"]
        opts += ["-m", r.choice(ms or ["rpp"])] * (1 if ms else 2)
    elif kind == "bad_measure":  # pref_eval.py computes these (rbp@1 = 0, rbp@0 = P@1) or reads 1_0 as 10
        opts += ["-m", r.choice(["rbp@1", "rbp@0", "rbp@1.5", "rbp@-0.5", "p@1_0", "rbp@0.5,1_0"])]
    elif kind == "one_run":
        del runs[1:]
    elif kind == "same_runid":
        runs.append(dict(runs[0], name=f"sub{r.randint(0, 9)}/" + runs[0]["name"]))
    else:
        run = r.choice(runs)
        lines = run["text"].replace("\r\n", "\n").rstrip("\n").split("\n")
        i = r.randrange(len(lines))
        f = lines[i].split()
        if kind == "dup_doc":
            lines.insert(r.randrange(len(lines) + 1), lines[i])
        elif kind == "blank_run":
            lines.insert(r.randrange(len(lines) + 1), "")
        elif kind == "run_fields":
            lines[i] = " ".join(f[:5])
        elif kind == "nan_score":
            lines[i] = " ".join(f[:4] + [r.choice(["nan", "NaN", "-nan"])] + f[5:])
        elif kind == "comma_score":
            lines[i] = " ".join(f[:4] + ["2,5"] + f[5:])
        elif kind == "text_score":
            lines[i] = " ".join(f[:4] + [r.choice(["abc", "1.2.3", "--1"])] + f[5:])
        elif kind == "empty_run":
            lines = []
        run["text"] = "\n".join(lines) + ("\n" if lines else "")
    return kind


def write_case(case: dict, d: Path) -> tuple[Path, list[Path]]:
    d.mkdir(parents=True, exist_ok=True)
    (d / "qrels").write_text(case["qrels"], encoding="utf-8")
    paths = []
    for run in case["runs"]:
        p = d / run["name"]
        p.parent.mkdir(parents=True, exist_ok=True)
        data = run["text"].encode("utf-8")
        p.write_bytes(gzip.compress(data, mtime=0) if run["gz"] else data)
        paths.append(p)
    return d / "qrels", paths


# ----------------------------------------------------------------------------------------- runners
def run_peer(peer: Path, script: str, args: list[str], cwd: Path) -> tuple[int, str, str]:
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8")
    env.pop("PYTHONPATH", None)
    p = subprocess.run([sys.executable, str(peer / script), *args], cwd=cwd, capture_output=True, env=env,
                       timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def in_process(module: str, args: list[str], cwd: Path) -> tuple[int, bytes, str]:
    """``module``'s ``main(args)`` run in this process from ``cwd``: exit status, stdout bytes (ids that are not
    UTF-8 kept through surrogate escapes), stderr text; a traceback is code 99 with the traceback on stderr.
    Shared with tools/fuzz_trec_eval.py."""
    import importlib

    main = importlib.import_module(module).main
    out_b, err_b = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_b, encoding="utf-8", errors="surrogateescape", newline="\n", write_through=True)
    err = io.TextIOWrapper(err_b, encoding="utf-8", errors="replace", write_through=True)
    old = os.getcwd()
    os.chdir(cwd)
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(list(args))
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
            except Exception as e:  # a traceback for the user
                import traceback

                err.write("Traceback (escaped): " + "".join(traceback.format_exception(e)))
                code = 99
    finally:
        os.chdir(old)
    return code, out_b.getvalue(), err_b.getvalue().decode("utf-8", "replace")


def run_ours(module: str, args: list[str], cwd: Path) -> tuple[int, str, str]:
    code, out, err = in_process(module, args, cwd)
    return code, out.decode("utf-8", "surrogateescape"), err


# ----------------------------------------------------------------------------------------- comparison
def _same_value(k: str, a: object, b: object, approx: bool) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) and math.isnan(b):
            return True
        if approx and k in GRADED_RPP:
            return abs(a - b) <= 1e-12
    return a == b


def compare_lines(ours: list[str], ref: list[str], approx: bool, documented: set[str]) -> str | None:
    """None when equal; ``documented`` collects the documented differences met (they are not failures)."""
    if len(ours) != len(ref):
        return f"{len(ours)} lines, pref_eval.py {len(ref)}"
    for n, (a, b) in enumerate(zip(ours, ref, strict=True)):
        ja, jb = json.loads(a), json.loads(b)
        if list(ja) != list(jb):
            return f"line {n + 1}: keys {list(ja)} != {list(jb)}"
        for k in jb:
            if _same_value(k, ja[k], jb[k], approx):
                continue
            if k.startswith("rr@") and jb.get("type") != "metric" and jb[k] == 0.0 and isinstance(ja[k], float):
                documented.add("rr@K preference")  # pref_eval.py: always 0.0; ours rr@K(i) - rr@K(j)
                continue
            return f"line {n + 1}: {k}: ours {ja[k]!r} pref_eval.py {jb[k]!r}\n  ours {a}\n  ref  {b}"
    return None


def _is_summary(line: str) -> bool:
    return line.startswith('{"qid": "all"')


def sorted_qrels(text: str) -> str:
    lines = text.splitlines()
    return "\n".join(sorted(lines, key=lambda ln: ln.split()[0].encode("utf-8") if ln.split() else b"")) + "\n"


def one_line_error(err: str) -> bool:
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("warning") and "warning:" not in ln]
    return len(lines) == 1 and "Traceback" not in err


# pref_eval.py / pref_aggregate.py with Python's random.sample replaced by the draws ours made (the plan: per
# sample the queries kept, per sample and query the labels kept); argv: PLAN SCRIPT ARGS...
PLANNED_PEER = """
import json, os, random, runpy, sys
plan = json.load(open(sys.argv[1], encoding="utf-8"))
script = sys.argv[2]
sys.argv = [script] + sys.argv[3:]
def sample(population, k):
    f = sys._getframe(1).f_locals
    s = str(f["sample"])
    labels = population is f.get("dids")
    where = f"sample {s}" + (f" query {f['qid']}" if labels else "")
    keep = (plan["labels"].get(s, {}).get(f["qid"]) if labels else plan["queries"].get(s))
    if keep is None:
        sys.exit(f"planned draw: ours drew nothing at {where} (population {len(population)}, {k} asked)")
    keep = list(keep)
    if plan["returns"] == "keep":  # in ours' order (pref_aggregate.py's is a set's, then random.sample's)
        picked = [x for x in keep if x in set(population)]
    else:
        picked = [x for x in population if x not in set(keep)]
    keep = set(keep)
    if len(picked) != k or not keep <= set(population):
        sys.exit(f"planned draw at {where}: ours kept {len(keep)} of {len(population)} "
                 f"({len(keep - set(population))} not in pref_eval.py's population), pref_eval.py asks for {k} "
                 + plan["returns"])
    return picked
random.sample = sample
sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
runpy.run_path(script, run_name="__main__")
"""


def random_draws(opts: list[str], agg: bool = False) -> bool:
    """Whether ``opts`` draw at random (pref_eval.py: ``--query_fraction`` < 1, or ``--label_fraction`` < 1 under
    the random policy; pref_aggregate.py: ``--query_fraction`` < 1)."""
    def val(flag: str) -> str | None:
        return opts[opts.index(flag) + 1] if flag in opts else None
    if float(val("--query_fraction") or 1) < 1:
        return True
    return not agg and float(val("--label_fraction") or 1) < 1 and val("--label_fraction_policy") != "pool"


@contextlib.contextmanager
def recorded_draws(plan: dict):
    """Record in ``plan`` (:data:`PLANNED_PEER`'s form) the queries and labels ours keeps in each sample."""
    from pref_eval.run_preferences import sampling

    def txt(x: object) -> str:
        return x.decode("utf-8", "surrogateescape") if isinstance(x, bytes) else str(x)

    sq, sl = sampling.sample_queries, sampling.sample_labels

    def rec_q(*a, **k):  # type: ignore[no-untyped-def]
        q2, pq2 = sq(*a, **k)
        plan["queries"][str(len(plan["queries"]))] = [txt(x) for x in pq2.qorder]
        return q2, pq2

    def rec_l(*a, **k):  # type: ignore[no-untyped-def]
        q2, pq2 = sl(*a, **k)
        kept: dict[str, list[str]] = {}
        for qq, dd in zip(pq2.qrels.qid, pq2.qrels.docno, strict=True):
            kept.setdefault(txt(qq), []).append(txt(dd))
        plan["labels"][str(len(plan["labels"]))] = kept
        return q2, pq2

    sampling.sample_queries, sampling.sample_labels = rec_q, rec_l
    try:
        yield plan
    finally:
        sampling.sample_queries, sampling.sample_labels = sq, sl


def run_planned_peer(peer: Path, script: str, args: list[str], cwd: Path, plan: dict | None) -> tuple[int, str, str]:
    """pref_eval.py / pref_aggregate.py, with ``plan``'s draws in place of its unseeded ``random.sample``."""
    if plan is None:
        return run_peer(peer, script, args, cwd)
    (cwd / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
    (cwd / "planned_peer.py").write_text(PLANNED_PEER, encoding="utf-8")
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8")
    env.pop("PYTHONPATH", None)
    p = subprocess.run([sys.executable, "planned_peer.py", "plan.json", str(peer / script), *args], cwd=cwd,
                       capture_output=True, env=env, timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def check_case(peer: Path, case: dict, d: Path, r: random.Random) -> tuple[str, str]:  # noqa: C901
    qrels, runs = write_case(case, d)
    rel_runs = [str(p.relative_to(d)) for p in runs]
    args = ["-R", "qrels", *case["opts"], *rel_runs]
    plan = {"queries": {}, "labels": {}, "returns": "drop"} if random_draws(case["opts"]) else None
    with recorded_draws(plan) if plan is not None else contextlib.nullcontext():
        oc, oo, oe = run_ours("pref_eval.cli.eval", args, d)
    if "Traceback" in oe:
        return "our_traceback", oe[-1500:]
    if case["expect"] is not None and oc != 0:
        # a documented refusal: exit 2 and one stderr line naming the file (and the line, for a line)
        named = (any(f"{p}:" in oe for p in ["qrels", *rel_runs])
                 or case["expect"] in ("one_run", "same_runid", "dup_measure", "bad_measure"))
        if oc == 2 and one_line_error(oe) and named:
            return "documented_refusal", f"{case['expect']}: {oe.strip()}"
        return "refusal_unclear", f"{case['expect']}: exit {oc}: {oe.strip()[:500]}"
    # accepted (blank lines are skipped, 2.0 is a grade, a duplicate below --topk or in an unjudged
    # query is harmless, ...): compared with pref_eval.py like any case
    if case["expect"] == "same_runid":  # told apart by their folders; pref_eval.py drops the first
        return "documented_diff", "same file name in two folders"
    if case["expect"] == "one_run":  # one run without -m/-M: a trec_eval block; pref_eval.py prints its usage
        return "documented_diff", "one run: trec_eval's block"
    pc, po, pe = run_planned_peer(peer, "pref_eval.py", args, d, plan)
    if "planned draw" in pe:
        return "draw_differs", pe.strip().splitlines()[-1]
    if pc != 0 or "Traceback" in pe:
        if oc == 2 and one_line_error(oe):
            last = pe.strip().splitlines()[-1] if pe.strip() else pc
            return "peer_fails_we_refuse", f"peer: {last}; ours: {oe.strip()}"
        if oc == 0 and case["expect"] in ("blank_qrels", "blank_run"):
            return "peer_fails_documented", "blank line: pref_eval.py crashes, we skip it"
        return "peer_fails", f"peer: {pe.strip()[-300:]}; ours exit {oc}: {oe.strip()[:300]}"
    if oc != 0:
        if not po.strip():
            return "we_refuse_peer_silent", oe.strip()
        return "we_refuse", oe.strip() if one_line_error(oe) else "UNCLEAR " + oe.strip()
    ref = po.splitlines()
    got = oo.splitlines()
    if [_is_summary(x) for x in got] != [_is_summary(x) for x in ref]:
        return "diff", f"summary positions differ ({len(got)} lines vs {len(ref)})\n{oo[:600]}\n--\n{po[:600]}"
    if any(_is_summary(x) for x in ref):
        (d / "qrels.sorted").write_text(sorted_qrels(case["qrels"]), encoding="utf-8")
        args_s = ["-R", "qrels.sorted", *case["opts"], *rel_runs]
        _, pos, _ = run_planned_peer(peer, "pref_eval.py", args_s, d, plan)
        sums = iter([x for x in pos.splitlines() if _is_summary(x)])  # in place: --samples interleaves them
        ref = [next(sums, "{}") if _is_summary(x) else x for x in ref]
    documented: set[str] = set()
    msg = compare_lines(got, ref, approx=True, documented=documented)
    if msg:
        return "diff", msg
    per_query = any(not _is_summary(x) for x in po.splitlines())
    if per_query:
        (d / "prefs.jsonl").write_text(po, encoding="utf-8")
        cls, msg = check_aggregate(peer, d, po, r)
        if cls != "same":
            return cls, msg
    if documented:
        return "documented_diff", ", ".join(sorted(documented))
    return "same", msg or ""


def check_aggregate(peer: Path, d: Path, prefs: str, r: random.Random,  # noqa: C901
                    sampled: bool = True) -> tuple[str, str]:
    first = [json.loads(x) for x in prefs.splitlines()]
    names = list(dict.fromkeys(k for o in first for k in o if k not in ID_KEYS))
    has_pref = any(o.get("type") == "preference" for o in first)
    has_metric = any(o.get("type") == "metric" for o in first)
    if not (has_pref and has_metric):
        return "same_agg_skipped", "pref_aggregate.py needs both preference and metric lines (documented)"
    opts = []
    pick = r.sample(names, r.randint(1, len(names)))
    kinds = {o.get("type") for o in first for k in o if k in pick}
    if r.random() < 0.9 and kinds != {"preference", "metric"}:  # both kinds: -q of pref_aggregate.py needs them
        pick += [r.choice([k for o in first if o.get("type") == t for k in o if k not in pick
                           and k not in ID_KEYS] or [names[0]])
                 for t in ("preference", "metric") if t not in kinds]
        pick = list(dict.fromkeys(pick))
    # without -m pref_aggregate.py takes the measures of the first 10 lines, in set order (hash-seed
    # dependent, documented): compared then as JSON objects, when those lines name every measure
    no_m = r.random() < 0.15 and set(names) == {k for o in first[:10] for k in o if k not in ID_KEYS}
    for m in [] if no_m else pick:
        opts += ["-m", m]
    if r.random() < 0.7:
        opts.append("-q")
    if r.random() < 0.2:
        opts.append("-n")
    nsamp = max(o["sample"] for o in first) + 1
    if nsamp > 1 and r.random() < 0.7:
        opts += ["--num_samples", str(r.randint(1, nsamp))]
    src = "prefs.jsonl"
    if r.random() < 0.2:  # both read gzip
        src = "prefs.jsonl.gz"
        (d / src).write_bytes(gzip.compress(prefs.encode("utf-8"), mtime=0))
    r2 = random.Random(f"agg-sample:{d.name}")  # session 23: pref_aggregate.py's random --query_fraction
    if sampled and r2.random() < 0.25:
        opts += ["--query_fraction", r2.choice(["0.5", "0.3", "0.9", "0.01", "0.99"])]
        # pref_aggregate.py's read_qids reads the "type" of every line of sample 0, and a summary line has none
        # (KeyError): both read the file without its summary lines, which neither aggregates
        src = "prefs.nosummary.jsonl"
        (d / src).write_text("".join(x + "\n" for x in prefs.splitlines() if not _is_summary(x)), encoding="utf-8")
    mc4 = ["--mc4-steps", "10"]
    oc, oo, oe = run_ours("pref_eval.cli.aggregate", ["-P", src, *mc4, *opts], d)
    if oc == 2 and "--mc4-steps applies to MC4" in oe:  # metrics alone: ours refuses an option that does nothing
        mc4 = []
        oc, oo, oe = run_ours("pref_eval.cli.aggregate", ["-P", src, *opts], d)
    if "Traceback" in oe:
        return "agg_our_traceback", oe[-1500:]
    plan = None
    if random_draws(opts, agg=True) and oc == 0:
        # the queries ours kept, from its per-query lines (the same --seed draws the same with or without -q)
        qopts = ["-q", *[o for o in opts if o not in ("-q", "-n")]]
        _, qo, _ = run_ours("pref_eval.cli.aggregate", ["-P", src, *mc4, *qopts], d)
        plan = {"queries": {}, "labels": {}, "returns": "keep"}
        for line in qo.splitlines():
            o = json.loads(line)
            if o.get("qid") != "all":
                plan["queries"].setdefault(str(o["sample"]), []).append(o["qid"])
    pc, po, pe = run_planned_peer(peer, "pref_aggregate.py", ["-P", src, *opts], d, plan)
    if "planned draw" in pe:
        return "agg_draw_differs", pe.strip().splitlines()[-1]
    if "KeyError" in pe and "-q" in opts and oc == 0:
        return "agg_peer_fails_documented", "pref_aggregate.py -q: KeyError for a query without one kind of line"
    if pc != 0 or "Traceback" in pe or (not po.strip() and pe.strip()):
        return "agg_peer_fails", f"peer: {pe.strip()[-300:]}; ours exit {oc}: {oe.strip()[:300]} ({' '.join(opts)})"
    if oc != 0:
        return "agg_we_refuse", oe.strip()
    if no_m and [json.loads(x) for x in oo.splitlines()] == [json.loads(x) for x in po.splitlines()]:
        return "same", "agg random draws" if plan else ""
    if oo.splitlines() != po.splitlines():
        a, b = oo.splitlines(), po.splitlines()
        for n, (x, y) in enumerate(zip(a, b, strict=False)):
            if x != y:
                return "agg_diff", f"pref_aggregate {' '.join(opts)}: line {n + 1}\n  ours {x[:800]}\n  ref  {y[:800]}"
        return "agg_diff", f"pref_aggregate {' '.join(opts)}: {len(a)} lines vs {len(b)}"
    return "same", "agg random draws" if plan else ""


OK = {"same", "same_agg_skipped", "documented_refusal", "documented_diff", "peer_fails_we_refuse",
      "we_refuse_peer_silent", "agg_peer_fails_documented", "peer_fails_documented"}


def fuzz_arguments(description: str, peer_default: str, peer_help: str, hostile_help: str,
                   show_help: str) -> tuple[argparse.Namespace, list[tuple[int, int]]]:
    """The command line of both differential fuzzers (this one and tools/fuzz_trec_eval.py): the options and
    the (seed, index) cases to run (``--cases`` from ``--start``, or the one ``--case SEED:INDEX``)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--peer", default=peer_default, help=peer_help)
    ap.add_argument("--cases", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--case", help="SEED:INDEX: run that case only")
    ap.add_argument("--hostile", type=float, default=0.1, help=hostile_help)
    ap.add_argument("--keep", help="keep the case folders here")
    ap.add_argument("--show", type=int, default=3, help=show_help)
    a = ap.parse_args()
    todo = [(a.seed, i) for i in range(a.start, a.start + a.cases)]
    if a.case:
        s, i = a.case.split(":")
        todo = [(int(s), int(i))]
    return a, todo


def main() -> int:
    a, todo = fuzz_arguments(__doc__.split("\n")[0], os.environ.get("PREF_EVAL_REF", "/tmp/pref_eval"),
                             "diazf/pref_eval checkout (default $PREF_EVAL_REF or /tmp/pref_eval)",
                             "fraction of cases with a documented refusal", "differences printed per class")
    peer = Path(a.peer)
    if not (peer / "pref_eval.py").exists():
        print(f"fuzz_pref_eval: no pref_eval.py in {peer}: nothing to do (see the docstring)", file=sys.stderr)
        return 0
    base = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="fuzz_pref_eval_"))
    counts: Counter[str] = Counter()
    kinds: Counter[str] = Counter()  # documented classes by what was met
    shown: Counter[str] = Counter()
    bad = 0
    try:
        for s, i in todo:
            case = make_case(s, i, a.hostile)
            d = base / f"case_{s}_{i}"
            r = random.Random(f"agg:{s}:{i}")
            try:
                cls, msg = check_case(peer, case, d, r)
            except subprocess.TimeoutExpired:
                cls, msg = "timeout", ""
            counts[cls] += 1
            if msg == "agg random draws":
                kinds["random draws (pref_aggregate.py --query_fraction): same"] += 1
            if random_draws(case["opts"]):
                kinds[f"random draws (pref_eval.py): {cls}"] += 1
            if cls.startswith("documented") or cls.endswith("documented"):
                kinds[f"{cls}: {msg.split(':')[0][:60]}"] += 1
            if cls not in OK:
                bad += 1
            if cls not in {"same", "same_agg_skipped", "documented_diff"} and shown[cls] < a.show:
                shown[cls] += 1
                print(f"[{s}:{i}] {cls}: opts {' '.join(case['opts'])}\n  {msg}", flush=True)
            if not a.keep:
                shutil.rmtree(d, ignore_errors=True)
    finally:
        if not a.keep:
            shutil.rmtree(base, ignore_errors=True)
    print(f"cases {len(todo)} (seed {a.seed}, {a.start}..{a.start + len(todo) - 1}): "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for k, v in sorted(kinds.items()):
        print(f"  {k}: {v}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

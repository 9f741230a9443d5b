"""Generate the inputs of this folder and (with a trec_eval binary) the expected outputs.

    python generate.py                         # inputs only (deterministic, seed 20240611)
    python generate.py /path/to/trec_eval      # inputs + expected outputs + cases.tsv

The expected outputs were produced with trec_eval 10.0 built from
usnistgov/trec_eval tag v10.0 (see README.md). This script contains no
trec_eval code: it only writes random TREC files and runs the binary.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SEED = 20240611

QRELS_TOPICS = ["1", "10", "2", "3", "301", "7", "Q7", "q7", "t-allzero", "t-onerel", "t-unjudged", "x#1"]
MISSING_IN_PARTIAL = ["10", "Q7", "t-onerel"]
EXTRA_RUN_TOPICS = ["99", "zz"]


def _docnames(rng: np.random.Generator, n: int) -> list[str]:
    """Docnos whose byte order is tricky: d9 vs d10, upper vs lower case, '#', '-'."""
    pools = [f"d{i}" for i in range(1, 400)] + [f"D{i}" for i in range(1, 60)] + \
            [f"doc-{c}" for c in "abcdefghijklmnop"] + [f"msmarco_{i:04d}#{i % 7}" for i in range(200)] + \
            [f"web{i:05d}" for i in range(2000)]
    pick = rng.choice(len(pools), size=min(n, len(pools)), replace=False)
    return [pools[i] for i in pick]


def make_qrels(rng: np.random.Generator) -> dict[str, dict[str, int]]:
    grades = np.array([-2, -1, 0, 1, 2, 3, 4, 12])
    probs = np.array([0.03, 0.07, 0.50, 0.20, 0.10, 0.06, 0.03, 0.01])
    q: dict[str, dict[str, int]] = {}
    for t in QRELS_TOPICS:
        n = int(rng.integers(20, 180))
        docs = _docnames(rng, n)
        if t == "t-allzero":
            g = np.zeros(n, dtype=int)
        elif t == "t-onerel":
            g = np.zeros(n, dtype=int)
            g[int(rng.integers(n))] = 2
        elif t == "t-unjudged":
            g = rng.choice([-1, 0, 1], size=n, p=[0.5, 0.3, 0.2])
        else:
            g = rng.choice(grades, size=n, p=probs)
        q[t] = dict(zip(docs, (int(x) for x in g)))
    return q


def write_qrels(path: Path, q: dict[str, dict[str, int]], rng: np.random.Generator) -> None:
    lines = [f"{t} 0 {d} {g}" for t, dd in q.items() for d, g in dd.items()]
    order = rng.permutation(len(lines))  # file order must not matter
    path.write_text("".join(lines[i] + "\n" for i in order))


def make_run(rng: np.random.Generator, q, topics: list[str], *, ties: bool) -> list[tuple]:
    rows = []
    for t in topics:
        if t == "2":
            n = 1  # a single retrieved document
        elif t == "301":
            n = 1100  # deeper than every default cutoff
        else:
            n = int(rng.integers(5, 260))
        judged = list(q.get(t, {}))
        k_in = min(len(judged), int(n * rng.uniform(0.3, 0.9)))
        docs = list(rng.choice(judged, size=k_in, replace=False)) if k_in else []
        jset = set(judged)
        others = [d for d in _docnames(rng, n + len(judged)) if d not in jset]
        docs += others[: n - len(docs)]
        if ties:
            scores = rng.integers(0, 6, size=len(docs)) / 2.0  # heavy ties, broken by docno
        else:
            # differ only beyond float32 precision for some pairs (double in trec_eval 10)
            base = rng.normal(10.0, 2.0, size=len(docs))
            scores = np.where(rng.random(len(docs)) < 0.2, np.round(base, 1) + 1e-9 * rng.integers(0, 3, len(docs)),
                              np.round(base, 6))
        for i, (d, s) in enumerate(zip(docs, scores)):
            rows.append((t, d, i + 1, float(s)))
    return rows


def write_run(path: Path, rows: list[tuple], rng: np.random.Generator, tag: str) -> None:
    order = rng.permutation(len(rows))  # line order and the rank column must not matter
    out = []
    for j, i in enumerate(order):
        t, d, rank, s = rows[i]
        last = j == len(order) - 1
        runtag = tag + ("_last" if last else "")  # runid = the tag of the file's last line
        junk = " extra junk" if j % 17 == 0 else ""
        out.append(f"{t}\tQ0\t{d}\t{int(rng.integers(1, 5000))}\t{s!r}\t{runtag}{junk}\n")
    path.write_text("".join(out))


def write_zscores(path: Path, rng: np.random.Generator) -> None:
    meas = ["num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank",
            "P_5", "P_10", "recall_10", "iprec_at_recall_0.00", "iprec_at_recall_0.50",
            "infAP", "gm_map", "11pt_avg", "success_1", "relative_P_5", "map_cut_10",
            "num_nonrel_judged_ret", "Rprec_mult_1.00"]
    # trec_eval's binary searches (convert_zscores.c) may read one entry past
    # the end of a list; sentinels that sort last keep that read harmless:
    # a measure "zzz_sentinel" in every topic and a topic "~sentinel".
    lines = []
    for t in QRELS_TOPICS + ["~sentinel"]:
        if t in ("3", "q7"):
            continue  # topics without any z entry -> every value -1000000
        for m in meas:
            if rng.random() < 0.1:
                continue  # some (topic, measure) pairs missing
            mean = float(np.round(rng.uniform(0, 1), 4))
            sd = 0.0 if rng.random() < 0.1 else float(np.round(rng.uniform(0.05, 0.5), 4))
            lines.append(f"{t} {m} {mean} {sd}\n")
        lines.append(f"{t} zzz_sentinel 0 1\n")
    path.write_text("".join(lines))


A_MEASURES = ("-m official -m recall -m infAP -m gm_bpref -m Rprec_mult -m 11pt_avg -m map_cut "
              "-m relative_P -m success -m relstring -m num_nonrel_judged_ret")
PARAMS = ("-m P.5,7,3 -m recall.20,2000 -m Rprec_mult.5.0,0.2,0.35 -m 11pt_avg..25,.5,.75 "
          "-m success.2,5,20 -m iprec_at_recall..33,.5,.67,1 -m relative_P.3,50 -m map_cut.7,70 "
          "-m relstring.40 -m Rprec -m recip_rank -m bpref -m infAP")

# name, arguments (split on spaces); names containing "needsB" use measures of other families
CASES = [
    ("ties_A", f"-q {A_MEASURES} qrels.gen run.ties"),
    ("ties_A_c_missing", f"-q -c {A_MEASURES} qrels.gen run.partial"),
    ("ties_A_c_M20", f"-q -c -M20 {A_MEASURES} qrels.gen run.partial"),
    ("ties_A_M0", f"-q -M0 {A_MEASURES} qrels.gen run.ties"),
    ("ties_A_l2", f"-q -l2 {A_MEASURES} qrels.gen run.ties"),
    ("ties_A_l3_c", f"-q -l3 -c {A_MEASURES} qrels.gen run.partial"),
    ("ties_A_l0", f"-q -l0 {A_MEASURES} qrels.gen run.ties"),
    ("ties_A_J", f"-q -J {A_MEASURES} qrels.gen run.ties"),
    ("ties_A_J_c_M50", f"-q -J -c -M50 {A_MEASURES} qrels.gen run.partial"),
    ("ties_A_n", f"-n -q {A_MEASURES} qrels.gen run.ties"),
    ("ties_params", f"-q {PARAMS} qrels.gen run.ties"),
    ("ties_params_l2_c", f"-q -l2 -c {PARAMS} qrels.gen run.partial"),
    ("ties_11pt_unsorted", "-q -m 11pt_avg.0.5,0.1,0.9,0 -m iprec_at_recall.0.5,0.1,0.9,0 qrels.gen run.ties"),
    # ties_11pt_zero (11pt_avg.0,1.5: trec_eval averages in 0 for the recall point 1.5) was dropped in session 17:
    # a recall point outside [0, 1] is refused (exit 2), as IPrec@1.5 (tests/test_params_declared.py)
    ("floats_A", f"-q {A_MEASURES} qrels.gen run.floats"),
    ("ties_Z", f"-q {A_MEASURES} -Z zscores.gen qrels.gen run.ties"),
    ("ties_Z_c", f"-q -c {A_MEASURES} -Z zscores.gen qrels.gen run.partial"),
    ("ties_all_trec_needsB", "-q -m all_trec qrels.gen run.ties"),
    ("ties_all_trec_c_M30_needsB", "-q -c -M30 -m all_trec qrels.gen run.partial"),
    ("floats_all_trec_l2_needsB", "-q -l2 -m all_trec qrels.gen run.floats"),
    # session 20: long options by an unambiguous prefix (getopt_long), -D N.qid (one topic evaluated)
    ("abbrev_long_prefixes", "--query_ev --meas=official --meas recall --M 50 --Judged --compl --level 2 "
                             "--Nu 1000 --Out x qrels.gen run.partial"),
    ("debug_query_topic", f"-q -D 0.301 {A_MEASURES} qrels.gen run.ties"),
    ("debug_query_c_missing_needsB", "-q -c -D 0.t-onerel -m all_trec qrels.gen run.partial"),
    ("debug_query_c_present_needsB", "-q -c --Debug_level=0.x#1 -m ideal_dcg.0=0.5,1=1,2=3 -m num_rel -m gm_map "
                                     "-m map -m num_q -m relstring.5 qrels.gen run.partial"),
    ("debug_query_c_Z", f"-q -c -D0.7 {A_MEASURES} -Z zscores.gen qrels.gen run.partial"),
]


# cases of tools/fuzz_trec_eval.py (seed, index; --hostile 0) on which zelo_trec and trec_eval agreed:
# unicode / invalid-UTF-8 / case-only / 200-character ids, float32 and rounding ties, subnormal and
# huge scores, several run tags, CRLF, tabs, long option spellings, -c -J -M0 -o -Z (session 19)
FUZZ = [(4, 120), (4, 145), (4, 346), (4, 378), (4, 398), (4, 87), (4, 439), (4, 498)]
# and with session 20's blind spots drawn (make_case(..., blind=True)): topic ids that are not UTF-8,
# -Z files without guard entries and of other shapes, fractional gain maps on grades up to 5000,
# -D N.qid, long options by prefix
FUZZ_BLIND = [(23, 501), (23, 109), (23, 85), (23, 313), (23, 1264), (23, 602), (23, 112), (24, 90), (24, 124)]
# and with session 21's (make_case(..., blind=2)): 53:811, a num_rel z-score of -0.0 (stddev inf) whose
# summary printed -0.0000 here (trec_eval: 0.0000)
FUZZ_BLIND2 = [(53, 811)]


def _fuzz_name(seed: int, idx: int, blind: int = False) -> str:
    return f"fuzz{['', 'b', 'c'][blind]}_{seed}_{idx}_needsB"


def make_fuzz_inputs() -> list[tuple[str, str]]:
    """Write the FUZZ cases' files (fuzz_S_I.rel, .run, .z) here; returns (name, arguments)."""
    sys.path.insert(0, str(HERE.parents[2] / "tools"))
    from fuzz_trec_eval import make_case  # the generator of the fuzz, seeded (no trec_eval code)

    rows = []
    for seed, idx, blind in [(s, i, 0) for s, i in FUZZ] + [(s, i, 1) for s, i in FUZZ_BLIND] + \
            [(s, i, 2) for s, i in FUZZ_BLIND2]:
        case = make_case(seed, idx, 0.0, blind)
        assert case["fmt"] == "qrels" and not case["stdin"], (seed, idx)
        assert not case["feats"] - ({"latin1_qid", "z_unguarded", "debug_query", "abbrev"} if blind else set())
        base = f"fuzz{['', 'b', 'c'][blind]}_{seed}_{idx}"
        enc = {"encoding": "utf-8", "errors": "surrogateescape"}
        (HERE / f"{base}.rel").write_bytes(case["rel_text"].encode(**enc))
        (HERE / f"{base}.run").write_bytes(case["run_text"].encode(**enc))
        if case["z"] is not None:
            (HERE / f"{base}.z").write_bytes(case["z"].encode(**enc))
        opts = [o.replace("zscores", f"{base}.z") if o in ("zscores", "-Zzscores") else o for o in case["opts"]]
        rows.append((_fuzz_name(seed, idx, blind), " ".join([*opts, f"{base}.rel", f"{base}.run"])))
    return rows


def make_inputs() -> None:
    rng = np.random.default_rng(SEED)
    q = make_qrels(rng)
    write_qrels(HERE / "qrels.gen", q, rng)
    full = QRELS_TOPICS + EXTRA_RUN_TOPICS
    partial = [t for t in QRELS_TOPICS if t not in MISSING_IN_PARTIAL] + EXTRA_RUN_TOPICS[:1]
    write_run(HERE / "run.ties", make_run(rng, q, full, ties=True), rng, "tiesrun")
    write_run(HERE / "run.partial", make_run(rng, q, partial, ties=True), rng, "partialrun")
    write_run(HERE / "run.floats", make_run(rng, q, full, ties=False), rng, "floatrun")
    write_zscores(HERE / "zscores.gen", rng)


def make_expected(trec_eval: str, fuzz: list[tuple[str, str]]) -> None:
    rows = []
    for name, args in CASES + fuzz:
        p = subprocess.run([trec_eval, *args.split()], cwd=HERE, capture_output=True)
        (HERE / f"{name}.out").write_bytes(p.stdout)
        rows.append(f"{name}\t{p.returncode}\t{args}\n")
        print(name, p.returncode, len(p.stdout.splitlines()), "lines", p.stderr.decode()[:200])
    (HERE / "cases.tsv").write_text("".join(rows))


if __name__ == "__main__":
    make_inputs()
    fuzz_cases = make_fuzz_inputs()
    if len(sys.argv) > 1:
        make_expected(sys.argv[1], fuzz_cases)

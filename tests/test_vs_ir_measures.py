"""``zelo_trec --trec-eval-9`` against ir-measures / pytrec_eval, computed live.

pytrec_eval embeds trec_eval 9.x (float32 scores, old iprec_at_recall
rounding), and ir-measures calls it for P, R, AP, nDCG, RR, Rprec, Bpref,
infAP, IPrec, Success, Set* and the counts; its own provider computes
Judged. The collection is generated here with a fixed seed and is built to
be awkward: heavy score ties (also ties that only exist in float32),
docnos that tie-break by byte order (``d10`` < ``d9`` < ``D1``), negative
grades (pooled but unjudged), topics without relevant documents, qrels
topics the run lacks and run topics the qrels lack.

Per query, every value printed by ``zelo_trec --trec-eval-9 -q`` must equal
ir-measures' value printed ``%6.4f``; the summary of ``-c`` must equal
ir-measures' aggregate (it fills missing topics with 0, as ``-c`` does).
"""
from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from cli_harness import run_module_inproc

ir_measures = pytest.importorskip("ir_measures")
pytest.importorskip("pytrec_eval")
M = ir_measures

SEED = 20240917
CUTS = (1, 3, 5, 10, 20, 100)


# ------------------------------------------------------------------ data
def make_collection(seed: int = SEED) -> tuple[dict, dict, dict]:
    """(qrels, run, tie-free run) as dicts of dicts."""
    rng = np.random.default_rng(seed)
    pool = [f"d{i}" for i in range(150)] + [f"D{i}" for i in range(20)] + [f"d{i}x" for i in range(10)]
    qids = [f"{i}" for i in range(1, 41)]  # 1, 10, 11 ... strcmp order ≠ numeric
    qrels: dict[str, dict[str, int]] = {}
    for k, q in enumerate(qids):
        n = int(rng.integers(5, 60))
        docs = rng.choice(pool, size=n, replace=False)
        no_relevant = k % 7 == 3   # no relevant document at all
        grades = rng.choice([-1, 0, 0] if no_relevant else [-2, -1, 0, 0, 0, 1, 1, 2, 3, 4], size=n)
        grades[0] = max(grades[0], 0)  # at least one non-negative judgment
        qrels[q] = {str(d): int(g) for d, g in zip(docs, grades, strict=False)}
    missing = set(rng.choice(qids, size=6, replace=False))
    run_q = [q for q in qids if q not in missing] + ["900", "901"]
    run: dict[str, dict[str, float]] = {}
    for k, q in enumerate(run_q):
        n = int(rng.integers(1, 120))
        docs = rng.choice(pool + [f"n{i}" for i in range(40)], size=n, replace=False)
        if k % 3 == 0:      # ties in float32 only: 0.3 + j·1e-9
            scores = rng.choice([0.3, 0.7], size=n) + rng.integers(0, 4, size=n) * 1e-9
        elif k % 3 == 1:    # heavy exact ties
            scores = rng.integers(0, 5, size=n) / 4.0
        else:               # mostly distinct, some negative
            scores = np.round(rng.normal(size=n), 3)
        run[q] = {str(d): float(s) for d, s in zip(docs, scores, strict=False)}
    # a run without ties (for Judged, whose provider tie-breaks by docno ascending)
    untied = {q: {d: float(i) for i, d in enumerate(sorted(docs, key=lambda d: (-docs[d], d)), 1)}
              for q, docs in run.items()}
    untied = {q: {d: -v for d, v in docs.items()} for q, docs in untied.items()}
    return qrels, run, untied


def write_qrels(path: Path, qrels: dict) -> None:
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))


def write_run(path: Path, run: dict) -> None:
    lines = []
    for q, docs in run.items():
        for i, (d, s) in enumerate(docs.items()):
            lines.append(f"{q} Q0 {d} {i + 1} {s!r} tag\n")
    path.write_text("".join(lines))


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("vs_irm")
    qrels, run, untied = make_collection()
    write_qrels(d / "qrels", qrels)
    write_run(d / "run", run)
    write_run(d / "untied", untied)
    return d, qrels, run, untied


def zelo(*args: str) -> subprocess.CompletedProcess:
    """``python -m pref_eval.cli.trec -Q ARGS`` in process (cli_harness.run_module_inproc): the values compared
    with ir-measures need no process."""
    return run_module_inproc("trec", ["-Q", *args], ".", timeout=120)


def table(stdout: str) -> dict[tuple[str, str], str]:
    out = {}
    for line in stdout.splitlines():
        name, qid, value = line.split("\t")
        out[(name.strip(), qid)] = value
    return out


# ------------------------------------------------------------- measures
def pairs_level1() -> list[tuple[str, str, object]]:
    """(zelo_trec -m argument, printed column, ir-measures measure)."""
    cut = ",".join(map(str, CUTS))
    out: list[tuple[str, str, object]] = [
        ("num_ret", "num_ret", M.NumRet),
        ("num_rel", "num_rel", M.NumRel),
        ("num_rel_ret", "num_rel_ret", M.NumRet(rel=1)),
        ("map", "map", M.AP),
        ("Rprec", "Rprec", M.Rprec),
        ("bpref", "bpref", M.Bpref),
        ("recip_rank", "recip_rank", M.RR),
        ("infAP", "infAP", M.infAP),
        ("ndcg", "ndcg", M.nDCG),
        ("set_P", "set_P", M.SetP),
        ("set_relative_P", "set_relative_P", M.SetP(relative=True)),
        ("set_recall", "set_recall", M.SetR),
        ("set_map", "set_map", M.SetAP),
        ("set_F", "set_F", M.SetF),
    ]
    for k in CUTS:
        out += [(f"P.{cut}", f"P_{k}", M.P @ k), (f"recall.{cut}", f"recall_{k}", M.R @ k),
                (f"map_cut.{cut}", f"map_cut_{k}", M.AP @ k),
                (f"ndcg_cut.{cut}", f"ndcg_cut_{k}", M.nDCG @ k),
                (f"success.{cut}", f"success_{k}", M.Success @ k)]
    for x in (0.0, 0.1, 0.2, 0.3, 0.5, 0.6, 0.7, 1.0):
        out.append(("iprec_at_recall.0,.1,.2,.3,.5,.6,.7,1", f"iprec_at_recall_{x:3.2f}", M.IPrec @ x))
    return out


def pairs_level2() -> list[tuple[str, str, object]]:
    return [
        ("P.5,10", "P_5", M.P(rel=2) @ 5), ("P.5,10", "P_10", M.P(rel=2) @ 10),
        ("map", "map", M.AP(rel=2)), ("Rprec", "Rprec", M.Rprec(rel=2)),
        ("recip_rank", "recip_rank", M.RR(rel=2)), ("bpref", "bpref", M.Bpref(rel=2)),
        ("infAP", "infAP", M.infAP(rel=2)), ("success.5", "success_5", M.Success(rel=2) @ 5),
        ("set_P", "set_P", M.SetP(rel=2)), ("set_recall", "set_recall", M.SetR(rel=2)),
        ("set_map", "set_map", M.SetAP(rel=2)), ("num_rel_ret", "num_rel_ret", M.NumRet(rel=2)),
        ("ndcg_cut.10", "ndcg_cut_10", M.nDCG @ 10),  # -l never applies to nDCG
    ]


GAINS = {0: 0, 1: 1, 2: 3, 3: 7, 4: 15}


def pairs_gains() -> list[tuple[str, str, object]]:
    raw = ",".join(f"{k}={v}" for k, v in GAINS.items())
    return [(f"ndcg.{raw}", f"ndcg_{raw}", M.nDCG(gains=GAINS)),
            ("set_F.0.5", "set_F_0.5", M.SetF(beta=0.5))]


def args_of(pairs) -> list[str]:
    out: list[str] = []
    for arg in dict.fromkeys(a for a, _, _ in pairs):
        out += ["-m", arg]
    return out


def fmt(col: str, v: float) -> str:
    if col.startswith("num_"):
        return str(int(round(v)))
    return f"{v:6.4f}"


def per_query(measures, qrels, run) -> dict[tuple[object, str], float]:
    return {(m.measure, m.query_id): m.value for m in ir_measures.iter_calc(measures, qrels, run)}


def compare_per_query(pairs, ours: dict, theirs: dict, qids: list[str]) -> list[str]:
    bad = []
    for _, col, meas in pairs:
        for q in qids:
            want = fmt(col, theirs[(meas, q)])
            got = ours.get((col, q))
            if got != want:
                bad.append(f"{col} q={q}: zelo_trec {got!r} ir-measures {want!r}")
    return bad


def common_qids(qrels: dict, run: dict) -> list[str]:
    return sorted(set(qrels) & set(run))


# ---------------------------------------------------------------- tests
def test_generated_collection_is_awkward(files):
    _, qrels, run, _ = files
    assert set(qrels) - set(run), "some qrels topics must be missing from the run"
    assert set(run) - set(qrels), "some run topics must be absent from the qrels"
    assert any(g < 0 for docs in qrels.values() for g in docs.values())
    assert any(all(g < 1 for g in docs.values()) for docs in qrels.values())
    f32 = [np.float32(s) for docs in run.values() for s in docs.values()]
    assert len(set(f32)) < len(set(s for docs in run.values() for s in docs.values()))


@pytest.mark.parametrize("which", ["level1", "level2", "gains"])
def test_per_query_equals_ir_measures(files, which):
    d, qrels, run, _ = files
    pairs = {"level1": pairs_level1, "level2": pairs_level2, "gains": pairs_gains}[which]()
    level = ["-l2"] if which == "level2" else []
    p = zelo("--trec-eval-9", "-q", *level, *args_of(pairs), str(d / "qrels"), str(d / "run"))
    assert p.returncode == 0, p.stderr
    ours = table(p.stdout)
    theirs = per_query([m for _, _, m in pairs], qrels, run)
    qids = common_qids(qrels, run)
    bad = compare_per_query(pairs, ours, theirs, qids)
    assert not bad, f"{len(bad)} mismatches, e.g.\n" + "\n".join(bad[:15])
    # --trec-eval-9 prints no row for a topic the run lacks (9.x semantics)
    assert not {q for (_, q) in ours} - set(qids) - {"all"}


def test_complete_summary_equals_ir_measures_aggregate(files):
    d, qrels, run, _ = files
    # (num_rel: ir-measures gives 0 to a missing topic, trec_eval -c its qrels count)
    pairs = [x for x in pairs_level1() if x[1] not in ("num_rel", "num_ret", "num_rel_ret")]
    p = zelo("--trec-eval-9", "-c", "-m", "num_q", *args_of(pairs), str(d / "qrels"), str(d / "run"))
    assert p.returncode == 0, p.stderr
    ours = table(p.stdout)
    agg = ir_measures.calc_aggregate([m for _, _, m in pairs], qrels, run)
    bad = [f"{col}: {ours.get((col, 'all'))} vs {agg[m]:6.4f}" for _, col, m in pairs
           if abs(float(ours[(col, "all")]) - agg[m]) > 5e-5 + 1e-12]
    assert not bad, "\n".join(bad[:15])
    assert ours[("num_q", "all")] == str(len(qrels))


def test_judged_equals_ir_measures(files):
    d, qrels, _, untied = files
    cuts = (1, 5, 10, 50)
    p = zelo("--trec-eval-9", "-q", "-m", "judged." + ",".join(map(str, cuts)),
             str(d / "qrels"), str(d / "untied"))
    assert p.returncode == 0, p.stderr
    ours = table(p.stdout)
    theirs = per_query([M.Judged @ k for k in cuts] + [M.Judged], qrels, untied)
    qids = common_qids(qrels, untied)
    bad = [f"judged_{k} q={q}: {ours[(f'judged_{k}', q)]} vs {theirs[(M.Judged @ k, q)]:6.4f}"
           for k in cuts for q in qids if ours[(f"judged_{k}", q)] != f"{theirs[(M.Judged @ k, q)]:6.4f}"]
    assert not bad, "\n".join(bad[:15])
    p = zelo("--trec-eval-9", "-q", "-m", "Judged", str(d / "qrels"), str(d / "untied"))
    whole = table(p.stdout)
    assert all(whole[("Judged", q)] == f"{theirs[(M.Judged, q)]:6.4f}" for q in qids)


# ---------------------------------------------------- ir-measures names
IRM_VS_TREC = [  # (ir-measures name, -, trec name, trec options, trec column)
    ("nDCG@10", [], "ndcg_cut.10", [], "ndcg_cut_10"),
    ("P(rel=2)@5", [], "P.5", ["-l2"], "P_5"),
    ("AP", [], "map", [], "map"),
    ("AP(rel=2)", [], "map", ["-l2"], "map"),
    ("R@100", [], "recall.100", [], "recall_100"),
    ("RR", [], "recip_rank", [], "recip_rank"),
    ("RBP(p=0.8)", [], "rbp.p=0.8", [], "rbp_p=0.8"),
    ("Judged@10", [], "judged.10", [], "judged_10"),
    ("nDCG", [], "ndcg", [], "ndcg"),
    ("SetF(beta=0.5)", [], "set_F.0.5", [], "set_F_0.5"),
]


@pytest.fixture(scope="module")
def name_outputs(files):
    """One zelo_trec call with every ir-measures name, one per trec option set."""
    d = files[0]
    paths = (str(d / "qrels"), str(d / "run"))
    irm = zelo("-q", *[a for c in IRM_VS_TREC for a in ("-m", c[0])], *paths)
    assert irm.returncode == 0, irm.stderr
    out = {"irm": table(irm.stdout)}
    for opts in {tuple(c[3]) for c in IRM_VS_TREC}:
        p = zelo("-q", *opts, *[a for c in IRM_VS_TREC if tuple(c[3]) == opts for a in ("-m", c[2])], *paths)
        assert p.returncode == 0, p.stderr
        out[opts] = table(p.stdout)
    return out


@pytest.mark.parametrize("irm,irm_opts,trec,trec_opts,col", IRM_VS_TREC)
def test_ir_measures_names_give_trec_values(name_outputs, irm, irm_opts, trec, trec_opts, col):
    va = {q: v for (n, q), v in name_outputs["irm"].items() if n == irm}
    vb = {q: v for (n, q), v in name_outputs[tuple(trec_opts)].items() if n == col}
    assert va and va == vb
    assert len(set(vb.values())) > 1  # not a degenerate all-equal column


@pytest.mark.parametrize("bad,hint", [("nDGC@10", "nDCG"), ("ndgc_cut.10", "ndcg_cut"),
                                      ("mapp", "map"), ("Judgd@10", "Judged")])
def test_unknown_measure_exit_2_with_close_matches(files, bad, hint):
    d = files[0]
    p = zelo("-m", bad, str(d / "qrels"), str(d / "run"))
    assert p.returncode == 2
    assert p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("zelo_trec: ")
    assert "did you mean" in lines[0] and hint in lines[0]
    assert "Traceback" not in p.stderr

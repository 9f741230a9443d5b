#!/usr/bin/env python3
"""Prove that every command writes the same bytes at two commits.

    python tools/compare_outputs.py 0a492bf            # that commit against HEAD
    python tools/compare_outputs.py OLD NEW [--keep DIR]

Each commit is exported with ``git archive`` into a scratch directory (so the
working tree is not touched and uncommitted changes are not included) and
every step of ``STEPS`` -- a command line of a shipped command on the data
shipped in the repository (``qrels/``, ``runs/``, ``judgments/``,
``tests/data/``) -- is run there through that checkout's ``bin/`` scripts, one
after the other in one working directory per checkout (later steps read what
earlier ones wrote, e.g. ``pref_aggregate`` the JSON lines of ``zelo_eval
-q``). Then stdout, stderr, the exit status and every file a step wrote are
compared byte for byte (the checkout's own directory, which some outputs
name, is replaced by ``$R`` in both). Both checkouts run in pure Python
(``PREF_EVAL_PURE_PYTHON=1``, no compiled scanner; the scanner's equality
with the pure-Python reader is tested in ``tests/test_jsonl_scanner.py``).

Exit status 0 when everything is identical; 1 with one line per difference.
Plots are not compared (matplotlib embeds its version and drawing order).
"""
from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

Q = "$R/qrels/dl19-sample.qrels"
RUNS = "$R/runs/bm25.run $R/runs/dense.run $R/runs/rerank.run"
TE = "$R/tests/data/trec_eval_generated"
TP = "$R/tests/data/trec_prefs_generated"
ZB = "$R/tests/data/zelo/zbench"
JUDGE = "$R/judgments/dl19-sample.judge"

# (name, command line); $R is the checkout's root. Outputs go to the current directory.
STEPS: list[tuple[str, str]] = [
    ("trec_official", f"zelo_trec -q -m official {Q} $R/runs/rerank.run"),
    ("trec_all_c", f"zelo_trec -q -c -m all_trec {Q} $R/runs/bm25.run"),
    ("trec_J_l2", f"zelo_trec -J -l2 -m official -m ndcg_cut.10 {Q} $R/runs/dense.run"),
    ("trec_M_9", f"zelo_trec --trec-eval-9 -M 50 -m all_trec {Q} $R/runs/rerank.run"),
    ("trec_Z", f"zelo_trec -q -m official -Z {TE}/zscores.gen {TE}/qrels.gen {TE}/run.ties"),
    ("trec_prefs", f"zelo_trec -q -m all_prefs -R prefs {TP}/case1.prefs {TP}/case1.run"),
    ("trec_qrels_prefs", f"zelo_trec -m all_prefs -R qrels_prefs {TP}/case3.qrels {TP}/case3.run"),
    ("trec_qrels_jg", f"zelo_trec -q -m qrels_jg -l2 -J -R qrels_jg {TP}/case4.qrels {TP}/case4.run"),
    ("trec_bad", f"zelo_trec -m official {Q} $R/qrels/dl19-sample.qrels"),
    ("eval_trec", f"zelo_eval -R {Q} -m map -m ndcg_cut.10 {RUNS}"),
    ("eval_tsv_q", f"zelo_eval -R {Q} -o tsv -q -m map -m ndcg_cut.10 -m P.10 {RUNS} --output pq.tsv"),
    ("eval_csv_q", f"zelo_eval -R {Q} -o csv -q -m map -m P.10 {RUNS}"),
    ("eval_jsonl", f"zelo_eval -R {Q} -o jsonl -m official {RUNS}"),
    ("eval_prefs", f"zelo_eval -R {Q} -M preferences {RUNS}"),
    ("eval_prefs_b", f"zelo_eval -R {Q} -M preferences -b 1 {RUNS}"),
    ("eval_prefs_q", f"zelo_eval -R {Q} -q {RUNS} --output prefs.jsonl"),
    ("eval_prefs_tsv", f"zelo_eval -R {Q} -o tsv -q -m rpp -m p@10 {RUNS}"),
    ("eval_reference", f"zelo_eval -R {Q} -m rpp -m lexiprecision -m nDCG@10 --reference rerank.run {RUNS}"),
    ("eval_samples", f"zelo_eval -R {Q} -M all --samples 5 --query_fraction 0.5 --seed 1 {RUNS}"),
    ("agg_default", "pref_aggregate -P prefs.jsonl"),
    ("agg_q_steps", "pref_aggregate -P prefs.jsonl -q -m rpp -m lexiprecision -m ap --mc4-steps 10"),
    ("agg_markdown", "pref_aggregate -P prefs.jsonl -o markdown -m rpp -m ndcg"),
    ("agg_stats", "pref_aggregate -P $R/tests/data/stats/aggregate.jsonl -o tsv"),
    ("fit", f"zelo_fit -J {JUDGE} -o zelo.tsv --qrels zelo.qrels --grades 0,1,2,3 -Q"),
    ("fit_elo", f"zelo_fit -J {JUDGE} --scale elo"),
    ("fit_mle", f"zelo_fit -J {JUDGE} --prior 0 --diagnostics diag.tsv -o mle.tsv -Q"),
    ("fit_weights", f"zelo_fit -J {JUDGE} --weights agreement --weight-power 0.5 -Q"),
    ("fit_crowd", "zelo_fit -J $R/judgments/dl21-crowd-sample.txt -Q"),
    ("fit_human", "zelo_fit -J $R/judgments/dl21-gpt4o-sample.human -Q"),
    ("fit_zbench", f"zelo_fit -J {ZB}/case_small/ai_scores.json.gz --dataset {ZB}/case_small/dataset.jsonl "
                   "--output-format zbench -Q"),
    ("eval_zelo_qrels", f"zelo_eval -R zelo.qrels -o tsv -m ndcg_cut.10 {RUNS}"),
    ("eval_zelo_scores", f"zelo_eval -R zelo.tsv -o tsv -q -m zndcg@10 -m zacc -m zrecall@5,3 {RUNS}"),
    ("pairs_run", "zelo_pairs cycles --run $R/runs/bm25.run --depth 20 --no-duplicates --seed 1 "
                  "--output-format tsv -Q"),
    ("pairs_dataset", f"zelo_pairs cycles --dataset {ZB}/case_main/dataset.jsonl --cycles 4 --seed 1 -o pairs.jsonl"),
    ("pairs_zbench", f"zelo_pairs cycles --dataset {ZB}/case_small/dataset.jsonl --limit 3 --compat zbench --seed 7"),
    ("pairs_init", f"zelo_pairs init --state s.json --qrels {Q} --k 5 --seed 0 --final-phase --force"),
    ("pairs_next", "zelo_pairs next --state s.json"),
    ("pairs_result", f"zelo_pairs result --state s.json --qrels {Q}"),
    ("simulate_tournament", "zelo_simulate tournament --matrix $R/tests/data/compare_outputs/m3.txt --reps 50 "
                            "--k 1 --p 7 --f 9 --seed 1 --final-phase -Q"),
    ("simulate_recovery", "zelo_simulate recovery --K 10,20 --sigma 1.5 --cycles 2,4 --trials 3 --seed 0 -Q"),
    ("simulate_adaptive", "zelo_simulate recovery --K 20 --sigma 1.5 --cycles 4 --trials 4 --seed 0 "
                          "--strategy adaptive -Q"),
    ("fit_weight_power", "zelo_fit -J $R/tests/data/compare_outputs/weighted.jsonl --weight-power 1.5 -Q"),
    ("compare_R", f"zelo_compare -R {Q} -m map -m ndcg_cut.10 {RUNS}"),
    ("compare_P", "zelo_compare -P pq.tsv --tests t,randomization"),
    ("compare_jsonl", "zelo_compare -P pq.tsv -m ndcg_cut_10 -o jsonl"),
    ("compare_markdown", "zelo_compare -P pq.tsv -o markdown"),
    ("compare_latex", "zelo_compare -P pq.tsv -o latex --correction holm"),
    ("compare_csv", "zelo_compare -P $R/tests/data/stats/perquery.csv -o csv"),
    ("compare_prefs", "zelo_compare -P $R/tests/data/stats/perquery_prefs.tsv"),
    ("compare_orderings", "zelo_compare --orderings $R/tests/data/stats/order_a.tsv $R/tests/data/stats/order_b.txt"),
    ("group_trec", f"zelo trec -m map {Q} $R/runs/bm25.run"),
    ("version", "zelo_eval --version"),
]

M3 = "0.5 0.75 0.75\n0.25 0.5 0.5\n0.25 0.5 0.5\n"


def weighted_judgments() -> str:
    """300 JSON-lines judgments over 3 queries x 20 documents with given weights of 100 different values."""
    lines = []
    for k in range(300):
        a, b = (7 * k) % 20, (11 * k + 3) % 20
        if a != b:
            lines.append(f'{{"qid": "q{k % 3}", "doc_a": "d{a}", "doc_b": "d{b}", "score": {(k % 4) / 3!r}, '
                         f'"weight": {0.1 + (37 * k % 100) / 33!r}}}\n')
    return "".join(lines)


def export(rev: str, dest: Path) -> Path:
    """``git archive rev`` into ``dest`` (plus the small matrix file the simulate step reads and the weighted
    judgments of the ``--weight-power`` step)."""
    dest.mkdir(parents=True)
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev], check=True,
                         capture_output=True).stdout
    tmp = dest.with_suffix(".tar")
    tmp.write_bytes(tar)
    with tarfile.open(tmp) as tf:
        tf.extractall(dest, filter="data")
    tmp.unlink()
    (dest / "tests" / "data" / "compare_outputs").mkdir(parents=True, exist_ok=True)
    (dest / "tests" / "data" / "compare_outputs" / "m3.txt").write_text(M3)
    (dest / "tests" / "data" / "compare_outputs" / "weighted.jsonl").write_text(weighted_judgments())
    return dest


def run_all(root: Path, work: Path) -> dict[str, dict[str, bytes]]:
    """Run every step in ``work``; {step: {'stdout', 'stderr', 'status', 'file:NAME' ...}}."""
    work.mkdir(parents=True)
    env = dict(os.environ, PATH=f"{root / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
               PREF_EVAL_PURE_PYTHON="1", PYTHONHASHSEED="0", R=str(root))
    env.pop("PYTHONPATH", None)
    results: dict[str, dict[str, bytes]] = {}
    for name, line in STEPS:
        before = {p.name: p.stat().st_mtime_ns for p in work.iterdir()}
        argv = shlex.split(line.replace("$R", str(root)))
        p = subprocess.run(argv, cwd=work, env=env, capture_output=True, timeout=600)
        here = str(root).encode()  # outputs that name an input file name it under its checkout: written as $R
        res = {"stdout": p.stdout.replace(here, b"$R"), "stderr": p.stderr.replace(here, b"$R"),
               "status": str(p.returncode).encode()}
        for f in sorted(work.iterdir()):
            if before.get(f.name) != f.stat().st_mtime_ns:
                res["file:" + f.name] = f.read_bytes().replace(here, b"$R")
        results[name] = res
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", help="commit (or any git revision) before the change")
    ap.add_argument("new", nargs="?", default="HEAD", help="revision after the change (default HEAD)")
    ap.add_argument("--keep", metavar="DIR", help="leave the checkouts and outputs in DIR")
    args = ap.parse_args(argv)
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="pref_eval-cmp-"))
    out = {}
    for tag, rev in (("old", args.old), ("new", args.new)):
        root = export(rev, base / tag / "src")
        out[tag] = run_all(root, base / tag / "work")
    diffs = []
    for name, _ in STEPS:
        a, b = out["old"][name], out["new"][name]
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                diffs.append(f"{name}: {key} differs ({len(a.get(key, b''))} vs {len(b.get(key, b''))} bytes)")
    n_out = sum(len(r) for r in out["new"].values())
    failing = [n for n, _ in STEPS if out["new"][n]["status"] not in (b"0", b"2")]
    for d in diffs:
        print(d)
    print(f"{len(STEPS)} steps, {n_out} outputs compared (stdout, stderr, status, files): "
          f"{'identical' if not diffs else f'{len(diffs)} differences'}"
          + (f"; unexpected exit status in {', '.join(failing)}" if failing else ""))
    if not args.keep:
        import shutil

        shutil.rmtree(base, ignore_errors=True)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())

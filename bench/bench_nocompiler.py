"""What an install without a C compiler costs: the same commands with and without the optional compiled parts.

    python bench/bench_nocompiler.py --with VENV_A --without VENV_B [--repeat 3] [--out FILE]

VENV_A and VENV_B are two virtual environments holding this checkout installed by ``pip install .``: VENV_A where a
C compiler worked (both extensions built: ``pref_eval._jsonl``, ``pref_eval._kernels``), VENV_B without one
(session 30 made it with ``CC=/bin/false pip install '.[test]'``: setup.py's extensions are optional, the build
goes on without them). The script checks each venv has (or lacks) them, then runs every command with each venv's
console scripts on the same generated inputs, the outputs compared byte for byte (the README's promise: the same
results), and prints a Markdown table of CPU time (user + system of the whole process, best of ``--repeat``) and
peak memory. CPU time, not wall time: the machine may be shared.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import ROOT, load, machine  # noqa: E402


def _measured(argv: list[str], out: str) -> tuple[float, float, str]:
    """(CPU seconds, peak MB, sha256 of standard output) of one process."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t, open(out, "wb") as fh:
        p = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", t.name, *argv], stdout=fh,
                           stderr=subprocess.PIPE, cwd=ROOT)
        if p.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed ({p.returncode}): {p.stderr.decode(errors='replace')[-800:]}")
        user, system, peak = t.read().split()[-3:]
    with open(out, "rb") as fh:
        digest = hashlib.sha256(fh.read()).hexdigest()
    return float(user) + float(system), float(peak) / 1024.0, digest


def _compiled(venv: str) -> tuple[bool, bool]:
    code = ("import importlib.util as u; print(u.find_spec('pref_eval._jsonl') is not None, "
            "u.find_spec('pref_eval._kernels') is not None)")
    got = subprocess.run([os.path.join(venv, "bin", "python"), "-c", code], capture_output=True, text=True,
                         cwd="/", check=True).stdout.split()
    return got[0] == "True", got[1] == "True"


def _inputs(folder: str) -> dict[str, str]:
    """Generated inputs (deterministic): a 2,000 x 500 run with its qrels, three 1,000 x 100 runs with the first's
    qrels, 200 queries of judgments."""
    py = sys.executable
    subprocess.run([py, os.path.join(ROOT, "bench", "gen_runs.py"), "--queries", "2000", "--depth", "500", "--out",
                    os.path.join(folder, "runs")], check=True, cwd=ROOT)
    for seed in (1, 2, 3):  # three runs of 1,000 queries x 100 (their qids the same) for preference mode
        subprocess.run([py, os.path.join(ROOT, "bench", "gen_runs.py"), "--queries", "1000", "--depth", "100",
                        "--seed", str(seed), "--out", os.path.join(folder, f"pref{seed}")], check=True, cwd=ROOT)
    subprocess.run([py, os.path.join(ROOT, "bench", "gen_judgments.py"), "200", os.path.join(folder, "j.jsonl")],
                   check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return {"run": os.path.join(folder, "runs", "run"), "qrels": os.path.join(folder, "runs", "qrels"),
            "judgments": os.path.join(folder, "j.jsonl"), "pref_qrels": os.path.join(folder, "pref1", "qrels"),
            "pref_runs": " ".join(os.path.join(folder, f"pref{s}", "run") for s in (1, 2, 3))}


def _commands(inp: dict[str, str], folder: str) -> list[tuple[str, list[str]]]:
    qrels, run = inp["qrels"], inp["run"]
    prefs = os.path.join(folder, "prefs.jsonl")
    return [
        ("`zelo_trec -m all_trec` (2,000 x 500 run: the run-file reader)", ["zelo_trec", "-m", "all_trec", qrels, run]),
        ("`zelo_fit` (200 queries of judgments: scanner, Bradley-Terry kernels)", ["zelo_fit", "-J", inp["judgments"]]),
        ("`zelo_eval -q` preference mode (3 runs of 1,000 queries x 100: preference sums, JSON-lines writer)",
         ["zelo_eval", "-R", inp["pref_qrels"], "-q", *inp["pref_runs"].split()]),
        ("`pref_aggregate` (the line above's file: the scanner)", ["pref_aggregate", "-P", prefs]),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--with", dest="compiled", required=True, help="venv installed with a working C compiler")
    ap.add_argument("--without", required=True, help="venv installed without one")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", help="also write the table to this file")
    a = ap.parse_args()
    if _compiled(a.compiled) != (True, True) or _compiled(a.without) != (False, False):
        raise SystemExit(f"expected both extensions in {a.compiled} ({_compiled(a.compiled)}) and none in "
                         f"{a.without} ({_compiled(a.without)})")
    rows = []
    start = load()
    with tempfile.TemporaryDirectory(prefix="bench_nocc_") as folder:
        inp = _inputs(folder)
        for label, argv in _commands(inp, folder):
            got = {}
            for venv in (a.compiled, a.without):
                exe = [os.path.join(venv, "bin", argv[0]), *argv[1:]]
                out = os.path.join(folder, "out")
                times = [_measured(exe, out) for _ in range(a.repeat)]
                got[venv] = (min(t[0] for t in times), max(t[1] for t in times), {t[2] for t in times})
                if argv[0] == "zelo_eval":  # (pref_aggregate's input: zelo_eval -q's output, the same from both)
                    os.replace(out, os.path.join(folder, "prefs.jsonl"))
            (cpu_a, mem_a, dig_a), (cpu_b, mem_b, dig_b) = got[a.compiled], got[a.without]
            if len(dig_a | dig_b) != 1:
                raise SystemExit(f"{label}: the outputs differ with and without the compiled parts")
            rows.append(f"| {label} | {cpu_a:.2f} s | {cpu_b:.2f} s | {cpu_b / cpu_a:.1f}x | {mem_a:.0f} / "
                        f"{mem_b:.0f} MB | same bytes |")
    table = "\n".join([
        "| command | CPU, compiled parts | CPU, no C compiler | slower | peak memory | output |",
        "|---|---|---|---|---|---|", *rows, "",
        f"CPU = user + system time of the whole process, best of {a.repeat}; {machine()}; {start} at the start, "
        f"{load()} at the end (`python bench/bench_nocompiler.py --with VENV_A --without VENV_B --repeat "
        f"{a.repeat}`)."])
    print(table)
    if a.out:
        with open(a.out, "w") as fh:
            fh.write(table + "\n")


if __name__ == "__main__":
    main()

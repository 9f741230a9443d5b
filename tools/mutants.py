"""Mutation testing of a few modules: one token changed at a time, the given tests run on each mutant.

    python tools/mutants.py gen --root TREE --out MUTANTS.json FILE[:FIRST-LAST] ...
    python tools/mutants.py run --root TREE --mutants MUTANTS.json --out RESULTS.jsonl \
        [--skip DONE.json ...] [--ids 3,7,...] [--timeout S] -- PYTEST-ARGS...
    python tools/mutants.py tally RESULTS.jsonl ...

``gen`` lists the mutants of FILE (a path under TREE; ``:FIRST-LAST`` keeps the lines FIRST..LAST): the operators
sessions 29-37 used (m29, m33, m36, c37) -- comparisons flipped by one step (``<`` / ``<=``, ``==`` / ``!=``),
arithmetic ``+ - * /`` swapped, ``and`` / ``or``, ``True`` / ``False``, ``in`` / ``not in``, ``is`` / ``is not``,
``any`` / ``all``, ``min`` / ``max`` and their numpy kin, ``floor`` / ``ceil``, an integer n to n + 1, n - 1 (or 2)
and 0 (or 1), a float to twice itself and 0; never in a ``raise``, an import, an assert, a type annotation or a
``log.warn`` line; a mutant that does not compile is dropped.

``run`` writes each mutant into TREE (a scratch copy of the repository with its C extensions built in place: never
the checkout you work in), runs ``pytest PYTEST-ARGS`` (``-x -q -p no:cacheprovider -m 'not slow'`` first) in a
forked child of a process that imported numpy, pandas, scipy.stats, click and pytest once, and puts the file back;
one JSON line per mutant (killed: pytest's status 1; survived: 0; timeout; or another status) appended to RESULTS,
so a run stopped and started again goes on where it was. ``--skip`` leaves out the mutants of an earlier list (the
same file, line text, column and change: mutants already run on an older version of the file). ``tally`` counts the
results by file and status. The run is slow (one pytest session per mutant): run it niced on a shared machine.
"""
from __future__ import annotations

import argparse
import ast
import io
import json
import os
import signal
import sys
import time
import tokenize
from collections import Counter

SWAP = {"<": ["<="], "<=": ["<"], ">": [">="], ">=": [">"], "==": ["!="], "!=": ["=="],
        "+": ["-"], "-": ["+"], "*": ["/"], "/": ["*"], "//": ["/"], "+=": ["-="], "-=": ["+="],
        "and": ["or"], "or": ["and"], "True": ["False"], "False": ["True"],
        "log2": ["log"], "log": ["log2"], "maximum": ["minimum"], "minimum": ["maximum"],
        "max": ["min"], "min": ["max"], "floor": ["ceil"], "ceil": ["floor"], "cumsum": ["cumprod"],
        "cumprod": ["cumsum"], "is": ["is not"], "in": ["not in"], "&": ["|"], "|": ["&"],
        "argmax": ["argmin"], "argmin": ["argmax"], "any": ["all"], "all": ["any"]}
STR_SWAP = {'"left"': ['"right"'], '"right"': ['"left"']}
LOGGERS = ("log", "logger", "LOG")
LOG_CALLS = ("warn", "info", "debug", "log", "warning")


def _skipped(src: str) -> tuple[set[int], list[ast.AST]]:
    """Lines never mutated (raise, import, assert, log calls) and the annotations' spans."""
    skip: set[int] = set()
    spans: list[ast.AST] = []
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, (ast.Raise, ast.Import, ast.ImportFrom, ast.Assert)):
            skip.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args.args + node.args.kwonlyargs + node.args.posonlyargs
            spans += [a.annotation for a in args if a.annotation is not None]
            if node.returns is not None:
                spans.append(node.returns)
        if isinstance(node, ast.AnnAssign):
            spans.append(node.annotation)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in LOG_CALLS \
                and isinstance(node.func.value, ast.Name) and node.func.value.id in LOGGERS:
            skip.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return skip, spans


def _in_span(spans: list, line: int, col: int) -> bool:
    return any((n.lineno, n.col_offset) <= (line, col) < (n.end_lineno, n.end_col_offset) for n in spans)


def _changes(t: tokenize.TokenInfo, prev: tokenize.TokenInfo | None) -> list[str]:
    if t.type == tokenize.OP and t.string in SWAP:
        if t.string in ("*", "-") and prev is not None and prev.string in ("(", ",", "=", "[", ":"):
            return []  # a starred argument or a unary minus
        return SWAP[t.string]
    if t.type == tokenize.NAME and t.string in SWAP:
        return [] if t.string == "in" and prev is not None and prev.string == "not" else SWAP[t.string]
    if t.type == tokenize.STRING:
        return STR_SWAP.get(t.string, [])
    if t.type == tokenize.NUMBER:
        try:
            v = ast.literal_eval(t.string)
        except (ValueError, SyntaxError):
            return []
        if isinstance(v, int) and not isinstance(v, bool):
            return sorted({str(v + 1), "0" if v != 0 else "1", str(v - 1) if v > 0 else "2"} - {t.string})
        if isinstance(v, float):
            return [repr(v * 2) if v != 0 else "1.0", "0.0" if v != 0 else "-1.0"]
    return []


def apply(src: str, m: dict) -> str:
    """The source with mutant ``m`` applied (its token checked to be where it was listed)."""
    lines = src.splitlines(keepends=True)
    ln, c = lines[m["line"] - 1], m["col"]
    if ln[c:c + len(m["old"])] != m["old"]:
        raise SystemExit(f"{m['file']}:{m['line']}: {m['old']!r} is not at column {c}: the file changed")
    lines[m["line"] - 1] = ln[:c] + m["new"] + ln[c + len(m["old"]):]
    return "".join(lines)


def generate(root: str, specs: list[str]) -> list[dict]:
    out: list[dict] = []
    for spec in specs:
        name, _, lines = spec.partition(":")
        first, _, last = lines.partition("-")
        lo, hi = int(first or 1), int(last or first or 10**9)
        with open(os.path.join(root, name), encoding="utf-8") as fh:
            src = fh.read()
        skip, spans = _skipped(src)
        text = src.splitlines()
        prev = None
        for t in tokenize.generate_tokens(io.StringIO(src).readline):
            line, col = t.start
            if lo <= line <= hi and line not in skip and not _in_span(spans, line, col):
                for new in _changes(t, prev):
                    m = {"file": name, "line": line, "col": col, "old": t.string, "new": new,
                         "text": text[line - 1].strip()[:120]}
                    try:
                        compile(apply(src, m), name, "exec")
                    except SyntaxError:
                        continue
                    out.append(m)
            prev = t
    for i, m in enumerate(out):
        m["id"] = i
    return out


def _key(m: dict) -> tuple:
    return m["file"], m["text"], m["col"], m["old"], m["new"]


def _one(root: str, m: dict, pytest_args: list[str], timeout: float, log: str) -> dict:
    import pytest

    path = os.path.join(root, m["file"])
    with open(path, encoding="utf-8") as fh:
        orig = fh.read()
    t0 = time.time()
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(apply(orig, m))
    try:
        pid = os.fork()
        if pid == 0:  # the child: a fresh pytest session imports the mutated package
            fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.setpgid(0, 0)
            try:
                os._exit(int(pytest.main(["-x", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-m", "not slow",
                                          *pytest_args])))
            except BaseException:
                os._exit(99)
        rc: int | str | None = None
        try:
            while rc is None and time.time() - t0 < timeout:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    rc = os.waitstatus_to_exitcode(status)
                else:
                    time.sleep(0.05)
        finally:
            if rc is None:  # the time is up, or this run is stopped (SIGTERM, Ctrl-C): the child's pytest too
                os.killpg(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                rc = "timeout"
    finally:  # the file as it was, whatever happened
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(orig)
    with open(log, errors="replace") as fh:
        tail = fh.read().strip().splitlines()[-1:]
    status = {0: "survived", 1: "killed", "timeout": "timeout"}.get(rc, f"rc{rc}")
    return {"id": m["id"], "status": status, "secs": round(time.time() - t0, 1), "tail": tail,
            **{k: m[k] for k in ("file", "line", "col", "old", "new", "text")}}


def run(a: argparse.Namespace) -> None:
    root = os.path.abspath(a.root)
    a.out = os.path.abspath(a.out)  # the run works in ``root``
    with open(a.mutants, encoding="utf-8") as fh:
        muts = json.load(fh)
    skip: set[tuple] = set()
    for f in a.skip or []:
        with open(f, encoding="utf-8") as fh:
            skip |= {_key(m) for m in json.load(fh)}
    done: set[int] = set()
    if os.path.exists(a.out):
        with open(a.out, encoding="utf-8") as fh:
            done = {json.loads(x)["id"] for x in fh if x.strip()}
    ids = {int(x) for x in a.ids.split(",")} if a.ids else None
    todo = [m for m in muts if m["id"] not in done and _key(m) not in skip and (ids is None or m["id"] in ids)]
    os.chdir(root)
    sys.path.insert(0, root)
    os.environ.update(CI="true", PYTHONPATH=root, PYTHONDONTWRITEBYTECODE="1")
    import click  # noqa: F401  (imported once here, not in each child)
    import numpy  # noqa: F401
    import pandas  # noqa: F401
    import pytest  # noqa: F401
    import scipy.stats  # noqa: F401
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # ``kill PID``: the file put back before the end
    print(f"{len(todo)} mutants to run", file=sys.stderr)
    for m in todo:
        rec = _one(root, m, a.pytest_args, a.timeout, a.out + ".child.log")
        with open(a.out, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(rec) + "\n")
        print(json.dumps(rec), flush=True)


def tally(paths: list[str]) -> None:
    counts: Counter = Counter()
    last: dict[tuple, str] = {}
    for p in paths:  # a later file's result for the same mutant wins (a second stage against more tests)
        with open(p, encoding="utf-8") as fh:
            for x in fh:
                r = json.loads(x)
                last[(r["file"], r["id"])] = r["status"]
    for (f, _), s in last.items():
        counts[f, s] += 1
    for (f, s), n in sorted(counts.items()):
        print(f"{f}\t{s}\t{n}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--root", required=True)
    g.add_argument("--out", required=True)
    g.add_argument("files", nargs="+")
    r = sub.add_parser("run")
    r.add_argument("--root", required=True)
    r.add_argument("--mutants", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--skip", action="append")
    r.add_argument("--ids")
    r.add_argument("--timeout", type=float, default=600)
    r.add_argument("pytest_args", nargs="+")
    t = sub.add_parser("tally")
    t.add_argument("results", nargs="+")
    a = ap.parse_args(argv)
    if a.cmd == "gen":
        ms = generate(a.root, a.files)
        with open(a.out, "w", encoding="utf-8") as fh:
            json.dump(ms, fh)
        print(len(ms))
    elif a.cmd == "run":
        run(a)
    else:
        tally(a.results)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Shared helpers of the speed benchmarks: whole-process timing, peak memory, load, result files."""
from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "bin")


def run(argv: list[str], *, cwd: str = ROOT, stdout=subprocess.DEVNULL) -> tuple[float, float]:
    """(wall seconds, peak RSS MB) of one process ``argv`` (peak via wait4's rusage)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, cwd=cwd, stdout=stdout, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    err = p.stderr.read().decode(errors="replace") if p.stderr else ""
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({p.returncode}): {err[-2000:]}")
    return wall, ru.ru_maxrss / 1024.0


def best(argv: list[str], repeat: int, **kw) -> tuple[float, float]:
    """Best wall time of ``repeat`` runs and the largest peak memory."""
    walls, mems = zip(*(run(argv, **kw) for _ in range(repeat)), strict=True)
    return min(walls), max(mems)


def cmd(name: str, *args: str) -> list[str]:
    """A command of this checkout (bin/NAME) run by this interpreter."""
    return [sys.executable, os.path.join(BIN, name), *args]


def load() -> str:
    """The 1, 5 and 15 minute load averages and the core count, for the record."""
    a, b, c = os.getloadavg()
    return f"load average {a:.2f} {b:.2f} {c:.2f} on {os.cpu_count()} cores"


def write_result(name: str, title: str, text: str) -> str:
    """Write bench/RESULTS-NAME.md and put the table into README.md between its markers."""
    path = os.path.join(ROOT, "bench", f"RESULTS-{name}.md")
    with open(path, "w") as fh:
        fh.write(f"# {title}\n\n{text}\n")
    readme = os.path.join(ROOT, "README.md")
    with open(readme) as fh:
        doc = fh.read()
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    if begin in doc and end in doc:
        doc = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: f"{begin}\n{text}\n{end}", doc,
                     flags=re.S)
        with open(readme, "w") as fh:
            fh.write(doc)
    return path


_ = resource  # resource.getrusage is the fallback on systems without wait4's rusage

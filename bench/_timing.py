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


def run(argv: list[str], *, cwd: str = ROOT, stdout=subprocess.DEVNULL, env: dict | None = None) -> tuple[float, float]:
    """(wall seconds, peak RSS MB) of one process ``argv``.

    The peak comes from GNU time (``/usr/bin/time -f %M``), a small parent: a process forked
    straight from this script would inherit this script's own high-water mark.
    """
    import tempfile

    gnu_time = "/usr/bin/time"
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        wrapped = [gnu_time, "-f", "%M", "-o", rss.name, *argv] if os.path.exists(gnu_time) else argv
        t0 = time.perf_counter()
        p = subprocess.run(wrapped, cwd=cwd, stdout=stdout, stderr=subprocess.PIPE, env=env)
        wall = time.perf_counter() - t0
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed ({p.returncode}): {p.stderr.decode(errors='replace')[-2000:]}")
        text = rss.read().strip().splitlines()
    peak = float(text[-1]) / 1024.0 if text else resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
    return wall, peak


def best(argv: list[str], repeat: int, **kw) -> tuple[float, float]:
    """Best wall time of ``repeat`` runs and the largest peak memory."""
    walls, mems = zip(*(run(argv, **kw) for _ in range(repeat)), strict=True)
    return min(walls), max(mems)


def bytecode_env(folder: str) -> dict:
    """The caller's environment with cached bytecode: ``PYTHONDONTWRITEBYTECODE`` removed and
    ``PYTHONPYCACHEPREFIX`` set to ``folder``, so that after one untimed run the children load our
    modules from bytecode as an installed package does (a development shell with
    ``PYTHONDONTWRITEBYTECODE=1`` recompiles every module on each start)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = folder
    return env


def cmd(name: str, *args: str) -> list[str]:
    """A command of this checkout (bin/NAME) run by this interpreter."""
    return [sys.executable, os.path.join(BIN, name), *args]


def load() -> str:
    """The 1, 5 and 15 minute load averages and the core count, for the record."""
    a, b, c = os.getloadavg()
    return f"load average {a:.2f} {b:.2f} {c:.2f} on {os.cpu_count()} cores"


def machine() -> str:
    """The CPU model (``/proc/cpuinfo``), the core count and whether the CPU has AVX-512, for the record."""
    import platform

    model, flags = "", ""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and not model:
                    model = value.strip()
                elif key.strip() == "flags" and not flags:
                    flags = value
    except OSError:
        pass
    model = model or platform.processor() or platform.machine() or "unknown CPU"
    avx = ("with AVX-512" if "avx512f" in flags.split() else "no AVX-512") if flags else "AVX-512 unknown"
    return f"{model}, {os.cpu_count()} cores, {avx}"


def stamp(load0: str, load1: str, command: str) -> str:
    """The closing line of a README block: UTC date, machine, load at the start and end, the command."""
    day = time.strftime("%Y-%m-%d", time.gmtime())
    return f"Measured {day} (UTC) on {machine()}; {load0} at the start, {load1} at the end (`{command}`)."


def _between(doc: str, begin: str, end: str, text: str) -> str:
    return re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: f"{begin}\n{text}\n{end}", doc, flags=re.S)


def write_result(name: str, title: str, text: str, marker: str | None = None) -> str:
    """Put ``text`` into README.md between the markers ``<!-- MARKER:begin/end -->`` (``marker``
    defaults to ``name``) and into bench/RESULTS-NAME.md: between the same markers when that file
    has them (its earlier history is kept), else as the whole file."""
    marker = marker or name
    path = os.path.join(ROOT, "bench", f"RESULTS-{name}.md")
    begin, end = f"<!-- {marker}:begin -->", f"<!-- {marker}:end -->"
    old = ""
    if os.path.exists(path):
        with open(path) as fh:
            old = fh.read()
    with open(path, "w") as fh:
        fh.write(_between(old, begin, end, text) if begin in old and end in old else f"# {title}\n\n{text}\n")
    readme = os.path.join(ROOT, "README.md")
    with open(readme) as fh:
        doc = fh.read()
    if begin in doc and end in doc:
        with open(readme, "w") as fh:
            fh.write(_between(doc, begin, end, text))
    return path


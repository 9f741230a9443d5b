"""zelo_judge throughput against a local OpenAI-compatible server (tests/fake_openai.py).

    python bench/bench_judge.py [--pairs 100000] [--concurrency 64] [--write bench/RESULTS-judge.md]

The server runs in its own process on 127.0.0.1; zelo_judge runs in this process through
pref_eval.api.judge with one openai: judge. Reported: wall time, requests per second, the
time spent committing answers to the SQLite store (its overhead, as a share of the run), the
resident memory sampled every second while requests are sent, CPU seconds of both processes,
and the machine's load average (the machine may be shared). A second run of the same command
must be served entirely by the store.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


def cpu_of(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        f = fh.read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--docs-per-query", type=int, default=100)
    ap.add_argument("--write", default=None, help="write the Markdown result here")
    args = ap.parse_args()

    from pref_eval.api import judge
    from pref_eval.log import Log

    tmp = Path(tempfile.mkdtemp(prefix="bench_judge."))
    nd = args.docs_per_query
    nq = -(-args.pairs // nd)
    with open(tmp / "q.tsv", "w") as q, open(tmp / "d.tsv", "w") as d, open(tmp / "p.tsv", "w") as p:
        n = 0
        for qi in range(nq):
            q.write(f"q{qi}\tQID=q{qi} a benchmark query\n")
            for di in range(nd):
                d.write(f"q{qi}d{di}\tDOC=q{qi}d{di} a short passage of text about the query\n")
            for di in range(nd):
                if n < args.pairs:
                    p.write(f"q{qi}\tq{qi}d{di}\tq{qi}d{(di + 1) % nd}\n")
                    n += 1
    server = subprocess.Popen([sys.executable, str(ROOT / "tests" / "fake_openai.py"), "--port", "0"],
                              stdout=subprocess.PIPE, text=True)
    port = int(server.stdout.readline())
    url = f"http://127.0.0.1:{port}/v1"
    samples: list[tuple[float, float]] = []
    stop = threading.Event()

    def sampler():
        t0 = time.monotonic()
        while not stop.wait(1.0):
            samples.append((time.monotonic() - t0, rss_mb()))

    load0 = os.getloadavg()
    cpu_server0 = cpu_of(server.pid)
    ru0 = resource.getrusage(resource.RUSAGE_SELF)
    th = threading.Thread(target=sampler, daemon=True)
    th.start()
    t0 = time.monotonic()
    common = dict(queries=str(tmp / "q.tsv"), docs=str(tmp / "d.tsv"), judges=[f"openai:m0@{url}"],
                  store=str(tmp / "s.sqlite"), output=str(tmp / "out.jsonl"), concurrency=args.concurrency,
                  log=Log("zelo_judge", quiet=True))
    sess = judge(str(tmp / "p.tsv"), **common)
    wall = time.monotonic() - t0
    stop.set()
    ru1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu_client = ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime
    cpu_server = cpu_of(server.pid) - cpu_server0
    load1 = os.getloadavg()
    t1 = time.monotonic()
    again = judge(str(tmp / "p.tsv"), **{**common, "output": str(tmp / "again.jsonl")})
    wall_again = time.monotonic() - t1
    server.terminate()
    server.wait()
    st = sess.stats
    sending = [m for t, m in samples]
    n10 = max(1, len(sending) // 10)
    rows = [
        ("pairs (requests)", f"{args.pairs:,}"),
        ("concurrency", str(args.concurrency)),
        ("requests sent / failed", f"{st.sent:,} / {st.failed:,}"),
        ("wall time", f"{wall:.1f} s"),
        ("requests per second", f"{st.sent / wall:.0f}"),
        ("store: time committing answers",
         f"{st.store_seconds:.1f} s ({100 * st.store_seconds / wall:.1f} % of the run)"),
        ("store file size", f"{os.path.getsize(tmp / 's.sqlite') / 2 ** 20:.1f} MB"),
        ("RSS: first 10 % / last 10 % of the samples / max", f"{sum(sending[:n10]) / n10:.0f} / "
         f"{sum(sending[-n10:]) / n10:.0f} / {max(sending):.0f} MB"),
        ("CPU: zelo_judge / server", f"{cpu_client:.0f} s / {cpu_server:.0f} s"),
        ("CPU per request: zelo_judge / server", f"{1000 * cpu_client / max(st.sent, 1):.2f} ms / "
         f"{1000 * cpu_server / max(st.sent, 1):.2f} ms"),
        ("requests per second if each process had a core", f"{st.sent / max(cpu_client, cpu_server, 1e-9):.0f}"),
        ("load average before / after (1 min)", f"{load0[0]:.1f} / {load1[0]:.1f} on {os.cpu_count()} cores"),
        ("second run: sent / from the store / time",
         f"{again.stats.sent} / {again.stats.cached:,} / {wall_again:.1f} s"),
    ]
    text = ("| quantity | value |\n|---|---|\n" + "".join(f"| {a} | {b} |\n" for a, b in rows))
    sys.stdout.write(text)
    if args.write:
        Path(args.write).write_text(
            "# zelo_judge benchmark\n\nGenerated by `python bench/bench_judge.py "
            f"--pairs {args.pairs} --concurrency {args.concurrency} --write {args.write}` "
            f"({time.strftime('%Y-%m-%d')}). The server (tests/fake_openai.py) runs on the same machine and "
            "competes for its cores; the load average shows how busy the (shared) machine was.\n\n" + text)
    json.dump({"wall": wall, "sent": st.sent}, sys.stderr)
    sys.stderr.write("\n")


if __name__ == "__main__":
    main()

"""Run FILE NAMES that are not UTF-8 (a Latin-1 ``r\\xe9sum\\xe9.run``; Python's argv holds it as the surrogate
escape ``'r\\udce9sum\\udce9.run'``) in the commands that take run files (session 28, b38: tried, nothing mangled;
these are guards). trec_eval prints a run's tag, never its file name: so does ``zelo_trec`` (oracle: trec_eval 10
live, byte for byte, when /tmp/trec_eval is built); ``zelo_eval``, ``zelo_compare -R`` and ``zelo_agree -l system``
name a run by its path ([run ids](docs/run-ids.md); ``--run-id tag`` for the tag), written back as the file name's
bytes (text outputs) or ``\\udcNN`` (JSON lines). Oracle for the values: an ASCII twin of the files (``~e9`` for
each such byte), whose outputs with the bytes put back are these byte for byte."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cli_harness import run_module_inproc

ROOT = Path(__file__).resolve().parents[1]
TREC_EVAL = Path("/tmp/trec_eval/trec_eval")
NAMES = [b"bm25-r\xe9sum\xe9.run", b"d\xe9nse.run", b"rerank.run"]


def _twin(b: bytes) -> bytes:
    return b"".join(b"~%02x" % c if c >= 0x80 else bytes([c]) for c in b)


def _back(b: bytes) -> bytes:
    """:func:`_twin` undone: the byte in text, its ``\\udcNN`` escape (w36's rule) inside JSON strings."""
    if b.startswith(b"{"):
        return re.sub(rb"~([0-9a-f]{2})", lambda m: b"\\udc" + m.group(1), b)
    return re.sub(rb"~([0-9a-f]{2})", lambda m: bytes([int(m.group(1), 16)]), b)


def _arg(b: bytes) -> str:
    return b.decode("utf-8", "surrogateescape")  # what sys.argv holds for such a name


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("names")
    shutil.copy(ROOT / "qrels" / "dl19-sample.qrels", d / "q.qrels")
    for src, name in zip(("bm25", "dense", "rerank"), NAMES, strict=True):
        data = (ROOT / "runs" / f"{src}.run").read_bytes()
        (d / _arg(name)).write_bytes(data)
        (d / _arg(_twin(name))).write_bytes(data)
    return d


def _both(work: Path, module: str, args: list[str]) -> tuple[bytes, bytes]:
    """The command's stdout on the Latin-1 names and on their ASCII twins (the bytes put back)."""
    outs = []
    for f in (lambda b: b, _twin):
        argv = [_arg(f(a.encode("utf-8", "surrogateescape"))) if a.encode("utf-8", "surrogateescape") in NAMES
                else a for a in args]
        r = run_module_inproc(module, argv, work, text=False)
        assert r.returncode == 0, r.stderr
        outs.append(r.stdout)
    mine, twin = outs[0], _back(outs[1])
    if not mine.startswith(b"{"):  # a text table pads a column to its widest name: `~e9` is 3 columns, the byte 1
        mine, twin = re.sub(rb" +", b" ", mine), re.sub(rb" +", b" ", twin)
    return mine, twin


RUNS = [_arg(n) for n in NAMES]


@pytest.mark.parametrize("module,args", [
    ("eval", ["-R", "q.qrels", "-m", "map", "-m", "rpp", "-o", "tsv", "-q", *RUNS]),
    ("eval", ["-R", "q.qrels", "-m", "map", "-m", "P.5", "-o", "trec", *RUNS]),
    ("eval", ["-R", "q.qrels", "-m", "map", "-o", "pref", *RUNS[:2]]),
    ("compare", ["-R", "q.qrels", "-m", "map", "--baseline", RUNS[0], *RUNS]),
    ("compare", ["-R", "q.qrels", "-m", "map", "-o", "jsonl", *RUNS]),
], ids=["eval-tsv", "eval-trec", "eval-pref", "compare-text", "compare-jsonl"])
def test_run_file_names_kept_as_bytes(work, module, args):
    mine, twin = _both(work, module, args)
    assert mine == twin
    assert b"r\xe9sum\xe9" in mine or b"r\\udce9sum\\udce9" in mine


def test_zelo_trec_prints_the_tag_as_trec_eval(work):
    r = run_module_inproc("trec", ["-q", "q.qrels", RUNS[0]], work, text=False)
    assert r.returncode == 0, r.stderr
    assert b"runid                 \tall\tbm25\n" in r.stdout and b"\xe9" not in r.stdout
    if TREC_EVAL.is_file():
        assert r.stdout == subprocess.run([str(TREC_EVAL), "-q", "q.qrels", NAMES[0]], cwd=work, capture_output=True,
                                          check=True).stdout


@pytest.mark.slow  # zelo_agree's system level twice: ~6 s
def test_zelo_agree_system_level(tmp_path):
    """The runs of docs/zelo_agree.md's system-level example over the DL 2021 sample, under Latin-1 names."""
    import random

    work = tmp_path
    docs: dict[str, set[str]] = {}
    for j in ("dl21-crowd-sample.txt", "dl21-gpt4o-sample.human"):
        shutil.copy(ROOT / "judgments" / j, work / j)
    for line in (work / "dl21-crowd-sample.txt").read_text().splitlines():
        t, a, b, _w = line.split()
        docs.setdefault(t, set()).update([a, b])
    for s, name in enumerate(NAMES):
        rng = random.Random(s)
        lines = []
        for t in sorted(docs):
            ds = sorted(docs[t])
            rng.shuffle(ds)
            lines += [f"{t} Q0 {d} {r + 1} {100 - r} sys{s}\n" for r, d in enumerate(ds[:20])]
        for n in (name, _twin(name)):
            (work / _arg(n)).write_text("".join(lines))
    base = ["-J", "dl21-crowd-sample.txt", "-J", "dl21-gpt4o-sample.human", "-n", "crowd", "-n", "gpt4o", "-l",
            "system", "-m", "P.10", "--resamples", "20"]
    for fmt in ("text", "jsonl"):
        args = [*base, "-o", fmt]
        for r in RUNS:
            args += ["--runs", r]
        mine, twin = _both(work, "agree", args)
        assert mine == twin
        assert (b"mean:bm25-r\xe9sum\xe9.run" if fmt == "text" else b"mean:bm25-r\\udce9sum\\udce9.run") in mine

"""Judgment files whose ids are not UTF-8 (Latin-1 docnos of CLEF-style collections): the text formats take such
an id as its bytes, as the qrels and run readers do, and every output writes it back as the same bytes (session 25,
w35). Oracle: trec_eval 10 run live (/tmp/trec_eval) on the graded qrels ``zelo_fit --qrels`` writes and a
Latin-1 run, against ``zelo_trec`` on the same bytes; the ids each reader gives are the file's bytes (checked
byte for byte). The JSON formats stay UTF-8 (RFC 8259) with the message naming file:line."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pref_eval.errors import InputError
from pref_eval.io.judgments import parse_judgments

TREC_EVAL = Path("/tmp/trec_eval/trec_eval")
ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
DOCS = [b"d\xe9j\xe0", b"caf\xe9", b"na\xefve", b"plain", b"\xfcber"]  # Latin-1 bytes, invalid as UTF-8
TOPIC = b"t\xe9"


def _ids(j) -> set[bytes]:
    return {d.encode("utf-8", "surrogateescape") for q in j.queries for d in j.docs[q]}


def _clarke4() -> bytes:
    rows = [(DOCS[i], DOCS[k], DOCS[min(i, k)]) for i in range(5) for k in range(5) if i < k]
    return b"".join(TOPIC + b" " + a + b" " + b + b" " + w + b"\n" for a, b, w in rows)


FILES = {
    "clarke4": _clarke4(),
    "clarke3": b"".join(TOPIC + b" " + DOCS[i] + b" " + DOCS[i + 1] + b"\n" for i in range(4)),
    "llmlog": b"".join(b"@ " + TOPIC + b" " + DOCS[i] + b" " + DOCS[i + 1] + b" !\n" for i in range(4)),
    "carterette": b"".join(TOPIC + b" " + DOCS[i] + b" " + DOCS[i + 1] + b" -1\n" for i in range(4)),
    "trecprefs": b"".join(TOPIC + b" g1 1 " + d + b" %d\n" % (5 - k) for k, d in enumerate(DOCS)),
    "xie": b"".join(TOPIC + b"\t" + DOCS[i] + b"," + DOCS[i + 1] + b"\t-1\t-2\t0\n" for i in range(4)),
}


@pytest.mark.parametrize("fmt", sorted(FILES))
@pytest.mark.parametrize("odd", [False, True])  # True: a 0x1f separator sends the file to the line parser
def test_text_formats_keep_the_bytes(fmt, odd):
    data = FILES[fmt]
    if odd and fmt not in ("trecprefs", "xie"):
        data = data.replace(b" ", b"\x1f", 1)
    for given in (fmt, None):
        j = parse_judgments(data, "j.txt", given)
        assert j.format == fmt
        assert [q.encode("utf-8", "surrogateescape") for q in j.queries] == [TOPIC]
        assert _ids(j) == set(DOCS if fmt != "clarke3" else DOCS[:5])


@pytest.mark.parametrize("data", [b'{"qid": "q\xe9", "doc_a": "a", "doc_b": "b", "score": 1}\n',
                                  b'{"scored_pairs": [{"pair": {"query_id": "q\xe9"}}]}\n'])
def test_json_formats_stay_utf8(data):
    with pytest.raises(InputError) as ei:
        parse_judgments(data, "j.json")
    assert ei.value.line == 1 and "byte 0xe9 is not UTF-8" in ei.value.message


@pytest.mark.parametrize("fmt,data,expected", [
    ("carterette", TOPIC + b" a b -1\n" + TOPIC + b" a c 1\xe9\n", "expected PREF an integer"),
    ("xie", TOPIC + b"\ta,b\t1\t2\n" + TOPIC + b"\ta,c\t\xb62\t0\n", "expected a vote in -2..2"),  # fast path's
    ("trecprefs", TOPIC + b" g 1 a 1\n" + TOPIC + b" g 1 b 2\xe9\n", "j.txt:2"),
])
def test_number_field_with_a_bad_byte_names_its_line(fmt, data, expected):
    with pytest.raises(InputError) as ei:
        parse_judgments(data, "j.txt", fmt)
    assert (ei.value.path, ei.value.line) == ("j.txt", 2) and expected in str(ei.value)


def _cmd(module: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", f"pref_eval.cli.{module}", *args], cwd=cwd, env=ENV,
                          capture_output=True)


@pytest.mark.slow  # ten commands and trec_eval: ~3 s
def test_commands_read_latin1_judgments(tmp_path):
    (tmp_path / "j.c4").write_bytes(_clarke4())
    run = b"".join(TOPIC + b" Q0 " + d + b" %d %d r\xe9n\n" % (k + 1, 10 - k) for k, d in enumerate(DOCS[::-1]))
    (tmp_path / "r.run").write_bytes(run)
    fit = _cmd("fit", "-J", "j.c4", "--qrels", "z.qrels", "--grades", "0,1,2,3", "-o", "z.tsv", "-Q", cwd=tmp_path)
    assert fit.returncode == 0, fit.stderr
    qrels = (tmp_path / "z.qrels").read_bytes()
    assert {line.split()[2] for line in qrels.splitlines()} == set(DOCS)  # the same bytes written back
    assert {line.split(b"\t")[1] for line in (tmp_path / "z.tsv").read_bytes().splitlines()[1:]} == set(DOCS)
    zb = _cmd("fit", "-J", "j.c4", "--output-format", "zbench", "-o", "z.json", cwd=tmp_path)
    assert zb.returncode == 0 and b'"t\\udce9"' in (tmp_path / "z.json").read_bytes()  # the JSON rule (session 26)
    ours = _cmd("trec", "-q", "-m", "all_trec", "z.qrels", "r.run", cwd=tmp_path)
    assert ours.returncode == 0, ours.stderr
    if os.access(TREC_EVAL, os.X_OK):
        te = subprocess.run([str(TREC_EVAL), "-q", "-m", "all_trec", "z.qrels", "r.run"], cwd=tmp_path,
                            capture_output=True, check=True)
        assert ours.stdout == te.stdout and TOPIC in te.stdout
    # zelo_fit's score TSV read back by zelo_eval -R (the same bytes); the value equals the one of an ASCII twin
    zn = _cmd("eval", "-R", "z.tsv", "-m", "zndcg", "-q", "r.run", cwd=tmp_path)
    assert zn.returncode == 0, zn.stderr
    twin = {TOPIC: b"tX", **{d: b"doc%d" % k for k, d in enumerate(DOCS)}}
    for name in ("j.c4", "r.run"):
        (tmp_path / f"a-{name}").write_bytes(b"\n".join(b" ".join(twin.get(f, f) for f in line.split(b" "))
                                                        for line in (tmp_path / name).read_bytes().split(b"\n")))
    assert _cmd("fit", "-J", "a-j.c4", "-o", "a.tsv", "-Q", cwd=tmp_path).returncode == 0
    za = _cmd("eval", "-R", "a.tsv", "-m", "zndcg", "-q", "a-r.run", cwd=tmp_path)
    got, want = ({r.split()[1]: float(r.split()[2]) for r in out.stdout.splitlines() if r.startswith(b"zndcg")}
                 for out in (zn, za))
    assert got[TOPIC] == pytest.approx(want[b"tX"], abs=1e-12) and got[b"all"] == pytest.approx(want[b"all"], abs=1e-12)
    pgc = _cmd("eval", "-R", "z.qrels", "-P", "j.c4", "-m", "PGC", "-q", "r.run", cwd=tmp_path)
    assert pgc.returncode == 0 and pgc.stdout.split(b"\n")[0].split()[1] == TOPIC, pgc.stderr
    agree = _cmd("agree", "-J", "j.c4", "-J", "j.c4", "-l", "pair", cwd=tmp_path)
    assert agree.returncode == 0 and b" pairs " in agree.stdout, agree.stderr
    plot = _cmd("plot", "matrix", "-J", "j.c4", "-o", "m.svg", "-Q", cwd=tmp_path)
    assert plot.returncode == 0, plot.stderr
    assert "caf\u00e9" in (tmp_path / "m.svg").read_text("utf-8")  # drawn as its Latin-1 character

"""The API key cut or encoded by a server that echoes it (session 26): never in stdout, stderr, the store, the
state file, an output or an exception.

The variants are made by the standard library's encoders (urllib.parse.quote, base64, JSON's and HTML's
escapes: the oracle of what the web does to a string); the hostile stand-in server is test_judge_adversarial's.
"""
from __future__ import annotations

import base64
import json
import random
import re
import string
import sys
import urllib.parse
from pathlib import Path

import pytest

pytest.importorskip("openai")
pytest.importorskip("aiohttp.web")

from test_judge_adversarial import ECHO_KINDS, KEY, hostile, texts, zj  # noqa: E402,F401 (hostile: a fixture)

MIN_RUN = 8  # pref_eval.judge.redact.MIN_RUN (imported by the tests that need the module)


DUMPS = ("xxd", "hexdump-c")  # echo kinds with text that is not the key's (offsets, a prefix's bytes)


def variants(key: str) -> list[str]:
    """Every echo kind of the key, and the key itself (a dump's pieces are not the key's: a dump is found by
    its bytes in hexadecimal, line by line)."""
    return [key, *(make(key) for kind, make in ECHO_KINDS.items() if kind not in DUMPS)]


def leaks(blob: str | bytes, key: str = KEY, pieces: bool = True) -> list[str]:
    """The variants in ``blob``: whole, a piece of 5 or more characters of a variant cut by separators
    (``pieces``), or 8 characters of the key once white space, zero-width spaces and JSON's escapes of them are
    taken out."""
    if isinstance(blob, bytes):
        blob = blob.decode("latin-1")
    found = [v for v in variants(key) if v in blob]
    found += [p for v in variants(key) for p in re.split(r"[\s\u200b]+", v) if pieces and len(p) >= 5 and p in blob]
    bare = re.sub(r"\s|\u200b|\\u200b|\\[nrt]", "", blob)
    found += [key[i:i + MIN_RUN] for i in range(len(key) - MIN_RUN + 1) if key[i:i + MIN_RUN] in bare]
    low = re.sub(r"\\x", "", bare).lower()  # 8 key characters in hexadecimal, apart or as \xHH escapes
    found += [key[i:i + MIN_RUN] for i in range(len(key) - MIN_RUN + 1) if key[i:i + MIN_RUN].encode().hex() in low]
    # session 29: ... or apart by visible separators ('73:6b', '0x73, 0x6b'); 8 key characters in any case, backwards
    low = re.sub(r"0x|[-:,;.|{}]", "", low)
    found += [key[i:i + MIN_RUN] for i in range(len(key) - MIN_RUN + 1) if key[i:i + MIN_RUN].encode().hex() in low]
    return found + [w[i:i + MIN_RUN] for w in (key.lower(), key[::-1].lower())
                    for i in range(len(key) - MIN_RUN + 1) if w[i:i + MIN_RUN] in bare.lower()]


def files_of(path: Path) -> list[bytes]:
    return [f.read_bytes() for f in path.iterdir() if f.is_file()]


@pytest.mark.parametrize("kind", sorted(ECHO_KINDS))
def test_redactor_replaces_each_echo_kind_and_keeps_the_text_around(kind):
    rng = random.Random(26)
    alphabet = string.ascii_letters + string.digits + "-_/+."
    keys = [KEY, "sk-proj-" + "".join(rng.choice(alphabet) for _ in range(156)),
            *("".join(rng.choice(alphabet) for _ in range(n)) for n in (20, 21, 22, 33, 51))]
    from pref_eval.judge.redact import Redactor

    for key in keys:
        said = ECHO_KINDS[kind](key)
        text = f'{{"score": 0.5, "note": "before {said} after"}}'
        got = Redactor(key)(text)
        # (a dump's text column shows the bytes of a line that holds fewer than 8 of the key's: not a run)
        assert not leaks(got, key, pieces=kind not in DUMPS) and said not in got, (key, said, got)
        assert got.startswith('{"score": 0.5, "note": "before ') and got.endswith(' after"}'), got


def test_redactor_mixed_escapes_and_hints_servers_show():
    """Each character escaped its own way (percent, JSON, HTML, plain) is still a run of the key; the 4
    characters a server shows on purpose to name a key (OpenAI: 'sk-proj-****abcd') are kept."""
    from pref_eval.judge.redact import MIN_RUN as min_run, Redactor

    assert min_run == MIN_RUN
    rng = random.Random(5)
    redact = Redactor(KEY)
    for _ in range(200):
        a = rng.randrange(len(KEY) - MIN_RUN + 1)
        b = rng.randrange(a + MIN_RUN, len(KEY) + 1)
        piece = "".join(rng.choice((c, urllib.parse.quote(c, safe=""), json.dumps(c, ensure_ascii=False)[1:-1],
                                    f"\\u{ord(c):04X}", f"&#{ord(c)};", f"&#x{ord(c):x};")) for c in KEY[a:b])
        got = redact(f"x: {piece} y")
        assert got == "x: *** y", (piece, got)
    assert redact("Incorrect API key provided: sk-FAKE-****+q") == "Incorrect API key provided: *******+q"
    assert redact("runs of 7: FAKE-j1 4242/+q kept") == "runs of 7: FAKE-j1 4242/+q kept"
    assert redact("a run of 8: FAKE-j17") == "a run of 8: ***"
    short = Redactor("EMPTY")  # a local server's placeholder: whole only
    assert short("EMPTY key, EMPT, %45MPTY, base64 " + base64.b64encode(b"EMPTY").decode()) == \
        "*** key, EMPT, ***, base64 RU1QVFk="


@pytest.mark.parametrize("kind", sorted(ECHO_KINDS))
def test_echoed_key_variant_leaks_nowhere(tmp_path, hostile, kind, monkeypatch):  # noqa: F811 (the fixture)
    """The server echoes the key as KIND in an answer (still a vote), a plain-text 400 and a JSON 400 (stored as
    failed, the body's first line shown), then a plain-text 401 and a JSON 401 (the run stops): no variant in
    stdout, stderr, -o, the store's bytes, export, nor in the Python API's exception."""
    srv, url = hostile()
    inputs = texts(tmp_path, nq=1)
    judges = [f"--judge=openai:echo-v-{kind}-{place}@{url}" for place in ("answer", "400text", "400json")]
    run = zj(tmp_path / "p.jsonl", *inputs, "--store", tmp_path / "s.sqlite", "--retries", 0, *judges,
             "-o", tmp_path / "o.jsonl")
    assert run.returncode == 0, run.stderr
    exp = zj("export", "--store", tmp_path / "s.sqlite")
    blobs = [run.stdout, run.stderr, exp.stdout, exp.stderr]
    for place in ("401text", "401json"):
        p = zj(tmp_path / "p.jsonl", *inputs, "--store", tmp_path / f"{place}.sqlite",
               f"--judge=openai:echo-v-{kind}-{place}@{url}")
        assert p.returncode == 2 and "the server refused the API key (HTTP 401: rejected: key " in p.stderr, p.stderr
        assert "***" in p.stderr, p.stderr
        assert "second line" not in p.stderr, p.stderr  # a text body: its first line
        blobs += [p.stdout, p.stderr]
    from pref_eval.api import judge

    from pref_eval.errors import UsageError

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(UsageError) as got:
        judge(str(tmp_path / "p.jsonl"), queries=str(tmp_path / "q.tsv"), docs=str(tmp_path / "d.tsv"),
                        judges=[f"openai:echo-v-{kind}-401json@{url}"], store=str(tmp_path / "api.sqlite"))
    assert "rejected: key " in str(got.value) and "***" in str(got.value), got.value
    blobs += [str(got.value), repr(got.value)]
    for blob in [*blobs, *files_of(tmp_path)]:
        assert not leaks(blob), leaks(blob)
    rows = json.loads((tmp_path / "o.jsonl").read_text().splitlines()[0])
    assert rows["votes"][0] == 0.5  # the answer's vote survives the redaction of its note
    from test_judge_adversarial import stored

    reasons = [r[3] for r in stored(tmp_path / "s.sqlite") if r[0] == "failed"]
    assert reasons and all(r.startswith("HTTP 400: rejected: key ") and "***" in r for r in reasons), reasons


def test_state_file_and_store_under_state_hold_no_variant(tmp_path, hostile):  # noqa: F811 (the fixture)
    """A zelo_pairs state driven by a judge whose every answer carries the key in base64 (as HTTP Basic
    authentication) and cut: the state file, the store and the messages hold none of it."""
    srv, url = hostile()
    texts(tmp_path, nq=2, nd=4)
    (tmp_path / "g.qrels").write_text("".join(f"q{i} 0 d{j} {j % 3}\n" for i in range(2) for j in range(4)))
    from click.testing import CliRunner

    from pref_eval.cli.pairs import command

    res = CliRunner().invoke(command, ["init", "--state", str(tmp_path / "st.json"), "--qrels",
                                       str(tmp_path / "g.qrels"), "--seed", "1"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    p = zj("--state", tmp_path / "st.json", "--queries", tmp_path / "q.tsv", "--docs", tmp_path / "d.tsv",
           "--store", tmp_path / "s.sqlite", "--judge", f"openai:echo-v-base64-basic-answer@{url}",
           "--judge", f"openai:echo-v-first20-answer@{url}")
    assert p.returncode in (0, 1), p.stderr
    assert srv.received and json.loads((tmp_path / "st.json").read_text())
    for blob in [p.stdout, p.stderr, *files_of(tmp_path)]:
        assert not leaks(blob), leaks(blob)


def test_a_plain_text_error_body_shows_its_first_line(tmp_path, hostile):  # noqa: F811 (the fixture)
    """openai's message for a text/plain 4xx is "Error code: 400" only: the stored reason and the summary now
    show the body's first non-blank line (vLLM's "The model ... does not exist."), control and bidi characters
    escaped, the key redacted, at most 200 characters."""
    from test_judge_adversarial import stored

    srv, url = hostile()
    inputs = texts(tmp_path, nq=1, nd=2)
    p = zj(tmp_path / "p.jsonl", *inputs, "--store", tmp_path / "s.sqlite", "--retries", 0,
           *(f"--judge=openai:{m}@{url}" for m in ("text-400", "text-400-ctrl", "text-422-long")))
    assert p.returncode == 0, p.stderr
    reasons = sorted(r[3] for r in stored(tmp_path / "s.sqlite"))
    assert reasons[0] == "HTTP 400: The model `text-400` does not exist. (after 1 attempts)", reasons
    assert reasons[1] == "HTTP 400: bad \\x1b[31mred\\x1b[0m \\u202eevil ***\\x07 (after 1 attempts)", reasons
    assert reasons[2] == "HTTP 422: " + ("why " * 50)[:197] + "... (after 1 attempts)", reasons
    assert "The model `text-400` does not exist." in p.stderr and "\x1b" not in p.stderr, p.stderr
    assert not leaks(p.stderr) and not any(leaks(b) for b in files_of(tmp_path))


def test_ordinary_text_is_left_alone():
    """No false positive of the separators and the nested escapes (session 27): the project's docs (English,
    code, percent signs, backslashes, base64-looking ids), base64 of percent-encoded and JSON-escaped text that
    is not the key, and text with a zero-width space between every two characters, under 16 random keys of the
    alphabet OpenAI's keys use, come back unchanged."""
    import html

    from pref_eval.judge.redact import Redactor

    root = Path(__file__).resolve().parents[1]
    docs = "".join(p.read_text(encoding="utf-8") for p in sorted((root / "docs").glob("*.md"))[:12])
    rng = random.Random(27)
    words = docs.split()[:3000]
    other = " ".join(words[:400])
    encoded = [base64.b64encode(urllib.parse.quote(other, safe="").encode()).decode(),
               base64.b64encode("".join(f"%{ord(c):02x}" for c in other[:300]).encode()).decode(),
               base64.b64encode("".join(f"\\u{ord(c):04x}" for c in other[:300]).encode()).decode(),
               base64.b64encode(base64.b64encode(other.encode())).decode(),
               html.escape(html.escape(other)), urllib.parse.quote(urllib.parse.quote(other)),
               "\u200b".join(other[:500]), "\n".join(other[i:i + 5] for i in range(0, 500, 5)),
               # session 28: hexadecimal and \xHH of text that is not the key, digests of it
               other.encode().hex(), other.encode().hex(" ").upper(), "".join(f"\\x{b:02x}" for b in other.encode()),
               " ".join(__import__("hashlib").sha256(w.encode()).hexdigest() for w in words[:300])]
    alphabet = string.ascii_letters + string.digits + "-_"
    for n in range(16):
        key = "sk-proj-" * (n % 2) + "".join(rng.choice(alphabet) for _ in range(rng.choice((20, 48, 156))))
        redact = Redactor(key)
        for text in [docs[:20000], *encoded]:
            assert redact(text) == text, (key, [w for w in redact(text).split() if "***" in w][:3])


def test_separators_are_python_white_space():
    """redact.SPACES is every code point str.isspace() calls white space (the oracle: Python itself)."""
    from pref_eval.judge.redact import SPACES

    assert list(SPACES) == [c for c in range(0x110000) if chr(c).isspace()]


WRAPS = {  # how a judge program's standard error may cut the key over lines (one write: the lines come together)
    "lines-of-6": lambda k: "\n".join(k[i:i + 6] for i in range(0, len(k), 6)),
    "lines-of-3": lambda k: "\n".join(k[i:i + 3] for i in range(0, len(k), 3)),
    "crlf-of-4": lambda k: "\r\n".join(k[i:i + 4] for i in range(0, len(k), 4)),
    "hex-lines": ECHO_KINDS["hex-wrapped"],
    "hex": ECHO_KINDS["hex"],
}


@pytest.mark.parametrize("wrap", sorted(WRAPS))
def test_a_judge_program_wrapping_the_key_over_stderr_lines(tmp_path, wrap):
    """A cmd: judge writes the key cut into lines shorter than 8 characters on its standard error (a log
    wrapping long values, a dump): the relay redacted line by line, so no line held a run of 8 and every piece
    reached the terminal (session 27's leftover). Now what is read at once is redacted as one text: the
    wrapped key is one run, replaced by one ***; the lines around it are shown as written. The program writes
    each block with one write (the lines arrive together: no timing in the test)."""
    inputs = texts(tmp_path, nq=1, nd=3)
    prog = tmp_path / "prog"  # (a folder: the leak check reads the run's files, not the program's)
    prog.mkdir()
    (prog / "said.txt").write_text(f"debug: the key is\n{WRAPS[wrap](KEY)}\nend of key\n")
    (prog / "talk.py").write_text(
        "import json, os, sys\nsaid = open(sys.argv[1], 'rb').read()\nfor line in sys.stdin:\n"
        "    os.write(2, said)\n    print(json.dumps({'score': 0.5}), flush=True)\n")
    p = zj(tmp_path / "p.jsonl", *inputs, "--store", tmp_path / "s.sqlite",
           f"--judge=cmd:{sys.executable} {prog / 'talk.py'} {prog / 'said.txt'}", "-o", tmp_path / "o.jsonl")
    assert p.returncode == 0, p.stderr
    assert p.stderr.count("debug: the key is\n***\nend of key\n") == 3, p.stderr
    assert not leaks(p.stderr) and not any(leaks(b) for b in files_of(tmp_path)), leaks(p.stderr)


def test_dumps_are_those_of_xxd_and_hexdump():
    """The dumps of the echo kinds 'xxd' and 'hexdump-c' are those the tools print (the oracle: the tools)."""
    import shutil
    import subprocess

    from test_judge_adversarial import hexdump_c, xxd

    tools = [t for t in (["xxd"], ["hexdump", "-vC"]) if shutil.which(t[0])]
    if not tools:
        pytest.skip("neither xxd nor hexdump installed")
    for data in (b"Authorization: Bearer " + KEY.encode(), b"key=" + KEY.encode(), bytes(range(256))):
        for tool in tools:
            made = (xxd if tool[0] == "xxd" else hexdump_c)(data)
            assert subprocess.run(tool, input=data, capture_output=True, check=True).stdout.decode() == made


def test_hex_apart_and_dumps_keep_the_text_around():
    """Hex bytes apart by separators or in a dump are the key's only where the key's bytes are: the bytes of
    other text, offsets and text columns around it are left as they are."""
    from pref_eval.judge.redact import Redactor

    from test_judge_adversarial import xxd

    redact = Redactor(KEY)
    other = b"the quick brown fox jumps over the lazy dog, 0123456789"
    for sep in (":", "-", " ", ", ", "; 0x"):
        text = "before " + sep.join(f"{b:02x}" for b in other + KEY.encode() + other) + " after"
        want = "before " + sep.join(f"{b:02x}" for b in other) + sep + "***" + sep \
            + sep.join(f"{b:02x}" for b in other) + " after"
        assert redact(text) == want, (sep, redact(text))
    dump = xxd(other + KEY.encode() + other)
    got = redact(dump)
    assert "***" in got and not leaks(got) and got.startswith(xxd(other[:48])), got
    assert redact(xxd(other * 4)) == xxd(other * 4)
    assert redact(KEY.upper()) == redact(KEY.swapcase()) == redact(KEY[::-1]) == "***"


@pytest.mark.parametrize("kind", sorted(ECHO_KINDS))
def test_a_stream_cut_anywhere_is_redacted_after_its_tail(kind):
    """A cmd: judge's standard error (session 29): the pieces of a key written apart -- any time apart -- were
    redacted one by one, so pieces of fewer than 8 characters each reached the terminal (session 28 joined the
    lines that came within 0.2 s). Each piece is now looked at after the stream's tail: cut the text into pieces
    of 1 to 7 characters at random, fed one at a time, and no run of 8 is shown; the text around is kept. No
    process, no clock: deterministic."""
    from pref_eval.judge.redact import Redactor, StreamRedactor

    rng = random.Random(29)
    text = f"debug: the key is\n{ECHO_KINDS[kind](KEY)}\nend of key\n"
    for _ in range(20):
        stream = StreamRedactor(Redactor(KEY))
        cuts, at = [], 0
        while at < len(text):
            cuts.append(text[at:at + rng.randint(1, MIN_RUN - 1)])
            at += len(cuts[-1])
        shown = "".join(stream(piece) for piece in cuts)
        assert not leaks(shown, pieces=False), (kind, cuts, shown)  # (a first piece of 7 or fewer may show)
        assert shown.startswith("debug: the key is\n") and shown.endswith("\nend of key\n"), shown
        whole = StreamRedactor(Redactor(KEY))("".join(cuts))  # all at once: the one text Redactor gives
        assert whole == Redactor(KEY)(text), whole


def test_a_judge_program_writing_the_key_in_pieces_apart(tmp_path):
    """A cmd: judge writes the key in lines of 6 characters, a write each, 0.3 s apart (longer than session 28's
    0.2 s join: each piece was shown as it was). The pieces are redacted after the stream's tail whatever
    their timing: at most the first piece (fewer than 8 characters) is shown, never a run of 8."""
    inputs = texts(tmp_path, nq=1, nd=2)
    prog = tmp_path / "prog"
    prog.mkdir()
    (prog / "talk.py").write_text(
        "import json, os, sys, time\nkey = os.environ['OPENAI_API_KEY']\nfor n, line in enumerate(sys.stdin):\n"
        "    if n == 0:\n        os.write(2, b'debug: the key is\\n')\n"
        "        for i in range(0, len(key), 6):\n            os.write(2, key[i:i + 6].encode() + b'\\n')\n"
        "            time.sleep(0.3)\n        os.write(2, b'end of key\\n')\n"
        "    print(json.dumps({'score': 0.5}), flush=True)\n")
    p = zj(tmp_path / "p.jsonl", *inputs, "--store", tmp_path / "s.sqlite",
           f"--judge=cmd:{sys.executable} {prog / 'talk.py'}", "-o", tmp_path / "o.jsonl")
    assert p.returncode == 0, p.stderr
    assert "debug: the key is\n" in p.stderr and "***\n" in p.stderr and "end of key\n" in p.stderr, p.stderr
    assert not leaks(p.stderr, pieces=False) and not any(leaks(b) for b in files_of(tmp_path)), leaks(p.stderr)

"""The optional C scanner (pref_eval/_jsonl.c) against Python's own json module and float().

Oracle: ``json.loads`` of each line, ``float()`` of each number (Python's
correctly rounded conversion). The scanner must give the same values bit for
bit, refuse (None) whatever it does not handle, and pref_aggregate must read
the same file identically with and without it.
"""
from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

DATA = Path(__file__).resolve().parent / "data" / "pref_eval_ref"


# (that the scanner is built where a C compiler works: tests/test_zelo_ckernels.py, whose module is not skipped
# without it as this one is by the importorskip below)
jsonl = pytest.importorskip("pref_eval._jsonl")


def bits(x: float) -> bytes:
    return struct.pack("<d", x)


def same_float(text: str) -> None:
    ours = jsonl.parse_float(text.encode())
    theirs = float(json.loads(text))
    assert ours is not None, text
    assert bits(ours) == bits(theirs), (text, ours, theirs)


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_shortest_repr_of_any_double_round_trips(x):
    """Hypothesis's doubles (its edge-biased draws; the bulk is the seeded sweep below, ~10 times cheaper per
    double than a hypothesis draw)."""
    same_float(json.dumps(x))


def test_shortest_repr_of_seeded_doubles_round_trips():
    """20,000 doubles with uniformly random bit patterns (every exponent, subnormals included; the few
    non-finite patterns dropped) and the edges of the format, each through its shortest repr."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2**64, 20_000, dtype=np.uint64, endpoint=False).view(np.float64)
    edges = [0.0, -0.0, 5e-324, -5e-324, 2.225073858507201e-308, 2.2250738585072014e-308, 1.7976931348623157e308,
             -1.7976931348623157e308, 1.0, 0.1, 2.0**53, 2.0**53 + 2, 1e23, 9007199254740993.0]
    for v in [*edges, *x[np.isfinite(x)].tolist()]:
        same_float(json.dumps(v))


NUMBER = r"-?(0|[1-9][0-9]{0,24})(\.[0-9]{1,25})?([eE][+-]?[0-9]{1,3})?"


@settings(max_examples=300, deadline=None)
@given(st.from_regex(NUMBER, fullmatch=True))
def test_any_json_number_text_converts_as_python_does(text):
    """Hypothesis's texts of the JSON number grammar (its edge-biased draws; the bulk is the seeded sweep below,
    which is ~50 times cheaper per text than drawing from the regex)."""
    same_float(text)


def _number_texts(n: int, seed: int) -> list[str]:
    """``n`` texts of the grammar ``NUMBER``, every part's length uniform over its range (seeded)."""
    import random
    import re

    r = random.Random(seed)

    def digits(k: int) -> str:
        return "".join(r.choice("0123456789") for _ in range(k))

    out = []
    for _ in range(n):
        k = r.randint(0, 25)
        text = ("-" if r.random() < 0.5 else "") + ("0" if k == 0 else r.choice("123456789") + digits(k - 1))
        if r.random() < 0.6:
            text += "." + digits(r.randint(1, 25))
        if r.random() < 0.6:
            text += r.choice("eE") + r.choice(["", "+", "-"]) + digits(r.randint(1, 3))
        out.append(text)
    assert all(re.fullmatch(NUMBER, t) for t in out)
    return out


def test_seeded_json_number_texts_convert_as_python_does():
    """20,000 texts of the JSON number grammar, each converted bit for bit as ``float(json.loads(text))``."""
    for text in _number_texts(20_000, 0):
        same_float(text)


@pytest.mark.parametrize("text", [
    "0", "-0", "0.0", "-0.0", "0e5", "-0E-3", "1", "-1", "7", "1000",
    "0.1", "0.30000000000000004", "-0.16854026432614094", "1e-05", "1.5E+3", "123456789012345678",
    "9007199254740993",          # 2^53 + 1: halfway, rounds to even (2^53)
    "9007199254740995",          # 2^53 + 3: halfway, rounds to even (2^53 + 4)
    "18014398509481985",         # 2^54 + 1: exact 64-bit value, halfway between doubles -> slow path
    "1.8014398509481985e16",
    "1.000000000000000111",      # rounds to the 64-bit midpoint 1 + 2^-53 but lies below it -> 1.0
    "1.000000000000000112",      # above that midpoint -> 1 + 2^-52
    "1.0000000000000001110223024625156540423631668090820312",  # the midpoint itself, exactly: ties to even
    "12345678901234567890",      # 20 digits
    "0.0000000000000000000000000001234",
    "2.2250738585072011e-308", "2.2250738585072014e-308", "4.9406564584124654e-324", "5e-324", "1e-400",
    "1e23", "8.98846567431158e307", "1.7976931348623157e308", "1e309", "-1e400",
    "123456789012345678901234567890e-30",
])
def test_hard_cases(text):
    same_float(text)


@pytest.mark.parametrize("text", ["", "-", "01", "-01", "1.", ".5", "1e", "1e+", "+1", "1.5.2", "0x10", "NaN",
                                  "Infinity", "1 ", "--1"])
def test_non_json_numbers_are_refused(text):
    assert jsonl.parse_float(text.encode()) is None


# ---------------------------------------------------------------- whole lines

values = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(min_value=-(10 ** 30), max_value=10 ** 30),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters='"\\',
                                   min_codepoint=0x20), max_size=8),
)
objects = st.dictionaries(st.text(alphabet="abcdqrs@1_", min_size=1, max_size=4), values, max_size=6)


def decode(strtab, shapes):
    """Lines back as {line number: dict} from the scanner's columns."""
    out = {}
    for keys, kinds, lines, nums, strs, _intcols in shapes:
        ln = np.frombuffer(lines, np.int64)
        nnum = kinds.count(b"n")
        num = np.frombuffer(nums, np.float64).reshape(len(ln), nnum)
        txt = np.frombuffer(strs, np.int32).reshape(len(ln), len(kinds) - nnum)
        for i, n in enumerate(ln.tolist()):
            d, jn, js = {}, 0, 0
            for k, kd in zip(keys, kinds.decode(), strict=False):
                if kd == "n":
                    d[k] = float(num[i, jn])
                    jn += 1
                else:
                    d[k] = strtab[txt[i, js]]
                    js += 1
            out[n] = d
    return out


def as_python(obj: dict) -> dict:
    return {k: (float(v) if isinstance(v, (int, float)) else v) for k, v in obj.items()}


@settings(max_examples=300, deadline=None)
@given(st.lists(objects, max_size=12), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_lines_decode_as_json_loads_does(objs, eol, spaced):
    sep = (", ", ": ") if spaced else (",", ":")
    text = eol.join(json.dumps(o, separators=sep, ensure_ascii=False) for o in objs) + eol
    res = jsonl.scan(text.encode())
    assert res is not None
    got = decode(*res)
    assert len(got) == len(objs)
    for n, o in enumerate(objs):
        assert {k: bits(v) if isinstance(v, float) else v for k, v in got[n].items()} == \
            {k: bits(v) if isinstance(v, float) else v for k, v in as_python(o).items()}
        assert list(got[n]) == list(o)  # key order kept


def test_shapes_line_numbers_and_integer_columns():
    text = (b'{"qid": "1", "sample": 0, "v": 0.5}\n'
            b'\n'
            b'  {"qid": "2", "sample": 0, "v": 2}\r\n'
            b'{"sample": 1, "qid": "1", "v": 3}\n'
            b'{"qid": "1", "v": "x", "sample": 0}')
    strtab, shapes = jsonl.scan(text)
    assert strtab == ["1", "2", "x"]
    assert [s[0] for s in shapes] == [("qid", "sample", "v"), ("sample", "qid", "v"), ("qid", "v", "sample")]
    assert [s[1] for s in shapes] == [b"snn", b"nsn", b"ssn"]
    assert np.frombuffer(shapes[0][2], np.int64).tolist() == [0, 2]
    assert np.frombuffer(shapes[1][2], np.int64).tolist() == [3]
    assert list(shapes[0][5]) == [1, 0]  # sample always an integer literal; v not
    assert list(shapes[1][5]) == [1, 1]


@pytest.mark.parametrize("line", [
    '{"a": "x\\"y"}', '{"a": "\\u0041"}', '{"a": true}', '{"a": null}', '{"a": [1]}', '{"a": {"b": 1}}',
    '{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}', '{"a": 1, "a": 2}', '{"a": 1} x', '{"a": 1',
    '{"a" 1}', '{"a": 1,}', '{a: 1}', '[1]', '"x"', '{"a": 01}', '{"a": "tab\there"}', "{'a': 1}",
    '\x0c{"a": 1}',
])
def test_lines_it_does_not_take_give_none(line):
    good = '{"a": 1}\n'
    assert jsonl.scan((good + line + "\n" + good).encode()) is None


def _scan_lines_one_by_one(data: bytes):
    """The scan of ``data`` as the lines of ``json.loads`` see them (split at b"\\n"; blank ones skipped):
    None if a line is not a flat object of strings and numbers (the scanner's own refusals, each line
    scanned alone), else [(line number, the line's items in order)] with the numbers' bits."""
    out = []
    for i, line in enumerate(data.split(b"\n")):
        if not line.strip(b" \t\r"):
            continue
        if jsonl.scan(line) is None:
            return None
        obj = json.loads(line)
        out.append((i, [(k, v if isinstance(v, str) else bits(float(v))) for k, v in obj.items()]))
    return out


def _decoded(res):
    """scan()'s columns as [(line number, items in order)] (the oracle's form)."""
    if res is None:
        return None
    strtab, shapes = res
    rows = []
    for keys, kinds, lines, nums, strs, _ints in shapes:
        ln = np.frombuffer(lines, np.int64)
        nv = np.frombuffer(nums, np.float64).reshape(len(ln), -1)
        sv = np.frombuffer(strs, np.int32).reshape(len(ln), -1)
        for r, line in enumerate(ln.tolist()):
            jn = js = 0
            items = []
            for k, kind in zip(keys, kinds.decode(), strict=True):
                if kind == "n":
                    items.append((k, bits(float(nv[r, jn]))))
                    jn += 1
                else:
                    items.append((k, strtab[sv[r, js]]))
                    js += 1
            rows.append((line, items))
    return sorted(rows)


def test_a_newline_anywhere_ends_the_line():
    """The scan finds each line's end by parsing it (no newline search first): a b"\\n" put at any place of a
    line -- inside a key, a string, a number (the eight-digit loads look past it), between tokens, after the
    last brace, a blank line -- gives what the lines it makes give, scanned one by one (None when one of
    them is not a line the scanner takes)."""
    base = b'{"qid": "1000", "runi": "run00", "sample": 0, "rpp": -0.16854026432614094, "p@10": 12345678.5e-3}'
    for i in range(len(base) + 1):
        for cut in (b"\n", b"\r\n", b" \n\n", b"\n" + base + b"\n"):
            data = base + b"\n" + base[:i] + cut + base[i:] + b"\n" + base
            assert _decoded(jsonl.scan(data)) == _scan_lines_one_by_one(data), (i, cut, data)


def test_invalid_utf8_gives_none():
    assert jsonl.scan(b'{"a": "\xff"}\n') is None
    assert jsonl.scan(b'{"\xc3": 1}\n') is None


def test_empty_and_blank_input():
    assert jsonl.scan(b"") == ([], [])
    assert jsonl.scan(b"\n  \n\r\n") == ([], [])


# ------------------------------------------------- pref_aggregate, both readers

def canonical(pf) -> tuple:
    """A PrefFile without its code numbering: keys, metric keys, and every line decoded in order."""
    def lines(d):
        out = {}
        for s, ln in d.items():
            rows = []
            for i in range(len(ln)):
                vals = tuple((k, bits(float(ln.vals[k][i]))) for k in sorted(ln.vals) if ln.has[k][i])
                rows.append((pf.qids[ln.q[i]], pf.runs[ln.a[i]], pf.runs[ln.b[i]] if ln.b[i] >= 0 else None, vals))
            out[s] = rows
        return out
    return pf.keys, sorted(pf.metric_keys), lines(pf.prefs), lines(pf.metrics), \
        {s: type(s).__name__ for s in list(pf.prefs) + list(pf.metrics)}


def irregular_files(tmp: Path) -> list[Path]:
    """Shapes the scanner must group correctly: key orders, samples, "all" lines in between, int columns."""
    rng = np.random.default_rng(3)
    rows = []
    for s in (0, 1):
        for q in ("q1", "q2", "all", "q3"):
            for i, j in (("a", "b"), ("a", "c"), ("b", "c")):
                r = {"qid": q, "runi": i, "runj": j, "sample": s, "type": "preference",
                     "rpp": float(rng.normal()), "ap": int(rng.integers(-3, 3))}
                if rng.random() < 0.3:
                    r = dict(reversed(list(r.items())))
                if rng.random() < 0.2:
                    del r["ap"]
                rows.append(r)
            for run in "abc":
                rows.append({"qid": q, "run": run, "sample": s, "type": "metric", "ap": float(rng.random())})
    plain = tmp / "irregular.jsonl"
    plain.write_text("".join(json.dumps(r) + "\n" for r in rows))
    strs = tmp / "string_samples.jsonl"
    strs.write_text("".join(json.dumps({**r, "sample": str(r["sample"])}) + "\n" for r in rows))
    floats = tmp / "float_samples.jsonl"
    floats.write_text("".join(json.dumps({**r, "sample": float(r["sample"])}) + "\n" for r in rows))
    return [plain, strs, floats]


def reference_files() -> list[Path]:
    """zelo_eval / pref_eval.py outputs (the aggregate/ folder holds pref_aggregate's outputs)."""
    return sorted(p for p in DATA.rglob("*.jsonl") if p.parent.name != "aggregate")


def test_reader_gives_the_same_file_with_and_without_the_scanner(tmp_path, monkeypatch):
    from pref_eval.io.pref_jsonl import read_pref_file
    from pref_eval.errors import InputError

    files = reference_files() + irregular_files(tmp_path)
    assert len(files) >= 5
    def read(p):
        try:
            return canonical(read_pref_file(str(p)))
        except InputError as err:  # e.g. a summary-only file: the same error either way
            return str(err)

    for p in files:
        monkeypatch.delenv("PREF_EVAL_PURE_PYTHON", raising=False)
        fast = read(p)
        monkeypatch.setenv("PREF_EVAL_PURE_PYTHON", "1")
        slow = read(p)
        assert fast == slow, p


@pytest.mark.parametrize("args", [[], ["-q"], ["--mc4-steps", "10", "-q"], ["-o", "tsv", "-q"], ["-n", "-q"],
                                  ["--query_fraction", "0.5", "--num_samples", "3", "--seed", "4"]])
def test_pref_aggregate_output_is_the_same_with_and_without_the_scanner(tmp_path, monkeypatch, args):
    from pref_eval.cli.aggregate import command

    for p in [DATA / "medium" / "all_q.jsonl", DATA / "small" / "all_q_b2.jsonl", DATA / "binary" / "all_q.jsonl"] \
            + irregular_files(tmp_path):
        monkeypatch.delenv("PREF_EVAL_PURE_PYTHON", raising=False)
        fast = CliRunner().invoke(command, ["-P", str(p), *args])
        monkeypatch.setenv("PREF_EVAL_PURE_PYTHON", "1")
        slow = CliRunner().invoke(command, ["-P", str(p), *args])
        assert fast.exit_code == slow.exit_code, (p, fast.output, slow.output)
        assert fast.exit_code == 0 or "string_samples" in p.name  # no sample 0 there: a usage error
        assert fast.output == slow.output, p


def test_mutated_files_never_crash_and_accepted_ones_match_json():
    """5,000 random byte mutations of a real file: the scanner returns None or exactly what json.loads reads."""
    import random

    base = (DATA / "small" / "all_q.jsonl").read_bytes()[:3000]
    rng = random.Random(11)
    alphabet = b'{}[]":,.-+eE0123456789 \t\r\n\\abcqx\xff\xc3\x00'
    accepted = 0
    for _ in range(5000):
        cut = base.find(b"\n", rng.randint(0, len(base)))
        b = bytearray(base[:cut + 1 if cut >= 0 else len(base)])  # whole lines, then mutations
        for _ in range(rng.randint(1, 2)):
            pos = rng.randint(0, len(b))
            if rng.random() < 0.5:
                b[pos:pos] = bytes([rng.choice(alphabet)]) * rng.randint(1, 3)
            else:
                del b[pos:pos + rng.randint(1, 5)]
        res = jsonl.scan(bytes(b))
        if res is None:
            continue
        accepted += 1
        lines = bytes(b).split(b"\n")
        got = decode(*res)
        want = {n: as_python(json.loads(ln)) for n, ln in enumerate(lines) if ln.strip(b" \t\r")}
        assert {n: {k: bits(v) if isinstance(v, float) else v for k, v in d.items()} for n, d in got.items()} == \
            {n: {k: bits(v) if isinstance(v, float) else v for k, v in d.items()} for n, d in want.items()}
    assert accepted > 500


# ------------------------------------- hostile input: a guard page, and both readers with and without the scanner

HOSTILE = [
    b"\x00", b"\xff", b"\xc3", b"\xc0\xaf", b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xf4\x90\x80\x80", b"\xef\xbb\xbf",
    b"\xe2\x80\xa8", b"\xc2\x85", b"\xc2\xa0", b"\x0b", b"\x0c", b"\x1f", b"\x7f", b"\r", b"\r\n", b"\n", b"\n\n",
    b"\\", b'\\"', b"\\u0000", b"\\ud800", b"\\udc00", b"\\ud83d\\ude00", b"\\u12", b"\\x41", b'"', b"{", b"}", b"[",
    b"]", b",", b":", b" ", b"\t", b"1e999", b"-1e999", b"1e-999", b"1" + b"0" * 400, b"-" + b"9" * 320,
    b"0." + b"0" * 300 + b"1", b"1" * 30 + b"e-30", b"-0", b"-0.0", b"0e0", b"9007199254740993", b"1.5e+308",
    b"4.9e-324", b"2.4703282292062327e-324", b"NaN", b"-Infinity", b"true", b"null", b"[" * 3000, b"{" * 3000,
    b'{"a": ' * 200, b" " * 5000, b"x" * 70_000, b'"' + b"y" * 100_000 + b'"', b'"qid": "all", ', b'"sample": -1, ',
    b'"score": 2, ', b'"weight": -1, ', b'"type": "metric", ', b'"runi": "sysA", ', b'"votes": [1, null], ',
]


def _pref_seeds() -> list[bytes]:
    """Lines of the reference preference files (each file's first 300 lines)."""
    out = []
    for p in sorted(DATA.rglob("*.jsonl")):
        out += p.read_bytes().split(b"\n")[:300]
    return [ln for ln in out if ln]


def _judgment_seeds() -> list[bytes]:
    """JSON-lines judgments made from the repository's DL 2021 crowd sample (qid a b winner), in the forms
    the judgment reader takes: key orders, integer ids, weights, extra keys, votes, spacing."""
    import random

    r = random.Random(5)
    out = []
    for k, ln in enumerate((DATA.parent.parent.parent / "judgments" / "dl21-crowd-sample.txt").read_text()
                           .splitlines()[:400]):
        q, a, b, w = ln.split()
        rec: dict = {"qid": int(q) if k % 5 == 0 else q, "doc_a": a, "doc_b": b,
                     "score": [1.0 if w == b else 0.0, 0.5, 1, 0, 0.25][k % 5]}
        if k % 3 == 0:
            rec["weight"] = [2, 0.5, 1e-3, 0][k % 4]
        if k % 7 == 0:
            rec["judge"] = "gpt-4o"
        if k % 11 == 0:
            rec = {"qid": q, "doc_a": a, "doc_b": b, "votes": [1, -1, None, 0.5][: 1 + k % 4]}
        items = list(rec.items())
        r.shuffle(items)
        out.append(json.dumps(dict(items), separators=r.choice([(",", ":"), (", ", ": ")])).encode())
    return out


def _mutate(r, lines: list[bytes]) -> bytes:
    """A few whole seed lines, then 1-3 mutations: a bit flip, an insertion of a hostile piece, a deletion,
    a cut (often leaving no final newline), a line repeated, CRLF ends."""
    start = r.randrange(len(lines))
    b = bytearray(b"\n".join(lines[start:start + r.randint(1, 6)]) + b"\n")
    for _ in range(r.randint(1, 3)):
        op, pos = r.random(), r.randint(0, len(b))
        if op < 0.2 and b:
            i = r.randrange(len(b))
            b[i] ^= 1 << r.randrange(8)
        elif op < 0.6:
            b[pos:pos] = r.choice(HOSTILE)
        elif op < 0.75:
            del b[pos:pos + r.randint(1, 12)]
        elif op < 0.85:
            del b[pos:]
        elif op < 0.93:
            b += b.split(b"\n")[0] + b"\n"
        else:
            b = bytearray(bytes(b).replace(b"\n", b"\r\n"))
    return bytes(b)


class _Guard:
    """Buffers that end at an inaccessible page (an "electric fence"), as the reader's memory map of a
    file whose size is a multiple of the page size does: the scanner reading one byte past the data
    faults at once, in any build (not only under tools/sanitize.sh). A plain buffer where mprotect
    is not available."""

    def __init__(self) -> None:
        import ctypes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            self.mprotect = libc.mprotect
            self.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        except (OSError, AttributeError):
            self.mprotect = None

    def scan(self, data: bytes):
        """``jsonl.scan(data)`` from a buffer followed by a PROT_NONE page."""
        import ctypes
        import mmap

        if self.mprotect is None:
            return jsonl.scan(data)
        page = mmap.PAGESIZE
        pages = max(1, -(-len(data) // page))
        mm = mmap.mmap(-1, (pages + 1) * page)
        end = pages * page
        mm[end - len(data):end] = data
        anchor = ctypes.c_char.from_buffer(mm)
        base = ctypes.addressof(anchor)
        assert self.mprotect(base + end, page, 0) == 0, ctypes.get_errno()  # PROT_NONE
        try:
            with memoryview(mm) as whole, whole[end - len(data):end] as view:
                return jsonl.scan(view)
        finally:
            self.mprotect(base + end, page, 3)  # PROT_READ | PROT_WRITE
            del anchor
            mm.close()


def _scan_equals_json(guard: _Guard, data: bytes) -> bool:
    """The scanner refuses ``data`` (False) or reads every non-blank line as ``json.loads`` does (True)."""
    res = guard.scan(data)
    if res is None:
        return False
    got = decode(*res)
    want = {}
    for n, ln in enumerate(data.split(b"\n")):
        if ln.strip(b" \t\r"):
            want[n] = as_python(json.loads(ln))  # a line the scanner took must be JSON
    assert {n: {k: bits(v) if isinstance(v, float) else v for k, v in d.items()} for n, d in got.items()} == \
        {n: {k: bits(v) if isinstance(v, float) else v for k, v in d.items()} for n, d in want.items()}
    assert all(list(got[n]) == list(want[n]) for n in want)  # key order
    return True


def _judgment_table(j) -> tuple:
    return (j.queries, {q: list(d) for q, d in j.docs.items()}, [bits_of(c) for c in j.arrays()], j.missing,
            repr(j.votes))


def bits_of(a) -> list:
    a = np.asarray(a)
    return a.view(np.int64).tolist() if a.dtype == np.float64 else a.tolist()


def _outcome(read, path: str):
    """What a reader makes of a file: its canonical result, or (error class, "file:line: message");
    anything but pref_eval's own errors (a traceback for the user) fails the test."""
    from pref_eval.errors import PrefEvalError

    try:
        return read(path)
    except PrefEvalError as err:
        return type(err).__name__, str(err)


def _readers(monkeypatch) -> dict:
    """{reader: its paths}: the preference reader with the C scanner, with orjson's chunks and with the line
    parser alone (PREF_EVAL_PURE_PYTHON=1, the chunks switched off); the judgment reader with the scanner and
    with its line parser (PREF_EVAL_PURE_PYTHON=1), each reading the file whole and in parts of whole lines
    (its reader of large files)."""
    from pref_eval.io import judgments as judgment_reader
    from pref_eval.io import pref_jsonl
    from pref_eval.io.judgments import read_judgments

    def pref(p):
        return canonical(pref_jsonl.read_pref_file(p))

    def pref_lines(p):
        with monkeypatch.context() as m:
            m.setattr(pref_jsonl, "_records_fast", lambda data: None)
            return pref(p)

    def judgments(p):
        return _judgment_table(read_judgments(p, "jsonl"))

    def judgments_streamed(p):
        with monkeypatch.context() as m:
            m.setattr(judgment_reader, "STREAM_CHUNK", 64)  # a file of more than 64 bytes is read in parts
            return judgments(p)

    return {"pref": [("", pref), ("1", pref), ("1", pref_lines)],
            "judgments": [("", judgments), ("1", judgments), ("", judgments_streamed), ("1", judgments_streamed)]}


def _both_paths_agree(path: Path, data: bytes, monkeypatch, readers) -> None:
    """Each reader gives the same result, or the same error (class, file:line, message), on each of its paths:
    with the C scanner and kernels (the default) and without them (PREF_EVAL_PURE_PYTHON=1)."""
    path.write_bytes(data)
    for name, paths in readers.items():
        got = []
        for pure, read in paths:
            monkeypatch.setenv("PREF_EVAL_PURE_PYTHON", pure)
            got.append(_outcome(read, str(path)))
        assert all(g == got[0] for g in got), (name, data[:300], [str(g)[:300] for g in got])
    monkeypatch.delenv("PREF_EVAL_PURE_PYTHON", raising=False)


def _fuzz(n: int, seed: int, tmp_path: Path, monkeypatch, seeds: list[list[bytes]]) -> int:
    import random

    r, guard, readers = random.Random(seed), _Guard(), _readers(monkeypatch)
    accepted = 0
    for k in range(n):
        data = _mutate(r, seeds[k % len(seeds)])
        accepted += _scan_equals_json(guard, data)
        _both_paths_agree(tmp_path / "f.jsonl", data, monkeypatch, readers)
    return accepted


def test_hostile_mutations_scanner_equals_json_and_readers_agree(tmp_path, monkeypatch):
    """600 mutated files (preference lines and judgment lines as seeds, hostile pieces inserted): the
    scanner, reading from a buffer that ends at a guard page, refuses each or reads what json.loads reads;
    both readers give the same table or the same file:line error with and without the compiled paths."""
    accepted = _fuzz(600, 1, tmp_path, monkeypatch, [_pref_seeds(), _judgment_seeds()])
    assert accepted > 60  # the mutations leave enough files the scanner takes


@pytest.mark.slow
def test_hostile_mutations_long(tmp_path, monkeypatch):
    """The same, 20,000 files, with seeds from ../shared's judgment files as well."""
    from conftest import need_shared
    from pref_eval.io.judgments import read_judgments

    seeds = [_pref_seeds(), _judgment_seeds()]
    shared = need_shared("data", "claclark_preferences", "TREC-CAsT-2019.pref")
    j = read_judgments(str(shared))
    q, a, b, s, w = (np.asarray(c) for c in j.arrays()[:5])
    seeds.append([json.dumps({"qid": j.queries[q[i]], "doc_a": j.docs[j.queries[q[i]]][a[i]],
                              "doc_b": j.docs[j.queries[q[i]]][b[i]], "score": float(s[i]), "weight": float(w[i])})
                  .encode() for i in range(min(len(q), 2000))])
    assert _fuzz(20_000, 2, tmp_path, monkeypatch, seeds) > 2000



PREF = '{"qid": "q1", "runi": "a", "runj": "b", "sample": 0, "type": "preference", "ap": 0.5}\n'


@pytest.mark.parametrize("text, want", [
    # an integer literal beyond the doubles: float() raises OverflowError (was a traceback on every path)
    (PREF.replace("0.5", "1" + "0" * 400), ":1: ap: expected a number, got 1000"),
    # a repeated key: orjson's chunks kept the last value, the scanner and the line parser refuse the line
    (PREF + PREF.replace('"ap"', '"qid": "q2", "ap"'),
     ":2: duplicate key 'qid' in a JSON object"),
    (PREF.replace('"a"', '"bm25:k1"') + PREF.replace('"ap"', '"ap" :1, "ap"'),
     ":2: duplicate key 'ap' in a JSON object"),
    (PREF.replace('"a"', '"bm25:k1"') + PREF.replace('"q1"', '"q:2"'), None),  # colons in strings only
    # a number as an id: orjson's chunks made it a string
    (PREF.replace('"q1"', "5"), ":1: qid: expected a string, got 5"),
    (PREF.replace('"a"', "7"), ":1: runi: expected a string, got 7"),
    # a summary line is dropped unread on every path (the line parser checked its sample)
    (PREF.replace('"q1"', '"all"').replace('"sample": 0', '"sample": -0.5'), ": no per-query lines"),
    (PREF + PREF.replace('"q1"', '"all"').replace('"sample": 0', '"sample": [1]'), None),
], ids=["huge-int", "repeated-key", "repeated-key-colon-in-id", "colons-in-ids", "number-qid", "number-runi",
        "summary-negative-sample", "summary-list-sample"])
def test_preference_reader_paths_agree_on_found_cases(tmp_path, monkeypatch, text, want):
    """Cases the differential fuzz found (the paths disagreed, or the user got a traceback), each read on the
    three paths: the same table or the same file:line error."""
    readers = _readers(monkeypatch)
    p = tmp_path / "f.jsonl"
    _both_paths_agree(p, text.encode(), monkeypatch, {"pref": readers["pref"]})
    got = _outcome(readers["pref"][0][1], str(p))
    if want is None:
        assert got[0] != "InputError", got
    else:
        assert got[0] == "InputError" and got[1].startswith(f"{p}{want}"), got


@pytest.mark.parametrize("field", ["score", "weight"])
def test_judgment_reader_huge_integer_is_a_line_error(tmp_path, monkeypatch, field):
    """``1`` and 400 zeros as the score or the weight: one file:line error on both paths (was an
    OverflowError from float())."""
    rec = {"qid": "q", "doc_a": "a", "doc_b": "b", "score": 0.5, "weight": 1.0}
    text = json.dumps({**rec, field: 123}).replace("123", "1" + "0" * 400)
    readers = _readers(monkeypatch)
    p = tmp_path / "f.jsonl"
    _both_paths_agree(p, text.encode(), monkeypatch, {"judgments": readers["judgments"]})
    got = _outcome(readers["judgments"][0][1], str(p))
    assert got[0] == "InputError" and got[1].startswith(f'{p}:1: expected "{field}"'), got


def test_file_of_whole_pages_without_final_newline(tmp_path, monkeypatch):
    """A file whose size is a multiple of the page size and whose last line has no newline: the reader's
    memory map ends exactly there, so a scanner reading past the last byte would fault; all paths agree."""
    import mmap

    line = PREF.rstrip("\n")
    text = "\n".join([line] * (mmap.PAGESIZE // (len(line) + 1) + 1))
    text = text.replace('"ap": 0.5', '"ap": 0.5' + " " * ((-len(text)) % mmap.PAGESIZE), 1)
    assert len(text) % mmap.PAGESIZE == 0 and not text.endswith("\n")
    assert _Guard().scan(text.encode()) is not None
    _both_paths_agree(tmp_path / "f.jsonl", text.encode(), monkeypatch, _readers(monkeypatch))


# ------------------------------------------------------- threads, the GIL, newlines


@pytest.mark.parametrize("data", [b"", b"\n", b"abc", b"a\nb", b"a\nb\n", b"\n\n\r\n" * 1000,
                                  b"x" * (1 << 21) + b"\n" + b"y" * 7 + b"\n"])
def test_newlines_counts_as_bytes_count(data):
    assert jsonl.newlines(data) == data.count(b"\n")
    assert jsonl.newlines(bytearray(data)) == data.count(b"\n")
    assert jsonl.newlines(memoryview(data)) == data.count(b"\n")


def test_newlines_random_buffers():
    rng = np.random.default_rng(4)
    for n in (1, 7, 100, 5000, (1 << 20) + 3):
        data = rng.choice(np.frombuffer(b"ab\n\r{", np.uint8), n).tobytes()
        assert jsonl.newlines(data) == data.count(b"\n")


def _big_file() -> bytes:
    lines = [json.dumps({"qid": f"q{k % 97}", "runi": f"r{k % 13}", "runj": f"r{k % 11}", "sample": 0,
                         "type": "preference", "ap": (k * 0.7071067811865476) % 1 - 0.5,
                         "ndcg": -(k * 0.123456789012345678) % 1}) for k in range(60000)]
    return ("\n".join(lines) + "\n").encode()


def test_scans_on_threads_equal_the_serial_scan():
    """The scan runs without the GIL: four threads scanning different buffers at once give each buffer's
    serial result (the scanner's string table and column buffers compared byte for byte: equal bytes are equal
    bits of every decoded value, without decoding 60,000 lines into dicts, 2.2 -> 0.4 s CPU)."""
    from concurrent.futures import ThreadPoolExecutor

    def raw(scanned):
        strtab, shapes = scanned
        return list(strtab), [tuple(bytes(memoryview(x)) if not isinstance(x, tuple) else x for x in shape)
                              for shape in shapes]

    big = _big_file()
    datas = [big, big[:big.index(b"\n", len(big) // 3) + 1], big.replace(b'"r1', b'"s1'),
             b'{"a": 1e400, "b": "x"}\n' * 5000]
    want = [raw(jsonl.scan(d)) for d in datas]
    assert all(w[1] for w in want) and len(decode(*jsonl.scan(datas[3]))) == 5000
    with ThreadPoolExecutor(4) as ex:
        got = list(ex.map(lambda d: raw(jsonl.scan(d)), datas * 2))
    for w, g in zip(want * 2, got, strict=True):
        assert g == w


def test_the_scan_lets_other_threads_run():
    """While one thread scans a few MB, the main thread keeps running Python (it would wait for the
    whole scan if the scan held the GIL)."""
    import threading
    import time

    data = _big_file() * 4
    started, done = threading.Event(), threading.Event()

    def work():
        started.set()
        jsonl.scan(data)
        done.set()

    t = threading.Thread(target=work)
    t.start()
    started.wait()
    turns = 0
    while not done.is_set():
        turns += 1
        time.sleep(0)
    t.join()
    assert turns >= 10, turns


def test_slow_numbers_past_the_gil_round_trips_and_raw_columns():
    """Numbers of the slow path (PyOS_string_to_double, with the GIL taken back; after 64 of them it is
    kept) all equal float(); the columns are writable buffers of their length."""
    texts = [f"{k}.{k:0>25}e-{k % 300}" for k in range(1, 300)] + ["1e400", "-1e400", "4.9e-324"]
    data = "".join(f'{{"v": {t}, "s": "x"}}\n' for t in texts).encode()
    strtab, shapes = jsonl.scan(data)
    (keys, kinds, lines, nums, strs, intcols), = shapes
    assert keys == ("v", "s") and strtab == ["x"]
    assert [bits(v) for v in np.frombuffer(nums, np.float64).tolist()] == [bits(float(t)) for t in texts]
    assert len(nums) == 8 * len(texts) and len(bytes(nums)) == len(nums) and len(strs) == 4 * len(texts)
    col = np.frombuffer(lines, np.int64)
    assert col.flags.writeable and col.tolist() == list(range(len(texts)))


@pytest.mark.parametrize("second", ["0.0", "1e-400", "2.4703282292062327e-3240"])
def test_float_sample_keyed_as_its_first_line(tmp_path, monkeypatch, second):
    """A sample written as a float that equals the first line's integer sample (0.0, or a literal that underflows
    to 0.0) is the same sample, keyed as json reads the first line (int 0): the scanner's path keyed the group 0.0
    (the slow suite's mutation fuzz found it, session 26). Oracle: json.loads of the first line."""
    line = ('{"qid": "q1", "runi": "a", "runj": "%s", "sample": %s, "type": "preference", "rpp": 0.5}\n')
    data = (line % ("b", "0") + line % ("c", second)).encode()
    path = tmp_path / "f.jsonl"
    path.write_bytes(data)
    want = type(json.loads(data.splitlines()[0])["sample"]).__name__
    outs = []
    for pure, read in _readers(monkeypatch)["pref"]:
        monkeypatch.setenv("PREF_EVAL_PURE_PYTHON", pure)
        outs.append(_outcome(read, str(path)))
    assert all(o == outs[0] for o in outs), outs
    assert outs[0][4] == {0: want}

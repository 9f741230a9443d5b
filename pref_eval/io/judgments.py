"""Readers for pairwise judgment files, with format autodetection.

Formats (``--format`` names), all giving :class:`~.judgments.Judgments`
with ``score`` 1 = second document (B) better:

``jsonl``      our canonical JSONL, one object per line:
               ``{"qid", "doc_a", "doc_b", "score"}`` with score in [0, 1]
               (1 = B better), or ``"votes": [v, ...]`` (each in -1..1 or
               null = failed call); optional ``"weight"`` (>= 0), ``"judge"``.
``zbench``     zbench's ``ai_scores.json`` (``{"scored_pairs": [...]}``): the
               three model scores are votes (openai, anthropic, gemini order).
``clarke4``    ``topic docA docB winner`` (winner repeats docA or docB).
``clarke3``    ``topic winner loser``.
``llmlog``     ``@ topic docA docB M``: M ``!`` = docA better, ``=`` = tie
               (score 1/2), ``?`` = no judgment (not fitted; docs registered, the pair kept
               in ``missing``).
``carterette`` ``QID DOC1 DOC2 PREF``: -1 DOC1 better, 1 DOC2 better,
               0 duplicates (a tie, 1/2), -2/2 "bad" document paired with
               ``NA`` (no pairwise judgment; the bad doc is registered).
``trecprefs``  trec_eval ``-R prefs``: ``qid jg jsg docno rel_level``; inside
               each (qid, jg, jsg), every pair of docs with different rel_level is
               one judgment, the higher level winning; equal levels give none; a
               preference repeated by another jsg of the jg counts once
               (:func:`pref_eval.io.prefs.preference_pairs`).
``xie``        Xie et al. image preferences: ``query<TAB>left,right<TAB>j1<TAB>j2<TAB>j3``
               with graded votes -2..2 (negative = left better); header line
               allowed; votes such as ``1.0`` are accepted.

Errors are :class:`~pref_eval.errors.InputError` with file and line.
"""
from __future__ import annotations

from .textfile import json_object, json_reason

import re
import math
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from ..errors import InputError, UsageError, command_running, option_name, option_value, shown
from ..zelo.judgments import TIE_RULES, Judgments, UnknownDocument, vote_score, vote_values
from .textfile import decode_utf8, display_name, read_input_bytes, read_input_text, refuse_nul

if TYPE_CHECKING:
    from .judgment_columns import Columns

FORMATS = ("jsonl", "zbench", "clarke4", "clarke3", "llmlog", "carterette", "trecprefs", "xie")
JSON_FORMATS = ("jsonl", "zbench")  # the others are text: a NUL byte in them is an error (textfile.refuse_nul)


def _lines(text: str, out: Judgments | None = None, first: int = 1):
    for no, line in enumerate(text.split("\n"), start=first):
        if out is not None:
            out.at_line = no
        yield no, line.rstrip("\r")


def _field_lines(text: str, name: str, out: Judgments, expected: str) -> Iterator[tuple[int, list[str]]]:
    """The non-blank lines of a judgment file of a fixed number of white-space separated fields, as
    ``(line number, fields)``; ``expected`` (``"4 fields 'topic docA docB winner'"``) says how many: a line of
    another count is an InputError ``expected EXPECTED, got N`` (clarke4, clarke3, carterette)."""
    n = int(expected.split(" ", 1)[0])
    for no, line in _lines(text, out):
        f = line.split()
        if not f:
            continue
        if len(f) != n:
            raise InputError(name, no, f"expected {expected}, got {len(f)}")
        yield no, f


def _match_end(pattern: re.Pattern[str], text: str, i: int) -> int:
    """End of ``pattern``'s match at ``i`` (``i`` itself when it does not match)."""
    m = pattern.match(text, i)
    return i if m is None else m.end()


def _array_element_line(text: str, key: str, k: int) -> int:
    """Line (1-based) where element ``k`` of the top-level array ``key`` starts; 0 if not found."""
    import json

    dec = json.JSONDecoder()
    m = re.search(r'"' + re.escape(key) + r'"\s*:\s*\[', text)
    if not m:
        return 0
    i = m.end()
    ws = re.compile(r"[\s,]*")
    try:
        for _ in range(k):
            i = _match_end(ws, text, i)
            _, i = dec.raw_decode(text, i)
        i = _match_end(ws, text, i)
    except ValueError:
        return 0
    return text.count("\n", 0, i) + 1


def detect_format(text: str, name: str = "<input>") -> str:
    """Guess the format of a judgment file from its content.

    JSON object with ``scored_pairs`` -> zbench; lines starting ``{`` ->
    jsonl; ``@`` -> llmlog; tab lines whose 2nd field holds a comma, or the
    Xie header -> xie; 5 fields -> trecprefs; 4 fields ending in an integer
    -2..2 -> carterette (unless the 2nd field is the same on every line: TREC
    qrels, refused); 4 fields whose last repeats the 2nd or 3rd -> clarke4;
    3 fields -> clarke3 (unless every 3rd field is a small number: 'topic docno
    grade', ambiguous, refused). Anything ambiguous asks for ``--format``.
    Decided on the first 50 non-blank lines. A request file of ``zelo_pairs``
    (first line ``# zelo_pairs requests``) is never read as judgments.
    """
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return _json_format(stripped)
    samples = _sample_lines(text, name)
    no0, first = samples[0]
    if first.startswith("@"):
        return "llmlog"
    tabs = first.split("\t")
    if first.startswith("Query\t") or (len(tabs) >= 3 and "," in tabs[1]):
        return "xie"
    n = _usual_field_count(samples, first)
    fits = [(no, line.split()) for no, line in samples if len(line.split()) == n]
    if n == 5:
        return "trecprefs"
    if n == 3:
        return _three_field_format([f for _, f in fits], name, no0)
    if n == 4:
        fmt = _four_field_format([f for _, f in fits], name, no0)
        if fmt is not None:
            return fmt
        bad_no = next(no for no, f in fits if f[3] not in (f[1], f[2]) and not f[3].lstrip("+-").isdigit())
    else:
        bad_no = next((no for no, line in samples if len(line.split()) != n), no0)
    raise InputError(
        name, bad_no,
        "cannot detect the judgment format (expected jsonl, zbench ai_scores.json, "
        "'topic docA docB winner', 'topic winner loser', '@ topic docA docB !|=|?', "
        f"'QID DOC1 DOC2 PREF', trec_eval prefs or Xie TSV); use {option_name('judgments_format', '--format')}",
    )


def detect_file_format(path: str) -> str | None:
    """:func:`detect_format` of a file's text, or None when it cannot be read or told (an error message's hint)."""
    try:
        return detect_format(read_input_bytes(path, what="judgment file").decode("utf-8", "surrogateescape"), path)
    except (InputError, UsageError, OSError):
        return None


def one_format_for_all(err: InputError, paths: list[str], fmt: str | None, per_file: str | None) -> InputError:
    """One ``--format`` reads every ``-J`` file: a file of another format failed with that format's complaint alone
    (``crowd.txt:1: expected a JSON object per line``). Say what it looks like and how to give its format
    (``per_file``: the command takes a comma-separated list; None: it does not, leave ``--format`` out). Session 24."""
    if fmt is None or len(paths) < 2 or err.path not in paths:
        return err
    own = detect_file_format(err.path)
    if own is None or own == fmt:
        return err
    each = ",".join(own if p == err.path else fmt for p in paths)
    name = option_name("judgments_format", "--format")
    how = f"give one format per file, {_format_value(each)}, or no {name}" if per_file else \
        f"leave {name} out to detect each file's format"
    files = "-J file" if command_running() else "file of judgments"
    return InputError(err.path, err.line, f"{err.message} ({_format_value(fmt)} reads every {files}, and this one "
                                          f"looks like {own}: {how})")


def _format_value(fmt: str) -> str:
    """The judgment format option with a value as the caller writes it: ``--format F`` / ``judgments_format='F'``."""
    return option_value("judgments_format", "--format", fmt)


def _json_format(stripped: str) -> str:
    """zbench (a JSON object holding ``scored_pairs``) or JSON lines, for text starting with ``{``."""
    first = stripped.split("\n", 1)[0]
    if '"scored_pairs"' in stripped[:2000] and not _is_json_line(first):
        return "zbench"
    if '"scored_pairs"' in first:
        return "zbench"
    return "jsonl"


def _sample_lines(text: str, name: str, most: int = 50) -> list[tuple[int, str]]:
    """(line number, line) of the first ``most`` lines that are neither blank nor comments."""
    samples = []
    for no, line in _lines(text):
        if line.strip() and not line.lstrip().startswith("#"):
            samples.append((no, line))
        if len(samples) >= most:
            break
    if not samples:
        raise InputError(name, 0, "empty judgment file: cannot detect its format (use "
                                  f"{option_name('judgments_format', '--format')})")
    return samples


def _usual_field_count(samples: list[tuple[int, str]], first: str) -> int:
    """The field count of most sample lines (the first line's on a tie); a line with another
    count is then reported (with its number) by the format's reader."""
    from collections import Counter

    tally = Counter(len(line.split()) for _, line in samples).most_common()
    if len(tally) > 1 and tally[1][1] == tally[0][1]:
        return len(first.split())
    return tally[0][0]


def _three_field_format(fields: list[list[str]], name: str, no0: int) -> str:
    """clarke3, unless every third field is grade-like ('topic docno grade': ambiguous, refused)."""
    if all(_small_number(f[2]) or _decimal(f[2]) for f in fields):
        raise InputError(name, no0, "ambiguous: 'topic docno grade' (graded judgments, or trec_eval output) or "
                                    "Clarke's 'topic winner loser'? Pairwise judgments expected; give "
                                    f"{_format_value('clarke3')} if these are judgments")
    return "clarke3"


def _four_field_format(fields: list[list[str]], name: str, no0: int) -> str | None:
    """clarke4 (the last field repeats the 2nd or 3rd), carterette (a preference -2..2; TREC
    qrels refused), or None (neither)."""
    if all(f[3] in (f[1], f[2]) for f in fields):
        return "clarke4"
    if all(_small_number(f[3]) for f in fields):
        if len({f[1] for f in fields}) == 1 or not all(f[3].lstrip("+-") in "012" for f in fields):
            raise InputError(name, no0, "this looks like TREC qrels ('qid iter docno grade'), not pairwise "
                                        f"judgments; give {_format_value('carterette')} if it is Carterette's "
                                        "'QID DOC1 DOC2 PREF'")
        return "carterette"
    return None


def _small_number(tok: str) -> bool:
    """A grade-like field: an optional sign and at most 3 digits, optionally ``.0`` (``2``, ``-1``, ``4.0``)."""
    head, _, tail = tok.lstrip("+-").partition(".")
    return 0 < len(head) <= 3 and head.isascii() and head.isdigit() and set(tail) <= {"0"}


def _decimal(tok: str) -> bool:
    """A number with a decimal point (``0.2345``): a value, never a document id of a judgment file."""
    if "." not in tok:
        return False
    try:
        float(tok)
    except ValueError:
        return False
    return True


REQUEST_MARK = "# zelo_pairs requests"  # first line of the files zelo_pairs writes for judges


def request_header(layout: str) -> str:
    """First line of a request file (``zelo_pairs next``, ``cycles --output-format tsv``): a comment naming it, so
    that no reader takes it for judgments."""
    return f"{REQUEST_MARK} (pairs to judge, not judgments): {layout}\n"


def check_not_requests(text: str, name: str) -> None:
    """Refuse a request file of ``zelo_pairs next`` / ``cycles`` (pairs to judge, not judgments)."""
    if text.startswith(REQUEST_MARK + " (pairs to judge"):
        raise InputError(name, 1, "this is a request file written by zelo_pairs (pairs to judge, "
                                  "'topic docA docB'), not judgments: have the pairs judged first")


def _is_json_line(line: str) -> bool:
    import json

    try:
        json.loads(line)
        return True
    except (ValueError, RecursionError):
        return False


def read_judgments(
    path: str,
    fmt: str | None = None,
    *,
    ties: str = "half",
    into: Judgments | None = None,
) -> Judgments:
    """Read a judgment file (``-`` = stdin, gzip ok) into a :class:`Judgments`.

    ``fmt`` None autodetects (:func:`detect_format`). ``ties`` is the vote
    rule of :func:`~.judgments.vote_score` (used by jsonl votes, zbench, xie).
    ``into`` appends to an existing table (e.g. one built from a dataset).
    """
    if ties not in TIE_RULES:
        raise UsageError(f"{option_name('ties')} must be one of {', '.join(TIE_RULES)}, not {shown(ties)}")
    streamed = _read_jsonl_streamed(path, fmt, ties, into)
    if streamed is not None:
        return streamed
    return parse_judgments(read_input_bytes(path, what="judgment file"), display_name(path), fmt, ties=ties,
                           into=into)


STREAM_CHUNK = 1 << 24  # bytes read at a time from a large JSON-lines judgment file (16 MB; 32 MB parts
# left 150 MB more of their temporaries resident on 40 M judgments, at no gain in CPU time)


def _read_jsonl_streamed(path: str, fmt: str | None, ties: str, into: Judgments | None) -> Judgments | None:
    """A large JSON-lines judgment file read in parts of ``STREAM_CHUNK`` bytes (whole lines), each
    turned into compact columns of the table before the next is read; or None (read the file whole).

    Taken for a regular file (not stdin, gzip or a file starting with a BOM) larger than one part
    whose first part is ASCII and is JSON lines (given or detected on the same head as
    :func:`parse_judgments` looks at). Each part goes to the same fast path (the compiled scanner)
    or, when it does not take the part, to the same line parser as the whole file would, with the
    file's line numbers: the same table, the same first error. Memory: one part and the table
    (~9 bytes a judgment, :meth:`~.judgments.Judgments._append`), not the file's bytes plus its columns.
    With ``PREF_EVAL_THREADS`` > 1 (default: the usable CPUs), the next part is scanned on a thread (the
    compiled scanner releases the GIL) while this one is added to the table (:class:`_PartsAhead`): one
    part more in memory, the same table.
    """
    import os

    from .textfile import plain_file

    if fmt not in (None, "jsonl") or not plain_file(path) or os.path.getsize(path) <= STREAM_CHUNK:
        return None
    name = display_name(path)
    with open(path, "rb") as fh:
        first = fh.read(STREAM_CHUNK)
        # no LF in the first part: maybe CR-only line ends, which only the whole file's reading turns into LF
        head = _ascii_head(first, whole=False) if first.isascii() and b"\n" in first else None
        if head is None:
            return None
        parts = _whole_lines(fh, first, STREAM_CHUNK)
        ahead = _PartsAhead()
        try:
            check_not_requests(head, name)
            if (fmt or detect_format(head, name)) != "jsonl":
                return None
            out = into if into is not None else Judgments()
            out.format = "jsonl"
            # room for as many judgments as the file holds lines at the first part's length of line (+5 %):
            # the columns are allocated once
            out.reserve(len(out) + int(os.path.getsize(path) / max(len(first), 1) * _newlines(first) * 1.05) + 1024)
            del head, first
            for line0, part, cols in ahead.start(parts):
                _add_jsonl_part(part, line0, name, out, ties, cols)
            return out
        except UnknownDocument as err:
            _check_utf8_rest(ahead.rest(parts), name)
            raise InputError(name, out.at_line, str(err)) from None
        except InputError as err:
            if not getattr(err, "bad_byte", False):  # (a bad byte of this part is the file's first)
                _check_utf8_rest(ahead.rest(parts), name)  # the whole file's reading reports a bad byte first
            raise
        finally:
            ahead.close()


class _PartsAhead:
    """``(lines before, part, columns)`` of the parts of :func:`_whole_lines` in order, the columns
    (:func:`~.judgment_columns.jsonl_columns`, or None) of the part after the one handed out computed
    meanwhile on a thread; on one thread (``PREF_EVAL_THREADS=1``, one CPU, or the compiled scanner not
    built) ``None`` instead of columns, which :func:`_add_jsonl_part` then computes itself."""

    def __init__(self) -> None:
        from collections import deque

        from ..parallel import env_threads
        from .jsonl_scan import scanner_available

        self.pool = None
        self.pending: deque = deque()  # ((lines before, part), future) submitted, not handed out
        if env_threads(2) > 1 and scanner_available():
            from concurrent.futures import ThreadPoolExecutor

            self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pref_eval_scan")

    def start(self, parts):
        if self.pool is None:
            for line0, part in parts:
                yield line0, part, None
            return
        from .judgment_columns import jsonl_columns

        for item in parts:  # the next part read here while the thread scans the one before
            self.pending.append((item, self.pool.submit(jsonl_columns, item[1])))
            if len(self.pending) > 1:
                (line0, part), fut = self.pending.popleft()
                yield line0, part, fut.result()
        while self.pending:
            (line0, part), fut = self.pending.popleft()
            yield line0, part, fut.result()

    def rest(self, parts):
        """The parts not handed out yet (those taken ahead first), as ``(lines before, part)``."""
        while self.pending:
            yield self.pending.popleft()[0]
        yield from parts

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None


def _newlines(data: bytes) -> int:
    """``data.count(b"\\n")``, by the compiled scanner's memchr loop when it is built (~5x faster)."""
    from .jsonl_scan import scanner_available

    if scanner_available():
        from .._jsonl import newlines

        return newlines(data)
    return data.count(b"\n")


def _whole_lines(fh, first: bytes, size: int):
    """``(lines before, bytes)`` of successive parts of the file ``fh`` (``first`` its first bytes
    already read), each of whole lines but the last."""
    carry, line0, block = b"", 0, first
    while block:
        cut = block.rfind(b"\n")
        if cut < 0:
            carry += block
        else:
            part, carry = b"".join((carry, memoryview(block)[:cut + 1])), block[cut + 1:]  # one copy
            yield line0, part
            line0 += _newlines(part)
        block = fh.read(size)
    if carry:
        yield line0, carry


def _check_utf8_rest(parts, name: str) -> None:
    """Raise the UTF-8 error of the first bad byte in the parts not yet read (file line numbers)."""
    for line0, part in parts:
        if not part.isascii():
            _decode_part(part, line0, name)


def _decode_part(part: bytes, line0: int, name: str) -> str:
    try:
        return decode_utf8(part, name)
    except InputError as err:
        bad = InputError(name, err.line + line0, err.message)
        bad.bad_byte = True  # type: ignore[attr-defined]
        raise bad from None


def _add_jsonl_part(part: bytes, line0: int, name: str, out: Judgments, ties: str, cols: Columns | None = None
                    ) -> None:
    """One part of a JSON-lines file (its first line is line ``line0 + 1``) into ``out``; ``cols``: its
    :func:`~.judgment_columns.jsonl_columns` if already computed (:class:`_PartsAhead`)."""
    from .judgment_columns import jsonl_columns

    text = None if part.isascii() else _decode_part(part, line0, name)
    if cols is None:
        cols = jsonl_columns(part)
    if cols is not None and _plain_names(cols) and not _self_pair(cols):
        cols.lines += line0
        cols.add_to(out)
        return
    _parse_jsonl(text if text is not None else part.decode("ascii"), name, out, ties, first=line0 + 1)
    out.flush()


def parse_judgments(data: bytes, name: str, fmt: str | None = None, *, ties: str = "half",
                    into: Judgments | None = None) -> Judgments:
    """:func:`read_judgments` of bytes already read (``name`` for messages)."""
    if ties not in TIE_RULES:
        raise UsageError(f"{option_name('ties')} must be one of {', '.join(TIE_RULES)}, not {shown(ties)}")
    # an ASCII file is decoded only if the line parser needs it (a second copy of a large file); the text
    # formats take an id that is not UTF-8 (a Latin-1 docno) as its bytes, as the qrels and run readers do
    # (surrogate escapes, written back as the same bytes); JSON must be UTF-8 (RFC 8259), checked below
    text = None if data.isascii() else data.decode("utf-8", "surrogateescape")
    head = text if text is not None else _ascii_head(data)
    if fmt not in JSON_FORMATS and not (fmt is None and head.lstrip().startswith("{")):
        refuse_nul(data, name)  # a text format (a raw NUL in JSON is refused by the JSON parsers)
    check_not_requests(head, name)
    if fmt is None:
        fmt = detect_format(head, name)
    del head
    if fmt not in FORMATS:
        raise UsageError(f"unknown judgment format {shown(fmt)} (one of {', '.join(FORMATS)})")
    if text is not None and fmt in JSON_FORMATS:
        text = decode_utf8(data, name)  # names the line of the first byte that is not UTF-8
    out = into if into is not None else Judgments()
    out.format = fmt
    try:
        cols = _fast_columns(fmt, data, text, ties)
        if not _plain_names(cols):
            cols = None  # an empty id or one with whitespace: the line parser names its line
        if cols is not None and fmt in SELF_PAIR_REFUSED and _self_pair(cols):
            cols = None  # the line parser names the line of a document judged against itself
        if cols is not None and fmt == "zbench" and cols.unknown_documents(out):
            cols = None  # the parser names the pair (scored_pairs[k]) and its line
        if cols is not None:
            del data, text  # the columns hold what is needed
            cols.add_to(out)
            return out
        READERS[fmt](text if text is not None else data.decode("ascii"), name, out, ties)
    except UnknownDocument as err:
        raise InputError(name, out.at_line, str(err)) from None
    return out


def _ascii_head(data: bytes, limits: tuple[int, ...] = (1 << 16, 1 << 22), whole: bool = True):
    """The text :func:`detect_format` needs of an ASCII file: all of it, or its first bytes (64 KB,
    else 4 MB) cut at a line end when they hold the 50 non-blank lines detection looks at.
    ``whole=False`` (``data`` is the start of a larger file): None when all of the file would be needed."""
    from itertools import islice

    for limit in limits:
        if len(data) <= limit:
            return data.decode("ascii")
        cut = data.rfind(b"\n", 0, limit)
        head = data[:cut + 1].decode("ascii") if cut >= 0 else ""
        if len(head.lstrip()) < 2000:
            continue
        lines = (ln for ln in head.split("\n") if ln.strip() and not ln.lstrip().startswith("#"))
        if sum(1 for _ in islice(lines, 50)) >= 50:
            return head
    return data.decode("ascii") if whole else None


def _fast_columns(fmt: str, data: bytes, text: str | None, ties: str) -> Columns | None:
    """The file as columns by :mod:`pref_eval.io.judgment_columns`, or None (use the line parser)."""
    from . import judgment_columns as jc

    if fmt == "jsonl":
        return jc.jsonl_columns(data)
    reader = jc.FAST_READERS.get(fmt)
    return reader(data, text, ties) if reader is not None else None


def _parse_jsonl(text: str, name: str, out: Judgments, ties: str, first: int = 1) -> None:
    from sys import intern

    for no, line in _lines(text, out, first):
        if not line.strip():
            continue
        # (a key given twice refused: which of the two was meant? json keeps the last; session 30, one message)
        rec = json_object(line, name, no, "a JSON object per line",
                          'a JSON object {"qid", "doc_a", "doc_b", "score"|"votes"}')
        for key in ("qid", "doc_a", "doc_b"):
            if key not in rec or not isinstance(rec[key], (str, int)) or isinstance(rec[key], bool):
                raise InputError(name, no, f"expected a string \"{key}\"")
        if "score" in rec:
            s = rec["score"]
            if not _is_num(s) or not (0.0 <= float(s) <= 1.0):
                raise InputError(name, no, f"expected \"score\" a number in [0, 1] (1 = doc_b better), got {shown(s)}")
            s = float(s)
            kept = None
        elif "votes" in rec:
            votes = rec["votes"]
            if not isinstance(votes, list) or not votes:
                raise InputError(name, no, "expected \"votes\" a non-empty list of numbers in -1..1 or null")
            for v in votes:
                if v is not None and (not _is_num(v) or not (-1.0 <= float(v) <= 1.0)):
                    raise InputError(name, no, f"expected each vote a number in -1..1 or null, got {shown(v)}")
            vs = [None if v is None else float(v) for v in votes]
            s = vote_score(vs, ties)
            kept = vote_values(vs)
            if "orders" in rec:
                _vote_orders(rec["orders"], len(votes), name, no, out)
        else:
            raise InputError(name, no, "expected a \"score\" or a \"votes\" field")
        w = rec.get("weight", 1.0)
        if not _is_num(w) or not (float(w) >= 0.0) or math.isinf(float(w)):
            raise InputError(name, no, f"expected \"weight\" a finite number >= 0, got {shown(w)}")
        _check_ids(name, no, qid=str(rec["qid"]), doc_a=str(rec["doc_a"]), doc_b=str(rec["doc_b"]))
        _not_self(name, no, str(rec["doc_a"]), str(rec["doc_b"]))
        # ids interned: a document registered by many queries is one string object (a large file's table)
        out.add(intern(str(rec["qid"])), intern(str(rec["doc_a"])), intern(str(rec["doc_b"])), s, float(w), kept)


def _vote_orders(orders: object, n: int, name: str, no: int, out: Judgments) -> None:
    """zelo_judge's ``"orders"``: the order each vote was asked in (``"BA"``: doc_b shown first), kept in
    ``out.shown_b_first`` for the next judgment (``zelo_agree``'s position bias; the fit does not read it)."""
    if not isinstance(orders, list) or len(orders) != n or not all(o in ("AB", "BA") for o in orders):
        raise InputError(name, no, f"expected \"orders\" a list of \"AB\" or \"BA\", one per vote, got {shown(orders)}")
    if "BA" in orders:
        out.shown_b_first[len(out)] = tuple(o == "BA" for o in orders)


# what splits a field of the score TSV or a line of any output, and NUL (an escaped ``\u0000`` in a JSON id:
# no TREC file written from it could be read back, textfile.refuse_nul)
_BREAKS = frozenset("\t\n\r\x0b\x0c\x00")


def _bad_id(v: str) -> bool:
    return not v or not _BREAKS.isdisjoint(v)


def _check_ids(name: str, no: int, **ids: str) -> None:
    """Ids are written to tab-separated and line-based files (score TSV, qrels): an empty id or one holding a
    tab or a line break would come out as a broken row (a NUL as a row our readers refuse), so it is an error
    here (``name:no``). A space is allowed (Xie et al.'s queries are texts); ``--qrels`` refuses such ids, as
    TREC qrels cannot hold them."""
    for what, v in ids.items():
        if _bad_id(v):
            raise InputError(name, no, f"expected {what} not empty and without tabs, line breaks or NUL, "
                                       f"got {shown(v)} "
                                       "(ids are written to tab-separated files)")


# formats whose judgment of a document against itself is refused with its line (clarke3/clarke4 in their
# parsers already); zbench's ai_scores.json keeps them: zbench asks a one-document query's self-pair
SELF_PAIR_REFUSED = frozenset({"jsonl", "llmlog", "carterette", "xie"})


def _self_pair(cols) -> bool:
    """Whether a judged row of a fast reader's table pairs a document with itself (the line parser names it)."""
    if cols is None:
        return False
    same = cols.a == cols.b
    if cols.keep is not None:
        same &= cols.keep
    return bool(same.any())


def _not_self(name: str, no: int, a: str, b: str, what: str = "doc_a and doc_b") -> None:
    if a == b:
        raise InputError(name, no, f"{what} are the same document {shown(a)} (a document judged against itself "
                                   "informs no score)")


def _plain_names(cols) -> bool:
    """Whether every string of a fast reader's table is a usable id (else the line parser names the line)."""
    return cols is None or not any(_bad_id(x) for x in cols.names if isinstance(x, str))


def _is_num(v) -> bool:
    """A JSON number that ``float()`` takes: not a bool, not NaN, not an integer literal beyond the doubles
    (``1`` and 400 zeros: OverflowError)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    if isinstance(v, int):
        try:
            float(v)
        except OverflowError:
            return False
        return True
    return not math.isnan(v)


def _json_id(v, what: str) -> str:
    """An id of a zbench file: a JSON string, or an integer read as its digits (as the jsonl reader does);
    null, true, a float, a list or an object is refused (``TypeError`` naming ``what``), not taken as the
    text ``None``/``True``/``1.5``/``[]`` (zbench's pydantic models refuse them too)."""
    if isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool)):
        return str(v)
    import json

    raise TypeError(f"{what} is {json.dumps(v, allow_nan=True)[:40]}, not a string")


def _parse_zbench(text: str, name: str, out: Judgments, ties: str) -> None:
    import json

    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as err:
        raise InputError(name, getattr(err, "lineno", 0),
                         f"expected zbench ai_scores.json ({json_reason(err)})") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("scored_pairs"), list):
        raise InputError(name, 1, "expected a JSON object with a \"scored_pairs\" list (zbench ai_scores.json)")
    for k, sp in enumerate(obj["scored_pairs"]):
        where = f"scored_pairs[{k}]: "
        try:
            pair = sp["pair"]
            qid = _json_id(pair["query_id"], "pair.query_id")
            da = _json_id(pair["document_a"]["document_id"], "pair.document_a.document_id")
            db = _json_id(pair["document_b"]["document_id"], "pair.document_b.document_id")
            votes = []
            shown_b = tuple(_zbench_swapped(sp[m]) for m in ZBENCH_MODELS)
            for model in ZBENCH_MODELS:
                v = sp[model]["score"]
                if isinstance(v, float) and math.isnan(v):  # zbench's own files never hold one (pydantic writes null)
                    raise InputError(name, _array_element_line(text, "scored_pairs", k),
                                     where + f"{model}.score is NaN, not a vote (a tie or a failed call is 0.0 in "
                                     "zbench's files)")
                if not _is_num(v):
                    raise TypeError(model)
                votes.append(float(v))
        except (KeyError, TypeError) as err:
            raise InputError(name, _array_element_line(text, "scored_pairs", k),
                             where + f"expected pair.query_id, pair.document_a/b.document_id and "
                             f"openai/anthropic/gemini_score.score numbers (problem: {err})") from None
        if _bad_id(qid) or _bad_id(da) or _bad_id(db):
            _check_ids(name, _array_element_line(text, "scored_pairs", k), query_id=qid, document_a=da, document_b=db)
        if any(shown_b):  # for the judgment added next (zelo_agree's position bias; the fit does not read it)
            out.shown_b_first[len(out)] = shown_b
        try:
            out.add(qid, da, db, vote_score(votes, ties), 1.0, vote_values(votes))
        except UnknownDocument as err:
            out.shown_b_first.pop(len(out), None)
            raise InputError(name, _array_element_line(text, "scored_pairs", k), where + str(err)) from None


ZBENCH_MODELS = ("openai_score", "anthropic_score", "gemini_score")  # the order of a zbench judgment's votes


def _zbench_swapped(model_score) -> bool:
    """Whether zbench showed document B first to this model: its thought starts with ``(SWAPPED)`` (zbench's
    ``score.py`` swaps A and B at random for each model call, negates the answer back, and marks the thought)."""
    t = model_score.get("thought") if isinstance(model_score, dict) else None
    return isinstance(t, str) and t.startswith("(SWAPPED)")


def _parse_clarke4(text: str, name: str, out: Judgments, ties: str) -> None:
    for no, (t, a, b, w) in _field_lines(text, name, out, "4 fields 'topic docA docB winner'"):
        if a == b:
            raise InputError(name, no, f"docA and docB are the same document {shown(a)}")
        if w == a:
            out.add(t, a, b, 0.0)
        elif w == b:
            out.add(t, a, b, 1.0)
        else:
            raise InputError(name, no, f"expected the winner to be docA or docB, got {shown(w)}")


def _parse_clarke3(text: str, name: str, out: Judgments, ties: str) -> None:
    for no, (topic, winner, loser) in _field_lines(text, name, out, "3 fields 'topic winner loser'"):
        if winner == loser:
            raise InputError(name, no, f"winner and loser are the same document {shown(winner)}")
        out.add(topic, winner, loser, 0.0)


def _parse_llmlog(text: str, name: str, out: Judgments, ties: str) -> None:
    for no, line in _lines(text, out):
        f = line.split()
        if not f:
            continue
        if len(f) != 5 or f[0] != "@":
            raise InputError(name, no, "expected '@ topic docA docB M' with M one of ! = ?")
        _, t, a, b, m = f
        _not_self(name, no, a, b, "docA and docB")
        if m == "!":
            out.add(t, a, b, 0.0)
        elif m == "=":
            out.add(t, a, b, 0.5)
        elif m == "?":
            out.add_missing(t, a, b)
        else:
            raise InputError(name, no, f"expected the mark !, = or ?, got {shown(m)}")


def _parse_carterette(text: str, name: str, out: Judgments, ties: str) -> None:
    for no, (t, a, b, p) in _field_lines(text, name, out, "4 fields 'QID DOC1 DOC2 PREF'"):
        try:
            pv = int(p)
        except ValueError:
            raise InputError(name, no, f"expected PREF an integer in -2..2, got {shown(p)}") from None
        if pv in (-1, 0, 1):
            _not_self(name, no, a, b, "DOC1 and DOC2")
        if pv == -1:
            out.add(t, a, b, 0.0)
        elif pv == 1:
            out.add(t, a, b, 1.0)
        elif pv == 0:
            out.add(t, a, b, 0.5)
        elif pv == -2:
            if b.upper() != "NA":
                raise InputError(name, no, "expected DOC2 = NA when PREF is -2 (DOC1 bad)")
            out.add_doc(t, a)
        elif pv == 2:
            if a.upper() != "NA":
                raise InputError(name, no, "expected DOC1 = NA when PREF is 2 (DOC2 bad)")
            out.add_doc(t, b)
        else:
            raise InputError(name, no, f"expected PREF an integer in -2..2, got {shown(p)}")


def _parse_trecprefs(text: str, name: str, out: Judgments, ties: str) -> None:
    """trec_eval's ``prefs`` lines, read by the reader of ``zelo_trec -R prefs``
    (:func:`pref_eval.io.prefs.prefs_from_bytes`: same grammar, same messages), turned into
    judgments by :func:`pref_eval.io.prefs.preference_pairs`. Every line registers its document."""
    import numpy as np

    from .judgment_columns import Columns, factorize
    from .prefs import preference_pairs, prefs_from_bytes

    p = prefs_from_bytes(text.encode("utf-8", "surrogateescape"), name)
    ia, ib = preference_pairs(p)
    names, (qc, dc) = factorize(p.qid, p.docno)
    n = len(p)
    score = (p.rel[ib] > p.rel[ia]).astype(np.float64)
    Columns(names, np.r_[qc, qc[ia]], np.r_[dc, dc[ia]], np.r_[dc, dc[ib]], np.r_[np.zeros(n), score], None,
            np.r_[p.line, p.line[ib]], np.r_[np.zeros(n, bool), np.ones(len(ia), bool)]).add_to(out)


def _parse_xie(text: str, name: str, out: Judgments, ties: str) -> None:
    for no, line in _lines(text, out):
        if not line.strip():
            continue
        if no == 1 and line.startswith("Query\t"):
            continue
        f = line.split("\t")
        if len(f) < 3:
            raise InputError(name, no, "expected 'query<TAB>left,right<TAB>vote...' with votes in -2..2")
        q, pair, votes_txt = f[0], f[1], f[2:]
        docs = pair.split(",")
        if len(docs) != 2 or not docs[0] or not docs[1]:
            raise InputError(name, no, f"expected the pair as 'left,right', got {shown(pair)}")
        _check_ids(name, no, query=q, left=docs[0], right=docs[1])
        _not_self(name, no, docs[0], docs[1], "left and right")
        votes = []
        for v in votes_txt:
            try:
                x = float(v)
            except ValueError:
                raise InputError(name, no, f"expected a vote in -2..2, got {shown(v)}") from None
            if not (-2 <= x <= 2) or x != int(x):
                raise InputError(name, no, f"expected a vote in -2..2, got {shown(v)}")
            votes.append(x)
        out.add(q, docs[0], docs[1], vote_score(votes, ties), 1.0, vote_values(votes))


READERS: dict[str, Callable[[str, str, Judgments, str], None]] = {
    "jsonl": _parse_jsonl,
    "zbench": _parse_zbench,
    "clarke4": _parse_clarke4,
    "clarke3": _parse_clarke3,
    "llmlog": _parse_llmlog,
    "carterette": _parse_carterette,
    "trecprefs": _parse_trecprefs,
    "xie": _parse_xie,
}


def _refusing_nul(parse: Callable[[str, str, Judgments, str], None]) -> Callable[[str, str, Judgments, str], None]:
    """``parse`` of a text format, with a NUL byte refused first (as :func:`parse_judgments` refuses it)."""
    def checked(text: str, name: str, out: Judgments, ties: str) -> None:
        refuse_nul(text, name)
        parse(text, name, out, ties)

    checked.__name__ = checked.__qualname__ = parse.__name__
    checked.__doc__ = parse.__doc__
    return checked


READERS.update((fmt, _refusing_nul(fn)) for fmt, fn in list(READERS.items()) if fmt not in JSON_FORMATS)


def _zbench_records(path: str, what: str, expected: str, parse) -> list:
    """``parse(record)`` of every non-blank JSON line of ``path``; a line that fails is ``file:line: expected``.

    A query is one line and names each document once (zbench would annotate a query given on two lines
    twice and leave all but the last of a repeated document id unjudged): a query id seen on an earlier
    line, or a document id given twice in one line, is a ``file:line`` error.
    """
    import json

    name = display_name(path)
    # a byte that is not UTF-8 (a Latin-1 docno) is the id's byte, as zelo_judge reads the same file and the qrels
    # and run readers read theirs; its JSON escape \udcNN (what our JSON writers write) is the same id
    text = read_input_text(path, what=what, any_bytes=True)
    out = []
    first: dict[str, int] = {}
    for no, line in _lines(text):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            qid = _json_id(rec["query"]["id"], "query.id")
            docs = [_json_id(d["id"], "document id") for d in rec["documents"]]
            out.append(parse(rec))
        except (ValueError, KeyError, TypeError, RecursionError, OverflowError):  # Overflow: float() of a huge int
            raise InputError(name, no, f"expected {expected}") from None
        for d in [qid, *docs]:
            if _bad_id(d):
                raise InputError(name, no, f"expected ids not empty and without tabs, line breaks or NUL, "
                                           f"got {shown(d)} "
                                           "(ids are written to tab-separated files)")
        if qid in first:
            raise InputError(name, no, f"query {shown(qid)} again (first on line {first[qid]}); give each query once")
        first[qid] = no
        if len(set(docs)) != len(docs):
            seen: set[str] = set()
            dup = next(d for d in docs if d in seen or seen.add(d))  # type: ignore[func-returns-value]
            raise InputError(name, no, f"document {shown(dup)} listed twice for query {shown(qid)}")
    return out


def read_zbench_dataset(path: str) -> list[tuple[str, list[str]]]:
    """Read zbench's QueryDocuments JSONL: ``[(query_id, [doc ids...]), ...]``.

    One line ``{"query": {"id", ...}, "documents": [{"id", ...}, ...]}`` per
    query; extra fields (content, metadata, score) are ignored.
    """
    out = _zbench_records(
        path, "zbench dataset JSONL", '{"query": {"id": ...}, "documents": [{"id": ...}, ...]}',
        lambda rec: (_json_id(rec["query"]["id"], "query.id"),
                     [_json_id(d["id"], "document id") for d in rec["documents"]]))
    if not out:  # no query: nothing to pair or fit against (refused as an empty run or qrels file is; session 30)
        raise InputError(display_name(path), 0, 'empty zbench dataset file (expected JSON lines {"query": {"id": '
                                                '...}, "documents": [{"id": ...}, ...]}, a query a line)')
    return out


def read_zbench_records(path: str) -> dict[str, dict]:
    """zbench QueryDocuments JSONL as ``{query id: the line's whole record}`` (texts, metadata), for
    ``zelo_fit --output-format zbench``; same rules and messages as :func:`read_zbench_dataset`."""
    return dict(_zbench_records(
        path, "zbench dataset JSONL", '{"query": {"id": ...}, "documents": [{"id": ...}, ...]}',
        lambda rec: (_json_id(rec["query"]["id"], "query.id"), rec)))


def read_zbench_annotated(path: str) -> list[tuple[str, list[str], list[float]]]:
    """Read zbench AnnotatedQueryDocuments JSONL: ``[(qid, docids, scores)]``.

    Each document must carry a ``"score"`` that zbench's pydantic model reads as a float (:func:`_zbench_score`:
    a number, ``true``/``false``, a numeric string).
    """
    return _zbench_records(
        path, "zbench annotated JSONL", '{"query": {"id"}, "documents": [{"id", "score"}, ...]}',
        lambda rec: (_json_id(rec["query"]["id"], "query.id"),
                     [_json_id(d["id"], "document id") for d in rec["documents"]],
                     [_zbench_score(d["score"]) for d in rec["documents"]]))


def _zbench_score(v) -> float:
    """A document's score as zbench's pydantic model (``AnnotatedDocument.score: float``, lax mode) reads it:
    a JSON number, ``true``/``false`` (1/0), or a string holding a number as Python's ``float`` reads it
    (white space around it, ``1_0``, ``inf``, ``nan``) but with ASCII digits only (pydantic refuses ``"\\u0663"``,
    which ``float`` reads as 3); ``null``, a list, an object, an integer beyond the doubles are refused
    (``TypeError``/``ValueError``/``OverflowError``: the caller's file:line)."""
    if isinstance(v, (bool, int, float)):
        return float(v)
    if isinstance(v, str) and v.strip().isascii():
        return float(v)
    raise TypeError("score")


def read_judgment_batch(path: str) -> tuple[bytes, str]:
    """A judgment file as one batch of ``zelo_pairs add``: its bytes (parsed and hashed by
    :func:`pref_eval.zelo.pair_state.add_batch`) and the name its errors give."""
    return read_input_bytes(path, what="judgment file"), display_name(path)


__all__ = ["FORMATS", "detect_format", "parse_judgments", "read_judgments", "read_zbench_dataset",
           "read_zbench_annotated", "read_judgment_batch"]

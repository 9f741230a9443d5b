"""The API key out of every text zelo_judge keeps or shows: messages, stored answers, exceptions, a judge
program's standard error.

A server -- or a debugging proxy in front of it -- may echo the request's ``Authorization`` header, and a
judge program may print its environment, whole or in part, and in any of the encodings text on the web goes
through. :class:`Redactor` replaces with ``***``:

- every run of at least :data:`MIN_RUN` characters that is a substring of the key: the key cut anywhere (its
  first 20 characters, its last 8, a line-wrapped half);
- the same runs written with escapes, mixed in any way and nested up to :data:`ROUNDS` deep (an escape of an
  escape: ``%252F``, ``%5Cu0073``, ``\\\\u0073``, ``&amp;#47;``): percent-encoding (``%2F``, ``%2f``), JSON's
  ``\\uXXXX``, ``\\/``, ``\\"``, ``\\\\`` (and ``\\n``, ``\\r``, ``\\t``, ``\\b``, ``\\f``), HTML's numeric
  character references (``&#47;``, ``&#x2F;``) and ``&amp;``, C's and Python's ``\\xHH`` (a bytes repr);
- the same runs cut into pieces by separators: white space of any kind (line breaks, a folded header's
  ``\\r\\n`` and indent, spaces, MIME's base64 lines of 76) and the invisible format characters (zero-width
  space, soft hyphen, bidi marks, BOM) -- so a key wrapped into lines shorter than :data:`MIN_RUN`, or with a
  zero-width space between every two characters, is still one run. Visible separators (``sk-FA|KE``, ``-``
  inserted) are not removed: they would join ordinary words of the text;
- the key in base64 (standard or URL-safe alphabet, at any of the three alignments, so also inside
  ``base64("user:" + KEY)`` of HTTP Basic authentication), and runs of at least :data:`MIN_RUN` characters of
  it; base64 of base64, and base64 of the key's escaped forms (percent-encoded as ``urllib.parse.quote`` does
  it or every character, either case; JSON's ``\\uXXXX`` of every character), each with runs as long as carry
  the information of :data:`MIN_RUN` characters of the key's own base64 (an escaped form is longer: 8
  characters of base64 of ``%73%6B%2D`` hold about two characters of the key, and would match base64 of any
  percent-encoded text);
- the key's UTF-8 bytes in hexadecimal (a dump, a debug log; lower or upper case, the bytes apart or not:
  ``736b2d``, ``73 6b 2d``, wrapped over lines) by runs of 16 digits: the information of 8 key characters, as
  for the escaped forms (8 digits hold 4 bytes of the key and are met in the hashes and ids of ordinary text;
  16 given digits are not met by chance). Since session 28. Since session 29 also the bytes apart by visible
  separators (``73:6b:2d``, ``73-6B``, ``0x73, 0x6b``) and in dumps (``xxd``, ``hexdump -C``: offsets and text
  columns skipped, so a key over two dump lines is one run): :meth:`Redactor._hex_runs`. Since session 30 also the
  text column's characters of the run's bytes (a dump's last line with fewer than 8 of them showed them), words
  written little-endian (``od -x``, ``hexdump``, ``xxd -e``, ``od -tx4``: each word's bytes read back swapped),
  ``od -tx1z``'s column, and character dumps (``od -c``, ``od -a``, ``hexdump -c``: their offsets skipped, so the
  key's characters on two lines are one run). Not read: ``xxd -e -g 8``'s last, partial group (more than 7 spaces
  before it);
- the key's letters in another case (runs compared without ASCII letter case: ``SK-PROJ-``, swapped case) and
  the key written backwards (since session 29).

A stream (a ``cmd:`` judge's standard error) is redacted piece by piece after its tail (:class:`StreamRedactor`):
a run one piece starts and the next continues is replaced in the next, however long apart they come.

Not decoded: ROT13 and other encodings no web layer applies by itself.

Why 8 characters: servers show up to 4 on purpose to name a key without giving it away (OpenAI's "Incorrect
API key provided: sk-proj-****abcd" keeps the last 4), and shorter windows of a key are likely in ordinary
text (a 4-character window of a key matches English words and ids), which would mangle answers; 8 random key
characters are not met by chance, and 8 characters of a 40-160-character key are useless to an attacker. The
8-character prefix ``sk-proj-`` that every key of a kind shares is redacted too (harmless). A key shorter than
8 characters (a local server's placeholder such as ``EMPTY``) is redacted whole only, as itself or escaped.
"""
from __future__ import annotations

import base64
import re
from typing import Any

MIN_RUN = 8  # the shortest run of key characters replaced (see the module's docstring)
ROUNDS = 3  # escapes of escapes decoded this deep (an escape nested deeper is left as it is)

# one escaped character: %XX | \uXXXX | \/ \" \\ \n \r \t \b \f | &#DDD; | &#xHH; | &amp; | \xHH
_ESCAPE = (r"%([0-9A-Fa-f]{2})|\\u([0-9A-Fa-f]{4})|\\([/\"\\nrtbf])|&#([0-9]{1,7});|&#[xX]([0-9A-Fa-f]{1,6});"
           r"|&(amp);|\\x([0-9A-Fa-f]{2})")  # compiled on use (re's cache)
_BACKSLASHED = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f"}
# separators a key may be cut by: every code point Python's str.isspace() calls white space, and the invisible
# format characters (soft hyphen, Mongolian vowel separator, zero-width space/joiners, bidi marks and embeddings,
# word joiner and invisible operators, BOM); tests/test_judge_redaction.py checks the first against str.isspace
SPACES = (9, 10, 11, 12, 13, 28, 29, 30, 31, 32, 133, 160, 5760, *range(8192, 8203), 8232, 8233, 8239, 8287, 12288)
INVISIBLE = (0xAD, 0x180E, *range(0x200B, 0x2010), *range(0x202A, 0x202F), *range(0x2060, 0x2065), 0xFEFF)
SHORT = 256  # characters: a longer text's windows are looked up by their hashes (numpy)
_MULT = 0x9E3779B97F4A7C15  # the rolling hash's multiplier (odd: windows hash apart; collisions are checked)
_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")  # ASCII only: lengths kept
HEX_RUN = 2 * MIN_RUN  # digits of a hexadecimal run: MIN_RUN bytes
TAIL = 4096  # characters of a stream kept to look at its next piece after (StreamRedactor; > any run's width)
# hex bytes apart by a visible separator: one byte, a separator (white space around it), and so on (compiled on use)
_SEP = r"[ \t\r\n]*[-:.,;|_/]?[ \t\r\n]*"
_HEX_TOKEN = r"(?:0[xX])?([0-9A-Fa-f]{2,})"
_HEX_CHAIN = _HEX_TOKEN + "(?:" + _SEP + _HEX_TOKEN + ")+"
# bytes apart by visible separators? a dump's line? (else _hex_runs looks no further; two searches: one
# alternation of the two is 8 times slower on ordinary text)
_HEX_APART = r"[-:.,;|_/] ?(?:0[xX])?[0-9A-Fa-f]{2,}[-:.,;|_/] ?(?:0[xX])?[0-9A-Fa-f]{2}"
_DUMP_START = r"(?m:^[ \t]*[0-9A-Fa-f]{6,}:?[ \t])"
# words of 2, 4 or 8 bytes apart by white space (od -x, hexdump, od -An -x: maybe little-endian)
_HEX_WORDS = r"[0-9A-Fa-f]{4,16}[ \t]+[0-9A-Fa-f]{4,16}[ \t\r\n]+[0-9A-Fa-f]{4}"
# a character dump's offset (od -c, od -a, hexdump -c: a key's characters 4 apart, 16 a line)
_CHAR_DUMP = r"(?m)^[0-9A-Fa-f]{7,}(?=[ \t])"
# a dump's line: its offset (1), bytes (2) and text column (3): xxd ('00000010: 736b 2d46  sk-F'), hexdump -C
_DUMP_LINE = r"(?m)^([ \t]*[0-9A-Fa-f]{6,}:?)((?:[ \t]{1,7}[0-9A-Fa-f]{2,16})+)([ \t]{2,}\S.*)?[ \t]*$"


def _unescaped(m: re.Match) -> str:
    """The character an escape stands for (U+FFFD for a code point that does not exist)."""
    pct, uni, bs, dec, hexa, amp, byte = m.groups()
    if amp is not None:
        return "&"
    if bs is not None:
        return _BACKSLASHED.get(bs, bs)
    code = int(pct or uni or hexa or byte, 16) if dec is None else int(dec)
    return chr(code) if code <= 0x10FFFF else "\ufffd"


def base64_cores(key: str) -> list[str]:
    """What base64 of any text holding ``key`` holds, whatever the key's alignment to the 3-byte groups and
    the alphabet (standard, URL-safe): per alignment, the characters that depend on the key's bytes only."""
    raw = key.encode("utf-8", "surrogatepass")
    out = []
    for r, lead in ((0, 0), (1, 2), (2, 3)):
        enc = base64.b64encode(b"\0" * r + raw).decode("ascii").rstrip("=")
        core = enc[lead:len(enc) - (1 if (r + len(raw)) % 3 else 0)]
        out += [core, core.translate(str.maketrans("+/", "-_"))]
    return out


def key_forms(key: str) -> dict[int, set[str]]:
    """The texts whose runs are the key's, by the run length that is redacted (see the module's docstring)."""
    from urllib.parse import quote

    if len(key) < MIN_RUN:
        return {len(key): {key}} if key else {}
    forms: dict[int, set[str]] = {MIN_RUN: {key, key[::-1], *base64_cores(key)}}  # (key[::-1]: written backwards)
    for core in base64_cores(key)[::2]:  # base64 of base64 (either alphabet of the outer one: the cores' pairs)
        forms.setdefault(-(-MIN_RUN * 4 // 3), set()).update(base64_cores(core))
    quoted = quote(key, safe="")
    escaped = {quoted, re.sub("%[0-9A-F]{2}", lambda m: m[0].lower(), quoted),
               *("".join(f"%{ord(c):02{x}}" for c in key) for x in "Xx"),
               *("".join(f"\\u{ord(c):04{x}}" for c in key) for x in "Xx")} - {key}
    for form in escaped:
        forms.setdefault(-(-MIN_RUN * len(form) // len(key)), set()).update(base64_cores(form))
    raw = key.encode("utf-8", "surrogatepass").hex()  # hexadecimal (a dump, a debug log): runs of 16 digits
    forms.setdefault(-(-MIN_RUN * len(raw) // len(key)), set()).update((raw, raw.upper()))
    return forms


class Redactor:
    """``redactor(text)``: ``text`` with every run of the key (see the module's docstring) replaced by ``***``."""

    def __init__(self, key: str) -> None:
        self.key = key
        # (width, its windows, their hashes) per run length
        self.groups: list[tuple[int, set[str], Any]] = []
        for width, forms in sorted(key_forms(key).items()):
            group = _group(width, {_squeezed(f)[0].translate(_LOWER) for f in forms})  # either case: _runs
            if group is not None:
                self.groups.append(group)
        self.width = min((g[0] for g in self.groups), default=0)
        raw = key.encode("utf-8", "surrogatepass").hex()  # hex bytes apart by separators (_hex_runs)
        self.hex_group = _group(HEX_RUN, {raw}) if len(key) >= MIN_RUN else None

    def _starts(self, plain: str, groups: list[tuple[int, set[str], Any]] | None = None) -> tuple[list[int], list[int]]:
        """Where a window of ``plain`` is one of the key's (its forms', or those of ``groups``), and where each
        such window ends."""
        starts: list[int] = []
        ends: list[int] = []
        prefix = None
        for w, grams, hashes in self.groups if groups is None else groups:
            if len(plain) < w:
                continue
            if len(plain) <= SHORT:  # a short text (most answers, every message): looked up window by window
                found = [i for i in range(len(plain) - w + 1) if plain[i:i + w] in grams]
            else:
                import numpy as np

                prefix = _prefix(plain) if prefix is None else prefix
                h = _windows(prefix, w)
                at = np.searchsorted(hashes, h)
                at[at == len(hashes)] = 0
                found = [p for p in np.flatnonzero(hashes[at] == h).tolist() if plain[p:p + w] in grams]  # no collision
            starts += found
            ends += [p + w for p in found]
        return starts, ends

    def spans(self, text: str) -> list[tuple[int, int]]:
        """The stretches of ``text`` that :meth:`__call__` replaces, ``(first, last)`` (both included), in order,
        apart from each other."""
        if not self.groups or len(text) < self.width:
            return []
        plain, layers = text, []
        for _ in range(ROUNDS):  # escapes, then escapes the decoding uncovered
            if "%" not in plain and "\\" not in plain and "&" not in plain:
                break
            decoded, escapes = _decode(plain)
            if not escapes.spans:
                break
            plain = decoded
            layers.append(escapes)
        found = self._runs(plain) + self._hex_runs(plain)  # (first, last) in the decoded text
        if re.search(_CHAR_DUMP, plain):  # a character dump: its lines' offsets taken out too, so a run goes on
            found += self._runs(re.sub(_CHAR_DUMP, lambda m: " " * len(m[0]), plain))
        if not found:
            return []
        out: list[tuple[int, int]] = []
        for first, final in _merged(found):
            for escapes in reversed(layers):
                first, final = escapes.start(first), escapes.end(final) - 1
            out.append((first, final))
        return _merged(out)

    def _runs(self, plain: str) -> list[tuple[int, int]]:
        """The key's runs in ``plain`` (escapes decoded) once its separators are taken out, ASCII letters of
        either case (a key written upper case, lower case, or with its case swapped)."""
        squeezed, kept = _squeezed(plain)
        if len(squeezed) < self.width:
            return []
        starts, ends = self._starts(squeezed.translate(_LOWER))
        if not starts:
            return []
        import numpy as np

        # the runs covered by the windows found, in the squeezed text, then in the decoded text
        cover = np.zeros(len(squeezed) + 1, dtype=np.int64)
        np.add.at(cover, starts, 1)
        np.add.at(cover, ends, -1)
        inside = np.concatenate(([0], (np.cumsum(cover)[:-1] > 0).astype(np.int8), [0]))
        edges = np.flatnonzero(np.diff(inside))
        return [(a, b - 1) if kept is None else (int(kept[a]), int(kept[b - 1]))  # both included
                for a, b in zip(edges[0::2].tolist(), edges[1::2].tolist(), strict=True)]

    def _hex_runs(self, plain: str) -> list[tuple[int, int]]:
        """The key's hexadecimal runs of :data:`HEX_RUN` digits in the hex bytes of ``plain`` written apart by
        visible separators (``73:6b:2d``, ``73-6b``, ``0x73, 0x6b``, ``{0x73,0x6b}``), as little-endian words
        (``od -x``, ``hexdump``, ``xxd -e``: ``6b73 702d``, the bytes of each word swapped back) or as a dump
        (``xxd``, ``hexdump -C``, ``od -tx1z``: their offsets and text columns skipped, so a key over two dump
        lines is one run; the text column's characters of the run's bytes are replaced too)."""
        if self.hex_group is None:
            return []
        dump = re.search(_DUMP_START, plain) is not None
        if not dump and not re.search(_HEX_APART, plain) and not re.search(_HEX_WORDS, plain):
            return []
        masked, lines = plain, []
        if dump:  # a dump's offsets and text columns: not part of the bytes
            chars = list(plain)
            found = list(re.finditer(_DUMP_LINE, plain))
            columns = any(m.start(3) >= 0 for m in found)  # (a dump has text columns, or none: od -x, hexdump)
            for m in found:
                line = _dump_line(m, columns)
                chars[m.start(1):m.end(1)] = " " * (m.end(1) - m.start(1))
                chars[line[1]:m.end()] = " " * (m.end() - line[1])
                lines.append(line[:4])
            masked = "".join(chars)
        out: list[tuple[int, int]] = []
        for chain in re.finditer(_HEX_CHAIN, masked):
            tokens = [(chain.start() + tok.start(1), tok[1].lower()) for tok in re.finditer(_HEX_TOKEN, chain[0])]
            if sum(len(t) for _, t in tokens) < HEX_RUN:
                continue
            written = _digits(tokens, False)[1]  # (a digit's place in its word in memory order, either way)
            for swapped in (False, True):  # the digits as written, and each word's bytes swapped (little-endian)
                if swapped and not any(len(t) >= 4 and len(t) % 2 == 0 for _, t in tokens):
                    continue
                view, where = _digits(tokens, swapped)
                starts, ends = self._starts(view, [self.hex_group])
                for a, b in _merged([(s, e - 1) for s, e in zip(starts, ends, strict=True)]):
                    out.append((min(where[a:b + 1]), max(where[a:b + 1])))
                    out += _text_column(lines, plain, written[a:b + 1])
        return out

    def __call__(self, text: str) -> str:
        spans = self.spans(text)
        if not spans:
            return text
        out, last = [], 0
        for first, final in spans:
            out += [text[last:first], "***"]
            last = final + 1
        out.append(text[last:])
        return "".join(out)


class StreamRedactor:
    """A stream (a judge program's standard error) redacted piece by piece, whatever the pieces: each piece is
    looked at after the stream's last :data:`TAIL` characters, so a run of the key that one piece starts and the
    next continues is replaced in the next (of the first piece, only what is no run on its own: fewer than
    :data:`MIN_RUN` characters). No timing: the pieces may come a second or an hour apart."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self.tail = ""

    def __call__(self, piece: str) -> str:
        joined = self.tail + piece
        cut = len(self.tail)
        self.tail = joined[-TAIL:]
        out, last = [], cut
        for first, final in self.redactor.spans(joined):
            if final < cut:
                continue
            first = max(first, cut)
            out += [joined[last:first], "***"]
            last = final + 1
        out.append(joined[last:])
        return "".join(out)


def _merged(spans: list[tuple[int, int]], inclusive: bool = True) -> list[tuple[int, int]]:
    """``(first, last)`` stretches in order, overlapping ones (and, ``inclusive``, touching ones) joined."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1] + (1 if inclusive else 0):
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _digits(tokens: list[tuple[int, str]], swapped: bool) -> tuple[str, list[int]]:
    """The hex digits of ``tokens`` (``(position, digits)``) as one string and each digit's position in the text;
    ``swapped``: the bytes of each word of 2, 4 or 8 bytes in reverse order (a little-endian word's bytes in
    memory order)."""
    digits: list[str] = []
    where: list[int] = []
    for at, t in tokens:
        if swapped and len(t) >= 4 and len(t) % 2 == 0:
            pairs = range(len(t) - 2, -1, -2)
            digits.append("".join(t[q:q + 2] for q in pairs))
            where.extend(at + q + j for q in pairs for j in (0, 1))
        else:
            digits.append(t)
            where.extend(range(at, at + len(t)))
    return "".join(digits), where


def _dump_line(m: re.Match, columns: bool) -> tuple[int, int, int, int]:
    """A dump line's bytes (start and end in the text) and text column (start, length): those between ``|``
    and ``|`` (``hexdump -C``) or ``>`` and ``<`` (``od -tx1z``), or the last characters of the line as many as
    its bytes (``xxd``; where the dump has ``columns``, a last field that looks like hex digits -- a key's
    characters -- is this line's column if it is as long as the bytes before it); length 0: no text column."""
    if m.start(3) < 0:
        if columns:
            fields = list(re.finditer(r"([ \t]+)([0-9A-Fa-f]+)", m[2]))
            for k in range(len(fields) - 1, 0, -1):
                count = sum(len(f[2]) for f in fields[:k]) // 2
                if len(fields[k][1]) >= 2 and m.end() - count == m.start(2) + fields[k].start(2):
                    return m.start(2), m.start(2) + fields[k - 1].end(), m.end() - count, count
        return m.start(2), m.end(2), 0, 0
    count = len(re.sub(r"[^0-9A-Fa-f]", "", m[2])) // 2
    body = m[3].lstrip(" \t")
    first = m.end(3) - len(body)
    if len(body) >= 2 and (body[0], body[-1]) in (("|", "|"), (">", "<")):
        return m.start(2), m.end(2), first + 1, len(body) - 2
    return m.start(2), m.end(2), max(first, m.end(3) - count), min(count, len(body))


def _text_column(lines: list[tuple[int, int, int, int]], text: str, where: list[int]) -> list[tuple[int, int]]:
    """The characters of the dump lines' text columns (:func:`_dump_line`) that show the bytes whose digits
    are at ``where`` (in memory order: a little-endian word's first byte is its last digits)."""
    import bisect

    shown: set[int] = set()
    starts = [line[0] for line in lines]
    for p in where:
        k = bisect.bisect_right(starts, p) - 1
        if k < 0 or p >= lines[k][1]:
            continue
        first, _, column, width = lines[k]
        byte = len(re.sub(r"[^0-9A-Fa-f]", "", text[first:p])) // 2
        if byte < width:
            shown.add(column + byte)
    return [(c, c) for c in sorted(shown)]


def _group(width: int, forms: set[str]) -> tuple[int, set[str], Any] | None:
    """``(width, the windows of that width of forms, their hashes)``; None when no form is that long."""
    import numpy as np

    texts = [t for t in forms if len(t) >= width]
    if not texts:
        return None
    grams = {t[i:i + width] for t in texts for i in range(len(t) - width + 1)}
    return width, grams, np.unique(np.concatenate([_windows(_prefix(t), width) for t in texts]))


def _codes(text: str) -> Any:
    import numpy as np

    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")


def _prefix(text: str) -> tuple[Any, Any]:
    """What :func:`_windows` needs of ``text``: the prefix sums of ``code[j] * MULT**j`` and the powers of MULT's
    inverse (numpy uint64: arithmetic modulo 2**64, where the odd MULT has an inverse)."""
    import numpy as np

    codes = _codes(text).astype(np.uint64)
    n = len(codes)
    one = np.ones(1, dtype=np.uint64)
    powers = np.cumprod(np.concatenate((one, np.full(n, _MULT, dtype=np.uint64)))[:n], dtype=np.uint64)
    back = np.cumprod(np.concatenate((one, np.full(n, pow(_MULT, -1, 1 << 64), dtype=np.uint64))), dtype=np.uint64)
    return np.concatenate((np.zeros(1, dtype=np.uint64), np.cumsum(codes * powers, dtype=np.uint64))), back


def _windows(prefix: tuple[Any, Any], width: int) -> Any:
    """The hash of every window of ``width`` characters, sum over j < width of ``code[i + j] * MULT**j`` (modulo
    2**64), from :func:`_prefix`: three vector operations whatever the width."""
    sums, back = prefix
    n = len(sums) - width
    return (sums[width:] - sums[:n]) * back[:n] if n > 0 else sums[:0]


def _squeezed(text: str) -> tuple[str, Any]:
    """``text`` without its separators (:data:`SPACES`, :data:`INVISIBLE`), and where each character left was
    (None: none removed)."""
    if len(text) <= SHORT:  # most answers, every message: character by character
        seps = set(map(chr, SPACES + INVISIBLE))
        kept = [i for i, c in enumerate(text) if c not in seps]
        return (text, None) if len(kept) == len(text) else ("".join(text[i] for i in kept), kept)
    import numpy as np

    codes = _codes(text)
    table = np.zeros(0x10000 + 1, dtype=bool)  # every separator is below U+10000
    table[list(SPACES + INVISIBLE)] = True
    keep = ~table[np.minimum(codes, 0x10000)]
    if keep.all():
        return text, None
    return codes[keep].tobytes().decode("utf-32-le", "surrogatepass"), np.flatnonzero(keep)


class _Escapes:
    """Positions of the decoded text in the text: ``start(i)`` / ``end(i)`` of the decoded character ``i``."""

    def __init__(self, spans: list[tuple[int, int, int]]) -> None:
        self.spans = spans  # (decoded position, start, end in the text) per escape
        self.at = {d: (s, e) for d, s, e in spans}
        self.decoded = [d for d, _, _ in spans]

    def _shift(self, i: int) -> int:
        import bisect

        k = bisect.bisect_left(self.decoded, i)  # escapes before decoded position i
        return 0 if k == 0 else self.spans[k - 1][2] - self.spans[k - 1][0] - 1

    def start(self, i: int) -> int:
        return self.at[i][0] if i in self.at else i + self._shift(i)

    def end(self, i: int) -> int:
        return self.at[i][1] if i in self.at else i + self._shift(i) + 1


def _decode(text: str) -> tuple[str, _Escapes]:
    """``text`` with its escapes (``_ESCAPE``) decoded, and where each decoded character came from."""
    parts: list[str] = []
    spans: list[tuple[int, int, int]] = []
    last = n = 0
    for m in re.finditer(_ESCAPE, text):
        parts.append(text[last:m.start()])
        n += m.start() - last
        spans.append((n, m.start(), m.end()))
        parts.append(_unescaped(m))
        n += 1
        last = m.end()
    parts.append(text[last:])
    return "".join(parts), _Escapes(spans)

"""Opening input files: paths, ``-`` (stdin), gzip by magic bytes, BOM.

Policy (documented in docs/input-formats.md):

* gzip is recognised by its magic bytes ``1f 8b``, whatever the file name;
  a truncated or corrupt stream is an error.
* A UTF-8 byte-order mark at the start of the file is removed.
* CRLF line ends are accepted: ``\\r`` is white space, as in trec_eval.
* A missing file, a directory, an unreadable file are errors (line 0).
"""
from __future__ import annotations

import gzip
import os
import sys
import zlib
from typing import Union

from ..errors import InputError

PathLike = Union[str, "os.PathLike[str]"]

GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = b"\xef\xbb\xbf"


def display_name(path: PathLike) -> str:
    """The name used in messages: ``<stdin>`` for ``-``, else the path as given."""
    p = os.fspath(path)
    return "<stdin>" if p == "-" else p


def read_input_bytes(path: PathLike, *, what: str = "file") -> bytes:
    """Return the (decompressed) content of ``path`` as bytes.

    Raises :class:`InputError` for a missing, unreadable or directory path and
    for a truncated or corrupt gzip stream. A leading UTF-8 BOM is dropped.
    """
    p = os.fspath(path)
    name = display_name(p)
    if p == "-":
        data = sys.stdin.buffer.read()
    else:
        if os.path.isdir(p):
            raise InputError(name, 0, f"is a directory, expected a {what}")
        try:
            with open(p, "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            raise InputError(name, 0, f"no such file (expected a {what})") from None
        except PermissionError:
            raise InputError(name, 0, "cannot read: permission denied") from None
        except OSError as err:
            raise InputError(name, 0, f"cannot read: {err.strerror or err}") from None
    if data[:2] == GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (EOFError, OSError, zlib.error) as err:
            raise InputError(name, 0, f"truncated or corrupt gzip data ({err})") from None
    if data[:3] == UTF8_BOM:
        data = data[3:]
    return data


def plain_file(path: PathLike) -> bool:
    """True for a regular file that is neither gzip nor starts with a BOM (read straight from disk)."""
    p = os.fspath(path)
    if p == "-":
        return False
    try:
        if not os.path.isfile(p):
            return False
        with open(p, "rb") as fh:
            head = fh.read(3)
    except OSError:
        return False
    return head[:2] != GZIP_MAGIC and head != UTF8_BOM


def last_line_of_file(path: PathLike) -> bytes:
    """The last line of a file that is not blank (without reading the whole file)."""
    with open(os.fspath(path), "rb") as fh:
        size = fh.seek(0, os.SEEK_END)
        span = 1 << 16
        while True:
            start = max(0, size - span)
            fh.seek(start)
            tail = fh.read(size - start).rstrip()
            nl = tail.rfind(b"\n")
            if nl >= 0 or start == 0:
                return tail[nl + 1:]
            span *= 4

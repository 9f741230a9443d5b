"""Files that give each run an attribute by run tag: its participating group (team) for ``zelo_pairs pool
--contributions --groups FILE`` and its run type (automatic / manual / feedback ...) for ``zelo_eval -o topics*
--run-types FILE``, as a track's submission records list them (docs/zelo_pairs.md, docs/zelo_eval.md).

Three layouts, told apart by the first line that is neither blank nor a ``#`` comment:

* ``RUNTAG VALUE`` pairs, whitespace-separated (the default);
* tab-separated (a line holding a tab) or comma-separated (a line holding a comma; CSV quoting) columns, as a
  spreadsheet exports them, so a group name may hold spaces;
* either of the two with a header line: a first line whose first field is a run tag's column name (``runtag``,
  ``run tag``, ``run_id``, ``run``, ``tag``; any case) names the columns when it has three fields or more (a
  ``RUNTAG VALUE`` line has two), or two whose second is a group's or a type's column name (``VALUE_COLUMNS``:
  ``group``, ``team``, ``type``, ``run type`` ...), so ``run automatic`` (the run tagged ``run``: ir_datasets'
  scoreddocs) and ``tag manual`` are lines of data wherever they are, and only ``run type`` / ``run group``
  (a run tagged ``run`` of the type ``type``) is a header first and data after it. The value is the column
  named as ``names`` says (``group``/``team``/``participant`` ...; ``type``/``run type`` ...), or the second
  of two.

The bytes are kept as run tags keep theirs (UTF-8, any other byte as a surrogate escape), so a Latin-1 tag in
the file names the run whose 6th column holds the same bytes. A tag given twice is an error naming both lines.
"""
from __future__ import annotations

import csv
import os
import re
from collections.abc import Callable, Sequence

from ..errors import InputError, shown
from .textfile import display_name, read_input_bytes, refuse_nul

TAG_COLUMNS = ("runtag", "run", "runid", "runname", "tag")
"""A header's run tag column, by its name lowercased without spaces, ``_`` and ``-``."""

GROUP_COLUMNS = ("group", "team", "participant", "organization", "organisation", "institution", "site")
TYPE_COLUMNS = ("type", "runtype", "processingtype", "processing", "kind", "category", "constr")
VALUE_COLUMNS = frozenset(GROUP_COLUMNS + TYPE_COLUMNS)
"""The names that make a two-field first line ``RUNTAG NAME`` a header (``run type``): any other second field
makes it a line of data (``run automatic``)."""


def _norm(name: str) -> str:
    return re.sub(r"[\s_\-.]", "", name).lower()


def _fields(line: str, sep: str | None) -> list[str]:
    if sep is None:
        return line.split()
    if sep == "\t":
        return [f.strip() for f in line.split("\t")]
    return [f.strip() for f in next(csv.reader([line], strict=True))]


def read_run_groups(path: str | os.PathLike[str], *, what: str = "group", names: Sequence[str] = GROUP_COLUMNS
                    ) -> dict[str, str]:
    """``{run tag: value}`` of a file of run tags and groups (``what="group"``) or run types (``what="type"``,
    ``names=TYPE_COLUMNS``), in the order of its lines (see the module docstring)."""
    name = display_name(path)
    upper = what.upper()
    data = read_input_bytes(path, what=f"file of run {what}s (RUNTAG {upper} lines)")
    refuse_nul(data, name)
    out: dict[str, str] = {}
    first: dict[str, int] = {}
    sep: str | None = None
    cols: tuple[int, int, int] | None = None  # (tag column, value column, fields a line) under a header
    head_no = 0
    started = False
    for no, raw in enumerate(data.splitlines(), 1):
        line = raw.decode("utf-8", errors="surrogateescape")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not started:
            sep = "\t" if "\t" in line.strip() else "," if "," in line else None
        try:
            fields = _fields(line, sep)
        except csv.Error as err:
            raise InputError(name, no, f"not a CSV line ({err})") from None
        if not started:
            started = True
            if is_header(fields):
                cols, head_no = _header(fields, names, what, name, no), no
                continue
        if cols is None:
            if len(fields) != 2 or not all(fields):
                raise InputError(name, no, f"expected 2 fields (RUNTAG {upper}), got "
                                 + (f"{len(fields)}" if all(fields) else "an empty one"))
            tag, value = fields
        else:
            if len(fields) != cols[2]:
                raise InputError(name, no, f"expected {cols[2]} fields as the header on line {head_no}, "
                                 f"got {len(fields)}")
            tag, value = fields[cols[0]], fields[cols[1]]
            if not tag or not value:
                raise InputError(name, no, f"empty {'run tag' if not tag else what}")
        if tag in out:
            raise InputError(name, no, f"run tag {shown(tag)} given twice (first on line {first[tag]})")
        out[tag], first[tag] = value, no
    if not out:
        raise InputError(name, head_no if cols is not None else 0,
                         ("a header and " if cols is not None else "") +
                         f"no RUNTAG {upper} line (expected the {what} of each run, by run tag)")
    return out


def is_header(fields: Sequence[str]) -> bool:
    """Whether a file's first line, split into ``fields``, is a header: its first field a run tag's column name
    and three fields or more, or two whose second is a group's or a type's column name (:data:`VALUE_COLUMNS`)."""
    if len(fields) < 2 or _norm(fields[0]) not in TAG_COLUMNS:
        return False
    return len(fields) > 2 or _norm(fields[1]) in VALUE_COLUMNS


def _header(head: list[str], names: Sequence[str], what: str, source: str, no: int) -> tuple[int, int, int]:
    """(tag column, value column, number of fields) of a header line."""
    keys = [_norm(h) for h in head]
    for key in names:
        if key in keys[1:]:
            return 0, keys.index(key, 1), len(head)
    if len(head) == 2:
        return 0, 1, 2
    raise InputError(source, no, f"header line: no {what} column among {', '.join(repr(h) for h in head[1:])} "
                     f"(expected one named {' / '.join(names[:3])}, or two columns)")


_TAG = rb"(?m)^[ \t]*(?!#)\S+[ \t]+\S+[ \t]+\S+[ \t]+\S+[ \t]+\S+[ \t]+(\S+)"
"""The 6th field of a run's data line (a line starting with ``#``, maybe indented, is a comment)."""


def tag_lines(path: str | os.PathLike[str], data: bytes | None = None) -> list[tuple[str, int]]:
    """The distinct run tags of a run file (6th column) with the line each first appears on, in line order
    (one tokenizer pass and ``numpy.unique``; no loop per line). ``data``: the file's bytes when read already."""
    import numpy as np

    from .tokenize import split_lines

    name = display_name(path)
    cols, lines = split_lines(read_input_bytes(path, what="run file") if data is None else data, name, min_fields=6,
                              max_fields=None, expected="at least 6 fields 'qid iter docno rank score tag'", keep=6,
                              indented_comments=True)
    if len(lines) == 0:
        raise InputError(name, 0, "empty run file (expected lines 'qid iter docno rank score tag')")
    tags, at = np.unique(cols[5], return_index=True)
    order = np.argsort(at, kind="stable")
    return [(bytes(tags[k]).decode("utf-8", errors="surrogateescape"), int(lines[at[k]])) for k in order]


def run_value(path: str | os.PathLike[str], last_tag: str, value_of: Callable[[str], str | None], what: str,
              source: str | None, tags: Sequence[tuple[str, int]] | None = None) -> str:
    """The group (type) of a run: the value of its run tag (trec_eval's ``runid``: the last line's), the same for
    every tag its lines carry. A run whose lines carry tags of different values is refused naming the first
    line whose tag's value differs (one run, one group), as is a tag ``value_of`` does not know (``None``;
    ``source`` names the file the value comes from). ``tags``: the run's distinct tags with their first lines as
    its reader found them (:attr:`pref_eval.io.runs.Run.tags`: the file is not read again, every file reader
    finds them); without them (None: a caller's own run) one regular-expression scan of the file finds them
    (~3 times faster than the tokenizer), the lines only when two values differ (:func:`tag_lines`)."""
    run = display_name(path)
    mine = value_of(last_tag)
    if mine is None:
        p = os.fspath(path)
        if p.startswith("irds:") and not os.path.exists(p):  # io/runs.read_run: the dataset's scoreddocs
            raise InputError(display_name(source or ""), 0, f"no {what} for {p}: an ir_datasets dataset's "
                             f"scoreddocs carry no run tag, so they are read with the tag {shown(last_tag)} "
                             "(trec_eval's runid of `ir_datasets export ID scoreddocs`, its default --runtag); "
                             f"give a line '{last_tag} {what.upper()}', or evaluate a file exported with a --runtag "
                             "of its own")
        named = next((k for k in (p, os.path.basename(p)) if k != last_tag and value_of(k) is not None),
                     None)  # a file keyed by the runs' file names (as given, or without their folders)
        hint = (f"; {display_name(source or '')} names {shown(named)}, the run's file: a run goes by its run tag, "
                f"the 6th "
                "column of its lines (trec_eval's runid)") if named is not None else ""
        raise InputError(display_name(source or ""), 0, f"no {what} for run tag {shown(last_tag)} of {run} "
                         f"(expected a "
                         f"line '{last_tag} {what.upper()}'{hint})")
    if tags is not None:
        if all(value_of(t) == mine for t, _ in tags):
            return mine
        _differ(run, tags, last_tag, mine, value_of, what, source)
    if os.fspath(path) == "-":  # read once already: its other lines' tags are not seen again
        return mine
    data = read_input_bytes(path, what="run file")
    if all(value_of(t.decode("utf-8", errors="surrogateescape")) == mine for t in set(re.findall(_TAG, data))):
        return mine
    _differ(run, tag_lines(path, data), last_tag, mine, value_of, what, source)
    return mine


def _differ(run: str, tags: Sequence[tuple[str, int]], last_tag: str, mine: str,
            value_of: Callable[[str], str | None], what: str, source: str | None) -> None:
    """Refuse the first of ``tags`` (in line order) whose value is not ``mine``, naming its line."""
    for tag, line in tags:
        if tag == last_tag:
            continue
        other = value_of(tag)
        if other != mine:
            said = f"{what} {shown(other)}" if other is not None else f"no {what} in {display_name(source or '')}"
            raise InputError(run, line, f"run tag {shown(tag)} ({said}) differs from the last line's {shown(last_tag)} "
                             f"({what} {shown(mine)}), which names the run as trec_eval's runid: one run, one {what} "
                             "(give each tag's lines as a run file of its own)")

"""The groups of runs for ``zelo_pairs pool --contributions --groups FILE``: which participating group (team)
submitted each run, by run tag, as a track's submission records list them (docs/zelo_pairs.md).

One ``RUNTAG GROUP`` pair a line, whitespace-separated; blank lines and lines starting with ``#`` are skipped;
a run tag given twice is an error naming both lines (two groups for one run would count its documents twice).
"""
from __future__ import annotations

import os

from ..errors import InputError
from .textfile import display_name, read_input_text


def read_run_groups(path: str | os.PathLike[str]) -> dict[str, str]:
    """``{run tag: group}`` of a group file (the order of its lines)."""
    name = display_name(path)
    out: dict[str, str] = {}
    first: dict[str, int] = {}
    for no, line in enumerate(read_input_text(path, what="file of run groups (RUNTAG GROUP lines)").splitlines(), 1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 2:
            raise InputError(name, no, f"expected 2 fields (RUNTAG GROUP), got {len(fields)}")
        tag, group = fields
        if tag in out:
            raise InputError(name, no, f"run tag {tag!r} given twice (first on line {first[tag]})")
        out[tag], first[tag] = group, no
    if not out:
        raise InputError(name, 0, "no RUNTAG GROUP line (expected the group of each run, by run tag)")
    return out

"""Run ids: the one rule every command (zelo_eval, zelo_compare, zelo_plot) and :func:`pref_eval.evaluate` use.

* ``path`` (default): the shortest unique path suffix. Each run starts as pref_eval.py's run id --
  the file's base name without ``input.`` and ``.gz`` (``runs/input.bm25.gz`` → ``bm25``) -- and
  runs whose ids collide get their parent directories prepended, one at a time, until every id is
  unique (``exp1/run.txt exp2/run.txt`` → ``exp1/run.txt``, ``exp2/run.txt``). The same file given
  twice is an error.
* ``tag``: the run tag (6th column of the run file's last line, trec_eval's ``runid``); two runs with
  the same tag are an error.
* ``--name RUN=LABEL`` then renames a run; ``RUN`` is its id, the path as given, or the file's
  base name. Labels must stay unique.
"""
from __future__ import annotations

import os
from collections.abc import Sequence

from ..errors import UsageError, command_running, option_name, option_value, shown

MODES = ("path", "tag")


def _parts(path: str, cut: bool = True) -> list[str]:
    """Path components, last first; the base name as pref_eval.py cuts it (``cut``)."""
    if path == "-":
        return ["stdin"]
    if path.startswith("irds:") and not os.path.exists(path):  # a dataset's scoreddocs: its id is the name
        return [path]
    norm = os.path.normpath(os.path.abspath(path))
    parts = [p for p in norm.split(os.sep) if p]
    if cut:
        parts[-1] = parts[-1].replace("input.", "").replace(".gz", "")
    return parts[::-1]


def shortest_unique_suffixes(paths: Sequence[str]) -> list[str]:
    """The shortest path suffix of each file that no other file shares (see the module docstring).

    Files of one directory whose cut names coincide (``runA``, ``input.runA``) keep their file names.
    """
    paths = [os.fspath(p) for p in paths]
    raw = [tuple(_parts(p, cut=False)) for p in paths]
    for i, f in enumerate(raw):
        j = raw.index(f)
        if j != i:
            raise UsageError(f"{paths[j]} is given twice (as {paths[i]})")
    parts = [_parts(p) for p in paths]
    full = [tuple(p) for p in parts]
    parts = [list(r) if full.count(f) > 1 else p for p, f, r in zip(parts, full, raw, strict=True)]
    depth = [1] * len(paths)
    while True:
        ids = ["/".join(p[:d][::-1]) for p, d in zip(parts, depth, strict=True)]
        seen: dict[str, list[int]] = {}
        for i, x in enumerate(ids):
            seen.setdefault(x, []).append(i)
        clash = [i for group in seen.values() if len(group) > 1 for i in group]
        if not clash:
            return ids
        grew = False
        for i in clash:
            if depth[i] < len(parts[i]):
                depth[i] += 1
                grew = True
        if not grew:  # pragma: no cover - distinct absolute paths always separate
            raise UsageError(f"cannot tell the runs apart: {', '.join(paths[i] for i in clash)}")


def _names() -> str:
    """The renaming option as the caller names it: ``--name`` / ``run_names``."""
    return option_name("run_names", "--name")


def parse_names(items: Sequence[str]) -> dict[str, str]:
    """``--name RUN=LABEL`` options → {RUN: LABEL}."""
    out: dict[str, str] = {}
    for it in items:
        run, eq, label = it.partition("=")
        if not eq or not run or not label:
            raise UsageError(f"{_names()} {shown(it)}: expected RUN=LABEL")
        if run in out:
            raise UsageError(f"{_names()}: run {shown(run)} renamed twice")
        out[run] = label
    return out


def _is_stream(path: str) -> bool:
    """Standard input (``-``), a FIFO or a character device: what can be read only once."""
    import stat

    if os.fspath(path) == "-":
        return True
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False  # the reader names a missing file
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def run_tag(path: str) -> str:
    """The tag of a run file (6th column of its last line)."""
    from .runs import read_run
    from .textfile import first_line_of_file
    from .zelo_scores import is_zbench_annotated_line

    if _is_stream(path):  # its tag would be read before its run, and a stream is read once (was: "empty run file")
        label = run_ids([path])[0]
        raise UsageError(f"--run-id tag: {path} is a stream (standard input, a pipe, <(...)) and can be read only "
                         f"once, for its run; name it with --name {label}=LABEL (--run-id path)" if command_running()
                         else f"run_id_mode='tag': {path} is a stream (standard input, a pipe, <(...)) and can be "
                         f"read only once, for its run; name it with run_names=['{label}=LABEL'] (run_id_mode='path')")
    if is_zbench_annotated_line(first_line_of_file(path)):  # a reranker's file in zbench's format (zelo_eval -R)
        raise UsageError(f"--run-id tag: {path} is zbench JSONL, which names no run; use --run-id path (the "
                         "default) or --name RUN=LABEL" if command_running() else
                         f"run_id_mode='tag': {path} is zbench JSONL, which names no run; use run_id_mode='path' (the "
                         "default) or run_names=['RUN=LABEL', ...]")
    return read_run(path).tag


def run_ids(paths: Sequence[str], *, mode: str = "path", names: dict[str, str] | Sequence[str] | None = None,
            tags: Sequence[str] | None = None) -> list[str]:
    """Run ids of ``paths`` under ``mode`` (``path`` or ``tag``), renamed by ``names``.

    ``names``: {RUN: LABEL} or the raw ``--name`` strings; ``tags``: the runs' tags when already
    read (``mode="tag"``; otherwise each file is read for it).
    """
    paths = [os.fspath(p) for p in paths]
    if mode not in MODES:
        raise UsageError(f"{option_name('run_id_mode', '--run-id')} {shown(mode)}: expected one of {', '.join(MODES)}")
    suffixes = shortest_unique_suffixes(paths)
    if mode == "tag":
        tags = list(tags) if tags is not None else [run_tag(p) for p in paths]
        seen: dict[str, str] = {}
        for t, p in zip(tags, paths, strict=True):
            if t in seen:
                raise UsageError(f"{seen[t]} and {p} have the same run tag {shown(t)}; use "
                                 f"{option_value('run_id_mode', '--run-id', 'path')} or {_names()}")
            seen[t] = p
        ids = list(tags)
    else:
        ids = suffixes
    if names:
        rename = parse_names(names) if not isinstance(names, dict) else dict(names)
        keys: dict[str, int] = {}
        for i, p in enumerate(paths):
            for k in (ids[i], p, os.path.abspath(p), os.path.basename(p), suffixes[i]):
                keys.setdefault(k, i)
        out = list(ids)
        for run, label in rename.items():
            if run not in keys and os.path.abspath(run) in keys:
                run = os.path.abspath(run)
            if run not in keys:
                raise UsageError(f"{_names()} {run}={label}: {shown(run)} is not one of the runs ({', '.join(ids)})")
            out[keys[run]] = label
        dup = sorted({x for x in out if out.count(x) > 1})
        if dup:
            raise UsageError(f"{_names()}: two runs would be called {shown(dup[0])}")
        ids = out
    return ids


def refuse_run_ids_with_per_query() -> None:
    """``--run-id``/``--name`` (``run_id_mode``/``run_names``) given with a per-query file, which names its runs."""
    raise UsageError("--run-id/--name apply to run files evaluated with -R (-P files hold their names)"
                     if command_running() else
                     "run_id_mode/run_names apply to runs evaluated against qrels (a per_query_file names its runs)")

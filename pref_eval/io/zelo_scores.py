"""Reader of zELO score files: the ``qid docno score se`` TSV (writers: :mod:`pref_eval.output.zelo_scores`).

TSV: a header line ``qid<TAB>docno<TAB>score<TAB>se`` (optionally more
columns, e.g. ``component level`` after a ``--prior 0`` fit), then one row
per document; floats are written with Python's shortest round-trip repr;
a missing SE is ``nan``.

zbench's AnnotatedQueryDocuments JSONL (zbench's annotation output, ``zelo_fit --output-format zbench``, and
zbench's reranker files) carries the same numbers: :func:`read_zelo_scores` and :func:`read_scored_candidates`
take it too (recognised by a first line starting a JSON object, ``{"`` or ``{}``: :func:`is_zbench_annotated_line`).
"""
from __future__ import annotations

import itertools
import math
import operator
from typing import Any

from ..errors import InputError, command_running, shown
from .textfile import display_name, first_line_of_file, read_input_bytes, read_input_text, refuse_nul

HEADER = ("qid", "docno", "score", "se")


def is_zelo_scores_header(first_line: str) -> bool:
    """True when a line is a zELO score-file header (``qid docno score se ...``)."""
    return tuple(first_line.rstrip("\r\n").split("\t")[:4]) == HEADER


def is_zbench_annotated_line(first_line: str) -> bool:
    """True when a file's first line starts a JSON object -- ``{`` then ``"`` or ``}`` (zbench's
    AnnotatedQueryDocuments JSONL). A TREC qrels or run line whose topic id merely starts with ``{`` (``{1} 0 d1
    1``) is not one: trec_eval takes such ids, and so do the qrels and run readers. Nor is a dict of dicts whose first
    key is not ``query`` (``{"q1": {"d1": 1, ...}, ...}``: ranx's JSON or a pytrec_eval dict saved on one line), which
    the qrels and run readers then refuse saying what it is (:mod:`pref_eval.io.peer_files`)."""
    import re

    if re.match(r'[ \t]*\{[ \t]*["}]', first_line) is None:
        return False
    nested = re.match(r'[ \t]*\{[ \t]*"((?:[^"\\]|\\.)*)"[ \t]*:[ \t]*\{', first_line)
    return nested is None or nested.group(1) == "query"


def looks_like_zelo_scores(path: str) -> bool:
    """True when ``path`` (a real file, maybe gzip) starts with the zELO TSV header or is zbench's annotated
    JSONL (False when it cannot be read: its reader reports that)."""
    first = first_line_of_file(path)
    return is_zelo_scores_header(first) or is_zbench_annotated_line(first)


def what_score_file(path: str) -> str:
    """Why ``path`` is taken as a zELO score file (for messages: a file meant as qrels whose first line starts a
    JSON object reads as zbench's JSONL, and then only zbench's measures apply)."""
    if is_zbench_annotated_line(first_line_of_file(path)):
        return f"{display_name(path)} is read as zbench's annotated JSONL (its first line starts a JSON object)"
    return f"{display_name(path)} is read as a zELO score file (its first line is zelo_fit's header)"


def header_line(path: str) -> int:
    """The line of ``path`` holding zelo_fit's score header after the first (its lines sorted, files
    concatenated), 0 when none does (read whole: for an error's message only)."""
    data = read_input_bytes(path)
    at = data.find(b"\nqid\tdocno\tscore\tse")
    return data[:at + 1].count(b"\n") + 1 if at >= 0 else 0


def stream_misread(path: Any, data: bytes, expected: str) -> str | None:
    """Why a stream (standard input, a pipe, a FIFO: ``-``, ``/dev/stdin``, ``<(zcat f.gz)``) whose first line is
    a zELO score file's -- zelo_fit's header, or a JSON object as zbench's JSON lines start -- failed as
    ``expected``: those kinds are recognised by the first line of a regular file, which a stream cannot show
    before it is read (it was read as TREC qrels or a run: "relevance grade 'se' is not an integer"). ``None``
    for a regular file or another first line (the reader's own message stands)."""
    import os

    p = os.fspath(path)
    if p != "-" and (not os.path.exists(p) or os.path.isfile(p)):
        return None
    first = data.split(b"\n", 1)[0].decode("utf-8", "replace")
    if is_zelo_scores_header(first):
        kind = "zelo_fit's score header 'qid<TAB>docno<TAB>score<TAB>se'"
    elif is_zbench_annotated_line(first):
        kind = "a JSON object (zbench's JSON lines)"
    else:
        return None
    return (f"expected {expected}, got {kind}: a zELO score file or zbench's JSON lines is recognised by the first "
            f"line of a regular file, and {display_name(p)} is a stream (standard input or a pipe); give it as a "
            "file")


_ANNOTATED = ('{"query": {"id": ...}, "documents": [{"id": ..., "score": a finite number}, ...]} '
              '(zbench annotated JSONL)')


def _finite_score(v) -> float:
    from .judgments import _zbench_score

    x = _zbench_score(v)  # what zbench's pydantic model takes as a float
    if not math.isfinite(x):
        raise ValueError("score")
    return x


def read_zbench_scored(path: str) -> list[tuple[str, list[str], list[float]]]:
    """zbench AnnotatedQueryDocuments JSONL as ``[(qid, docids, scores)]``, queries and documents in file order.

    A score is what zbench's model reads as a float (a number, ``true``/``false``, a numeric string) and must be
    finite; a query on two lines, a document twice in a query, a missing ``score`` are ``file:line`` errors."""
    from .judgments import _json_id, _zbench_records

    return _zbench_records(path, "zbench annotated JSONL", _ANNOTATED,
                           lambda rec: (_json_id(rec["query"]["id"], "query.id"),
                                        [_json_id(d["id"], "document id") for d in rec["documents"]],
                                        [_finite_score(d["score"]) for d in rec["documents"]]))


def read_scored_candidates(path: str) -> dict[str, tuple[list[str], list[float]]]:
    """A run for ``zelo_eval -R SCORES``: ``{qid: (docnos, scores)}``, each query's documents in file order.

    A TREC run, or zbench's AnnotatedQueryDocuments JSONL (a reranker's output in zbench's format: each
    document's ``score`` is the run score)."""
    if is_zbench_annotated_line(first_line_of_file(path)):
        return {q: (docs, xs) for q, docs, xs in read_zbench_scored(path)}
    from .runs import read_run

    return run_candidates(read_run(path))


def run_candidates(run: Any) -> dict[str, tuple[list[str], list[float]]]:
    """A :class:`~pref_eval.io.runs.Run` as :func:`read_scored_candidates` gives a TREC run: ``{qid: (docnos,
    scores)}``, queries in byte order of their ids, each query's documents in the run's order."""
    import numpy as np

    # Queries in byte order of their ids, each query's documents in file order (a query may come back later in
    # the file): a stable sort of per-line query codes, expanded from the run's per-block query ids.
    uq, inv = np.unique(run.qid_values, return_inverse=True)
    codes = np.repeat(inv.astype(np.int64), run.qid_lengths)
    order = np.argsort(codes, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=len(uq)))]).tolist()
    ordered = bool(np.all(order[1:] > order[:-1])) if len(order) > 1 else True
    docno, score = (run.docno, run.score) if ordered else (run.docno[order], run.score[order])
    docs = _decode_ids(docno)
    xs = score.tolist()
    qs = _decode_ids(uq)
    return {q: (docs[bounds[i]:bounds[i + 1]], xs[bounds[i]:bounds[i + 1]]) for i, q in enumerate(qs)}


def _decode_ids(ids) -> list[str]:
    """A numpy bytes array of ids as ``str`` (UTF-8; a byte that is not UTF-8 kept as a surrogate escape, as the
    other readers keep ids as written), without a Python step per id: the ids' bytes laid out newline-terminated
    by numpy (a TREC id holds no newline), decoded once and split; one by one only when that does not split back
    into as many ids."""
    import numpy as np

    n = len(ids)
    if not n:
        return []
    width = ids.dtype.itemsize
    lens = np.strings.str_len(ids)  # numpy bytes values drop trailing NULs: so did bytes(ids[i])
    grid = np.zeros((n, width + 1), dtype=np.uint8)
    grid[:, :width] = np.frombuffer(ids.tobytes(), dtype=np.uint8).reshape(n, width)
    grid[np.arange(n), lens] = 10
    text = grid[np.arange(width + 1) <= lens[:, None]].tobytes().decode("utf-8", "surrogateescape")
    parts = text.split("\n")
    parts.pop()  # after the last newline
    if len(parts) != n:
        parts = [d.decode("utf-8", "surrogateescape") for d in ids.tolist()]
    return parts


def read_zelo_score_table(path: str) -> dict[str, tuple[list[str], list[float], list[float]]]:
    """Read a zELO score TSV into ``{qid: (docnos, scores, ses)}`` (see :func:`score_table_with_header`)."""
    return score_table_with_header(path)[1]


def score_table_with_header(path: str) -> tuple[list[str], dict[str, tuple[list[str], list[float], list[float]]]]:
    """Read a zELO score TSV into ``{qid: (docnos, scores, ses)}``, queries in file order.

    The first line must be the header ``qid docno score se`` (tab-separated,
    more columns allowed); each row needs a finite float score and a
    non-negative (or ``nan``) se. A docno repeated within a query is an error.
    """
    name = display_name(path)
    data = read_input_bytes(path, what="zELO score file")
    refuse_nul(data, name)
    # an id that is not UTF-8 (zelo_fit wrote a Latin-1 docno of a judgment file back as its bytes) is read as
    # those bytes (surrogate escapes), as the qrels, run and judgment readers do
    lines = data.decode("utf-8", "surrogateescape").split("\n")
    if not lines or not is_zelo_scores_header(lines[0]):
        why = stream_misread(path, data, "zelo_fit's score TSV") if is_zbench_annotated_line(lines[0]) else None
        raise InputError(name, 1, why or "expected the header 'qid<TAB>docno<TAB>score<TAB>se' (zelo_fit output)")
    header = lines[0].rstrip("\r").split("\t")
    table = None if b"\r" in data else _score_columns(lines)
    return header, (table if table is not None else _score_rows(lines, name))


def _score_columns(lines: list[str]) -> dict[str, tuple[list[str], list[float], list[float]]] | None:
    """:func:`_score_rows`' table read at once -- one split of the rows, ``float`` mapped over two columns, the
    checks as C-level maps, no Python step per row (session 30) -- or None when some line needs the per-line
    reader (which names it): a CR, a blank line, a field count that varies or is below 4, a score or se that is
    not a number, a score that is not finite, a negative se, a (qid, docno) given twice. ``lines``: the header's
    and the rows', no CR among them."""
    body = lines[1:-1] if lines[-1] == "" else lines[1:]
    if not body or "" in body:
        return None
    width = body[0].count("\t") + 1
    if width < 4 or not all(map(width.__eq__, map((1).__add__, map(str.count, body, itertools.repeat("\t"))))):
        return None
    fields = "\t".join(body).split("\t")
    qid, docno = fields[0::width], fields[1::width]
    try:
        score, se = list(map(float, fields[2::width])), list(map(float, fields[3::width]))
    except ValueError:
        return None
    if not all(map(math.isfinite, score)) or any(map((0.0).__gt__, se)):
        return None
    n = len(qid)
    starts = [0, *itertools.compress(range(1, n), map(operator.ne, qid[1:], qid[:-1])), n]
    if len(starts) - 1 > len(dict.fromkeys(qid)):  # a query's rows apart: its rows brought together, in file order
        first = {q: k for k, q in enumerate(dict.fromkeys(qid))}
        order = sorted(range(n), key=list(map(first.__getitem__, qid)).__getitem__)
        qid, docno = list(map(qid.__getitem__, order)), list(map(docno.__getitem__, order))
        score, se = list(map(score.__getitem__, order)), list(map(se.__getitem__, order))
        starts = [0, *itertools.compress(range(1, n), map(operator.ne, qid[1:], qid[:-1])), n]
    table = {qid[a]: (docno[a:b], score[a:b], se[a:b]) for a, b in itertools.pairwise(starts)}
    if any(len(set(docs)) < len(docs) for docs, _, _ in table.values()):  # (a step per query, not per row)
        return None
    return table


def _score_rows(lines: list[str], name: str) -> dict[str, tuple[list[str], list[float], list[float]]]:
    """The per-line reader of :func:`score_table_with_header`: the first bad line named."""
    out: dict[str, tuple[list[str], list[float], list[float]]] = {}
    seen: set[tuple[str, str]] = set()
    for no, line in enumerate(lines[1:], start=2):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        f = line.split("\t")
        if len(f) < 4:
            raise InputError(name, no, f"expected 4 tab-separated fields 'qid docno score se', got {len(f)}")
        try:
            s, se = float(f[2]), float(f[3])
        except ValueError:
            raise InputError(name, no, f"expected numbers as score and se, got {shown(f[2])} {shown(f[3])}") from None
        if not math.isfinite(s):
            raise InputError(name, no, f"expected a finite score, got {shown(f[2])}")
        if se < 0:
            raise InputError(name, no, f"expected a non-negative se, got {shown(f[3])}")
        if (f[0], f[1]) in seen:
            raise InputError(name, no, f"document {shown(f[1])} appears twice for query {shown(f[0])}")
        seen.add((f[0], f[1]))
        docs, xs, ses = out.setdefault(f[0], ([], [], []))
        docs.append(f[1])
        xs.append(s)
        ses.append(se)
    return out


def refuse_component_scores(cols: list[str], name: str, use: str) -> None:
    """A ``zelo_fit --prior 0`` table (its ``level`` column) has scores centred inside each strongly connected
    component: they order documents only within a component, so ``use`` (a measure or choice that compares
    every document of a query by its score) would be silently wrong on it. Raise ``name:1``."""
    if "level" in cols[4:]:
        raise InputError(name, 1, f"a zelo_fit --prior 0 table (columns component, level): its scores are centred "
                                  f"per strongly connected component and not comparable across them, so {use} "
                                  "cannot use them; refit with a prior > 0 (the default)")


LOGIT_LIMIT = 700.0  # exp(x) overflows a double beyond ~709.78: no natural-log zELO score gets near it


def read_zelo_scores(path: str) -> dict[str, dict[str, float]]:
    """Read a zELO score TSV (or zbench's annotated JSONL, :func:`read_zbench_scored`) into
    ``{qid: {docno: natural-log score}}`` (see :func:`read_zelo_score_table`).

    A file written by ``zelo_fit --scale elo`` carries a last header column ``scale`` (``elo`` on
    every row): its scores ``x = 400/ln 10 · s + offset`` are mapped back to ``x · ln 10/400``, which
    is ``s`` plus a per-file constant -- NDCG with gains ``exp(s)``, pairwise accuracy and recall are
    unchanged by a constant shift, so the offset need not be known. A score beyond ±700 without the
    marker is refused (it cannot be a natural-log score; ``exp`` would overflow).
    """
    from ..zelo.fit import ELO_FACTOR

    name = display_name(path)
    table: dict[str, tuple[list[str], list[float], list[float]]]
    if is_zbench_annotated_line(first_line_of_file(path)):
        cols, table = list(HEADER), {q: (docs, xs, []) for q, docs, xs in read_zbench_scored(path)}
    else:
        cols, table = score_table_with_header(path)
        if not table:  # a header alone scored every run nan with "no query in common" (zelo_plot scores refused it)
            raise InputError(name, 0, "no score rows after the header (expected a line 'qid<TAB>docno<TAB>score"
                                      "<TAB>se' per document)")
    refuse_component_scores(cols, name, "zbench's measures")
    elo = cols[-1] == "scale"
    out: dict[str, dict[str, float]] = {}
    for q, (docs, xs, _) in table.items():
        if elo:
            xs = [x / ELO_FACTOR for x in xs]
        elif xs and (max(xs) > LOGIT_LIMIT or min(xs) < -LOGIT_LIMIT):  # finite scores; no Python step per score
            raise InputError(name, 0, f"query {shown(q)}: a score beyond ±{LOGIT_LIMIT:g} is not a natural-log "
                                      "zELO score (an elo-scale file needs its 'scale' column: refit with "
                                      + ("zelo_fit --scale elo, or use --scale logit)" if command_running() else
                                         "pref_eval.fit(..., scale='elo'), or use scale='logit')"))
        out[q] = dict(zip(docs, xs, strict=True))
    return out


def empty_annotated_queries(path: str) -> dict[str, int]:
    """``{query id: line}`` of the queries of zbench's annotated JSON lines holding no document (``"documents":
    []``, which zbench's model takes): for the message naming where an undefined value comes from (read again,
    only on that path); ``{}`` for a zelo_fit score TSV, which names no query without a document."""
    if not is_zbench_annotated_line(first_line_of_file(path)):
        return {}
    import json

    out: dict[str, int] = {}
    for no, line in enumerate(read_input_text(path, what="zbench annotated JSONL", any_bytes=True).split("\n"), 1):
        if '"documents"' not in line:
            continue
        try:
            rec = json.loads(line)
            if rec["documents"] == []:
                out[str(rec["query"]["id"])] = no
        except (ValueError, KeyError, TypeError, RecursionError):
            continue  # (the reader refused any such line before)
    return out

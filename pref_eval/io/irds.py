"""Qrels and runs from ir_datasets: ``irds:<dataset-id>`` (lazy import): where qrels go, the dataset's qrels
(:func:`irds_qrels_columns`); where a run goes, its ``scoreddocs`` (:func:`irds_run_columns`: the baseline ranking
ir-measures' and PyTerrier's users evaluate through ``ds.scoreddocs_iter()``).

:func:`load_dataset` and :func:`run_quietly` are shared with :mod:`pref_eval.io.texts` (``zelo_judge``'s
``--queries irds:`` / ``--docs irds:``): an ir_datasets failure is one line naming ``irds:<id>``, never
ir_datasets' own ``[INFO]`` / ``[WARNING]`` log lines (a failed download logs two long lines per source
before it raises) nor a traceback.
"""
from __future__ import annotations

import contextlib
import difflib
import logging
import os
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import numpy as np

from ..errors import InputError, shown

T = TypeVar("T")


@contextlib.contextmanager
def _no_irds_log() -> Iterator[None]:
    """ir_datasets' log records (its own stderr handlers, ``propagate=False``) dropped for the block.

    ``logging.disable`` is the only switch that reaches loggers ir_datasets creates lazily; tqdm's
    progress bars of a real download are no log records and still show.
    """
    before = logging.root.manager.disable
    logging.disable(logging.WARNING)
    try:
        yield
    finally:
        logging.disable(before)


def _home() -> str:
    home = os.environ.get("IR_DATASETS_HOME")
    return home if home else os.path.join(os.path.expanduser("~"), ".ir_datasets")


def describe_failure(err: BaseException) -> str:
    """One short line for an exception ir_datasets raised while reading a dataset's files."""
    text = str(err)
    names = {c.__name__ for c in type(err).__mro__}
    if ("All download sources failed" in text or "ConnectionError" in names or "NameResolutionError" in text
            or "Max retries exceeded" in text or "Download failed" in text):
        return (f"the dataset's files are not in IR_DATASETS_HOME ({_home()}) and downloading them failed "
                "(no network?); download them once where there is a network, or set IR_DATASETS_HOME to a "
                "copy of that directory")
    if isinstance(err, OSError) and (err.strerror or err.filename or err.args):
        what = err.strerror or type(err).__name__
        where = err.filename if err.filename is not None else (err.args[0] if len(err.args) == 1 else "")
        return f"{what}: {where}" if where != "" else what
    first = text.splitlines()[0] if text.strip() else ""
    return f"{type(err).__name__}: {first}" if first else type(err).__name__


def run_quietly(source: str, what: str, fn: Callable[[], T]) -> T:
    """``fn()`` with ir_datasets' log silenced; any failure → :class:`InputError` ``source: cannot <what>: …``."""
    try:
        with _no_irds_log():
            return fn()
    except InputError:
        raise
    except Exception as err:  # noqa: BLE001 -- network, missing file, a parse error inside ir_datasets, ...
        raise InputError(source, 0, f"cannot {what}: {describe_failure(err)}") from None


def load_dataset(dataset_id: str) -> Any:
    """``ir_datasets.load(dataset_id)``; an unknown id names up to three registered ids close to it."""
    source = f"irds:{dataset_id}"
    try:
        import ir_datasets
    except ImportError:  # pragma: no cover
        raise InputError(source, 0, "ir_datasets is not installed (pip install ir_datasets)") from None
    except OSError as err:  # its import makes IR_DATASETS_HOME's directories
        raise InputError(source, 0, f"cannot import ir_datasets: {describe_failure(err)} (IR_DATASETS_HOME is "
                         f"{_home()}; it must be a directory ir_datasets can create and write)") from None
    try:
        with _no_irds_log():
            return ir_datasets.load(dataset_id)
    except KeyError:
        close = difflib.get_close_matches(dataset_id, list(ir_datasets.registry), n=3)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else \
            " (the ids are listed at https://ir-datasets.com)"
        raise InputError(source, 0, f"unknown ir_datasets id {shown(dataset_id)}{hint}") from None
    except Exception as err:  # noqa: BLE001 -- a dataset whose set-up reads files
        raise InputError(source, 0, f"cannot load the dataset: {describe_failure(err)}") from None


def _started(ds: Any) -> bool:
    """Whether the dataset's qrels file is on disk (a failure is then one of reading it, not of fetching it)."""
    return _qrels_file(ds) is not None


def _qrels_file(ds: Any) -> str | None:
    """The local file ir_datasets reads the qrels from, when it names one that exists: the ``path(force=False)``
    of the qrels handler's download (``qrels_path()`` itself would start a download when the file is absent)."""
    handler = getattr(getattr(ds, "qrels_path", None), "__self__", None)
    dlc = getattr(handler, "_qrels_dlc", None)
    try:
        with _no_irds_log():
            path = os.fspath(dlc.path(force=False))  # type: ignore[union-attr]
    except Exception:  # noqa: BLE001 -- no such handler, several files (a list), another kind of download, ...
        return None
    return path if os.path.isfile(path) else None


def _record_place(ds: Any, record: int) -> str:
    """Where qrels record ``record`` (1-based, the one ir_datasets or we failed on) is: ``record N`` and, when
    ir_datasets reads one plain file, ``(FILE:LINE)`` or ``(in FILE)``.

    The line is found as ir_datasets' ``TrecQrels`` finds records (a line that is exactly ``\\n`` holds none;
    its UTF-8 reader's line breaks), and given only for that format (one file, not compressed): other formats
    (JSON lines, TSV with a header, several files) map records to lines in their own ways.
    """
    path = _qrels_file(ds)
    if path is None:
        return f"record {record}"
    line = 0
    with contextlib.suppress(Exception):
        from ir_datasets.formats import TrecQrels

        if isinstance(getattr(ds.qrels_path, "__self__", None), TrecQrels):
            line = _trec_qrels_line(path, record)
    return f"record {record} ({path}:{line})" if line else f"record {record} (in {path})"


def _trec_qrels_line(path: str, record: int) -> int:
    """The 1-based line (``\\n``-counted) of the ``record``-th qrels record of a plain TREC qrels file, as
    ir_datasets' ``TrecQrels`` reads it (0: not found, or a compressed file)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        return 0
    newlines = 0
    seen = 0
    for text in data.decode("utf-8", "replace").splitlines(keepends=True):  # the lines of its codecs reader
        if text != "\n":
            seen += 1
            if seen == record:
                return newlines + 1
        newlines += text.count("\n")
    return 0


def irds_qrels_columns(dataset_id: str) -> dict[str, np.ndarray]:
    """Load the qrels of ``dataset_id`` through ir_datasets as columns.

    Returns ``qid``, ``iter``, ``docno`` (bytes arrays), ``rel`` (int64) and
    ``line`` (1-based record numbers); :func:`pref_eval.io.qrels.read_qrels`
    builds the :class:`~pref_eval.io.qrels.Qrels` from them (so this module
    does not import ``qrels`` and there is no import loop). ir_datasets
    downloads the files on first use (its own cache); the id must name a
    dataset that provides qrels.
    """
    source = f"irds:{dataset_id}"
    ds = load_dataset(dataset_id)
    if not ds.has_qrels():
        raise InputError(source, 0, f"dataset {shown(dataset_id)} has no qrels")

    qids: list[bytes] = []
    docs: list[bytes] = []
    rels: list[int] = []
    its: list[bytes] = []

    def columns() -> None:
        for rec in ds.qrels_iter():
            q, d, r, i = (str(rec.query_id).encode(), str(rec.doc_id).encode(), int(rec.relevance),
                          str(getattr(rec, "iteration", "0")).encode())
            qids.append(q)
            docs.append(d)
            rels.append(r)
            its.append(i)

    try:
        run_quietly(source, "load qrels", columns)
    except InputError as err:
        if not qids and not _started(ds):  # nothing read: a download or set-up failure, no record to name
            raise
        raise InputError(source, 0, err.message.replace("cannot load qrels: ", "cannot load qrels: "
                                                        f"{_record_place(ds, len(qids) + 1)}: ", 1)) from None
    n = len(qids)
    if n == 0:
        raise InputError(source, 0, "dataset has no qrels lines")
    return {"qid": np.array(qids, dtype="S"), "iter": np.array(its, dtype="S"),
            "docno": np.array(docs, dtype="S"), "rel": np.asarray(rels, dtype=np.int64),
            "line": np.arange(1, n + 1, dtype=np.int64)}


#: The run tag of a run read from ``irds:ID``: ``ir_datasets export ID scoreddocs --format trec``'s default
#: ``--runtag`` (trec_eval's ``runid`` of that file).
IRDS_RUN_TAG = "run"


def irds_run_columns(dataset_id: str) -> dict[str, np.ndarray]:
    """Load the ``scoreddocs`` of ``dataset_id`` through ir_datasets as a run's columns: ``qid``, ``docno`` (bytes
    arrays, ids as UTF-8) and ``score`` (float64), in the dataset's order (the ranking is by score, as trec_eval
    ranks a run file; ir_datasets' TREC export writes them so). A dataset without scoreddocs, one with none, a
    score that is not a number: :class:`InputError` naming ``irds:<id>`` (and the record)."""
    source = f"irds:{dataset_id}"
    ds = load_dataset(dataset_id)
    if not (hasattr(ds, "has_scoreddocs") and ds.has_scoreddocs()):
        what = " (its qrels: irds:ID where the qrels go)" if hasattr(ds, "has_qrels") and ds.has_qrels() else ""
        raise InputError(source, 0, f"dataset {dataset_id!r} has no scoreddocs, the ranking irds:ID names where a "
                                    f"run goes{what}")
    rows: list[tuple[Any, Any, Any]] = []

    def records() -> None:
        rows.extend((r.query_id, r.doc_id, r.score) for r in ds.scoreddocs_iter())

    run_quietly(source, "load scoreddocs", records)
    if not rows:
        raise InputError(source, 0, "dataset has no scoreddocs records")
    qid, docno, score = zip(*rows, strict=True)
    try:
        scores = np.array(score, dtype=np.float64)
    except (TypeError, ValueError):
        bad = next(i for i, x in enumerate(score) if not _is_float(x))
        raise InputError(source, 0, f"scoreddocs record {bad + 1}: score {score[bad]!r} is not a number") from None
    nan = np.flatnonzero(np.isnan(scores))
    if len(nan):
        raise InputError(source, 0, f"scoreddocs record {int(nan[0]) + 1}: NaN score (expected a number)")
    return {"qid": np.char.encode(np.array(qid, dtype=str), "utf-8"),
            "docno": np.char.encode(np.array(docno, dtype=str), "utf-8"), "score": scores}


def _is_float(x: Any) -> bool:
    try:
        float(x)
    except (TypeError, ValueError):
        return False
    return True

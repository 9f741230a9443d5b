"""The answer store: one SQLite database (stdlib ``sqlite3``, WAL journal).

One row per (judge, prompt hash, qid, first document, second document) —
the documents in the order they were shown, so a pair asked in both orders
has two rows. Each row holds the raw answer, the parsed vote (NULL when
failed), the status (``ok``, ``unparsable``, ``failed``), the reason of a
failure, tokens, cost, latency, attempts and the time (Unix seconds).

Every answer is committed on its own before the caller counts it, so a
``kill -9`` loses only requests in flight (WAL with ``synchronous=NORMAL``
survives a killed process; a power cut may lose the last commits, never
the database). One writer at a time: :meth:`Store.lock` takes an exclusive
``flock`` on ``STORE.lock``; a second ``zelo_judge`` on the same store stops
with a clear error. Reading (``export``) needs no lock.
"""
from __future__ import annotations

import os
import sqlite3
import time

from ..errors import InputError, UsageError

SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS prompts (hash TEXT PRIMARY KEY, template TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS answers (
    judge TEXT NOT NULL, prompt TEXT NOT NULL, qid TEXT NOT NULL, doc_1 TEXT NOT NULL, doc_2 TEXT NOT NULL,
    vote REAL, status TEXT NOT NULL, reason TEXT, raw TEXT,
    tokens_in INTEGER NOT NULL DEFAULT 0, tokens_out INTEGER NOT NULL DEFAULT 0, cost REAL NOT NULL DEFAULT 0,
    latency REAL, attempts INTEGER NOT NULL DEFAULT 1, time REAL NOT NULL,
    PRIMARY KEY (judge, prompt, qid, doc_1, doc_2)
) WITHOUT ROWID;
"""

_COLUMNS = ("judge", "prompt", "qid", "doc_1", "doc_2", "vote", "status", "reason", "raw",
            "tokens_in", "tokens_out", "cost", "latency", "attempts", "time")


class Store:
    """An open store; ``readonly`` opens an existing file for export."""

    def __init__(self, path: str, *, readonly: bool = False) -> None:
        self.path = path
        self._lock_fd: int | None = None
        if readonly and not os.path.exists(path):
            raise InputError(path, 0, "no such store (expected a zelo_judge SQLite store)")
        try:
            if readonly:  # read-write mode but no writes: the last connection to close removes -wal/-shm
                mode = "rw" if os.access(path, os.W_OK) and os.access(os.path.dirname(os.path.abspath(path)),
                                                                       os.W_OK) else "ro"
                self.db = sqlite3.connect(f"file:{os.path.abspath(path)}?mode={mode}", uri=True, timeout=30)
            else:
                self.db = sqlite3.connect(path, timeout=30, isolation_level=None)
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
                self.db.executescript(_SCHEMA)
                self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
            row = self.db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        except sqlite3.DatabaseError as err:
            raise InputError(path, 0, f"not a zelo_judge store ({err})") from None
        if row is None or row[0] != SCHEMA_VERSION:
            raise InputError(path, 0, f"store schema {row[0] if row else '?'} is not {SCHEMA_VERSION}")

    # ------------------------------------------------------------- locking
    def lock(self) -> None:
        """Take the writer lock (``STORE.lock``) or raise a :class:`UsageError`."""
        import fcntl

        fd = os.open(self.path + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            other = os.pread(fd, 32, 0).decode(errors="replace").strip()
            os.close(fd)
            raise UsageError(f"{self.path} is in use by another zelo_judge"
                             + (f" (pid {other})" if other.isdigit() else "")
                             + "; wait for it or use another --store") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        self._lock_fd = fd

    def close(self) -> None:
        self.db.close()
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    # ------------------------------------------------------------- content
    def add_prompt(self, phash: str, template: str) -> None:
        self.db.execute("INSERT OR IGNORE INTO prompts VALUES (?, ?)", (phash, template))

    def keys(self, judges: list[str], phash: str, *, ok_only: bool = False) -> dict[tuple[str, str, str, str], int]:
        """``{(judge, qid, doc_1, doc_2): 1}`` of stored answers (``ok_only``: usable votes only)."""
        out = {}
        for j in judges:
            sql = "SELECT qid, doc_1, doc_2 FROM answers WHERE judge = ? AND prompt = ?"
            if ok_only:
                sql += " AND status = 'ok'"
            for q, a, b in self.db.execute(sql, (j, phash)):
                out[(j, q, a, b)] = 1
        return out

    def votes(self, judges: list[str], phash: str) -> dict[tuple[str, str, str, str], float | None]:
        """``{(judge, qid, doc_1, doc_2): vote or None}`` for the judges and prompt."""
        out: dict = {}
        for j in judges:
            for q, a, b, v in self.db.execute(
                    "SELECT qid, doc_1, doc_2, vote FROM answers WHERE judge = ? AND prompt = ?", (j, phash)):
                out[(j, q, a, b)] = v
        return out

    def put(self, row: dict) -> None:
        """Commit one answer (replacing a failed one when retried)."""
        row.setdefault("time", time.time())
        self.db.execute(f"INSERT OR REPLACE INTO answers ({', '.join(_COLUMNS)}) VALUES "
                        f"({', '.join('?' * len(_COLUMNS))})", tuple(row.get(c) for c in _COLUMNS))

    def judges(self, phash: str) -> list[str]:
        return [r[0] for r in self.db.execute(
            "SELECT DISTINCT judge FROM answers WHERE prompt = ? ORDER BY judge", (phash,))]

    def prompts(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT DISTINCT prompt FROM answers ORDER BY prompt")]

    def rows(self, phash: str, judges: list[str] | None = None):
        """All answers for the prompt (and judges), in insertion-independent key order."""
        sql = "SELECT judge, qid, doc_1, doc_2, vote, time FROM answers WHERE prompt = ?"
        args: list = [phash]
        if judges:
            sql += f" AND judge IN ({', '.join('?' * len(judges))})"
            args += judges
        return self.db.execute(sql + " ORDER BY qid, time, doc_1, doc_2, judge", args)

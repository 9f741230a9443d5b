"""The answer store: one SQLite database (stdlib ``sqlite3``, WAL journal).

One row per (judge, prompt hash, qid, first document, second document,
repetition) — the documents in the order they were shown, so a pair asked in
both orders has two rows; the repetition ``rep`` (0, 1, ...) tells apart the
independent judgments of one pair that a pair-choosing strategy asks for
(``zelo_judge --state`` with the adaptive strategy, or the tournament's extra
final phase): the judge's ``rep``-th answer to the question is a distinct
request, never served the answer of another repetition. Each row holds the raw answer, the parsed vote (NULL when
failed), the status (``ok``, ``unparsable``, ``failed``), the reason of a
failure, tokens, cost, latency, attempts and the time (Unix seconds).

Every answer is committed on its own before the caller counts it, so a
``kill -9`` loses only requests in flight (WAL with ``synchronous=NORMAL``
survives a killed process; a power cut may lose the last commits, never
the database). One writer at a time: :meth:`Store.lock` takes an exclusive
``flock`` on ``STORE.lock``; a second ``zelo_judge`` on the same store stops
with a clear error. Reading (``export``) needs no lock.

Schema 2 added ``rep``; a schema-1 store (written before) is upgraded in
place, in one transaction, when it is opened for writing (its answers become
repetition 0), and read as it is by ``export``.
"""
from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import time
from collections.abc import Iterator

from ..errors import InputError, OutputError, UsageError, option_name, shown

SCHEMA_VERSION = "2"

_PROMPTS = "CREATE TABLE IF NOT EXISTS prompts (hash TEXT PRIMARY KEY, template TEXT NOT NULL);"
_ANSWERS = """CREATE TABLE IF NOT EXISTS answers (
    judge TEXT NOT NULL, prompt TEXT NOT NULL, qid TEXT NOT NULL, doc_1 TEXT NOT NULL, doc_2 TEXT NOT NULL,
    rep INTEGER NOT NULL DEFAULT 0, vote REAL, status TEXT NOT NULL, reason TEXT, raw TEXT,
    tokens_in INTEGER NOT NULL DEFAULT 0, tokens_out INTEGER NOT NULL DEFAULT 0, cost REAL NOT NULL DEFAULT 0,
    latency REAL, attempts INTEGER NOT NULL DEFAULT 1, time REAL NOT NULL,
    PRIMARY KEY (judge, prompt, qid, doc_1, doc_2, rep)
) WITHOUT ROWID;"""
_META = "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"

# sqlite3's messages for a store that cannot be written (rather than one that is not a store)
_WRITE_FAILURES = ("database or disk is full", "disk I/O error", "attempt to write a readonly database",
                   "unable to open database file")

_IDS = frozenset(("qid", "doc_1", "doc_2"))
_COLUMNS = ("judge", "prompt", "qid", "doc_1", "doc_2", "rep", "vote", "status", "reason", "raw",
            "tokens_in", "tokens_out", "cost", "latency", "attempts", "time")


def _stored(x: object) -> object:
    """An id as the store holds it: TEXT, or a BLOB of its bytes when it is not UTF-8 (a Latin-1 docno read as
    its surrogate escape, which SQLite's UTF-8 TEXT cannot take; the same id always the same way)."""
    if type(x) is str and not x.isascii():
        try:
            x.encode("utf-8")
        except UnicodeEncodeError:
            return x.encode("utf-8", "surrogateescape")
    return x


def _loaded(x: object) -> object:
    """An id read from the store (:func:`_stored` undone)."""
    return x.decode("utf-8", "surrogateescape") if type(x) is bytes else x


def _check_readable(path: str) -> None:
    """An existing store this user may not read (or reach: a directory without search permission on the way) is
    refused as an unreadable input (:class:`InputError`, exit 2), as SQLite's "unable to open database file"
    would be taken for a file that is not a store or cannot be written."""
    import stat

    try:
        if stat.S_ISREG(os.stat(path).st_mode):
            with open(path, "rb"):
                pass
    except PermissionError:
        raise InputError(path, 0, "cannot read: permission denied") from None
    except OSError:
        pass  # missing (a new store), or another failure SQLite reports


class Store:
    """An open store; ``readonly`` opens an existing file for export."""

    def __init__(self, path: str, *, readonly: bool = False) -> None:
        self.path = path
        self._lock_fd: int | None = None
        _check_readable(path)
        if readonly and not os.path.exists(path):
            raise InputError(path, 0, "no such store (expected a zelo_judge SQLite store)")
        self.rep = "rep"  # the repetition column ("0" when reading a schema-1 store)
        try:
            if readonly:  # read-write mode but no writes: the last connection to close removes -wal/-shm
                directory_writable = os.access(os.path.dirname(os.path.abspath(path)), os.W_OK)
                mode = "rw" if os.access(path, os.W_OK) and directory_writable else "ro"
                if not directory_writable and not os.path.lexists(path + "-wal"):
                    # SQLite reads a WAL store through a -shm file it creates beside it, which a read-only
                    # directory does not take; without a -wal file (a store closed cleanly) every answer is in
                    # the file itself: read it as an unchanging file
                    mode += "&immutable=1"
                self.db = sqlite3.connect(f"file:{os.path.abspath(path)}?mode={mode}", uri=True, timeout=30)
                version = self._version()
                self._check_version(version, readonly=True)
                if version == "1":
                    self.rep = "0"
            else:
                if os.path.exists(path) and os.geteuid() != 0 and not os.access(path, os.W_OK):
                    # refused before SQLite opens it read-only (and creates -wal/-shm files beside it), and before
                    # any question is asked whose answer could not be kept
                    raise self._cannot_write(PermissionError(os.strerror(errno.EACCES)))
                self.db = sqlite3.connect(path, timeout=30, isolation_level=None)
                version = self._version()  # checked before anything is written into the file
                self._check_version(version, readonly=False)
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
                self.db.execute(_META)
                if version is None:
                    self.db.execute(_PROMPTS)
                    self.db.execute(_ANSWERS)
                    self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
                    version = SCHEMA_VERSION
                elif version == "1":
                    self._upgrade_from_1()
                    version = SCHEMA_VERSION
        except sqlite3.OperationalError as err:
            self._close_refused()
            if not readonly and str(err) in _WRITE_FAILURES:
                raise self._cannot_write(err) from None
            raise InputError(path, 0, f"not a zelo_judge store ({err})") from None
        except sqlite3.DatabaseError as err:
            self._close_refused()
            raise InputError(path, 0, f"not a zelo_judge store ({err})") from None
        except BaseException:
            self._close_refused()  # a refused store (another program's database, a newer schema): no -wal/-shm left
            raise

    def _close_refused(self) -> None:
        """Close the connection of a store refused while opening (its -wal/-shm files go with it)."""
        db = getattr(self, "db", None)
        if db is not None:
            with contextlib.suppress(sqlite3.Error):
                db.close()

    def _check_version(self, version: str | None, readonly: bool) -> None:
        """Refuse, before anything is written: an SQLite database of another program (tables but no
        zelo_judge schema: its tables would be mixed with ours), a store written by a newer pref_eval, and a
        store whose answers table is gone."""
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if version is None:
            if tables:
                names = ", ".join(sorted(tables)[:3]) + (", ..." if len(tables) > 3 else "")
                raise InputError(self.path, 0, f"not a zelo_judge store: an SQLite database of other tables "
                                 f"({names}); give a new file or a store zelo_judge wrote")
            if readonly:
                raise InputError(self.path, 0, "not a zelo_judge store (no zelo_judge schema in it)")
            return
        if version not in (SCHEMA_VERSION, "1"):
            newer = version.isdigit() and int(version) > int(SCHEMA_VERSION)
            raise InputError(self.path, 0, f"written by a newer pref_eval (store schema {version}; this version "
                             f"reads up to {SCHEMA_VERSION})" if newer else
                             f"store schema {shown(version)} is not one zelo_judge wrote "
                             f"(expected 1 or {SCHEMA_VERSION})")
        if "answers" not in tables or "prompts" not in tables:
            raise InputError(self.path, 0, "not a zelo_judge store: its schema is marked but the answers or "
                             "prompts table is missing (a damaged store)")

    def _cannot_write(self, err: Exception) -> OutputError:
        """A full disk, an I/O error, a read-only file: exit 1; every answer committed before is kept."""
        return OutputError(f"{self.path}: cannot write: {err} (the answers stored before are kept: run the same "
                           "command again once it can be written)")

    def _version(self) -> str | None:
        has_meta = self.db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").fetchone()
        row = self.db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() if has_meta else None
        return None if row is None else row[0]

    def _upgrade_from_1(self) -> None:
        """Schema 1 → 2: the answers table gains ``rep`` (0 for every stored answer) in its key."""
        cols = ", ".join(c for c in _COLUMNS if c != "rep")
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute("ALTER TABLE answers RENAME TO answers_v1")
            self.db.execute(_ANSWERS)
            self.db.execute(f"INSERT INTO answers ({cols}, rep) SELECT {cols}, 0 FROM answers_v1")
            self.db.execute("DROP TABLE answers_v1")
            self.db.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (SCHEMA_VERSION,))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    # ------------------------------------------------------------- locking
    def lock(self) -> None:
        """Take the writer lock (``STORE.lock``) or raise a :class:`UsageError`."""
        import fcntl

        from ..zelo.state_lock import note_holder, open_lock_file

        fd = open_lock_file(self.path + ".lock", self.path)
        if fd is None:  # the directory takes no new file: the store cannot be written there either
            raise OutputError(f"{self.path}: cannot write: cannot create its lock file {self.path}.lock")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            other = os.pread(fd, 32, 0).decode(errors="replace").strip()
            os.close(fd)
            raise UsageError(f"{self.path} is in use by another zelo_judge"
                             + (f" (pid {other})" if other.isdigit() else "")
                             + f"; wait for it or use another {option_name('store')}") from None
        note_holder(fd)
        self._lock_fd = fd

    def close(self) -> None:
        self.db.close()
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    # ------------------------------------------------------------- content
    def add_prompt(self, phash: str, template: str) -> None:
        try:
            self.db.execute("INSERT OR IGNORE INTO prompts VALUES (?, ?)", (phash, template))
        except sqlite3.Error as err:
            raise self._cannot_write(err) from None

    # A judge's answers may be stored under former names of it (its server's port, before session 21:
    # pref_eval.judge.spec.identity); they are read as the judge's, the first answer stored to a question winning.
    def former_names(self) -> dict[str, list[str]]:
        """``{judge: [former names under which the store holds answers of it]}`` (empty for most stores)."""
        from .spec import identity

        if not hasattr(self, "_former"):
            former: dict[str, list[str]] = {}
            with self._reading():
                for (name,) in self.db.execute("SELECT DISTINCT judge FROM answers ORDER BY judge"):
                    now = identity(name)
                    if now != name:
                        former.setdefault(now, []).append(name)
            self._former = former
        return self._former

    @contextlib.contextmanager
    def _reading(self) -> Iterator[None]:
        """A store whose pages are damaged (a file cut short or overwritten: its schema still opens) raises
        sqlite3's DatabaseError only when the answers are read: one line naming the store, exit 2 (was a
        traceback)."""
        try:
            yield
        except sqlite3.DatabaseError as err:
            raise InputError(self.path, 0, f"a damaged zelo_judge store: its answers cannot be read ({err})") \
                from None

    def _answers_of(self, j: str, phash: str, columns: str, where: str = "") -> sqlite3.Cursor:
        names = [j, *self.former_names().get(j, [])]
        return self.db.execute(f"SELECT qid, doc_1, doc_2, {self.rep}, {columns} FROM answers WHERE judge IN "
                               f"({', '.join('?' * len(names))}) AND prompt = ?{where} ORDER BY time, judge != ?",
                               (*names, phash, j))

    def keys(self, judges: list[str], phash: str, *, ok_only: bool = False) -> dict[tuple, int]:
        """``{(judge, qid, doc_1, doc_2, rep): 1 (a usable vote) or 0 (failed, unparsable)}`` of stored answers
        (``ok_only``: usable votes only)."""
        out: dict[tuple, int] = {}
        with self._reading():
            for j in judges:
                for q, a, b, r, ok in self._answers_of(j, phash, "status = 'ok'", " AND status = 'ok'" if ok_only
                                                       else ""):
                    out.setdefault((j, _loaded(q), _loaded(a), _loaded(b), r), int(ok))
        return out

    def votes(self, judges: list[str], phash: str) -> dict[tuple, float | None]:
        """``{(judge, qid, doc_1, doc_2, rep): vote or None}`` for the judges and prompt."""
        out: dict = {}
        with self._reading():
            for j in judges:
                for q, a, b, r, v in self._answers_of(j, phash, "vote"):
                    out.setdefault((j, _loaded(q), _loaded(a), _loaded(b), r), v)
        return out

    def put(self, row: dict) -> None:
        """Commit one answer (replacing a failed one when retried)."""
        row.setdefault("time", time.time())
        row.setdefault("rep", 0)
        try:
            values = tuple(_stored(row.get(c)) if c in _IDS else row.get(c) for c in _COLUMNS)
            self.db.execute(f"INSERT OR REPLACE INTO answers ({', '.join(_COLUMNS)}) VALUES "
                            f"({', '.join('?' * len(_COLUMNS))})", values)
        except sqlite3.Error as err:  # a full disk, an I/O error: one line, exit 1 (was a traceback)
            raise self._cannot_write(err) from None

    def judges(self, phash: str) -> list[str]:
        from .spec import identity

        with self._reading():
            return sorted({identity(r[0]) for r in self.db.execute(
                "SELECT DISTINCT judge FROM answers WHERE prompt = ?", (phash,))})

    def prompts(self) -> list[str]:
        with self._reading():
            return [r[0] for r in self.db.execute("SELECT DISTINCT prompt FROM answers ORDER BY prompt")]

    def rows(self, phash: str, judges: list[str] | None = None) -> Iterator[tuple]:
        """``(judge, qid, doc_1, doc_2, rep, vote, time)`` of every answer for the prompt (and judges), a judge
        named as today (:func:`~pref_eval.judge.spec.identity`): of two answers to one question stored under a
        judge's former and present names, the first stored."""
        former = self.former_names()
        sql = f"SELECT judge, qid, doc_1, doc_2, {self.rep}, vote, time FROM answers WHERE prompt = ?"
        args: list = [phash]
        if judges:
            names = [n for j in judges for n in (j, *former.get(j, []))]
            sql += f" AND judge IN ({', '.join('?' * len(names))})"
            args += names
        order = "qid, time, doc_1, doc_2, rep, judge" if self.rep == "rep" else "qid, time, doc_1, doc_2, judge"
        with self._reading():
            yield from self._rows(f"{sql} ORDER BY {order}", args, former)

    def _rows(self, sql: str, args: list, former: dict[str, list[str]]) -> Iterator[tuple]:
        cursor = (row if all(type(x) is not bytes for x in row[1:4]) else (row[0], *map(_loaded, row[1:4]), *row[4:])
                  for row in self.db.execute(sql, args))
        if not former:
            yield from cursor
            return
        now = {old: j for j, olds in former.items() for old in olds}
        seen: set[tuple] = set()
        for row in cursor:
            j = now.get(row[0], row[0])
            if (j, *row[1:5]) in seen:
                continue
            seen.add((j, *row[1:5]))
            yield (j, *row[1:])

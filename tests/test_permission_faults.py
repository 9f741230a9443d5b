"""Permission faults as a user who is not root (docs/exit-codes.md, "Output files" and "Permissions").

Root opens every file whatever its mode, so the fault suite run as root (this machine, CI) never meets
"Permission denied". Here the commands run as a user who is not root: when the suite runs as root, as uid
65534 (``nobody``; the faults are set up by root: files of another user, a sticky directory owned by root);
when it runs as another user, as that user (the cases that need a file of another user are skipped). The
commands of a test run in one unprivileged interpreter (tests/perm_driver.py, :func:`cli_harness.run_inproc`
for each); root checks the results.

Every case expects what docs/exit-codes.md promises: no traceback, the documented status, one line
``PROG: ...`` naming the file and the problem, every file of the workspace as it was (contents, mode, owner,
inode), no ``.tmp-*`` left. The default run keeps a few cases (one interpreter, ~2 s); the whole matrix --
every command and sub-command against every fault -- is slow (CI).
"""
from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_harness import ROOT, Result, check_contract
from fault_workspace import OUT, PLOT, VALID, argv_with

try:
    import matplotlib  # noqa: F401

    CASES = {**VALID, **PLOT}
except ImportError:  # pragma: no cover - plot extra not installed
    CASES = dict(VALID)

AS_ROOT = os.geteuid() == 0
USER = 65534 if AS_ROOT else os.geteuid()  # who runs the commands
GROUP = 65534 if AS_ROOT else os.getegid()
OTHER = 65533  # another user (root gives files to it; no account needed)
DRIVER = Path(__file__).with_name("perm_driver.py")
STORE_NAMES = (".sqlite", ".sqlite-wal", ".sqlite-shm", ".sqlite-journal", ".sqlite.lock")


@dataclass
class Job:
    id: str
    script: str
    argv: list[str]
    expect: set[int]
    setup: Callable[[Path], None] = lambda ws: None
    names: tuple[str, ...] = ()
    says: str = ""  # a text the message must hold (case-insensitive)
    other_user: bool = False  # needs root to give a file to another user
    check: Callable[[Path], str | None] | None = None  # a further check of the workspace afterwards
    strict_store: bool = False  # the store's files must be as they were too
    fast: bool = False
    owner_notes: int = 0  # warning lines "FILE: was owned by ..., now by ..." expected (a replaced file)
    left_out: str = ""  # --keep-going: this output holds the other runs; stderr is the error + the summary line


def _ext(case: str) -> str:
    return ".png" if case.startswith("plot") else ".txt"


def _mkdir(ws: Path, name: str, mode: int, owner: int = USER) -> Path:
    d = ws / name
    d.mkdir(exist_ok=True)
    if AS_ROOT:
        os.chown(d, owner, owner)
    d.chmod(mode)
    return d


def _file(path: Path, mode: int, owner: int = USER, text: str = "an earlier file\n") -> None:
    path.write_text(text)
    if AS_ROOT:
        os.chown(path, owner, owner)
    path.chmod(mode)


def _chmod(name: str, mode: int) -> Callable[[Path], None]:
    return lambda ws: (ws / name).chmod(mode)


def _into_dir(victim: str, mode: int) -> Callable[[Path], None]:
    """Move ``victim`` into ``sub/`` and give ``sub`` the ``mode``."""
    def setup(ws: Path) -> None:
        d = _mkdir(ws, "sub", 0o755)
        os.replace(ws / victim, d / victim)
        d.chmod(mode)
    return setup


def _absent(*names: str) -> Callable[[Path], str | None]:
    return lambda ws: next((f"{n} was created" for n in names if (ws / n).exists()), None)


# ---- the matrix ----------------------------------------------------------------------------------------

STATE_OPTIONS = ("--state", "--store")


def _plain_inputs(argv: list[str], ws: Path) -> list[str]:
    """The files a command only reads (not a state or a store it rewrites)."""
    return [a for i, a in enumerate(argv) if (ws / a).is_file() and (i == 0 or argv[i - 1] not in STATE_OPTIONS)]


def output_jobs(case: str, script: str, argv: list[str]) -> list[Job]:
    ext = _ext(case)
    jobs = [
        Job(f"{case}:dir-no-write", script, argv_with(argv, f"ro/out{ext}"), {1}, names=(f"ro/out{ext}",),
            says="permission denied", setup=lambda ws: _mkdir(ws, "ro", 0o555), check=_absent(f"ro/out{ext}")),
        Job(f"{case}:dir-no-search", script, argv_with(argv, f"nx/out{ext}"), {1}, names=(f"nx/out{ext}",),
            says="permission denied", setup=lambda ws: _mkdir(ws, "nx", 0o666)),
        Job(f"{case}:dir-no-write-existing", script, argv_with(argv, f"ro/old{ext}"), {1}, names=(f"ro/old{ext}",),
            says="directory ro", setup=lambda ws: (_mkdir(ws, "ro", 0o755), _file(ws / "ro" / f"old{ext}", 0o644),
                                                   (ws / "ro").chmod(0o555))),
        Job(f"{case}:read-only-file", script, argv_with(argv, f"old{ext}"), {1}, names=(f"old{ext}",),
            says="permission denied", setup=lambda ws: _file(ws / f"old{ext}", 0o444)),
        # /tmp-like: sticky, writable by all, owned by root; a file of another user that this user may write
        # into but not replace (rename over it: EPERM)
        Job(f"{case}:sticky-other", script, argv_with(argv, f"tmp/other{ext}"), {1}, names=(f"tmp/other{ext}",),
            other_user=True, setup=lambda ws: (_mkdir(ws, "tmp", 0o1777, owner=0),
                                               _file(ws / "tmp" / f"other{ext}", 0o666, owner=OTHER))),
        Job(f"{case}:sticky-new", script, argv_with(argv, f"tmp/new{ext}"), {0}, other_user=True,
            setup=lambda ws: _mkdir(ws, "tmp", 0o1777, owner=0),
            check=lambda ws: None if (ws / "tmp" / f"new{ext}").stat().st_uid == USER else "not the user's file"),
    ]
    return jobs


def input_jobs(case: str, script: str, argv: list[str], ws: Path) -> list[Job]:
    inputs = _plain_inputs(argv, ws)
    if not inputs:
        return []
    victim = inputs[0]
    out = argv_with(argv, "out" + _ext(case))
    moved = [f"sub/{victim}" if a == victim else a for a in out]
    return [
        *(Job(f"{case}:unreadable-input-{name}", script, out, {2}, names=(name,), says="permission denied",
              setup=_chmod(name, 0), check=_absent("out" + _ext(case))) for name in inputs
          if not ("--keep-going" in argv and name.endswith(".run"))),
        # --keep-going (session 21): an unreadable run is left out, the others are written, exit 2
        *(Job(f"{case}:unreadable-input-{name}", script, out, {2}, names=(name,), says="permission denied",
              setup=_chmod(name, 0), left_out="out" + _ext(case)) for name in inputs
          if "--keep-going" in argv and name.endswith(".run")),
        Job(f"{case}:dir-no-search-input", script, moved, {2}, names=(f"sub/{victim}",), says="permission denied",
            setup=_into_dir(victim, 0o666), check=_absent("out" + _ext(case))),
        # a directory that cannot be listed but can be searched: its files open as usual
        Job(f"{case}:dir-no-read-input", script, moved, {0}, setup=_into_dir(victim, 0o311)),
    ]


def _hold_lock(name: str) -> Callable[[Path], None]:
    """Root holds the lock file ``name`` (mode 0644, root's) during the run, as another user's process would."""
    def setup(ws: Path) -> None:
        import fcntl

        fd = os.open(ws / name, os.O_RDWR | os.O_CREAT, 0o644)
        os.write(fd, b"1")
        fcntl.flock(fd, fcntl.LOCK_EX)
        HELD.append(fd)
    return setup


HELD: list[int] = []
JUDGE_STATE = CASES["judge-state"][1]
JUDGE_Q = argv_with(CASES["judge"][1], "out.txt")


def state_jobs() -> list[Job]:
    nxt = ["next", "--state", "s.json", "-o", "batch.txt"]
    add = ["add", "--state", "rs.json", "-J", "rs-round1.jsonl", "-Q"]
    no_batch = _absent("batch.txt")
    return [
        Job("pairs-next:state-read-only", "zelo_pairs", nxt, {1}, names=("s.json",), says="permission denied",
            setup=_chmod("s.json", 0o444), check=no_batch, fast=True),
        Job("pairs-add:state-read-only", "zelo_pairs", add, {1}, names=("rs.json",), says="permission denied",
            setup=_chmod("rs.json", 0o444)),
        Job("pairs-next:state-unreadable", "zelo_pairs", nxt, {2}, names=("s.json",), says="permission denied",
            setup=_chmod("s.json", 0), check=no_batch),
        Job("pairs-status:state-read-only", "zelo_pairs", ["status", "--state", "rs.json"], {0},
            setup=_chmod("rs.json", 0o444)),
        Job("pairs-init:dir-no-write", "zelo_pairs", ["init", "--state", "ro/s.json", "--qrels", "q.qrels"], {1},
            names=("ro/s.json",), says="permission denied", setup=lambda ws: _mkdir(ws, "ro", 0o555)),
        Job("pairs-init:force-read-only", "zelo_pairs", ["init", "--state", "s.json", "--qrels", "q.qrels",
                                                         "--force"], {1}, names=("s.json",),
            says="permission denied", setup=_chmod("s.json", 0o444)),
        # a lock left by another user's process that has ended (readable, not writable): taken all the same
        Job("pairs-next:stale-lock-of-another-user", "zelo_pairs", nxt, {0}, other_user=True,
            setup=lambda ws: _file(ws / "s.json.lock", 0o644, owner=OTHER, text="1")),
        # a lock this user cannot open at all: whether it is held cannot be known -- refused, nothing changed
        Job("pairs-next:unreadable-lock", "zelo_pairs", nxt, {1}, names=("s.json.lock",), says="permission denied",
            other_user=True, setup=lambda ws: _file(ws / "s.json.lock", 0o600, owner=OTHER, text="1"),
            check=no_batch, fast=True),
        # the state's lock held by another user's zelo_pairs (a file this user may not write): in use, exit 2
        Job("judge-state:lock-held-by-another-user", "zelo_judge", argv_with(JUDGE_STATE, "out.txt"), {2},
            names=("as.json",), says="in use", other_user=True, setup=_hold_lock("as.json.lock"),
            check=_absent("out.txt"), fast=True),
        Job("judge-state:state-read-only", "zelo_judge", argv_with(JUDGE_STATE, "out.txt"), {1},
            names=("as.json",), says="permission denied", setup=_chmod("as.json", 0o444), check=_absent("out.txt")),
        # the store
        Job("judge:store-read-only", "zelo_judge", JUDGE_Q, {1}, names=("judge.sqlite",), strict_store=True,
            setup=_chmod("judge.sqlite", 0o444), check=_absent("out.txt"), fast=True),
        Job("judge:store-unreadable", "zelo_judge", JUDGE_Q, {2}, names=("judge.sqlite",), says="cannot read",
            strict_store=True, setup=_chmod("judge.sqlite", 0), check=_absent("out.txt")),
        Job("judge-export:store-unreadable", "zelo_judge", ["export", "--store", "judge.sqlite", "-Q", "-o", "e.txt"],
            {2}, names=("judge.sqlite",), says="cannot read: permission denied", strict_store=True,
            setup=_chmod("judge.sqlite", 0), check=_absent("e.txt"), fast=True),
        Job("judge:store-dir-no-write", "zelo_judge", [("ro/judge.sqlite" if a == "judge.sqlite" else a)
                                                       for a in JUDGE_Q], {1}, names=("ro/judge.sqlite",),
            strict_store=True, setup=lambda ws: (_mkdir(ws, "ro", 0o755), os.replace(ws / "judge.sqlite",
                                                                                    ws / "ro/judge.sqlite"),
                                                 (ws / "ro").chmod(0o555)), check=_absent("out.txt")),
        # a store shared in /tmp: another user's, writable by all, in a sticky directory -- written in place by
        # SQLite (never renamed over), so it is used, as is its lock file (opened for reading)
        Job("judge:store-of-another-user-in-a-sticky-dir", "zelo_judge", [("tmp/judge.sqlite" if a == "judge.sqlite"
                                                                          else a) for a in JUDGE_Q], {0},
            other_user=True, setup=lambda ws: (_mkdir(ws, "tmp", 0o1777, owner=0),
                                               os.replace(ws / "judge.sqlite", ws / "tmp/judge.sqlite"),
                                               os.replace(ws / "judge.sqlite.lock", ws / "tmp/judge.sqlite.lock"),
                                               _give(ws / "tmp/judge.sqlite", OTHER, OTHER),
                                               _give(ws / "tmp/judge.sqlite.lock", OTHER, OTHER),
                                               (ws / "tmp/judge.sqlite").chmod(0o666))),
        Job("judge:store-lock-held-by-another-user", "zelo_judge", JUDGE_Q, {2}, names=("judge.sqlite",),
            says="in use", other_user=True, strict_store=True, setup=_hold_lock("judge.sqlite.lock"),
            check=_absent("out.txt")),
        Job("judge:store-stale-lock-of-another-user", "zelo_judge", JUDGE_Q, {0}, other_user=True,
            setup=lambda ws: _file(ws / "judge.sqlite.lock", 0o644, owner=OTHER, text="1")),
        Job("judge:store-unreadable-lock", "zelo_judge", JUDGE_Q, {1}, names=("judge.sqlite.lock",),
            says="permission denied", other_user=True, strict_store=True,
            setup=lambda ws: _file(ws / "judge.sqlite.lock", 0o600, owner=OTHER, text="1"), check=_absent("out.txt")),
        Job("judge-export:store-read-only", "zelo_judge", ["export", "--store", "judge.sqlite", "-Q", "-o", "e.txt"],
            {0}, strict_store=True, setup=_chmod("judge.sqlite", 0o444)),
        Job("judge-export:store-dir-no-write", "zelo_judge", ["export", "--store", "ro/judge.sqlite", "-Q", "-o",
                                                             "e.txt"], {0}, strict_store=True,
            setup=lambda ws: (_mkdir(ws, "ro", 0o755), os.replace(ws / "judge.sqlite", ws / "ro/judge.sqlite"),
                              (ws / "ro").chmod(0o555))),
        # several outputs: none written when one cannot be
        Job("fit:second-output-read-only", "zelo_fit", ["-J", "j.judge", "-Q", "-o", "new.tsv", "--qrels", "ro.qrels"],
            {1}, names=("ro.qrels",), says="permission denied", setup=lambda ws: _file(ws / "ro.qrels", 0o444),
            check=_absent("new.tsv"), fast=True),
        # the zelo group
        Job("zelo-eval:dir-no-write", "zelo", ["eval", *argv_with(VALID["eval"][1], "ro/out.txt")], {1},
            names=("ro/out.txt",), says="permission denied", setup=lambda ws: _mkdir(ws, "ro", 0o555)),
        Job("zelo-fit:unreadable-input", "zelo", ["fit", *argv_with(VALID["fit"][1], "out.txt")], {2},
            names=("j.judge",), says="permission denied", setup=_chmod("j.judge", 0)),
        Job("zelo-trec:unreadable-input", "zelo", ["trec", *VALID["trec"][1]], {2}, names=("bm25.run",),
            says="permission denied", setup=_chmod("bm25.run", 0)),
    ]


def _others(ws: Path, name: str, mode: int, group: int = GROUP, text: str = "an earlier file\n") -> None:
    """A file of the other user (group ``group``, ``mode``) that this user may write into."""
    _file(ws / name, mode, owner=OTHER, text=text)
    if AS_ROOT:
        os.chown(ws / name, OTHER, group)


def _replaced(name: str, mode: int, group: int = GROUP) -> Callable[[Path], str | None]:
    """``name`` was replaced by this user's new file: new contents, the old mode, the group ``group``."""
    def check(ws: Path) -> str | None:
        st = (ws / name).stat()
        got = (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode))
        if got != (USER, group, mode):
            return f"{name}: owner, group, mode {got}, expected {(USER, group, oct(mode))}"
        return "not replaced" if (ws / name).read_text() == "an earlier file\n" else None
    return check


def owner_jobs() -> list[Job]:
    """An existing output of another user that this user may write, in a directory it may write (not sticky):
    replaced by a new file -- the old one is never written in place, so it is whole whatever happens -- with
    the old mode and, when this user is a member, the old group; the owner cannot be kept (only root gives a
    file away): one warning line says so, after the rename (docs/exit-codes.md, "Permissions")."""
    ev = CASES["eval"][1]
    fit = ["-J", "j.judge", "-o", "a.tsv", "--qrels", "b.qrels"]
    return [
        Job("eval:output-of-another-user", "zelo_eval", argv_with(ev, "theirs.tsv"), {0}, other_user=True,
            says="theirs.tsv: was owned by", owner_notes=1, setup=lambda ws: _others(ws, "theirs.tsv", 0o664),
            check=_replaced("theirs.tsv", 0o664), fast=True),
        # a group this user is not in: not kept either (the mode is)
        Job("eval:output-of-another-user-and-group", "zelo_eval", argv_with(ev, "theirs.tsv"), {0},
            other_user=True, says="theirs.tsv: was owned by", owner_notes=1,
            setup=lambda ws: _others(ws, "theirs.tsv", 0o666, group=OTHER), check=_replaced("theirs.tsv", 0o666)),
        Job("eval:output-of-another-user-quiet", "zelo_eval", [*argv_with(ev, "theirs.tsv"), "-Q"], {0},
            other_user=True, setup=lambda ws: _others(ws, "theirs.tsv", 0o664), check=_replaced("theirs.tsv", 0o664)),
        # a command that fails: the other user's file is as it was (owner, mode, inode, contents), no warning
        Job("eval:output-of-another-user-bad-input", "zelo_eval", argv_with(ev, "theirs.tsv"), {2},
            names=("q.qrels",), other_user=True, setup=lambda ws: (_others(ws, "theirs.tsv", 0o664),
                                                                  (ws / "q.qrels").chmod(0))),
        Job("fit:two-outputs-of-another-user", "zelo_fit", fit, {0}, other_user=True, owner_notes=2,
            setup=lambda ws: (_others(ws, "a.tsv", 0o664), _others(ws, "b.qrels", 0o660)),
            check=lambda ws: _replaced("a.tsv", 0o664)(ws) or _replaced("b.qrels", 0o660)(ws)),
        Job("pairs-next:state-of-another-user", "zelo_pairs", ["next", "--state", "s.json", "-o", "batch.txt"], {0},
            other_user=True, says="s.json: was owned by", owner_notes=1,
            setup=lambda ws: _others(ws, "s.json", 0o664, text=(ws / "s.json").read_text()),
            check=lambda ws: None if (ws / "s.json").stat().st_uid == USER and (ws / "batch.txt").exists()
            else "state not replaced, or no batch"),
        # a sticky directory of this user: its owner may replace another user's file in it
        Job("eval:sticky-dir-of-the-user", "zelo_eval", argv_with(ev, "tmp/theirs.tsv"), {0}, other_user=True,
            says="was owned by", owner_notes=1,
            setup=lambda ws: (_mkdir(ws, "tmp", 0o1777), _others(ws, "tmp/theirs.tsv", 0o664)),
            check=_replaced("tmp/theirs.tsv", 0o664)),
    ]


def openai_jobs(url: str, server) -> list[Job]:
    """zelo_judge with an OpenAI-compatible server (tests/fake_openai.py): a store, a state or an output it
    cannot write is refused before any question is asked (an answer paid for and then lost)."""
    def texts(ws: Path) -> None:
        for name, text in (("oq.tsv", "q1\tQID=q1 first query\n"),
                           ("od.tsv", "".join(f"d{i}\tDOC=d{i} text {i}\n" for i in range(1, 5)))):
            _file(ws / name, 0o644, text=text)

    def asked(model: str, expect: bool) -> Callable[[Path], str | None]:
        def check(ws: Path) -> str | None:
            n = sum(1 for key in server.received if key[0] == model)
            return None if bool(n) == expect else f"{n} questions asked of {model}"
        return check

    def argv(model: str, store: str = "new.sqlite", out: str = "out.txt", state: bool = False) -> list[str]:
        first = ["--state", "as.json"] if state else ["pairs.jsonl"]
        return [*first, "--queries", "oq.tsv", "--docs", "od.tsv", "--judge", f"openai:{model}@{url}",
                "--store", store, "-Q", "-o", out]

    def both(*steps: Callable[[Path], object]) -> Callable[[Path], None]:
        return lambda ws: [step(ws) for step in steps] and None

    return [
        Job("judge-openai:answers", "zelo_judge", argv("ok"), {0}, setup=texts, check=asked("ok", True)),
        Job("judge-openai:store-read-only", "zelo_judge", argv("m1", store="judge.sqlite"), {1},
            names=("judge.sqlite",), says="permission denied", strict_store=True,
            setup=both(texts, _chmod("judge.sqlite", 0o444)), check=asked("m1", False)),
        Job("judge-openai:store-dir-no-write", "zelo_judge", argv("m2", store="ro/new.sqlite"), {1},
            names=("ro/new.sqlite",), setup=both(texts, lambda ws: _mkdir(ws, "ro", 0o555)),
            check=asked("m2", False)),
        Job("judge-openai:output-dir-no-write", "zelo_judge", argv("m3", out="ro/out.txt"), {1},
            names=("ro/out.txt",), says="permission denied", setup=both(texts, lambda ws: _mkdir(ws, "ro", 0o555)),
            check=asked("m3", False)),
        Job("judge-openai:state-read-only", "zelo_judge", argv("m4", state=True), {1}, names=("as.json",),
            says="permission denied", setup=both(texts, _chmod("as.json", 0o444)), check=asked("m4", False)),
        Job("judge-openai:unreadable-lock", "zelo_judge", argv("m5", store="judge.sqlite"), {1},
            names=("judge.sqlite.lock",), other_user=True, strict_store=True,
            setup=both(texts, lambda ws: _file(ws / "judge.sqlite.lock", 0o600, owner=OTHER, text="1")),
            check=asked("m5", False)),
    ]


FAST_OUTPUT = {"eval:dir-no-write", "eval:read-only-file", "eval:sticky-other", "eval:unreadable-input-q.qrels",
               "eval:dir-no-search-input"}


def all_jobs(pristine: Path) -> list[Job]:
    jobs = []
    for case, (script, argv) in sorted(CASES.items()):
        if OUT in argv:
            jobs += output_jobs(case, script, argv)
        jobs += input_jobs(case, script, argv, pristine)
    jobs += state_jobs() + owner_jobs()
    for j in jobs:
        j.fast = j.fast or j.id in FAST_OUTPUT
    return jobs


# ---- running them as the unprivileged user ----------------------------------------------------------------

def _snapshot(ws: Path, strict_store: bool) -> dict[str, tuple]:
    """Every entry's type, mode, owner, inode, size, mtime and (when readable) contents."""
    import hashlib

    snap = {}
    for top, dirs, files in os.walk(ws):
        for name in dirs + files:
            p = os.path.join(top, name)
            if not strict_store and name.endswith(STORE_NAMES):
                continue
            st = os.lstat(p)
            digest = None
            if stat.S_ISREG(st.st_mode):
                try:
                    with open(p, "rb") as fh:
                        digest = hashlib.sha256(fh.read()).hexdigest()
                except OSError:
                    pass
            if stat.S_ISDIR(st.st_mode):  # a temporary file made and removed changes a directory's mtime
                snap[os.path.relpath(p, ws)] = (st.st_mode, st.st_uid, st.st_gid, st.st_ino)
            else:
                snap[os.path.relpath(p, ws)] = (st.st_mode, st.st_uid, st.st_gid, st.st_ino, st.st_size,
                                                st.st_mtime_ns, digest)
    return snap


def _user_can_run() -> str | None:
    """Why the commands cannot run as a user who is not root here (None when they can)."""
    if AS_ROOT and not hasattr(os, "setresuid"):
        return "no os.setresuid on this system: the commands cannot run as another user"
    return None


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV_"))}
    return {**env, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'tests'}", "HOME": str(home),
            "MPLCONFIGDIR": str(home / "mpl"), "XDG_CACHE_HOME": str(home / "cache")}


def _give(path: Path, uid: int, gid: int) -> None:
    if not AS_ROOT:
        return
    os.chown(path, uid, gid)
    for top, dirs, files in os.walk(path):
        for name in dirs + files:
            os.lchown(os.path.join(top, name), uid, gid)


def _reopen(path: Path) -> None:
    """Give the owner every permission back (a non-root run's clean-up)."""
    for top, dirs, files in os.walk(path):
        for name in dirs + files:
            p = os.path.join(top, name)
            if not os.path.islink(p) and os.lstat(p).st_uid == os.geteuid():
                os.chmod(p, 0o700)


def run_jobs(jobs: list[Job], pristine: Path) -> list[str]:
    """Set every job up, run them as the user in one interpreter, and return what went wrong."""
    reason = _user_can_run()
    if reason:
        pytest.skip(reason)
    base = Path(tempfile.mkdtemp(prefix="pref_eval_perm-"))
    problems: list[str] = []
    try:
        base.chmod(0o755)
        home = base / "home"
        home.mkdir()
        _give(home, USER, GROUP)
        runnable = [j for j in jobs if AS_ROOT or not j.other_user]
        specs, before = [], []
        for n, job in enumerate(runnable):
            ws = base / f"j{n}"
            shutil.copytree(pristine, ws, symlinks=True)
            _give(ws, USER, GROUP)
            job.setup(ws)
            before.append(_snapshot(ws, job.strict_store))
            specs.append({"script": job.script, "argv": job.argv, "cwd": str(ws)})
        (base / "jobs.json").write_text(json.dumps(specs))
        drop = [str(USER), str(GROUP)] if AS_ROOT else []
        res = subprocess.run([sys.executable, str(DRIVER), str(base / "jobs.json"), str(home / "results.json"),
                              *drop], capture_output=True, env=_env(home), cwd=base, timeout=600)
        for fd in HELD:
            os.close(fd)
        HELD.clear()
        if res.returncode != 0:
            return [f"the driver failed: {res.stderr.decode(errors='replace')[-3000:]}"]
        results = json.loads((home / "results.json").read_text())
        for n, (job, out, snap) in enumerate(zip(runnable, results, before, strict=True)):
            ws = base / f"j{n}"
            problems += [f"{job.id}: {p}" for p in _check(job, Result(out["code"], b"", out["stderr"]), ws, snap)]
    finally:
        for fd in HELD:
            os.close(fd)
        HELD.clear()
        if not AS_ROOT:
            _reopen(base)
        shutil.rmtree(base, ignore_errors=True)
    return problems


def _check(job: Job, res: Result, ws: Path, before: dict) -> list[str]:
    problems = check_contract(res, script=job.script, expect=job.expect, names=job.names)
    err = res.stderr
    if res.returncode != 0:
        lines = [x for x in err.splitlines() if x.strip()]
        if len(lines) != (2 if job.left_out else 1):
            problems.append(f"{len(lines)} lines: {err!r}")
        if job.left_out and not (len(lines) == 2 and "(--keep-going" in lines[1]):
            problems.append(f"no --keep-going summary line: {err!r}")
        prog = job.script if job.script != "zelo" else f"zelo {job.argv[0]}"
        if lines and not (lines[0].startswith(f"{job.script}: ") or lines[0].startswith(f"{prog}: ")):
            problems.append(f"not 'PROG: ...': {err!r}")
    if job.says and job.says.lower() not in err.lower():
        problems.append(f"message does not say {job.says!r}: {err!r}")
    notes = [x for x in err.splitlines() if ": was owned by " in x]
    if len(notes) != job.owner_notes or any(": warning: " not in x for x in notes):
        problems.append(f"{len(notes)} owner warnings, expected {job.owner_notes}: {err!r}")
    after = _snapshot(ws, job.strict_store)
    temps = [k for k in after if os.path.basename(k).startswith(".tmp-")]
    if temps:
        problems.append(f"temporary files left: {temps}")
    if res.returncode != 0:
        changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        if job.left_out:  # the other runs' table, written once
            if job.left_out not in changed:
                problems.append(f"{job.left_out} not written: {err!r}")
            changed = [k for k in changed if k != job.left_out]
        if changed:
            problems.append(f"files changed: {changed}")
    if job.check is not None:
        note = job.check(ws)
        if note:
            problems.append(note)
    return problems


@pytest.fixture(scope="module")
def jobs(pristine) -> list[Job]:
    return all_jobs(pristine)


def test_permission_faults(pristine, jobs):
    """A few cases of the matrix (default run): an output directory without write permission, a read-only
    output file, a file of another user in a sticky directory, an unreadable input, a directory without
    search permission in an input's path, a read-only state, an unreadable lock, a lock held by another
    user, a read-only store, a read-only second output, an output of another user (replaced, said)."""
    problems = run_jobs([j for j in jobs if j.fast], pristine)
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_permission_faults_matrix(pristine, jobs, server):
    """Every command and sub-command against every permission fault (docs/exit-codes.md)."""
    fake, url = server()
    problems = run_jobs([j for j in jobs if not j.fast] + openai_jobs(url, fake), pristine)
    assert not problems, "\n".join(problems)

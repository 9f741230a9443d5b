"""Fault paths no other test reached (m34, session 24: found by a coverage run of the whole suite).

Each case is a fault a user can meet -- a state in a missing directory or on a device, a lock file removed
under a waiting process, a directory where the lock cannot be created, a full disk on standard output, a
command running out of memory, an operating-system error nothing turned into a message -- and asserts the
behaviour docs/exit-codes.md and the modules' docstrings promise: one line naming the file and the reason,
the documented exit status, nothing left behind.
"""
from __future__ import annotations

import errno
import os
import subprocess
import sys

import pytest

from conftest import ROOT


# --- zelo/state_lock.py: "A state that is not a regular file, or whose lock file cannot be created, is not
# locked"; "a process that locked a file that was meanwhile removed tries again on the new one" ---

def test_state_in_a_missing_directory_is_not_locked(tmp_path):
    from pref_eval.zelo.state_lock import state_lock

    state = tmp_path / "no" / "such" / "state.json"
    with state_lock(str(state), wait=0.0):
        assert not (tmp_path / "no").exists()  # no lock file, no directory made: the write reports it
    assert not (tmp_path / "no").exists()


def test_state_that_is_a_device_is_not_locked():
    """``--state /dev/null``: no ``/dev/null.lock`` (root could create it), the block runs."""
    from pref_eval.zelo.state_lock import state_lock

    assert not os.path.lexists(os.devnull + ".lock")
    with state_lock(os.devnull, wait=0.0):
        assert not os.path.lexists(os.devnull + ".lock")


def test_lock_file_removed_before_it_was_locked_locks_the_new_one(tmp_path, monkeypatch):
    """The holder removes the lock file as it releases it: a waiter that opened the old file and then got
    its lock holds a lock on a name nobody else sees -- it must open the new file and lock that."""
    import fcntl

    from pref_eval.zelo.state_lock import state_lock

    state = tmp_path / "s.json"
    lock = tmp_path / "s.json.lock"
    real_flock = fcntl.flock
    calls = []

    def flock(fd, op):
        calls.append(os.fstat(fd).st_ino)
        if len(calls) == 1:
            os.unlink(lock)  # the holder released it meanwhile
        return real_flock(fd, op)

    monkeypatch.setattr(fcntl, "flock", flock)
    with state_lock(str(state), wait=0.0):
        assert len(calls) == 2  # the first file was dropped, the new one locked
        assert lock.exists() and os.stat(lock).st_ino == calls[1]
        assert lock.read_text() == str(os.getpid())
    assert not lock.exists()  # removed as it was released


def test_lock_file_that_cannot_be_created_leaves_the_state_unlocked(tmp_path, monkeypatch):
    """A directory this user may not write (root writes every one: the refusal is simulated): no lock
    file can be created and none exists, so the state is not locked; the state's write then reports it."""
    from pref_eval.zelo import state_lock as module

    lock = str(tmp_path / "s.json.lock")
    real_open = os.open

    def refusing(path, flags, *args):
        if path == lock:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
        return real_open(path, flags, *args)

    monkeypatch.setattr(module.os, "open", refusing)
    assert module.open_lock_file(lock, str(tmp_path / "s.json")) is None
    with module.state_lock(str(tmp_path / "s.json"), wait=0.0):
        assert not os.path.lexists(lock)


# --- cli/common.py: the exit path ---

@pytest.mark.parametrize("topics", [1, 60])
def test_full_disk_on_standard_output_is_one_line_exit_1(tmp_path, topics):
    """``zelo_trec QRELS RUN > /dev/full``: with one topic the results fit in the stream's buffer and the
    failure comes when it is flushed at the end (the command's exit path), with 60 while they are written
    (the output layer) -- docs/exit-codes.md: status 1 either way, the message names standard output and
    the reason, no traceback."""
    (tmp_path / "q").write_text("".join(f"{t} 0 d1 1\n{t} 0 d2 0\n" for t in range(topics)))
    (tmp_path / "r").write_text("".join(f"{t} Q0 d{k} {k} {3 - k} tag\n" for t in range(topics) for k in (1, 2)))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "pref_eval.cli.trec", "-q", "q", "r"], stdout=full,
                           stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env, timeout=120)
    assert r.returncode == 1
    assert r.stderr == "zelo_trec: standard output: cannot write: No space left on device\n"


def _run_inprocess(body):
    """``run_main`` on a one-command click program whose body is ``body``: (exit status, stderr)."""
    import click

    from pref_eval.cli.common import run_main

    @click.command()
    def cmd() -> None:
        body()

    with pytest.raises(SystemExit) as info:
        run_main(cmd, "zelo_x", [])
    return info.value.code


def test_out_of_memory_is_one_line_exit_1(capsys):
    def body():
        raise MemoryError()

    assert _run_inprocess(body) == 1
    assert capsys.readouterr().err == "zelo_x: out of memory\n"


def test_an_operating_system_error_no_reader_named_is_one_line_exit_1(capsys):
    """An OSError that reached the command's frame (a lock's, a temporary file's): its file and the system's
    reason, status 1; without a file name only the reason."""
    def with_name():
        raise OSError(errno.EIO, os.strerror(errno.EIO), "/some/lock\nfile")

    def without():
        raise OSError(errno.ENOSPC, "ignored text")

    assert _run_inprocess(with_name) == 1
    # one line: the newline in the name escaped
    assert capsys.readouterr().err == f"zelo_x: /some/lock\\nfile: {os.strerror(errno.EIO)}\n"
    assert _run_inprocess(without) == 1
    assert capsys.readouterr().err == f"zelo_x: {os.strerror(errno.ENOSPC)}\n"


def _version(stdout, preexec=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "pref_eval.cli.eval", "--version"], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env, timeout=120, preexec_fn=preexec)


def test_version_on_a_full_disk_a_gone_reader_or_a_closed_stdout_is_one_line():
    """``zelo_eval --version > /dev/full``, ``| true`` and ``>&-`` ended with a traceback (the version line
    was written outside the command's frame): now as every other output -- a full disk and a closed
    standard output one line and status 1, a reader that has gone quiet and status 0."""
    with open("/dev/full", "w") as full:
        r = _version(full)
    assert (r.returncode, r.stderr) == (1, "zelo_eval: standard output: cannot write: No space left on device\n")
    read, write = os.pipe()
    os.close(read)  # the reader has gone before anything is written: EPIPE
    try:
        r = _version(write)
    finally:
        os.close(write)
    assert (r.returncode, r.stderr) == (0, "")
    r = _version(None, preexec=lambda: os.close(1))
    assert (r.returncode, r.stderr) == (1, "zelo_eval: standard output: cannot write: standard output is closed\n")


# --- output/atomic.py: refusals before anything is written, failures at the commit (docs/exit-codes.md,
# "Output files"): an OutputError naming the output and the reason, nothing left behind ---

def _write(path: str, text: str = "x\n") -> None:
    from pref_eval.output.atomic import output_file

    with output_file(path) as fh:
        fh.write(text)


def _refusal(path: str) -> str:
    from pref_eval.errors import OutputError

    with pytest.raises(OutputError) as info:
        _write(path)
    return str(info.value)


def test_output_under_a_regular_file_is_refused(tmp_path):
    (tmp_path / "F").write_text("kept\n")
    path = str(tmp_path / "F" / "x")
    assert _refusal(path) == f"{path}: cannot write: {os.strerror(errno.ENOTDIR)}"
    assert (tmp_path / "F").read_text() == "kept\n"


def test_full_device_fails_at_the_commit():
    """``-o /dev/full`` with an output shorter than the stream's buffer: the write succeeds, closing the
    device (the commit) meets ENOSPC."""
    assert _refusal("/dev/full") == f"/dev/full: cannot write: {os.strerror(errno.ENOSPC)}"


@pytest.mark.skipif(not os.path.isdir("/sys/kernel"), reason="needs Linux's /sys")
def test_a_directory_where_no_new_file_can_be_made_is_named():
    """The output is written to a new file beside the target, renamed over it when complete: a directory
    where that file cannot be created (sysfs: even root may not) is said so."""
    assert _refusal("/sys/x") == (f"/sys/x: cannot write: {os.strerror(errno.EACCES)} (creating a new file in "
                                  "directory /sys, renamed over it when complete)")


def test_relative_output_in_a_removed_current_directory(tmp_path, monkeypatch):
    """Another process removed the directory the command runs in: a relative output names no file
    (getcwd fails), refused with the system's reason, nothing created."""
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    assert _refusal("out") == f"out: cannot write: {os.strerror(errno.ENOENT)}"
    assert list(tmp_path.iterdir()) == []


def test_output_written_from_another_thread(tmp_path):
    """The Python API from a worker thread: signals cannot be held there (Python sets handlers in the main
    thread only), the file is written and committed all the same."""
    import threading

    errors: list[BaseException] = []

    def work() -> None:
        try:
            _write(str(tmp_path / "t.txt"), "from a thread\n")
        except BaseException as err:  # noqa: BLE001 - reported by the assertion below
            errors.append(err)

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert errors == [] and (tmp_path / "t.txt").read_text() == "from a thread\n"
    assert [p.name for p in tmp_path.iterdir()] == ["t.txt"]  # no .tmp-* left


def test_standard_output_redirected_to_another_output_is_refused(tmp_path, monkeypatch):
    """``zelo_fit -J J --qrels Q > Q``: Q would be renamed over the file standard output writes into
    (docs/exit-codes.md: status 2, UsageError)."""
    from pref_eval.errors import UsageError
    from pref_eval.output.atomic import output_files

    q = tmp_path / "Q"
    q.write_text("old\n")
    with open(q, "a") as redirected:
        monkeypatch.setattr(sys, "stdout", redirected)
        with pytest.raises(UsageError) as info, output_files([None, str(q)]):
            pass
    assert str(info.value) == f"two outputs name the same file {q}: standard output is {q} too"
    assert q.read_text() == "old\n"


# --- judge/judges.py: what a server or a judge program sends that the run must survive ---

def test_retry_after_headers_that_say_nothing_usable():
    """No headers (a dropped connection), a ``retry-after-ms`` that is no number (then ``Retry-After``
    decides, RFC 9110 section 10.2.3: seconds or an HTTP date), an unparsable date: None (the client's own
    backoff)."""
    from pref_eval.judge.judges import retry_after_seconds

    assert retry_after_seconds(None) is None
    assert retry_after_seconds({"retry-after-ms": "soon", "retry-after": "7"}) == 7.0
    assert retry_after_seconds({"retry-after-ms": "soon"}) is None
    assert retry_after_seconds({"retry-after": "not a date"}) is None


def test_judge_program_answers_out_of_step_or_without_a_vote():
    """CmdJudge's protocol (its docstring): an answer naming another id means the program is out of step --
    a Transient naming both ids (the program is restarted); an object with neither ``score`` nor ``text``
    is an answer without a vote, with the reason stored."""
    import asyncio

    from pref_eval.judge.judges import CmdJudge, Transient
    from pref_eval.judge.spec import JudgeSpec

    judge = CmdJudge(JudgeSpec(kind="cmd", name="j", command="true"), timeout=1.0)
    with pytest.raises(Transient) as info:
        asyncio.run(judge._answer(b'{"id": 5, "score": 1}\n', 4))
    assert str(info.value) == "answer for id 5 where 4 was asked (judge program restarted)"
    answer = asyncio.run(judge._answer(b'{"id": 4, "verdict": "A"}\n', 4))
    assert answer.vote is None and answer.reason == 'unparsable answer (expected {"score": number in -1..1})'
    assert answer.raw == '{"id": 4, "verdict": "A"}'


# --- zelo/state_schema.py: a zelo_pairs state edited by hand or damaged, refused with the JSON path ---

def _state() -> dict:
    return {"version": 2, "k": 1, "p": 2, "f": 3, "seed": 0, "final_phase": False, "step": 1, "comparisons": 1,
            "ignored": 0, "topics": {"t": {"pool": ["a", "b"], "phase": "prune", "pairs": ["a\tb"],
                                           "wins": {"a": 1, "b": 0}, "judged": {"a\tb": 1}, "result": None}}}


def _set(path: str, value):
    def change(state: dict) -> None:
        *head, last = path.split("/")
        obj = state
        for key in head:
            obj = obj[key]
        if value is KeyError:
            del obj[last]
        else:
            obj[last] = value
    return change


def _all(*changes):
    def change(state: dict) -> None:
        for c in changes:
            c(state)
    return change


_DONE = _set("topics/t/phase", "done")


@pytest.mark.parametrize(("change", "says"), [
    (_all(_DONE, _set("topics/t/result", {"c": 1})), "topics['t'].result: 'c' is not in the pool"),
    (_all(_DONE, _set("topics/t/result", {"a": 0})), "topics['t'].result['a']: expected a number > 0"),
    (_all(_DONE, _set("topics/t/result", {"a": 2})), "topics['t'].result['a']: 2 is not the document's wins"),
    (_all(_set("final_phase", True), _set("topics/t/phase", "extra"), _set("topics/t/first_round_wins", {"a": 1})),
     "topics['t'].first_round_wins: expected one entry per pool document"),
    (_set("k", 0), "k: expected an integer >= 1, got 0"),
    (_set("topics", []), "topics: expected a JSON object, got list"),
    (_set("topics/t/pool", KeyError), "topics['t']: missing key 'pool'"),
    (_set("topics/t/note", 1), "topics['t']: unknown key 'note'"),
    (_set("topics/t/phase", "semi"), "topics['t'].phase: expected one of prune, final, extra, done, got 'semi'"),
    (_set("topics/t/phase", "extra"), "topics['t'].phase: 'extra' without final_phase"),
    (_set("topics/t/pool", ["a", ""]), "topics['t'].pool: expected a list of docnos"),
    (_set("topics/t/pool", ["a", "a"]), "topics['t'].pool: a docno is listed twice"),
    (_set("topics/t/pairs", {}), "topics['t'].pairs: expected a list"),
    (_set("topics/t/pairs", ["b\ta"]), "topics['t'].pairs: expected 'docA<TAB>docB' (docA < docB, both in the pool)"),
    (_set("topics/t/pairs", ["a\tb", "a\tb"]), "topics['t'].pairs: a pair is listed twice"),
    (_set("topics/t/judged", {"a\tc": 1}), "topics['t'].judged: 'a\\tc' is not one of the pairs"),
    (_set("topics/t/wins", {"a": 1, "c": 0}), "topics['t'].wins: 'c' is not in the pool"),
    (_set("topics/t/wins", {"a": 1}), "topics['t'].wins: expected one entry per pool document"),
    (_set("topics/t/wins", {"a": 1, "b": 1}), "topics['t'].wins: they sum to 2, but 1 pairs are judged"),
    (_set("topics/t/wins", {"a": -1, "b": 2}), "topics['t'].wins['a']: expected a finite number >= 0, got -1"),
    (_set("topics/t/result", {"a": 1}), "topics['t'].result: a result before the topic is done"),
])
def test_damaged_state_is_refused_naming_the_json_path(tmp_path, change, says):
    """The schema of zelo/state_schema.py's docstring: each damage refused with InputError naming the file
    and the JSON path (one line), the file untouched."""
    from pref_eval.errors import InputError
    from pref_eval.zelo.state_schema import validate_state

    state = _state()
    validate_state(state, "S.json")  # the undamaged state is valid
    change(state)
    with pytest.raises(InputError) as info:
        validate_state(state, "S.json")
    message = str(info.value)
    assert message.startswith("S.json") and "not a valid zelo_pairs state: " + says in message
    assert "\n" not in message


def test_damaged_state_with_latin1_ids_shows_the_bytes():
    """A state holding ids that are not UTF-8 (session 26: zelo_pairs takes Latin-1 candidates; JSON \\udcNN): a
    damage names the topic and the document with the byte as \\xNN (errors.shown), one line."""
    from pref_eval.errors import InputError
    from pref_eval.zelo.state_schema import validate_state

    t, a = "t\udce9", "caf\udce9"
    state = _state()
    state["topics"] = {t: {"pool": [a, "b"], "phase": "prune", "pairs": ["b\t" + a] if a > "b" else [a + "\tb"],
                           "wins": {a: 1, "b": 0}, "judged": {}, "result": None}}
    state["topics"][t]["judged"] = {state["topics"][t]["pairs"][0]: 1}
    validate_state(state, "S.json")
    state["topics"][t]["wins"] = {a: 1, "c\udce9": 0}
    with pytest.raises(InputError) as info:
        validate_state(state, "S.json")
    assert "topics['t\\xe9'].wins: 'c\\xe9' is not in the pool" in str(info.value), str(info.value)

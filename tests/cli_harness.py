"""Run a console script in-process (fast) or as a subprocess, and check the error contract.

``run_inproc("zelo_eval", argv, cwd)`` calls the entry point named in
setup.cfg with ``argv``, capturing stdout/stderr as bytes and the exit status,
with a time limit (a hang is a failure). ``check_contract`` asserts what
docs/exit-codes.md promises: no traceback, a documented status, one line on
stderr naming the file on failure, inputs and earlier outputs unchanged.
"""
from __future__ import annotations

import configparser
import contextlib
import hashlib
import importlib
import io
import os
import signal
import subprocess
import sys
from pathlib import Path

from conftest import ROOT  # noqa: E402
DOCUMENTED = {0, 1, 2, 130, 143}


def console_scripts() -> dict[str, tuple[str, str]]:
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    out = {}
    for line in cfg["options.entry_points"]["console_scripts"].strip().splitlines():
        name, target = (x.strip() for x in line.split("=", 1))
        mod, func = target.split(":")
        out[name] = (mod, func)
    return out


SCRIPTS = console_scripts()


class Result:
    def __init__(self, code: int, out: bytes, err: str) -> None:
        self.returncode = code
        self.stdout = out
        self.stderr = err

    def __repr__(self) -> str:
        return f"Result(code={self.returncode}, stderr={self.stderr[-2000:]!r})"


class _Timeout(BaseException):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def run_inproc(script: str, argv: list[str], cwd: Path | str, stdin: bytes = b"", timeout: int = 60) -> Result:
    """Run ``script`` (a console script name) in this process; a Python exception that
    escapes the command (a traceback for the user) is reported as stderr 'Traceback ...'."""
    mod, func = SCRIPTS[script]
    main = getattr(importlib.import_module(mod), func)
    out_b, err_b = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_b, encoding="utf-8", newline="\n", write_through=True)
    err = io.TextIOWrapper(err_b, encoding="utf-8", errors="replace", write_through=True)
    inp = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    old = (sys.stdout, sys.stderr, sys.stdin, os.getcwd(), sys.argv)
    old_env = os.environ.get("COLUMNS")
    sys.stdout, sys.stderr, sys.stdin = out, err, inp
    sys.argv = [script, *argv]
    os.chdir(cwd)
    old_alarm = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    code: int
    try:
        main(list(argv))
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    except _Timeout:
        code = -999
        err.write(f"HANG: no answer within {timeout} s\n")
    except BaseException as e:  # noqa: BLE001 - this is what the user would see as a traceback
        import traceback

        code = -1
        err.write("Traceback (most recent call last):\n" + "".join(traceback.format_exception(e)))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old_alarm)
        with contextlib.suppress(Exception):
            out.flush()
            err.flush()
        sys.stdout, sys.stderr, sys.stdin = old[0], old[1], old[2]
        os.chdir(old[3])
        sys.argv = old[4]
        if old_env is not None:
            os.environ["COLUMNS"] = old_env
    return Result(code, out_b.getvalue(), err_b.getvalue().decode("utf-8", "replace"))


MODULE_SCRIPT = {mod: name for name, (mod, _) in reversed(list(SCRIPTS.items()))}  # first name of a module


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    import warnings

    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def run_module_inproc(module: str, args, cwd: Path | str = ".", stdin: bytes | str | None = None,
                      timeout: int = 60, text: bool = True,
                      env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``python -m pref_eval.cli.<module> ARGS`` (``capture_output=True, text=True``) run in this process: the
    same ``CompletedProcess`` (returncode, stdout and stderr as text), without a new interpreter's start-up and
    imports (~0.3 s CPU each). Warnings as a fresh interpreter shows them: on stderr, pytest's
    ``filterwarnings = error`` not applied. A traceback is exit status -1 with ``Traceback`` on stderr. For
    behaviour that needs no process; signals, closed or broken streams and start-up stay real processes.
    ``text=False``: stdout and stderr as bytes (``capture_output=True`` without ``text``). ``env``: the
    environment while the command runs (``os.environ`` is restored after it)."""
    import warnings

    argv = [str(a) for a in args]
    data = stdin.encode("utf-8") if isinstance(stdin, str) else (stdin or b"")
    saved = dict(os.environ)
    if env is not None:
        os.environ.clear()
        os.environ.update(env)
    try:
        with warnings.catch_warnings():
            warnings.resetwarnings()  # a fresh interpreter's filters: everything else "default"
            for cat in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
                warnings.simplefilter("ignore", cat)
            warnings.showwarning = _show_warning  # pytest records warnings; a process prints them on stderr
            res = run_inproc(MODULE_SCRIPT[f"pref_eval.cli.{module}"], argv, cwd, stdin=data, timeout=timeout)
    finally:
        if env is not None:
            os.environ.clear()
            os.environ.update(saved)
    cmd = [sys.executable, "-m", f"pref_eval.cli.{module}", *argv]
    if not text:
        return subprocess.CompletedProcess(cmd, res.returncode, res.stdout, res.stderr.encode("utf-8"))
    return subprocess.CompletedProcess(cmd, res.returncode, res.stdout.decode("utf-8", "replace"), res.stderr)


def run_subprocess(script: str, argv: list[str], cwd, stdin: bytes = b"", timeout: int = 120,
                   **kw) -> subprocess.CompletedProcess:
    mod, func = SCRIPTS[script]
    code = f"import {mod} as m; m.{func}()"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if "stdout" not in kw and "stderr" not in kw:
        kw["capture_output"] = True
    return subprocess.run([sys.executable, "-c", code, *argv], input=stdin, cwd=cwd, env=env, timeout=timeout,
                          **kw)


def digest_tree(path: Path, ignore: tuple[str, ...] = (".sqlite", ".sqlite.lock", ".sqlite-journal")) -> dict[str, str]:
    """sha256 of every file under ``path`` (names relative), for byte-identity checks.

    ``ignore``: name endings left out (zelo_judge's answer store, a cache kept on purpose)."""
    out = {}
    for p in sorted(Path(path).rglob("*")):
        if p.name.endswith(ignore):
            continue
        if p.is_symlink():
            out[str(p.relative_to(path))] = "link:" + os.readlink(p)
        elif p.is_file():
            out[str(p.relative_to(path))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


MESSAGE_LINE_MAX = 600  # the command's name + pref_eval.errors.MESSAGE_LIMIT shortened


def check_contract(res: Result, *, script: str, expect: set[int] | None = None,
                   names: tuple[str, ...] = ()) -> list[str]:
    """Problems with ``res`` (empty list = fine)."""
    problems = []
    err = res.stderr
    if res.returncode == -999:
        return ["hang"]
    if "Traceback" in err or res.returncode == -1:
        return ["traceback: " + err[-1500:]]
    if res.returncode not in DOCUMENTED:
        problems.append(f"undocumented exit status {res.returncode}")
    if expect is not None and res.returncode not in expect:
        problems.append(f"exit status {res.returncode}, expected {sorted(expect)}: {err[-500:]}")
    if res.returncode in (1, 2):
        lines = [x for x in err.splitlines() if x.strip() and "warning:" not in x]
        if not lines:
            problems.append("failure without a message")
        elif not any(names) and len(lines) > 1 and not (len(lines) == 2 and lines[1].startswith("Try '")):
            problems.append(f"more than one line: {err!r}")
        if names and not any(n in err for n in names):
            problems.append(f"message does not name {names}: {err!r}")
        long = [x for x in lines if len(x) > MESSAGE_LINE_MAX]
        if long:  # a message echoing a 100 KB value is shortened (pref_eval.errors.shortened)
            problems.append(f"a message line of {len(long[0])} characters: {long[0][:200]!r}...")
    return problems


def judge_env(**extra: str) -> dict[str, str]:
    """The environment for a zelo_judge test: no OPENAI_API_KEY / OPENAI_BASE_URL of the machine's (a test names
    its stand-in server and key itself), PYTHONPATH the checkout, then ``extra``."""
    e = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    e["PYTHONPATH"] = str(ROOT)
    e.update(extra)
    return e


def run_judge_inproc(*args, cwd: Path | str = ".") -> subprocess.CompletedProcess:
    """``zelo_judge ARGS`` in process with :func:`judge_env`; a traceback fails the test."""
    p = run_module_inproc("judge", [str(a) for a in args], cwd, env=judge_env())
    assert "Traceback" not in p.stderr, p.stderr
    return p

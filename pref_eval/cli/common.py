"""Plumbing shared by every command: error handling, exit codes, output files.

Exit codes (documented in docs/exit-codes.md):
0 success; 1 a failed check (e.g. ``--check``); 2 bad input or usage.
A broken pipe (``zelo_eval ... | head``) ends quietly with status 0.
"""
from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
from typing import Callable, Iterator, TextIO

from ..errors import PrefEvalError


def run_main(command: Callable[..., object], prog: str, argv: list[str] | None = None) -> None:
    """Run a click command; map PrefEvalError to one stderr line + exit code.

    ``command`` is a click command invoked in standalone mode=False so that
    our own exceptions reach this function.
    """
    import click

    args = sys.argv[1:] if argv is None else list(argv)
    if "--version" in args[: args.index("--") if "--" in args else len(args)]:
        from .. import __version__

        sys.stdout.write(f"{prog} (pref_eval) {__version__}\n")
        sys.exit(0)
    try:
        rv = command.main(args=args, prog_name=prog, standalone_mode=False)
        code = rv if isinstance(rv, int) else 0
    except SystemExit as err:
        # click turns EPIPE into sys.exit(1) after wrapping stdout; a closed
        # pipe is not an error for us (``zelo_eval ... | head``).
        if isinstance(sys.stdout, click.utils.PacifyFlushWrapper):
            _silence_stdout()
            code = 0
        else:
            code = err.code if isinstance(err.code, int) else (0 if err.code is None else 2)
    except PrefEvalError as err:
        _flush_quietly()
        sys.stderr.write(f"{prog}: {err}\n")
        code = err.exit_code
    except click.exceptions.Exit as err:
        code = err.exit_code
    except click.ClickException as err:
        err.show()
        code = 2
    except click.exceptions.Abort:
        sys.stderr.write(f"{prog}: aborted\n")
        code = 130
    except BrokenPipeError:
        _silence_stdout()
        code = 0
    except KeyboardInterrupt:
        sys.stderr.write(f"{prog}: interrupted\n")
        code = 130
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
    except ValueError:
        pass
    sys.exit(code)


def _flush_quietly() -> None:
    try:
        sys.stdout.flush()
    except (BrokenPipeError, ValueError):
        _silence_stdout()


def _silence_stdout() -> None:
    """After EPIPE, point stdout at /dev/null so the interpreter exits quietly."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


@contextlib.contextmanager
def output_stream(path: str | None) -> Iterator[TextIO]:
    """Yield a text stream for results.

    ``None`` or ``-`` is stdout. A path is written through a temporary file in
    the same directory and renamed over the target only when the block ends
    without an exception, so a failure never truncates an existing file.
    """
    if path is None or path == "-":
        yield sys.stdout
        return
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    try:
        with io.open(fd, "w", encoding="utf-8", newline="\n") as fh:
            yield fh
        _set_mode(tmp, path)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _set_mode(tmp: str, target: str) -> None:
    """Give the new file the target's mode, or the umask default (mkstemp uses 0600)."""
    try:
        mode = os.stat(target).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    with contextlib.suppress(OSError):
        os.chmod(tmp, mode)


class Log:
    """Progress and warnings on stderr, silenced by ``--quiet``."""

    def __init__(self, prog: str, quiet: bool = False) -> None:
        self.prog = prog
        self.quiet = quiet

    def warn(self, message: str) -> None:
        if not self.quiet:
            sys.stderr.write(f"{self.prog}: warning: {message}\n")

    def info(self, message: str) -> None:
        if not self.quiet:
            sys.stderr.write(f"{self.prog}: {message}\n")

    @property
    def interactive(self) -> bool:
        """Progress is shown only when stderr is a terminal and not ``--quiet``."""
        try:
            return not self.quiet and sys.stderr.isatty()
        except (AttributeError, ValueError):
            return False

    def progress(self, label: str, done: int, total: int) -> None:
        """One updating progress line on a terminal (``label: done/total``)."""
        if not self.interactive:
            return
        end = "\n" if done >= total else ""
        sys.stderr.write(f"\r{self.prog}: {label}: {done}/{total}{end}")
        sys.stderr.flush()

    def stage(self, message: str) -> None:
        """A progress message for a long step, shown only on a terminal."""
        if self.interactive:
            sys.stderr.write(f"{self.prog}: {message}\n")


def given_options(*names: str) -> list[str]:
    """Which of the current command's parameters (by Python name) the user set on the command line or
    through the environment -- to refuse an option that a missing one would leave unused."""
    import click
    from click.core import ParameterSource

    ctx = click.get_current_context()
    return [n for n in names if ctx.get_parameter_source(n) in (ParameterSource.COMMANDLINE,
                                                                 ParameterSource.ENVIRONMENT)]


def refuse_unused(needs: str, names: dict[str, str], present: bool) -> None:
    """Raise UsageError when an option of ``names`` ({python name: flag}) is given without ``needs``."""
    from ..errors import UsageError

    if present:
        return
    bad = given_options(*names)
    if bad:
        raise UsageError(f"{', '.join(names[b] for b in bad)} applies only with {needs}")

"""Progress and warnings on stderr (``Log``), shared by the library and the commands.

Results go to stdout; everything a :class:`Log` writes goes to stderr, and
``-Q/--quiet`` silences it.
"""
from __future__ import annotations

import sys

from .errors import one_line, shortened


class Log:
    """Progress and warnings on stderr, silenced by ``--quiet``; ``verbose`` (``zelo_judge -v``): also the
    :meth:`detail` lines (one per request)."""

    def __init__(self, prog: str, quiet: bool = False, verbose: bool = False) -> None:
        self.prog = prog
        self.quiet = quiet
        self.verbose = verbose and not quiet

    def detail(self, message: str) -> None:
        """A line shown only when ``verbose`` (and not ``--quiet``)."""
        if self.verbose:
            sys.stderr.write(f"{self.prog}: {one_line(message)}\n")

    def warn(self, message: str) -> None:
        if not self.quiet:
            sys.stderr.write(f"{self.prog}: warning: {shortened(one_line(message))}\n")

    def error(self, message: str) -> None:
        """An error that does not stop the command (``--keep-going``): written even with ``--quiet``."""
        sys.stderr.write(f"{self.prog}: {shortened(one_line(message))}\n")

    def info(self, message: str) -> None:
        if not self.quiet:
            sys.stderr.write(f"{self.prog}: {one_line(message)}\n")

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

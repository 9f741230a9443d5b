"""Plumbing shared by every command: error handling, exit codes, output files.

Exit codes (documented in docs/exit-codes.md):
0 success; 1 an output could not be written (OutputError, an OSError);
2 bad input or usage; 130 interrupted (SIGINT); 143 terminated (SIGTERM).
A broken pipe (``zelo_eval ... | head``) ends quietly with status 0.
"""
from __future__ import annotations

import codecs
import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TextIO

from ..errors import PrefEvalError, bytes_in_repr, one_line, shortened, shown
from ..log import Log  # noqa: F401  (the commands import it from here)

if TYPE_CHECKING:
    from .options import F


class Terminated(BaseException):
    """Raised by the SIGTERM handler of :func:`run_main` so that ``finally`` blocks
    (temporary output files) run before the process ends with status 143."""


SIGNALLED = (130, 143)  # the exit statuses of a run ended by SIGINT / SIGTERM (:func:`_invoke`)


def _on_sigterm(signum, frame) -> None:  # noqa: ARG001 - signal handler signature
    raise Terminated()


def _on_signal(signum: int, frame) -> None:  # noqa: ARG001 - signal handler signature
    """SIGINT and SIGTERM of a command run as a process: the first raises (KeyboardInterrupt, :class:`Terminated`;
    the outputs are removed on the way up) and the later ones are absorbed until the outputs are settled
    (:func:`_end_on_signal` then ends the process at once on any further one). Raised again, a later signal of a
    burst (Ctrl-C pressed again and again, a SIGTERM among them) met a finalizer run while the first one's
    exception unwound the command, and the next one ``sys.unraisablehook`` reporting that: an ``Exception
    ignored`` traceback (1 run in 40 at load; tests/test_output_faults.py's burst)."""
    import signal

    for sig in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(sig) is _on_signal:
            signal.signal(sig, _absorb)
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated()


def _absorb(signum: int, frame) -> None:  # noqa: ARG001 - signal handler signature
    """A SIGINT or SIGTERM while the first one's exception unwinds the command: it is ending already
    (:func:`_on_signal`)."""


def _lost_signal(unraisable: Any) -> None:
    """``sys.unraisablehook`` of a command run as a process: a KeyboardInterrupt or :class:`Terminated` raised in a
    finalizer cannot propagate (Python would print ``Exception ignored in ...`` and go on): silently, the raising
    handlers are put back so that the next signal acts. Any other unraisable exception is reported as Python does."""
    if isinstance(unraisable.exc_value, (KeyboardInterrupt, Terminated)):
        import signal

        for sig in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(sig) is _absorb:
                signal.signal(sig, _on_signal)
        return
    sys.__unraisablehook__(unraisable)


class _ClosedStdout:
    """Stands for a closed standard output (``cmd >&-``): writing is an OutputError."""

    encoding = "utf-8"
    closed = True  # read by output/atomic.py: an --output naming /dev/stdout is refused too

    def write(self, text) -> int:
        from ..errors import OutputError

        raise OutputError("standard output: cannot write: standard output is closed")

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    @property
    def buffer(self) -> _ClosedStdout:
        return self


class _QuietStderr:
    """Standard error whose reader has gone (``cmd 2>&1 | head -1``, a log pipe that died): a message or a
    warning that cannot be written is dropped, never raised. Raised, a warning's BrokenPipeError stopped the
    command in the middle, as a closed standard output does -- exit 0, its work undone (``zelo_pairs add``
    left the state without the batch) -- and an error's message changed its exit status to 1."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except (OSError, ValueError):
            return len(text)

    def flush(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._stream.flush()

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def stdout_or(output: str | None) -> str:
    """An ``--output`` option's value for the API: not given is ``-`` (standard output); an empty name is refused
    here, before any input is read (``output or "-"`` wrote ``--output "$UNSET"`` to standard output)."""
    if output == "":
        from ..errors import UsageError
        from ..output.atomic import EMPTY_NAME

        raise UsageError(f"--output: the file name is empty{EMPTY_NAME}")
    return "-" if output is None else output


def _guard_std_streams(process: bool = False) -> None:
    """A closed fd 0/1/2 is reopened on /dev/null so that no output file takes its
    number; a closed stdout then fails on the first write, a closed stderr is silent."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            try:
                new = os.open(os.devnull, os.O_RDWR)
                if new != fd:
                    os.dup2(new, fd)
                    os.close(new)
            except OSError:
                continue
            if fd == 1:
                sys.stdout = _ClosedStdout()
            elif fd == 2:
                sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
                sys.stderr.stream_closed = True  # type: ignore[attr-defined]  # read by output/atomic.py (/dev/stderr)
    if sys.stdout is None:
        sys.stdout = _ClosedStdout()
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115
    if process and not isinstance(sys.stderr, _QuietStderr):  # a process's own stream, not a caller's
        sys.stderr = _QuietStderr(sys.stderr)
    _bytes_through_stdout()


def _bytes_through_stdout() -> None:
    """Ids are bytes (docs/input-formats.md): a qid or docno that is not UTF-8 (Latin-1 ``q\\xe9``) is held
    as text with surrogate escapes and must come out as the bytes it was, as trec_eval prints it. Python's
    stdout refuses surrogates under a UTF-8 locale (``en_US.UTF-8``: errors ``strict``; only the C/POSIX
    locale gives ``surrogateescape``): a ``UnicodeEncodeError`` traceback. Set ``surrogateescape`` there.
    An encoding other than UTF-8 (``PYTHONIOENCODING=ascii``, a Latin-1 locale) would turn a UTF-8 id
    (``naïve``) into other bytes or a traceback: the input's bytes are written back, as trec_eval does, so
    standard output is UTF-8 whatever the locale."""
    enc = getattr(sys.stdout, "encoding", None)
    utf8 = enc is not None and codecs.lookup(enc).name == "utf-8"
    if (not utf8 or getattr(sys.stdout, "errors", None) == "strict") and hasattr(sys.stdout, "reconfigure"):
        with contextlib.suppress(Exception):  # a stand-in stream that cannot be reconfigured stays as it is
            sys.stdout.reconfigure(encoding="utf-8", errors="surrogateescape")


def run_main(command: Callable[..., object], prog: str, argv: list[str] | None = None, *,
             short_lived: bool = False) -> None:
    """Run a click command; map errors to one stderr line + exit code (docs/exit-codes.md).

    ``command`` is a click command invoked in standalone mode=False so that
    our own exceptions reach this function. SIGTERM is turned into an
    exception while the command runs, so temporary output files are removed.

    ``short_lived`` (the everyday commands, which shell scripts run thousands of times; issue #13):

    * Python's cyclic garbage collector stays off while the command runs. Importing numpy and
      our modules (done after this point) creates some 100,000 long-lived objects that the
      collector would scan again and again (~5 % of ``import numpy``); these commands keep
      their data in numpy arrays and make no reference cycles in proportion to their input
      (``tests/test_startup_gc.py``), so reference counting frees what they drop. The previous
      state is restored on return.
    * Started as a process (``argv`` None: console script, ``bin/`` wrapper, ``python -m``), the
      process ends without the interpreter's finalization (:func:`_exit_now`).
    * numpy is imported here, at the top of the call stack (not for ``--help`` or ``--version``). Imported
      deep inside the command (click, the command, api, ...), zelo_eval's import of numpy ran
      typing's ``_GenericAlias.__setattr__`` (~300 calls) right at the end of one of CPython 3.11's
      16 KiB frame-stack chunks, and each call mapped and unmapped a new chunk: ~800 mmap/munmap
      pairs, about 5 % of the command's time on the sample.

    Any command started as a process and ended by SIGINT or SIGTERM (exit 130 / 143) ends without the
    finalization too, short-lived or not: its outputs were committed or removed on the way up, and the
    finalization (a last collection of every object of ``openai``/``httpx``, 7-12 s of wall time at load 22
    after zelo_judge's second Ctrl-C) is not waited for.
    """
    import gc

    _early_handlers(prog, argv)
    was_enabled = gc.isenabled()
    if short_lived:
        gc.disable()
        args = sys.argv[1:] if argv is None else list(argv)
        if not {"-h", "--help", "--version"} & set(args[: args.index("--") if "--" in args else len(args)]):
            import numpy  # noqa: F401
    try:
        code = _run(command, prog, argv)
    except BaseException:
        if was_enabled:
            gc.enable()
        raise
    if argv is None and (short_lived or code in SIGNALLED):
        # short-lived: with the collector still off (turned on, it would first scan every object); a signal
        # (zelo_judge's second Ctrl-C): at once, every output committed or removed on the way up
        _exit_now(code)
    if was_enabled:
        gc.enable()
    sys.exit(code)


def _early_handlers(prog: str, argv: list[str] | None) -> None:
    """A command started as a process, until :func:`_run` installs its handlers (numpy's import): a SIGINT or
    SIGTERM ends it with its one line and 130/143 (:func:`pref_eval.cli.early_handlers`; ``python -m``, whose
    program name is no command's)."""
    if argv is None:
        from . import early_handlers
        from .options import version_name

        early_handlers(version_name(prog, sys.argv[1:]))


def _exit_now(code: int) -> None:
    """End the process with ``code`` without the interpreter's finalization.

    Finalization tears down every module and object one by one and runs a last full
    collection: ~38 million instructions for ``zelo_eval`` on the shipped sample, 10 % of
    ``import numpy``. Every output file is closed by then (output/atomic.py), so all it would
    do is free memory the operating system takes back anyway. What finalization does that
    matters is done here: the ``atexit`` handlers run (multiprocessing's among them) and the
    standard streams are flushed. With another thread still running, the normal exit is taken
    (it waits for non-daemon threads).
    """
    import atexit
    import threading

    if threading.active_count() > 1:
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def _run(command: Callable[..., object], prog: str, argv: list[str] | None) -> int:
    """Parse ``argv`` (default ``sys.argv[1:]``) and run ``command``: the exit code."""
    import signal
    import threading

    import click

    from .options import GROUP_SCRIPT, VERSION_ON_STDERR, version_line, version_name

    process = argv is None and threading.current_thread() is threading.main_thread()
    _guard_std_streams(process)
    args = sys.argv[1:] if argv is None else list(argv)
    label = version_name(prog, args)  # messages name the command as typed: ``zelo fit: FILE: ...``
    if label in VERSION_ON_STDERR:  # zelo_trec: ``-v``/``--version`` where trec_eval's getopt meets them
        from .trec import version_asked

        asked = version_asked(args[1:] if prog == GROUP_SCRIPT else args)
    else:
        asked = "--version" in args[: args.index("--") if "--" in args else len(args)]
    if asked:
        line, to_stderr = version_line(label)
        if to_stderr:
            sys.stderr.write(line)
            return 0
        return _write_stdout(label, line, 0)  # ``--version > /dev/full``, ``| true``, ``>&-``: as any output
    from ..errors import COMMAND_LINE_FLAGS
    from . import is_early

    old_term = None
    try:
        if threading.current_thread() is threading.main_thread():
            if process:  # (a command run in-process keeps its caller's SIGINT handler and hooks)
                sys.unraisablehook = _lost_signal
                if signal.getsignal(signal.SIGINT) is signal.default_int_handler or is_early(
                        signal.getsignal(signal.SIGINT)):
                    signal.signal(signal.SIGINT, _on_signal)
            # SIGTERM last: once it is caught (what tests read in /proc/PID/status), SIGINT is too
            old_term = signal.signal(signal.SIGTERM, _on_signal if process else _on_sigterm)
        token = COMMAND_LINE_FLAGS.set(frozenset())  # a command runs: refusals name flags (errors.option_name)
        try:
            code = _invoke(command, prog, args, click, label, process=process)
        finally:
            COMMAND_LINE_FLAGS.reset(token)
            if process:
                _end_on_signal()  # the outputs are settled: a late signal ends the process, no traceback
            elif old_term is not None:
                signal.signal(signal.SIGTERM, old_term)
    except (KeyboardInterrupt, Terminated) as err:
        # a first signal met outside _invoke's own handling (the handlers being installed, the command's
        # return, the finally above): the command is ending as it would have (130/143, one line)
        if not process:
            raise
        _end_on_signal()
        term = isinstance(err, Terminated)
        sys.stderr.write(f"{label}: {'terminated' if term else 'interrupted'}\n")
        return 143 if term else 130
    return _write_stdout(label, "", code)


def _write_stdout(label: str, text: str, code: int) -> int:
    """Write ``text`` to standard output and flush it; the exit status: ``code``, or 1 for a failure (a full
    disk: one line ``LABEL: standard output: cannot write: REASON``; a closed standard output, ``>&-``: its
    one line) when ``code`` was 0. A reader that has gone (``| head``) ends quietly with ``code``."""
    from ..errors import OutputError

    try:
        if text:
            sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
    except ValueError:  # a stream closed by the command itself: nothing more to write
        pass
    except OutputError as err:  # the stand-in for a closed standard output (_ClosedStdout)
        sys.stderr.write(f"{label}: {one_line(str(err))}\n")
        code = code or err.exit_code
    except OSError as err:
        from ..output.atomic import output_error

        sys.stderr.write(f"{label}: {output_error('-', err)}\n")
        _silence_stdout()
        code = code or 1
    return code


def _exit_on_signal(signum: int, frame) -> None:  # noqa: ARG001 - signal handler signature
    os._exit(128 + signum)  # 130 for SIGINT, 143 for SIGTERM, as the first one would have given


def _end_on_signal() -> None:
    """Once a command has run (or its first SIGINT or SIGTERM is being reported): a further SIGINT or SIGTERM
    ends the process at once with 130 or 143, silently. Each output was committed or removed by then (the
    output layer's ``with`` blocks are closed); a signal meeting the exit path's Python code (the message,
    restoring the handlers, flushing standard output) printed a traceback instead (Ctrl-C pressed twice).
    Processes only: a command run in-process (``argv`` given) keeps the caller's handlers. Signals ignored
    when the process started stay ignored."""
    import signal

    for sig in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(sig) != signal.SIG_IGN:
            signal.signal(sig, _exit_on_signal)


class Interrupted(BaseException):
    """Ctrl-C (KeyboardInterrupt) met while the command ran, passed to :func:`_invoke` past click, which
    would write a blank line for the terminal's ``^C`` echo first: two lines on stderr in a log file."""


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, OSError, ValueError):
        return False


def _main(command, prog: str, args: list[str]):
    """``command.main`` (standalone mode off), a KeyboardInterrupt while the arguments are parsed or the command
    runs raised as :class:`Interrupted` -- in the main thread, the one Ctrl-C reaches (the command object is
    shared: another thread's call is left alone)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return command.main(args=args, prog_name=prog, standalone_mode=False)

    def interruptible(method):
        def call(*a, **kw):
            try:
                return method(*a, **kw)
            except KeyboardInterrupt:
                raise Interrupted() from None
        return call

    # on the object, for this call only
    command.make_context = interruptible(command.make_context)
    command.invoke = interruptible(command.invoke)
    try:
        return command.main(args=args, prog_name=prog, standalone_mode=False)
    finally:
        del command.make_context, command.invoke


def _invoke(command, prog: str, args: list[str], click, label: str | None = None, *, process: bool = False) -> int:
    """Run the click command; ``label`` (default ``prog``) starts every message. ``process``: the command is the
    process (not a call in-process): once it was interrupted, a further signal ends it (:func:`_end_on_signal`)."""
    from ..errors import OutputError

    label = label or prog
    try:
        from ..output.atomic import notices_to  # in the try: a signal met while importing is reported as one

        with notices_to(_warner(label, click)):
            rv = _main(command, prog, args)
        return rv if isinstance(rv, int) else 0
    except SystemExit as err:
        # click turns EPIPE into sys.exit(1) after wrapping stdout; a closed
        # pipe is not an error for us (``zelo_eval ... | head``).
        if isinstance(sys.stdout, click.utils.PacifyFlushWrapper):
            _silence_stdout()
            return 0
        return err.code if isinstance(err.code, int) else (0 if err.code is None else 2)
    except PrefEvalError as err:
        if not isinstance(err, OutputError):
            _flush_quietly()
        sys.stderr.write(f"{label}: {shortened(one_line(str(err)))}\n")
        return err.exit_code
    except click.ClickException as err:
        hint = _positional_for_option(err, args, click)
        if hint:
            sys.stderr.write(f"{label}: {shortened(one_line(hint))}\n")
            return 2
        if type(err).__name__ == "NoArgsIsHelpError":  # a group given no subcommand: its help, as click shows it
            err.show()
        else:
            sys.stderr.write(_usage_lines(err, label, click))
        return 2
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except (click.exceptions.Abort, KeyboardInterrupt, Interrupted, Terminated) as err:
        if process:
            _end_on_signal()
        term = isinstance(err, Terminated)
        if isinstance(err, Interrupted) and _isatty(sys.stderr):
            sys.stderr.write("\n")  # after the terminal's "^C" echo
        sys.stderr.write(f"{label}: {'terminated' if term else 'interrupted'}\n")
        return 143 if term else 130
    except MemoryError:
        sys.stderr.write(f"{label}: out of memory\n")
        return 1
    except OSError as err:
        # an operating-system failure no reader or writer turned into a message
        where = f"{one_line(str(err.filename))}: " if err.filename else ""
        sys.stderr.write(f"{label}: {where}{os.strerror(err.errno) if err.errno else err}\n")
        return 1


def _warner(label: str, click: Any) -> Callable[[str], None]:
    """The command's ``LABEL: warning: ...`` line for a notice of the output layer (an owner of a replaced file
    that could not be kept), silenced by ``-Q/--quiet`` as the command's other warnings are: the option
    is read from the running command's context (a subcommand's, or its group's)."""
    def warn(message: str) -> None:
        ctx = click.get_current_context(silent=True)
        while ctx is not None:
            if ctx.params.get("quiet"):
                return
            ctx = ctx.parent
        sys.stderr.write(f"{label}: warning: {shortened(one_line(message))}\n")
    return warn


def _usage_lines(err: Any, label: str, click: Any) -> str:
    """A command line the option parser refused (a missing or unknown option, a value out of range): one line,
    ``LABEL: MESSAGE`` as every other error, then click's ``Try 'PROG --help' for help.`` -- not click's block of
    the usage line, the hint, a blank line and ``Error: MESSAGE`` (docs/exit-codes.md)."""
    ctx = getattr(err, "ctx", None)
    message = bytes_in_repr(_peer_option(err, ctx, click) or err.format_message())  # (click's repr of a value)
    lines = f"{label}: {shortened(one_line(message))}\n"
    if not isinstance(err, click.UsageError):
        return lines
    if ctx is None:  # refused before a context was made (an option's value missing at the end of the line)
        lines += f"Try '{label} --help' for help.\n"
    elif ctx.command.get_help_option(ctx) is not None:
        lines += f"Try '{ctx.command_path} {max(ctx.command.get_help_option_names(ctx), key=len)}' for help.\n"
    return lines


def _peer_option(err: Any, ctx: Any, click: Any) -> str:
    """An unknown option a peer's users type (``zelo_compare --max-p``, ranx's ``max_p``): the message naming
    ours (:data:`pref_eval.peer_names.RANX_KEYWORDS`, by command); empty for any other error."""
    from ..peer_names import command_hint, ir_measures_hint, zelo_hint
    from .options import COMMANDS

    if not isinstance(err, click.NoSuchOption) or ctx is None:
        return ""
    # the command is the first context of the chain naming one (zelo_plot, or `zelo plot` under the group), its
    # sub-command the context below it: `zelo_plot pairs` is zelo_plot's pairs, not zelo_pairs (session 30)
    chain = []
    while ctx is not None:
        chain.append(ctx.info_name)
        ctx = ctx.parent
    chain.reverse()
    at = next((i for i, n in enumerate(chain) if any(n == c.name or n in c.scripts for c in COMMANDS)), None)
    name = "" if at is None else next(c.name for c in COMMANDS if chain[at] == c.name or chain[at] in c.scripts)
    sub = chain[at + 1] if at is not None and at + 1 < len(chain) else ""
    hint = "" if sub else command_hint(name, err.option_name) or ir_measures_hint(name, err.option_name)
    hint = hint or zelo_hint(name, err.option_name, sub)
    return f"No such option '{err.option_name}': {hint}." if hint else ""


def _positional_for_option(err: Any, args: list[str], click: Any) -> str:
    """A required option missing while the command line holds a word no argument takes (``zelo_fit
    judged.jsonl`` for ``zelo_fit -J judged.jsonl``): click would only say "Missing option"; this says what the
    word was taken for and what was expected. Empty for any other error."""
    param, ctx = getattr(err, "param", None), getattr(err, "ctx", None)
    if not isinstance(err, click.MissingParameter) or not isinstance(param, click.Option) or ctx is None:
        return ""
    own = list(args)
    if ctx.parent is not None and ctx.info_name in own:  # a subcommand (zelo_pairs add): its words follow its name
        own = own[own.index(ctx.info_name) + 1:]  # (not named: zelo_judge's default 'run', all the words are its)
    try:
        _, extra, _ = ctx.command.make_parser(ctx).parse_args(args=own)
    except click.ClickException:
        return ""
    if not extra:
        return ""
    word, name = extra[0], "/".join(param.opts)
    path = ctx.parent.command_path if ctx.parent is not None and ctx.info_name not in args else ctx.command_path
    takes = [p.human_readable_name for p in ctx.command.params if isinstance(p, click.Argument)]
    where = f"beyond the ones {path} takes ({' '.join(takes)})" if takes else f"which {path} does not take"
    return (f"missing option {name}; {shown(word)} was taken as a positional argument, {where}: expected "
            f"{param.opts[0]} before it ({param.opts[0]} {word})")


def _flush_quietly() -> None:
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        _silence_stdout()


def _silence_stdout() -> None:
    """After EPIPE, point stdout at /dev/null so the interpreter exits quietly."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def command_options(outputs: tuple[str, ...] = ()) -> list[tuple[str, list[str]]]:
    """The path-like (string) option values of the running click command and its group, by option name,
    in option order -- what :func:`pref_eval.output.atomic.inputs_besides` protects from an output.

    ``outputs``: the command's output options besides ``-o`` (``zelo_fit --qrels``), put first, so that an
    output given as an input too is named by the input's option (``--qrels F`` with ``-J F``: "the same file
    as -J F"). A positional argument is named as its usage line names it (``RUN``, ``PAIRS``)."""
    import click

    ctx = click.get_current_context(silent=True)
    found: list[tuple[str, list[str]]] = []
    while ctx is not None:
        for p in ctx.command.params:
            v = ctx.params.get(p.name or "")
            if isinstance(v, str):
                vals = [v]
            elif isinstance(v, (tuple, list)):
                vals = [x for x in _flatten(v) if isinstance(x, str)]
            else:
                continue
            if isinstance(p, click.Argument):
                words = [w for w in (p.metavar or "").split(" ") if w]
                if len(words) == len(vals) > 1 and len(set(words)) == len(words) and "." not in "".join(words):
                    found.extend((w, [v]) for w, v in zip(words, vals, strict=True))  # zelo_trec's QRELS RUN
                    continue
                name = "".join(ch for ch in (words[0] if words else "") if ch.isalnum() or ch == "_") \
                    or str(p.name).upper()  # "RUN [RUN...]", "[RUN]..." -> RUN
            else:
                name = p.opts[0] if getattr(p, "opts", None) else str(p.name)
            found.append((name, vals))
        ctx = ctx.parent
    return sorted(found, key=lambda item: item[0] not in outputs)  # stable: outputs first, else in order


def _flatten(v) -> Iterator:
    for x in v:
        if isinstance(x, (tuple, list)):
            yield from _flatten(x)
        else:
            yield x


@contextlib.contextmanager
def output_stream(path: str | None) -> Iterator[TextIO]:
    """Yield a text stream for results (``None`` or ``-`` is stdout).

    Written atomically by :func:`pref_eval.output.atomic.output_file`; refused
    when ``path`` is one of the command's inputs.
    """
    from ..output.atomic import command_output

    with command_output(path, command_options()) as fh:
        yield fh


def given_options(*names: str) -> list[str]:
    """Which of the current command's parameters (by Python name) the user set on the command line or
    through the environment -- to refuse an option that a missing one would leave unused."""
    import click
    from click.core import ParameterSource

    ctx = click.get_current_context()
    return [n for n in names if ctx.get_parameter_source(n) in (ParameterSource.COMMANDLINE,
                                                                 ParameterSource.ENVIRONMENT)]


@contextlib.contextmanager
def options_given() -> Iterator[None]:
    """Around a command's call of the API: the flags its command line (or the environment) named, so that the
    API's checks (:func:`pref_eval.errors.option_given`) refuse an option that cannot apply when it was given,
    whatever its value -- they compare a value with the default, which is all a Python caller's value says."""
    import click
    from click.core import ParameterSource

    from ..errors import COMMAND_LINE_FLAGS

    ctx: click.Context | None = click.get_current_context()
    flags: set[str] = set()
    while ctx is not None:
        for p in ctx.command.params:
            if isinstance(p, click.Option) and p.name and ctx.get_parameter_source(p.name) in (
                    ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT):
                flags.update(p.opts)
        ctx = ctx.parent
    token = COMMAND_LINE_FLAGS.set(frozenset(flags))
    try:
        yield
    finally:
        COMMAND_LINE_FLAGS.reset(token)


def refuse_unused(needs: str, names: dict[str, str], present: bool) -> None:
    """Raise UsageError when an option of ``names`` ({python name: flag}) is given without ``needs``."""
    from ..errors import UsageError

    if present:
        return
    bad = given_options(*names)
    if bad:
        raise UsageError(f"{', '.join(names[b] for b in bad)} applies only with {needs}")


def run_id_options(f: F) -> F:
    """``--run-id path|tag`` and ``--name RUN=LABEL`` (the rule of :mod:`pref_eval.io.run_ids`)."""
    import click

    f = click.option("--name", "run_names", multiple=True, metavar="RUN=LABEL",
                     help="Rename a run in the output (RUN: its id, path or file name); repeatable.")(f)
    f = click.option("--run-id", "run_id_mode", type=click.Choice(["path", "tag"]), default="path",
                     show_default=True,
                     help="Run ids: path = the shortest unique path suffix (bm25.run; exp1/run.txt when two "
                          "files are run.txt); tag = the run tag (6th column).")(f)
    return f


def print_measure_list(*, preferences: bool) -> int:
    """``--list-measures`` of zelo_eval (``preferences``: with pref_eval.py's names) and zelo_trec."""
    import click

    from ..measures import registry
    from ..measures.nicknames import NICKNAMES

    if preferences:
        from ..run_preferences.names import ALL_SET, PREFERENCES

        click.echo("preference measures: " + " ".join(PREFERENCES))
        click.echo("pref_eval metrics: ap ap@K rbp rbp@G rbp@G,K rr rr@K ndcg ndcg@K rp p@K r@K")
        click.echo("measure sets (-M): preferences all none " + " ".join(NICKNAMES)
                   + " (all = " + " ".join(ALL_SET) + ")")
    else:
        click.echo("measure sets (-m): " + " ".join(NICKNAMES))
    reg = registry()
    click.echo("trec_eval measures: " + " ".join(sorted(reg, key=lambda n: reg[n].order)))
    click.echo("ir-measures names: " + " ".join(sorted({s.irm for s in reg.values() if s.irm})))
    from ..measures.ranx import NAMES as RANX

    click.echo("ranx names (name[@k][-lN], rbp.P; ranx:NAME for map recall ndcg bpref dcg): " + " ".join(RANX))
    return 0

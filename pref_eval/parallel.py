"""Running independent pieces of work in parallel, results in input order.

One function, :func:`ordered_map`, behind every ``--jobs N`` and
``--scheduler ADDRESS`` option: the work is cut into pieces that do not
depend on each other (runs, blocks of queries, measures), each piece is
computed by the same function as in a serial run, and the results are put
back in input order -- so the output is byte-identical to ``--jobs 1``.

* ``jobs == 1`` and no scheduler: a plain loop in this process.
* ``jobs > 1``: a :class:`concurrent.futures.ProcessPoolExecutor` of
  ``min(jobs, pieces)`` worker processes on this machine.
* ``scheduler``: the address of a running ``dask.distributed`` scheduler
  (``tcp://host:8786``); pieces are submitted with ``Client.map`` and
  gathered in order (``pip install 'pref_eval[dask]'``).
"""
from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Iterable, Iterator, Sequence

if TYPE_CHECKING:
    import numpy as np

from .errors import PrefEvalError, UsageError, option_name, option_value


def check_jobs_or_scheduler(jobs: int, scheduler: str | None) -> None:
    """``--jobs N`` (N > 1) and ``--scheduler`` name two places to run the same pieces: one of them would be
    unused (the scheduler's workers do the work), so both together are refused (UsageError)."""
    if scheduler is not None and jobs > 1:
        s = option_name("scheduler")
        raise UsageError(f"{option_value('jobs', '--jobs', jobs)} and {s}: give one ({s} runs the pieces on the "
                         f"cluster's workers, {option_name('jobs')} in processes of this machine)")


def _scheduler(address: str) -> str:
    """The scheduler option as the caller wrote it: ``--scheduler ADDRESS`` / ``scheduler='ADDRESS'``."""
    return option_value("scheduler", "--scheduler", address)


def ordered_map(fn: Callable[[Any], Any], items: Iterable[Any], *, jobs: int = 1,
                scheduler: str | None = None) -> list:
    """``[fn(x) for x in items]``, computed serially, in ``jobs`` processes or on a dask cluster."""
    return list(ordered_results(fn, items, jobs=jobs, scheduler=scheduler))


def ordered_results(fn: Callable[[Any], Any], items: Iterable[Any], *, jobs: int = 1,
                    scheduler: str | None = None) -> Iterator[Any]:
    """:func:`ordered_map`'s results one at a time, in input order: serially each is computed when asked
    for; in processes each is handed over as it is reached (a caller that consumes and drops them does
    not hold them all); from dask, gathered at once. The pool ends when the iterator is exhausted or closed."""
    items = list(items)
    if jobs < 1:
        raise UsageError(f"{option_name('jobs')} must be at least 1, got {jobs}")
    if scheduler:
        yield from _dask_map(fn, items, scheduler)
        return
    if jobs == 1 or len(items) <= 1:
        yield from map(fn, items)
        return
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    ex = ProcessPoolExecutor(max_workers=min(jobs, len(items)), initializer=_worker_init)
    try:
        with _signals_blocked():  # (every worker starts here, whatever the start method)
            _start_workers(ex)
            results = ex.map(fn, items)
        yield from results
    except BrokenProcessPool:  # (the pool has ended its other workers itself)
        raise _WorkerLost(f"{option_value('jobs', '--jobs', jobs)}: a worker process ended abruptly (killed by a "
                          "signal, or out of memory); run again, or with fewer jobs") from None
    except BaseException:  # Ctrl-C, SIGTERM, an error, the caller closing the iterator: the rest is not wanted
        _stop_workers(ex)
        raise
    finally:
        ex.shutdown(wait=True)


class _WorkerLost(PrefEvalError):
    """A ``--jobs`` worker process that died (a signal sent to it alone, the kernel's out-of-memory killer):
    exit status 1, as running out of memory in the command's own process."""

    exit_code = 1


_STOPPING = ("SIGINT", "SIGTERM")


@contextlib.contextmanager
def _signals_blocked() -> Iterator[None]:
    """SIGINT and SIGTERM blocked in this thread while the pool's processes start: a worker inherits the blocked
    mask (through fork and exec, so under every start method: fork, forkserver, spawn -- macOS's and Windows'
    default, Linux's from Python 3.14 on forkserver) and is never ended half-started by the terminal's Ctrl-C,
    which reaches every process of the group: with spawn it was a KeyboardInterrupt traceback per worker from
    Python's own handler, or (a console script imports pref_eval.cli in each worker) one ``PROG: interrupted``
    line each. :func:`_worker_init` then chooses what the signals do there. A signal sent to this process
    meanwhile waits and acts when the block ends (as Python's own resource tracker starts). Main thread and
    POSIX only (no ``pthread_sigmask`` on Windows)."""
    import signal
    import threading

    block = getattr(signal, "pthread_sigmask", None)
    if block is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    sigs = {getattr(signal, name) for name in _STOPPING}
    old = block(signal.SIG_BLOCK, sigs)
    try:
        yield
    finally:
        block(signal.SIG_SETMASK, old)


def _start_workers(ex: Any) -> None:
    """Every worker of the pool started before its manager thread (as Python starts them under fork): under
    spawn and forkserver Python 3.11 starts them one per submit, and its manager thread could wait on the
    processes it knew before the last one started -- that worker killed alone (the out-of-memory killer) went
    unnoticed and the command waited forever (1 run in 10 here). A Python without this private method keeps its
    own way."""
    launch = getattr(ex, "_launch_processes", None)
    if launch is not None and getattr(ex, "_executor_manager_thread", None) is None:
        launch()


def _stop_workers(ex: Any) -> None:
    """End the pool's workers now (their pieces are not wanted: the command is interrupted, failed, or its
    caller stopped reading): without it the pool's shutdown waited for every running piece (14-23 s of
    zelo_compare's resampling after a SIGINT or SIGTERM sent to the command's process alone)."""
    workers = list((getattr(ex, "_processes", None) or {}).values())  # (shutdown drops the executor's references)
    manager = getattr(ex, "_executor_manager_thread", None)
    ex.shutdown(wait=False, cancel_futures=True)
    for p in workers:
        with contextlib.suppress(Exception):  # (one that ended meanwhile)
            p.terminate()
    if manager is not None:  # its end closes its wake-up pipe: not while the exit's handler writes to it (Python
        manager.join(timeout=30)  # 3.11 printed "Exception ignored ... Bad file descriptor" about 1 run in 20)


def ordered_threads(fn: Callable[[Any], Any], items: Iterable[Any], threads: int) -> Iterator[Any]:
    """``map(fn, items)`` on a pool of ``threads`` threads, results in input order, each handed over as it is
    reached; at most ``threads`` items are taken ahead of the one the caller waits for (a caller that
    consumes and drops the results holds about ``threads`` of them). For work that releases the GIL (numpy,
    LAPACK, the compiled kernels): each item is computed by the same function as serially, so the results are
    the same whatever the number of threads. The pool ends when the iterator is exhausted or closed (the items
    not started are dropped)."""
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    it = iter(items)
    if threads <= 1:
        yield from map(fn, it)
        return
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="pref_eval") as ex:
        ahead: deque = deque()
        try:
            for x in it:
                ahead.append(ex.submit(fn, x))
                if len(ahead) > threads:
                    yield ahead.popleft().result()
            while ahead:
                yield ahead.popleft().result()
        finally:
            for f in ahead:
                f.cancel()


def env_threads(most: int) -> int:
    """Threads of a pool in this process: the environment's ``PREF_EVAL_THREADS`` (an integer >= 1) if set,
    else the usable CPUs, at most ``most``; anything else in the variable is a :class:`UsageError`."""
    raw = os.environ.get("PREF_EVAL_THREADS", "").strip()
    if raw:
        try:
            n = int(raw)
        except ValueError:
            n = 0
        if n < 1:
            raise UsageError(f"PREF_EVAL_THREADS must be an integer >= 1, got {raw!r}")
        return n
    return min(most, usable_cpus())


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the OS has one, else ``os.cpu_count()``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _worker_init() -> None:
    """A worker process's start: one BLAS thread (the pool is the parallelism); SIGINT ignored (Ctrl-C reaches
    the parent too, which reports it once and ends the pool) and SIGTERM its default (the parent's
    :func:`_stop_workers`, or a SIGTERM to the group, ends the worker silently) whatever handlers the worker
    inherited (fork: the command's own, which raised in the worker) or installed while it started (spawn: the
    early ones of pref_eval.cli); then the signals :func:`_signals_blocked` held are let through."""
    import signal

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    unblock = getattr(signal, "pthread_sigmask", None)
    if unblock is not None:
        unblock(signal.SIG_UNBLOCK, {getattr(signal, name) for name in _STOPPING})


def _dask_map(fn: Callable[[Any], Any], items: Sequence[Any], address: str) -> list:
    try:
        from distributed import Client
    except ImportError:
        raise UsageError(f"{option_name('scheduler')} needs dask.distributed: pip install 'pref_eval[dask]'") from None
    _probe_scheduler(address)
    _quiet_cancelled_gathers()
    try:
        client = Client(address, timeout="20s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as err:
        _drop_failed_client(err, Client)
        refusal = _tls_error(err) if address.startswith("tls://") else None
        if refusal is not None:  # after a handshake that passed the probe (an alert later than its wait)
            raise UsageError(f"{_scheduler(address)}: cannot connect: the scheduler closed the TLS connection, "
                             "as it does when it does not accept the client's certificate (distributed.comm.tls."
                             f"client.cert must be signed by the CA the scheduler trusts) "
                             f"({getattr(refusal, 'reason', None) or refusal})") from None
        raise UsageError(f"{_scheduler(address)}: cannot connect ({err})") from None
    except Exception as err:  # noqa: BLE001 -- something answered, not as a scheduler (a MemoryError on its bytes)
        _drop_failed_client(err, Client)
        raise UsageError(f"{_scheduler(address)}: the address answered, but not as a dask scheduler "
                         f"({type(err).__name__})") from None
    with client:
        futures = client.map(fn, items, pure=False)
        return client.gather(futures)


def _tls_error(err: BaseException) -> Any:
    """The ``ssl.SSLError`` behind a failed ``Client(...)``, else None: distributed raises its own
    ``CommClosedError`` (an OSError) ``from`` the ssl error (an alert, or the EOF of a connection the
    scheduler closed), or from tornado's ``StreamClosedError`` that holds it as ``real_error``. Found by
    type along the chain of causes, not by the words of a message."""
    import ssl

    seen: set[int] = set()
    todo: list[BaseException | None] = [err]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, ssl.SSLError):
            return e
        real = getattr(e, "real_error", None)
        todo += [e.__cause__, e.__context__, real if isinstance(real, BaseException) else None]
    return None


def _drop_all_exit(record: Any) -> bool:
    exc = record.exc_info[0] if record.exc_info else None
    return not (exc is not None and exc.__name__ == "AllExit" and exc.__module__.startswith("distributed"))


def _quiet_cancelled_gathers() -> None:
    """Drop asyncio's "Task exception was never retrieved ... distributed.client.AllExit" log records (a
    traceback each, one per piece) that a ``gather`` cut short by Ctrl-C leaves at exit; the command's own
    ``interrupted`` line is the one to show. Only those records: installed once on the ``asyncio`` logger."""
    import logging

    log = logging.getLogger("asyncio")
    if _drop_all_exit not in log.filters:
        log.addFilter(_drop_all_exit)


def _drop_failed_client(err: BaseException, client_type: Any) -> None:
    """Mark the half-made ``Client`` of a failed ``Client(...)`` closed: its ``__del__`` would otherwise wait
    twice the timeout (40 s) at exit for a scheduler that never answered, then print a traceback."""
    import contextlib

    tb = err.__traceback__
    while tb is not None:
        obj: Any = tb.tb_frame.f_locals.get("self")
        if isinstance(obj, client_type):
            obj.status = "closed"
            with contextlib.suppress(Exception):
                obj._loop_runner.stop()
            return
        tb = tb.tb_next


PROBE_SECONDS = 5.0  # a scheduler's port answers a TCP connection at once; no answer in 5 s is no scheduler
REPLY_SECONDS = 1.0  # after the TLS handshake a scheduler sends its first message (distributed's handshake) at once

#: TLS alerts a server sends when it does not accept the client's certificate (OpenSSL's reason codes): in the
#: handshake under TLS 1.2, right after it under TLS 1.3 (the server checks the certificate the client sent last)
CERTIFICATE_ALERTS = frozenset({
    "TLSV1_ALERT_UNKNOWN_CA", "SSLV3_ALERT_BAD_CERTIFICATE", "SSLV3_ALERT_CERTIFICATE_UNKNOWN",
    "SSLV3_ALERT_UNSUPPORTED_CERTIFICATE", "SSLV3_ALERT_CERTIFICATE_EXPIRED", "SSLV3_ALERT_CERTIFICATE_REVOKED",
    "TLSV13_ALERT_CERTIFICATE_REQUIRED", "TLSV1_ALERT_ACCESS_DENIED", "TLSV1_ALERT_DECRYPT_ERROR"})


#: the schemes whose scheduler listens on a TCP port (``ws``/``wss``: websockets; ``tls``: TLS over TCP)
TCP_SCHEMES = ("tcp", "tls", "ws", "wss")
EXPECTED = "expected tcp://HOST:PORT (or tls://, ws://, wss://; HOST:PORT alone is tcp://)"


def _probe_scheduler(address: str) -> None:
    """A ``--scheduler`` address that cannot be a scheduler, refused at once as a :class:`UsageError`.

    ``distributed.Client`` retries a refused connection until its timeout (20 s), an unknown scheme or an
    address that does not answer ended in a traceback and a ``Client.__del__`` that waits 40 s more at exit.
    Here, in one line each: an unknown scheme; for the schemes over TCP (``tcp://``, ``tls://``, ``ws://``,
    ``wss://``, and ``HOST:PORT`` alone, which dask reads as ``tcp://``) a TCP connection refused, not
    resolved or not answered within :data:`PROBE_SECONDS`; ``tls://`` without dask's TLS configuration
    (the client would fail on a missing ``ssl_context``) or with files it cannot use, and a TLS handshake
    that fails or gets no answer within :data:`PROBE_SECONDS` (a plain TCP server behind ``tls://``: the
    client retried for 20 s); ``inproc://`` (a scheduler inside this same
    process: never one another command started); ``ucx://`` when this installation cannot make UCX
    connections (distributed's own ``ucx`` backend is a stub since the ``distributed-ucxx`` package took it
    over). A ``ucx://`` address that can be tried is left to the client (no TCP port to probe).
    """
    import socket

    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.registry import get_backend

    try:
        scheme, loc = parse_address(address)
        backend = get_backend(scheme)
        if scheme in TCP_SCHEMES:
            host, port = parse_host_port(loc, 8786)
            if not host:
                raise ValueError("no host")
            if not 0 < int(port) < 65536:  # getaddrinfo takes 99999 and connects to another port (99999 - 65536)
                raise ValueError(f"port {port} is not 1-65535")
    except (ValueError, TypeError) as err:
        raise UsageError(f"{_scheduler(address)}: not a scheduler address ({err}); {EXPECTED}") from None
    if scheme == "inproc":
        raise UsageError(f"{_scheduler(address)}: an inproc:// address reaches only a scheduler inside the same "
                         f"Python process, never one this command can join; {EXPECTED}")
    if scheme == "ucx":
        try:
            backend.get_connector()
        except Exception as err:  # noqa: BLE001 -- distributed without UCX support: an abstract connector
            raise UsageError(f"{_scheduler(address)}: this installation cannot make ucx:// connections "
                             f"({type(err).__name__}: UCX needs the distributed-ucxx package); {EXPECTED}") from None
        return
    if scheme not in TCP_SCHEMES:
        return  # a scheme a plug-in registered: the client's business
    context = _tls_context(address) if scheme == "tls" else None
    try:
        sock = socket.create_connection((host, int(port)), timeout=PROBE_SECONDS)
    except TimeoutError:
        raise UsageError(f"{_scheduler(address)}: cannot connect (no answer within {PROBE_SECONDS:g} s)") from None
    except OSError as err:
        raise UsageError(f"{_scheduler(address)}: cannot connect ({err.strerror or err})") from None
    with sock:
        if context is not None:
            _tls_handshake(sock, context, address)


def _tls_context(address: str) -> Any:
    """The client's TLS context from dask's configuration (``distributed.comm.tls``), or a UsageError: not set,
    or a file that cannot be read or used (a missing CA file, a key that is not the certificate's)."""
    from distributed.security import Security

    try:
        context = Security().get_connection_args("client").get("ssl_context")
    except (OSError, ValueError) as err:  # ssl.SSLError is an OSError; its errno is no system error's
        import ssl

        import dask

        why = f"{err.reason or err}" if isinstance(err, ssl.SSLError) else \
            err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        files = ", ".join(f"{k} {dask.config.get(f'distributed.comm.tls.{k}', None)}"
                          for k in ("ca-file", "client.cert", "client.key"))
        raise UsageError(f"{_scheduler(address)}: dask's TLS configuration cannot be used ({why}; "
                         f"distributed.comm.tls: {files})") from None
    if context is None:
        raise UsageError(f"{_scheduler(address)}: tls:// needs dask's TLS configuration (the client's "
                         "certificate, key and CA file: distributed.comm.tls in the dask config or "
                         "DASK_DISTRIBUTED__COMM__TLS__* variables), which is not set")
    return context


def _client_refused(address: str, err: Any) -> UsageError:
    return UsageError(f"{_scheduler(address)}: cannot connect: the scheduler does not accept the client's TLS "
                      f"certificate ({(getattr(err, 'reason', None) or str(err)).lower().replace('_', ' ')}): "
                      "distributed.comm.tls."
                      "client.cert must be signed by the CA the scheduler trusts")


def _tls_handshake(sock: Any, context: Any, address: str) -> None:
    """A TLS handshake with the scheduler at ``address`` within :data:`PROBE_SECONDS`, or a UsageError: a
    scheduler certificate the CA file did not sign, a client certificate the scheduler refuses (its alert,
    :data:`CERTIFICATE_ALERTS`: in the handshake, or under TLS 1.3 in place of the scheduler's first message,
    waited for :data:`REPLY_SECONDS`), a server that answers but not in TLS, or one that does not answer
    (a plain TCP server waits for the client's first bytes: the client retried for 20 s)."""
    import ssl

    sock.settimeout(PROBE_SECONDS)
    try:
        tls = context.wrap_socket(sock, server_hostname=None if not context.check_hostname else
                                  address.rpartition("//")[2].rsplit(":", 1)[0])
    except TimeoutError:
        raise UsageError(f"{_scheduler(address)}: no TLS answer within {PROBE_SECONDS:g} s (not a TLS server: "
                         "a tcp:// scheduler?)") from None
    except ssl.SSLCertVerificationError as err:
        raise UsageError(f"{_scheduler(address)}: the scheduler's TLS certificate is not accepted "
                         f"({err.verify_message}): distributed.comm.tls.ca-file must be the CA that signed "
                         "it") from None
    except ssl.SSLError as err:
        if getattr(err, "reason", None) in CERTIFICATE_ALERTS:
            raise _client_refused(address, err) from None
        raise UsageError(f"{_scheduler(address)}: the address answered, but not in TLS ({err.reason or err}; "
                         "a tcp:// scheduler?)") from None
    except OSError as err:
        raise UsageError(f"{_scheduler(address)}: TLS handshake failed ({err.strerror or err})") from None
    with tls:
        tls.settimeout(min(REPLY_SECONDS, PROBE_SECONDS))
        try:
            tls.recv(1)  # the scheduler's first message, or the alert refusing the client's certificate
        except ssl.SSLError as err:
            if getattr(err, "reason", None) in CERTIFICATE_ALERTS:
                raise _client_refused(address, err) from None
        except OSError:
            pass  # no reply in time, a reset: the client tries (and reports) itself


def split_even(weights: Sequence[int] | np.ndarray, parts: int) -> list[tuple[int, int]]:
    """Cut ``range(len(weights))`` into at most ``parts`` contiguous, non-empty ranges of similar total weight."""
    import numpy as np

    from .io.keys import distinct

    n = len(weights)
    if n == 0:
        return []
    parts = max(1, min(parts, n))
    cum = np.cumsum(np.asarray(weights, dtype=np.float64) + 1.0)  # +1: empty items still cost a little
    cuts = np.searchsorted(cum, cum[-1] * np.arange(1, parts) / parts, side="right")
    bounds = distinct(np.concatenate([[0], np.clip(cuts, 1, n - 1) if n > 1 else [], [n]]).astype(np.int64))
    return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]

# Maintainers: where the audits of an ecosystem run execute. One interface, two engines.
#
# Owns: running one function over many tasks with at most N at a time, each isolated so that
# a task that hangs or blows its memory limit becomes a result (an error) and the run goes
# on, and handing each result back the moment it is done (the store writes it then).
# - `local` (the default): a forked child process per task on this machine (the parent has
#   the auditor imported already, so a child starts in milliseconds); a per-task timeout
#   (the child is killed) and an address-space limit (RLIMIT_AS) set in the child.
# - `ray`: each task a Ray remote function on an existing cluster (`address`) or on a local
#   Ray started for the run; its own timeout (ray.cancel) and memory request. Ray is an
#   optional extra (`drift-audit[ray]`), imported only here, only for this engine.
#   Nothing of the current folder (a consumer's checkout, untrusted) reaches a worker: Ray
#   hands the driver's folder to every worker twice, `ray.init` recording it in the job's
#   config (each worker puts it first on its sys.path; so is the script's folder, when on the
#   driver's sys.path) and a local Ray's processes inheriting it as their working folder. So
#   `ray.init` runs with the current folder set to an empty private folder of its own,
#   removed after the run; a task must therefore not depend on the current folder (the
#   ecosystem makes its paths absolute). A Ray the caller initialised is used as it is.
# Both call the same function on the same task, so the same inputs give the same results.
# Takes: tasks (picklable) and a module-level function. Gives: (task, result or failure).
"""Engines for ecosystem runs: a local process pool, or Ray."""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from auditor.errors import AuditError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

T = TypeVar("T")
R = TypeVar("R")

ENGINES = ("local", "ray")


@dataclass(frozen=True, slots=True)
class Done(Generic[T, R]):
    """A task's end: its result, or why there is none (timed out, out of memory, crashed)."""

    task: T
    result: R | None
    failure: str | None = None
    seconds: float = 0.0


class Engine(Protocol):
    def run(
        self, fn: Callable[[T], R], tasks: Sequence[T], *, timeout: float, memory: int | None
    ) -> Iterator[Done[T, R]]: ...


def make_engine(name: str, *, jobs: int | None = None, address: str | None = None) -> Engine:
    if name == "local":
        return LocalEngine(jobs or os.cpu_count() or 1)
    if name == "ray":
        return RayEngine(jobs, address)
    raise AuditError(f"unknown engine {name!r}", hint=f"choose one of {', '.join(ENGINES)}")


# --------------------------------------------------------------------------- local


class LocalEngine:
    """Forked children, `jobs` at a time; results in the order they finish."""

    def __init__(self, jobs: int) -> None:
        self.jobs = max(1, jobs)

    def run(
        self, fn: Callable[[T], R], tasks: Sequence[T], *, timeout: float, memory: int | None
    ) -> Iterator[Done[T, R]]:
        import multiprocessing
        from multiprocessing.connection import wait

        context = multiprocessing.get_context("fork")
        pending = list(reversed(tasks))
        running: dict[Any, tuple[T, Any, Any, float]] = {}  # sentinel -> task, proc, pipe, t0
        try:
            while pending or running:
                while pending and len(running) < self.jobs:
                    task = pending.pop()
                    reader, writer = context.Pipe(duplex=False)
                    args = (fn, task, writer, memory, self.jobs > 1)
                    proc = context.Process(target=_child, args=args)
                    proc.start()
                    writer.close()
                    running[proc.sentinel] = (task, proc, reader, time.monotonic())
                soonest = min(t0 for _, _, _, t0 in running.values()) + timeout
                # a child's result can be larger than a pipe holds: it blocks writing until
                # the parent reads, so a readable pipe counts as done, as does an exit
                readers = {entry[2]: sentinel for sentinel, entry in running.items()}
                woken = wait([*running, *readers], timeout=max(0.0, soonest - time.monotonic()))
                ready = {readers.get(w, w) for w in woken}
                now = time.monotonic()
                for sentinel in list(running):
                    task, proc, reader, t0 = running[sentinel]
                    if sentinel in ready:
                        del running[sentinel]
                        yield _collect(task, proc, reader, now - t0)
                    elif now - t0 >= timeout:
                        del running[sentinel]
                        _kill(proc)
                        reader.close()
                        yield Done(task, None, f"timed out after {timeout:g} s", now - t0)
        finally:
            for _, proc, reader, _ in running.values():
                _kill(proc)
                reader.close()


def _child(
    fn: Callable[[Any], Any], task: Any, writer: Any, memory: int | None, shared: bool
) -> None:
    """In the forked child: the memory limit, the function, its pickled result (or error).
    `shared`: other tasks run beside this one, so its consumer scan takes one processor
    (scan/parallel.py)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what Ctrl-C stops
    if shared:
        os.environ["DRIFT_AUDIT_NO_PARALLEL_SCAN"] = "1"
    if memory:
        import resource

        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    try:
        payload: tuple[str, Any] = ("ok", fn(task))
    except MemoryError:
        payload = ("failed", "ran out of its memory limit")
    except BaseException as exc:  # a crash in one audit is that audit's error
        payload = ("failed", f"crashed: {type(exc).__name__}: {exc}")
    try:
        writer.send_bytes(pickle.dumps(payload))
    except MemoryError:
        writer.send_bytes(pickle.dumps(("failed", "ran out of its memory limit")))
    finally:
        writer.close()
        os._exit(0)  # no atexit handlers, no flush of the parent's buffers


def _collect(task: Any, proc: Any, reader: Any, seconds: float) -> Done[Any, Any]:
    try:
        status, value = pickle.loads(reader.recv_bytes()) if reader.poll() else (None, None)
    except (EOFError, OSError, pickle.UnpicklingError):
        status, value = None, None
    finally:
        reader.close()
        proc.join(10)
    if status == "ok":
        return Done(task, value, None, seconds)
    if status == "failed":
        return Done(task, None, str(value), seconds)
    code = proc.exitcode
    why = f"killed by signal {-code}" if code is not None and code < 0 else f"exited {code}"
    if code == -signal.SIGKILL:
        why += " (out of memory?)"
    return Done(task, None, f"the audit process {why}", seconds)


def _kill(proc: Any) -> None:
    with contextlib.suppress(OSError, AttributeError):
        proc.kill()
    proc.join(1)


# --------------------------------------------------------------------------- ray


class RayEngine:
    """Each task a Ray remote function; a local Ray is started when no address is given."""

    def __init__(self, jobs: int | None, address: str | None) -> None:
        self.jobs = jobs
        self.address = address

    def run(
        self, fn: Callable[[T], R], tasks: Sequence[T], *, timeout: float, memory: int | None
    ) -> Iterator[Done[T, R]]:
        try:
            import ray
        except ImportError as exc:
            raise AuditError(
                "the ray engine needs Ray", hint="install drift-audit[ray] (pip install ray)"
            ) from exc
        started_here = not ray.is_initialized()
        aside = self._start(ray) if started_here else None
        try:
            yield from _ray_results(ray, fn, tasks, timeout=timeout, memory=memory)
        finally:
            if started_here:
                ray.shutdown()
            if aside is not None:
                shutil.rmtree(aside, ignore_errors=True)

    def _start(self, ray: Any) -> str:
        """`ray.init` from an empty folder of our own (see the header); the folder made."""
        options: dict[str, Any] = {
            "include_dashboard": False,
            "log_to_driver": False,
            "logging_level": logging.ERROR,
        }
        if self.address:
            options["address"] = self.address
        else:
            options["num_cpus"] = self.jobs or os.cpu_count() or 1
        aside = tempfile.mkdtemp(prefix="drift-audit-ray-")
        try:
            with _working_in(aside):
                ray.init(**options)
        except BaseException:
            shutil.rmtree(aside, ignore_errors=True)
            raise
        return aside


@contextlib.contextmanager
def _working_in(folder: str) -> Iterator[None]:
    """The process's current folder is `folder` for the block, then the one it was (by a
    descriptor: back to the same folder even if it was renamed meanwhile)."""
    back = os.open(".", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.chdir(folder)
        try:
            yield
        finally:
            os.fchdir(back)
    finally:
        os.close(back)


def _ray_results(
    ray: Any, fn: Callable[[T], R], tasks: Sequence[T], *, timeout: float, memory: int | None
) -> Iterator[Done[T, R]]:
    """Every task submitted at once; each result as it comes, a task past `timeout` cancelled."""
    resources: dict[str, Any] = {"max_retries": 0, "num_cpus": 1}
    if memory:
        resources["memory"] = memory
    remote = ray.remote(**resources)(_ray_call)
    refs = {remote.remote(fn, task): (task, time.monotonic()) for task in tasks}
    try:
        while refs:
            ready, _ = ray.wait(list(refs), num_returns=1, timeout=1.0)
            now = time.monotonic()
            for ref in ready:
                task, t0 = refs.pop(ref)
                yield _ray_done(ray, ref, task, now - t0)
            for ref, (task, t0) in list(refs.items()):
                if now - t0 >= timeout:
                    ray.cancel(ref, force=True)
                    del refs[ref]
                    yield Done(task, None, f"timed out after {timeout:g} s", now - t0)
    finally:
        for ref in refs:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)


def _ray_call(fn: Callable[[Any], Any], task: Any) -> Any:
    # a task holds one of the cluster's processors, in a worker full of Ray's own threads:
    # its consumer scan walks on that one (scan/parallel.py forks no second process)
    os.environ["DRIFT_AUDIT_NO_PARALLEL_SCAN"] = "1"
    return fn(task)


def _ray_done(ray: Any, ref: Any, task: Any, seconds: float) -> Done[Any, Any]:
    try:
        return Done(task, ray.get(ref), None, seconds)
    except Exception as exc:  # the task's exception, or the worker died (OOM kill)
        cause = getattr(exc, "cause", None) or exc
        name = type(cause).__name__
        if "OutOfMemory" in type(exc).__name__ or isinstance(cause, MemoryError):
            return Done(task, None, "ran out of its memory limit", seconds)
        return Done(task, None, f"crashed: {name}: {str(cause).splitlines()[0][:300]}", seconds)

# Maintainers: the one place the tool raises Python's recursion limit.
#
# Owns: `deeply(function, *args)`: the call as it is, and when it runs out of recursion
# (RecursionError), the same call again on a thread of its own with a big stack and a higher
# recursion limit, so that code nested as deeply as CPython's own parser accepts (about 3,000
# levels: 2,000 `elif` branches, 2,900 unary minus or nested ternaries) is read, never
# dropped. What does not fit even then raises RecursionError to its caller, which treats the
# file as unreadable: a finding that fails the gate, never a pass.
# Takes: a function and its arguments. Gives: its result, or the exception it raised.
#
# The recursion limit and the size of new threads' stacks are process-wide: a deep call
# raises them only while it runs, one deep call at a time, and puts them back. The stack is
# virtual memory (only the pages a deep walk touches are used); a process whose address space
# is capped (`ecosystem --memory`) may not get it, and then the call's MemoryError says so.
# Callers pass only pure functions of their arguments (a parse, a walk): a first attempt cut
# short by RecursionError leaves nothing behind that the second one could trip over.
from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

T = TypeVar("T")

DEEP_LIMIT = 60_000  # Python frames: about 12 a nesting level for the walker, ample for 3,000
STACK_BYTES = 512 * 1024 * 1024  # what Python 3.10 needs for DEEP_LIMIT frames, twice over
_LOCK = threading.Lock()


def deeply(function: Callable[..., T], *args: object) -> T:
    """`function(*args)`; after a RecursionError, again with a deep stack (see above)."""
    try:
        return function(*args)
    except RecursionError:
        pass
    return _on_deep_stack(function, args)


def _on_deep_stack(function: Callable[..., T], args: tuple[object, ...]) -> T:
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(function(*args))
        except BaseException as exc:  # handed to the caller's thread, raised there
            failure.append(exc)

    with _LOCK:
        limit, size = sys.getrecursionlimit(), threading.stack_size()
        try:
            sys.setrecursionlimit(max(limit, DEEP_LIMIT))
            threading.stack_size(STACK_BYTES)
            worker = threading.Thread(target=run, name="drift-audit-deep", daemon=True)
            try:
                worker.start()
            except RuntimeError as exc:  # no room for the stack: an address-space cap
                raise MemoryError(f"no memory for a deep stack: {exc}") from exc
            finally:
                threading.stack_size(size)
            worker.join()
        finally:
            sys.setrecursionlimit(limit)
    if failure:
        raise failure[0]
    return outcome[0]

"""Cancellation for in-flight tool calls, and a one-shot Answer for
interactive tools.

A ToolContext exists for every tool_call from the moment the SDK reads it
(before the handler's thread starts), so a tool_cancel that follows at once
still finds it. Cancellation is cooperative: the SDK marks the context
cancelled (tool_cancel, shutdown, EOF, or a dismissed panel) and runs the
``on_cancel`` callbacks; a handler that never looks cannot be stopped, but
its late result is not sent (the host has forgotten the id).
"""
import threading
from typing import TYPE_CHECKING, Any, Callable, Dict, Generic, List, Optional, TypeVar

if TYPE_CHECKING:
    from .extension import Extension
    from .results import ToolResult

T = TypeVar("T")


class Cancelled(Exception):
    """Raised by Answer.wait / call_tool when the waiting tool call was cancelled."""


class ToolContext:
    def __init__(self, ext: "Extension", call_id: str, name: str) -> None:
        self.id = call_id
        self.name = name
        self.reason = ""
        self._ext = ext
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: List[Callable[[], None]] = []

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def wait_cancelled(self, timeout: Optional[float] = None) -> bool:
        """Blocks until the call is cancelled (True) or ``timeout`` seconds pass (False)."""
        return self._event.wait(timeout)

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise Cancelled(self.reason or "cancelled")

    def on_cancel(self, callback: Callable[[], None]) -> None:
        """Runs ``callback`` on cancellation (at once when already cancelled)."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)
                return
        self._run(callback)

    def call_tool(self, name: str, args: Optional[Dict[str, Any]] = None, timeout: Optional[float] = None) -> "ToolResult":
        """call_tool with this call as ``parent_id`` (cancelled with it)."""
        return self._ext.call_tool(name, args, parent=self, timeout=timeout)

    def _cancel(self, reason: str) -> None:
        with self._lock:
            if self._event.is_set():
                return
            self.reason = reason
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            self._run(callback)

    def _run(self, callback: Callable[[], None]) -> None:
        try:
            callback()
        except Exception as exc:  # a bad callback must not stop the others
            self._ext.log("on_cancel callback of %s failed: %r" % (self.name, exc))


class Answer(Generic[T]):
    """A value one thread delivers and another waits for (e.g. a panel's Enter
    answering an interactive tool). ``wait(ctx)`` returns the value, or raises
    Cancelled when ``ctx`` is cancelled (or ``cancel()`` was called) first."""

    _UNSET: Any = object()

    def __init__(self) -> None:
        self._done = threading.Event()
        self._value: Any = self._UNSET
        self._lock = threading.Lock()

    def set(self, value: T) -> bool:
        """Delivers ``value``; False when an answer or cancellation came first."""
        with self._lock:
            if self._done.is_set():
                return False
            self._value = value
            self._done.set()
            return True

    def cancel(self) -> None:
        with self._lock:
            self._done.set()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def wait(self, ctx: Optional[ToolContext] = None, timeout: Optional[float] = None) -> T:
        if ctx is not None:
            ctx.on_cancel(self.cancel)
        if not self._done.wait(timeout):
            raise TimeoutError("no answer within %s s" % timeout)
        if self._value is self._UNSET:
            raise Cancelled(ctx.reason if ctx is not None and ctx.reason else "cancelled")
        return self._value  # type: ignore[no-any-return]

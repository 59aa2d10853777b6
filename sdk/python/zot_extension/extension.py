"""Extension: registration and the run loop.

Concurrency model (threads, one writer lock):
- ``run()`` reads stdin on the calling (main) thread and only dispatches:
  it never runs a handler that could block, except ``on_hello`` at startup.
- Each ``tool_call``, ``command_invoked`` and ``event_intercept`` runs its
  handler on a thread of its own, so a slow tool never delays another
  request, a panel key or a cancellation. The host bounds how many requests
  are in flight (16 + 16), which bounds these threads.
- ``panel_key`` / ``panel_close`` run on one panel lane and ``event``
  notifications on one event lane: each lane is a single thread, so keys
  reach their handler strictly in the order typed and events in the order
  sent. A handler blocking its lane delays only that lane.
- ``tool_cancel`` and ``tool_result`` (replies to call_tool) are handled on
  the reader at once. Every stdout frame goes through one lock
  (transport.FrameWriter), one frame per line.
- While ``run()`` runs, ``sys.stdout`` points at stderr, so a stray print()
  lands in the extension's log instead of corrupting the protocol.
Any exception in a handler is logged to stderr with its traceback and turned
into an error tool result, a command error, or "allow" for interceptors; the
extension keeps running. Handlers may be ``async def``: the coroutine runs on
the handler's thread with asyncio.run (a tool's is cancelled with its call).
On ``shutdown`` the SDK cancels in-flight calls, lets the event and panel
lanes finish what arrived before it (0.25 s each), runs on_shutdown hooks
(1 s bound), sends ``shutdown_ack`` and returns; on EOF the same, no ack.
"""
import sys
import threading
from typing import Any, Callable, Dict, List, Optional, TypeVar

from .context import Cancelled, ToolContext
from .dispatch import Dispatcher, positional_call
from .frames import JsonObject
from .panels import CloseHandler, KeyHandler, Panel
from .results import HostInfo, ToolResult
from .transport import FrameWriter, Lane, read_frames

PROTOCOL_VERSION = 1
#: what the SDK asks for in hello (call_tool / tool_cancel opt in to those features)
CAPABILITIES = ["commands", "tools", "events", "intercept", "panels", "call_tool", "tool_cancel"]
INTERCEPTABLE = ("before_agent_start", "tool_call", "turn_start", "assistant_message", "tool_result")
SHUTDOWN_HOOK_SECONDS = 1.0
LANE_DRAIN_SECONDS = 0.25  # per lane; with the hooks well inside zot's 2 s grace

F = TypeVar("F", bound=Callable[..., Any])


class CallToolError(Exception):
    """call_tool failed in transport: unsupported host, timeout, disconnect."""


class _Tool:
    def __init__(self, name: str, handler: Callable[..., Any]) -> None:
        self.name = name
        self.handler = handler


class _PendingCall:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.frame: Optional[Dict[str, Any]] = None
        self.failure = ""


class Extension:
    def __init__(self, name: str, version: str = "0.0.0", on_timeout: Optional[str] = None,
                 stdin: Any = None, stdout: Any = None) -> None:
        """``on_timeout="deny"`` (a zot addition) blocks intercepted actions when this extension misses the 5 s deadline."""
        self.name = name
        self.version = version
        self.on_timeout = on_timeout
        self.host: Optional[HostInfo] = None
        self._stdin = stdin
        self._stdout = stdout
        self._lock = threading.RLock()
        self._ready = False
        self._closing = False
        self._outbox: List[Dict[str, Any]] = []
        self._commands: Dict[str, Callable[..., Any]] = {}
        self._tools: Dict[str, _Tool] = {}
        self._interceptors: Dict[str, Callable[..., Any]] = {}
        self._events: Dict[str, List[Callable[..., Any]]] = {}
        self._panels: Dict[str, Panel] = {}
        self._active: Dict[str, ToolContext] = {}
        self._calls: Dict[str, _PendingCall] = {}
        self._call_seq = 0
        self._hello_hooks: List[Callable[[HostInfo], None]] = []
        self._shutdown_hooks: List[Callable[[], None]] = []
        self._writer: Optional[FrameWriter] = None
        self._reader_thread: Optional[threading.Thread] = None
        self._local = threading.local()
        self._dispatcher = Dispatcher(self)
        self.panel_lane = Lane("panels", self.log)
        self.event_lane = Lane("events", self.log)

    # -- logging and one-way frames ----------------------------------------

    def log(self, message: str) -> None:
        """One line to stderr (zot writes it to $ZOT_HOME/logs/ext-<name>.log)."""
        try:
            sys.__stderr__.write("[%s] %s\n" % (self.name, message))
            sys.__stderr__.flush()
        except (OSError, ValueError, AttributeError):
            pass

    def send(self, frame: Dict[str, Any]) -> bool:
        """Writes one frame (thread-safe). Frames before run() starts wait for hello."""
        with self._lock:
            if self._writer is None:
                self._outbox.append(frame)
                return True
            writer = self._writer
        return writer.send(frame)

    def notify(self, message: str, level: str = "info") -> bool:
        """A note under the transcript; level is info, success, warn or error."""
        return self.send({"type": "notify", "level": level, "message": message})

    def clear_notes(self) -> bool:
        return self.send({"type": "clear_notes"})

    def submit(self, text: str) -> bool:
        """Submits ``text`` as a user prompt (interactive mode; queued behind a running turn)."""
        return self.send({"type": "submit", "text": text})

    # -- registration --------------------------------------------------------

    def _register(self, frame: Dict[str, Any]) -> None:
        with self._lock:
            if self._ready:
                self.send(frame)
            else:
                self._outbox.append(frame)

    def command(self, name: str, description: str = "", handler: Optional[Callable[..., Any]] = None) -> Any:
        """A slash command. ``handler(args: str)`` returns a Response (or a str to display, or None).
        Without ``handler`` this is a decorator."""
        def add(fn: F) -> F:
            with self._lock:
                self._commands[name] = fn
            self._register({"type": "register_command", "name": name, "description": description})
            return fn
        return add(handler) if handler is not None else add

    def tool(self, name: str, description: str = "", schema: Optional[JsonObject] = None,
             handler: Optional[Callable[..., Any]] = None, deferred: bool = False, interactive: bool = False) -> Any:
        """A tool the model can call. ``handler(args: dict[, ctx: ToolContext])`` returns a
        ToolResult (or a str, or None). Without ``handler`` this is a decorator."""
        def add(fn: F) -> F:
            with self._lock:
                self._tools[name] = _Tool(name, fn)
            frame: Dict[str, Any] = {"type": "register_tool", "name": name, "description": description,
                                     "schema": schema if schema is not None else {"type": "object", "properties": {}}}
            if deferred:
                frame["deferred"] = True
            if interactive:
                frame["interactive"] = True
            self._register(frame)
            return fn
        return add(handler) if handler is not None else add

    def deferred_tool(self, name: str, description: str = "", schema: Optional[JsonObject] = None,
                      handler: Optional[Callable[..., Any]] = None) -> Any:
        """A tool not advertised until a result's ``activate_tools`` names it."""
        return self.tool(name, description, schema, handler, deferred=True)

    def interactive_tool(self, name: str, description: str = "", schema: Optional[JsonObject] = None,
                         handler: Optional[Callable[..., Any]] = None) -> Any:
        """A tool that waits for the user (no reply deadline); its handler should take ``ctx``."""
        return self.tool(name, description, schema, handler, interactive=True)

    def _subscribe(self, events: List[str], intercept: List[str]) -> None:
        frame: Dict[str, Any] = {"type": "subscribe", "events": events, "intercept": intercept}
        if self.on_timeout is not None:
            frame["on_timeout"] = self.on_timeout
        self._register(frame)

    def _intercept(self, event: str, fn: F) -> F:
        with self._lock:
            first = event not in self._interceptors
            if not first:
                self.log("a second %s interceptor replaces the first" % event)
            self._interceptors[event] = fn
        if first:
            self._subscribe([], [event])
        return fn

    def intercept_before_agent_start(self, fn: F) -> F:
        """``fn(event) -> str | None``: the complete new system prompt ("" removes it), None keeps it."""
        return self._intercept("before_agent_start", fn)

    def intercept_tool_call(self, fn: F) -> F:
        """``fn(tool_name, args[, event]) -> ToolCallDecision | None``; None, True allow; False blocks."""
        return self._intercept("tool_call", fn)

    def intercept_turn_start(self, fn: F) -> F:
        """``fn(step[, event]) -> TurnStartDecision | None``."""
        return self._intercept("turn_start", fn)

    def intercept_assistant_message(self, fn: F) -> F:
        """``fn(text[, event]) -> AssistantMessageDecision | str | None`` (a str replaces the visible text)."""
        return self._intercept("assistant_message", fn)

    def intercept_tool_result(self, fn: F) -> F:
        """zot addition. ``fn(event) -> list of blocks | ToolResult | str | None``: the content the
        model sees instead (None leaves it unchanged)."""
        return self._intercept("tool_result", fn)

    def on_event(self, event: str, fn: Optional[Callable[[Dict[str, Any]], None]] = None) -> Any:
        """Observe a lifecycle event: ``fn(frame)`` runs on the event lane, in order."""
        def add(handler: F) -> F:
            with self._lock:
                first = event not in self._events
                self._events.setdefault(event, []).append(handler)
            if first:
                self._subscribe([event], [])
            return handler
        return add(fn) if fn is not None else add

    def on_hello(self, fn: Callable[[HostInfo], None]) -> Callable[[HostInfo], None]:
        """Runs after hello_ack, before registrations are announced (register more here)."""
        self._hello_hooks.append(fn)
        return fn

    def on_shutdown(self, fn: Callable[[], None]) -> Callable[[], None]:
        """Runs on shutdown and on EOF (save state here; bounded to 1 s together)."""
        self._shutdown_hooks.append(fn)
        return fn

    def panel(self, panel_id: str, on_key: Optional[KeyHandler] = None, on_close: Optional[CloseHandler] = None) -> Panel:
        """The panel with this id (created on first use; handlers replaced when given)."""
        with self._lock:
            panel = self._panels.get(panel_id)
            if panel is None:
                panel = Panel(self, panel_id, on_key, on_close)
                self._panels[panel_id] = panel
            else:
                panel.on_key = on_key or panel.on_key
                panel.on_close = on_close or panel.on_close
            return panel

    def _forget_panel(self, panel_id: str) -> None:
        with self._lock:
            self._panels.pop(panel_id, None)

    # -- call_tool -----------------------------------------------------------

    def supports(self, capability: str) -> bool:
        """Whether hello_ack advertised ``capability`` (False before hello_ack)."""
        return self.host is not None and capability in self.host.capabilities

    def call_tool(self, name: str, args: Optional[JsonObject] = None, parent: Optional[ToolContext] = None,
                  timeout: Optional[float] = None) -> ToolResult:
        """Runs a tool through the host (its guards and confirmation policy) and returns its result.
        Inside a tool handler the handler's call is the parent automatically. Raises CallToolError on
        an older host, a timeout or a disconnect, Cancelled when the parent call is cancelled."""
        if not self.supports("call_tool"):
            raise CallToolError("the host does not advertise call_tool")
        if threading.current_thread() is self._reader_thread:
            raise CallToolError("call_tool from the reader thread (on_hello) would deadlock")
        parent = parent if parent is not None else getattr(self._local, "ctx", None)
        pending = _PendingCall()
        with self._lock:
            if self._closing:
                raise CallToolError("the extension is shutting down")
            self._call_seq += 1
            call_id = "%s-call-%d" % (self.name, self._call_seq)
            self._calls[call_id] = pending
        frame: Dict[str, Any] = {"type": "call_tool", "id": call_id, "name": name, "args": args if args is not None else {}}
        if parent is not None:
            frame["parent_id"] = parent.id
            parent.on_cancel(lambda: self._fail_call(call_id, "cancelled"))
        try:
            if not self.send(frame):
                raise CallToolError("call_tool %s not sent" % name)
            if not pending.done.wait(timeout):
                self.send({"type": "call_tool_cancel", "id": call_id})
                raise CallToolError("call_tool %s: no reply within %s s" % (name, timeout))
        finally:
            with self._lock:
                self._calls.pop(call_id, None)
        if pending.failure == "cancelled":
            self.send({"type": "call_tool_cancel", "id": call_id})
            raise Cancelled("call_tool %s cancelled" % name)
        if pending.frame is None:
            raise CallToolError("call_tool %s: %s" % (name, pending.failure or "no reply"))
        reply = pending.frame
        content = reply.get("content")
        return ToolResult(content=list(content) if isinstance(content, list) else [],
                          is_error=reply.get("is_error") is True, truncated=reply.get("truncated") is True)

    def _fail_call(self, call_id: str, reason: str) -> None:
        with self._lock:
            pending = self._calls.get(call_id)
        if pending is not None and not pending.done.is_set():
            pending.failure = reason
            pending.done.set()

    # -- the run loop --------------------------------------------------------

    def run(self) -> None:
        """Speaks the protocol until shutdown or EOF, then returns."""
        stdin = self._stdin if self._stdin is not None else sys.stdin.buffer
        stdout = self._stdout if self._stdout is not None else sys.stdout.buffer
        saved_stdout = sys.stdout
        sys.stdout = sys.stderr  # print() goes to the log, never into the protocol
        self._reader_thread = threading.current_thread()
        try:
            writer = FrameWriter(stdout, self.log)
            writer.send({"type": "hello", "name": self.name, "version": self.version, "capabilities": CAPABILITIES})
            frames = read_frames(stdin, self.log)
            for frame in frames:
                if frame["type"] == "hello_ack":
                    self._start(frame, writer)
                    break
                if frame["type"] == "shutdown":
                    writer.send({"type": "shutdown_ack"})
                    return
            else:
                return
            for frame in frames:
                if self._dispatcher.dispatch(frame) == "shutdown":
                    self._stop("shutdown")
                    writer.send({"type": "shutdown_ack"})
                    return
            self._stop("the host closed stdin")
        finally:
            sys.stdout = saved_stdout

    def _start(self, frame: Dict[str, Any], writer: FrameWriter) -> None:
        self.host = HostInfo.from_frame(frame)  # type: ignore[arg-type]
        if self.host.protocol_version != PROTOCOL_VERSION:
            self.log("host speaks protocol_version %s; this SDK speaks %d" % (self.host.protocol_version, PROTOCOL_VERSION))
        for hook in self._hello_hooks:
            try:
                positional_call(hook, self.host)
            except Exception:
                self._dispatcher.log_exception("on_hello")
        with self._lock:
            early, self._outbox = self._outbox, []
            self._writer = writer
            self._ready = True
        subscribe: Dict[str, Any] = {"type": "subscribe", "events": [], "intercept": []}
        for queued in early:
            if queued.get("type") == "subscribe":  # one subscribe frame for everything before ready
                subscribe["events"] += queued["events"]
                subscribe["intercept"] += queued["intercept"]
                subscribe.update({k: v for k, v in queued.items() if k == "on_timeout"})
            else:
                writer.send(queued)
        if subscribe["events"] or subscribe["intercept"]:
            writer.send(subscribe)
        writer.send({"type": "ready"})

    def _stop(self, reason: str) -> None:
        with self._lock:
            self._closing = True
            active = list(self._active.values())
            calls = list(self._calls)
        for ctx in active:
            ctx._cancel(reason)
        for call_id in calls:
            self._fail_call(call_id, reason)
        # Events and keys that arrived before shutdown (session_end among them) still reach their handlers.
        self.event_lane.stop(LANE_DRAIN_SECONDS)
        self.panel_lane.stop(LANE_DRAIN_SECONDS)
        hooks = threading.Thread(target=self._run_shutdown_hooks, name="zot-shutdown", daemon=True)
        hooks.start()
        hooks.join(SHUTDOWN_HOOK_SECONDS)

    def _run_shutdown_hooks(self) -> None:
        for hook in self._shutdown_hooks:
            try:
                hook()
            except Exception:
                self._dispatcher.log_exception("on_shutdown")

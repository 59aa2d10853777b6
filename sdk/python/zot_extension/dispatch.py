"""Routing host frames to handlers (see extension.py for the threading model)
and turning what handlers return, or raise, into reply frames.

Every request gets exactly one reply unless it was cancelled: a handler that
raises is logged with its traceback and answered with an error tool result,
a command ``error``, or "allow" for an interceptor; a reply too big for the
host's line limit (or not JSON) is replaced by a small error reply. A tool
call cancelled by the host gets no reply (the host has forgotten its id).
"""
import inspect
import threading
import traceback
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional

from .context import Cancelled, ToolContext
from .results import (AssistantMessageDecision, ToolCallDecision, ToolResult, TurnStartDecision,
                      coerce_response, coerce_tool_result, error_result)

if TYPE_CHECKING:
    from .extension import Extension

#: The interceptions a block answers (the others only rewrite): where on_timeout="deny" also covers a failing handler.
BLOCKING_EVENTS = frozenset({"tool_call", "turn_start", "assistant_message"})


def positional_call(fn: Callable[..., Any], *args: Any) -> Any:
    """Calls ``fn`` with as many of ``args`` as it takes positionally."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return fn(*args)
    count = 0
    for param in params:
        if param.kind == param.VAR_POSITIONAL:
            return fn(*args)
        if param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
            count += 1
    return fn(*args[:count])


def settle(value: Any, ctx: Optional[ToolContext] = None) -> Any:
    """Runs an awaitable a handler returned to completion on this thread (cancelled with ``ctx``)."""
    if not inspect.isawaitable(value):
        return value
    import asyncio  # only for async handlers: it costs ~45 ms of start-up


    async def runner() -> Any:
        task = asyncio.ensure_future(value)
        loop = asyncio.get_running_loop()
        if ctx is not None:
            def cancel() -> None:
                try:
                    loop.call_soon_threadsafe(task.cancel)
                except RuntimeError:  # the loop already finished
                    pass
            ctx.on_cancel(cancel)
        return await task

    try:
        return asyncio.run(runner())
    except asyncio.CancelledError:
        raise Cancelled("cancelled")


def spawn(name: str, target: Callable[[], None]) -> None:
    threading.Thread(target=target, name=name, daemon=True).start()


class Dispatcher:
    def __init__(self, ext: "Extension") -> None:
        self.ext = ext

    def log_exception(self, where: str) -> str:
        text = traceback.format_exc().rstrip()
        self.ext.log("%s raised:\n%s" % (where, text))
        return text.splitlines()[-1] if text else "error"

    def dispatch(self, frame: Dict[str, Any]) -> Optional[str]:
        kind = frame["type"]
        ext = self.ext
        if kind == "tool_call":
            self._start_tool(frame)
        elif kind == "command_invoked":
            spawn("zot-command", lambda: self._run_command(frame))
        elif kind == "event_intercept":
            spawn("zot-intercept", lambda: self._run_intercept(frame))
        elif kind == "event":
            ext.event_lane.put(lambda: self._run_event(frame))
        elif kind in ("panel_key", "panel_close"):
            ext.panel_lane.put(lambda: self._run_panel(frame))
        elif kind == "tool_cancel":
            with ext._lock:
                ctx = ext._active.get(str(frame.get("id")))
            if ctx is not None:  # unknown or finished ids are ignored
                ctx._cancel("cancelled by the host")
        elif kind == "tool_result":
            with ext._lock:
                pending = ext._calls.get(str(frame.get("id")))
            if pending is not None and not pending.done.is_set():
                pending.frame = frame
                pending.done.set()
        elif kind == "shutdown":
            return "shutdown"
        elif kind != "hello_ack":
            ext.log("frame %r ignored" % kind)
        return None

    # -- tools -------------------------------------------------------------

    def _start_tool(self, frame: Dict[str, Any]) -> None:
        ext = self.ext
        call_id = str(frame.get("id"))
        name = str(frame.get("name"))
        ctx = ToolContext(ext, call_id, name)
        with ext._lock:  # before the thread starts: a tool_cancel right behind finds it
            ext._active[call_id] = ctx
            tool = ext._tools.get(name)
        args = frame.get("args")
        if args is None:
            args = {}
        spawn("zot-tool-" + name, lambda: self._run_tool(tool, ctx, args))

    def _run_tool(self, tool: Any, ctx: ToolContext, args: Any) -> None:
        ext = self.ext
        ext._local.ctx = ctx
        try:
            if tool is None:
                result = error_result("unknown tool %r" % ctx.name)
            elif not isinstance(args, dict):
                result = error_result("%s: arguments must be a JSON object" % ctx.name)
            else:
                result = coerce_tool_result(settle(positional_call(tool.handler, args, ctx), ctx))
        except Cancelled as exc:
            result = error_result("%s cancelled: %s" % (ctx.name, exc))
        except Exception:
            result = error_result("%s failed: %s" % (ctx.name, self.log_exception("tool %s" % ctx.name)))
        finally:
            ext._local.ctx = None
            with ext._lock:
                ext._active.pop(ctx.id, None)
        if ctx.cancelled:
            return
        if not ext.send(result.to_frame(ctx.id)):
            ext.send(error_result("%s: its result could not be sent (see the extension log)" % ctx.name).to_frame(ctx.id))

    # -- commands ------------------------------------------------------------

    def _run_command(self, frame: Dict[str, Any]) -> None:
        ext = self.ext
        request_id = str(frame.get("id"))
        name = str(frame.get("name"))
        args = frame.get("args")
        with ext._lock:
            handler = ext._commands.get(name)
        try:
            if handler is None:
                raise LookupError("unknown command %r" % name)
            response = coerce_response(settle(positional_call(handler, args if isinstance(args, str) else "")))
        except Exception:
            response = coerce_response(None)
            response.error = "/%s failed: %s" % (name, self.log_exception("command /%s" % name))
        if not ext.send(response.to_frame(request_id)):
            ext.send({"type": "command_response", "id": request_id, "action": "noop",
                      "error": "/%s: its response could not be sent (see the extension log)" % name})

    # -- interception --------------------------------------------------------

    def _run_intercept(self, frame: Dict[str, Any]) -> None:
        ext = self.ext
        event = str(frame.get("event"))
        reply: Dict[str, Any] = {"type": "event_intercept_response", "id": str(frame.get("id"))}
        with ext._lock:
            handler = ext._interceptors.get(event)
        if handler is not None:
            try:
                reply.update(self._decide(event, handler, frame))
            except Exception as error:
                self.log_exception("%s interceptor" % event)
                # Fail closed as the TypeScript SDK does: a guard declared on_timeout="deny" blocks what it could not judge.
                if ext.on_timeout == "deny" and event in BLOCKING_EVENTS:
                    reply.update({"block": True, "reason": "%s: interceptor failed: %s" % (ext.name, error)})
        if not ext.send(reply):
            ext.send({"type": "event_intercept_response", "id": reply["id"]})

    def _decide(self, event: str, handler: Callable[..., Any], frame: Dict[str, Any]) -> Dict[str, Any]:
        if event == "before_agent_start":
            prompt = settle(positional_call(handler, frame))
            if prompt is None:
                return {}
            if not isinstance(prompt, str):
                raise TypeError("before_agent_start must return a str or None")
            return {"system_prompt": prompt}
        if event == "tool_call":
            args = frame.get("tool_args")
            decision = settle(positional_call(handler, str(frame.get("tool_name", "")), args if isinstance(args, dict) else {}, frame))
            if decision is None or decision is True:
                return {}
            if decision is False:
                return {"block": True, "reason": "blocked by %s" % self.ext.name}
            if not isinstance(decision, ToolCallDecision):
                raise TypeError("tool_call interceptor must return a ToolCallDecision, a bool or None")
            if decision.block:
                return {"block": True, "reason": decision.reason}
            out: Dict[str, Any] = {"reason": decision.reason} if decision.reason else {}
            if decision.modified_args is not None:
                out["modified_args"] = decision.modified_args
            return out
        if event == "turn_start":
            step = frame.get("step")
            decision = settle(positional_call(handler, step if isinstance(step, int) else 0, frame))
            if decision is None:
                return {}
            if not isinstance(decision, TurnStartDecision):
                raise TypeError("turn_start interceptor must return a TurnStartDecision or None")
            return {"block": True, "reason": decision.reason} if decision.block else {}
        if event == "assistant_message":
            text = frame.get("text")
            decision = settle(positional_call(handler, text if isinstance(text, str) else "", frame))
            if isinstance(decision, str):
                decision = AssistantMessageDecision(replace_text=decision)
            if decision is None:
                return {}
            if not isinstance(decision, AssistantMessageDecision):
                raise TypeError("assistant_message interceptor must return an AssistantMessageDecision, a str or None")
            if decision.block:
                return {"block": True, "reason": decision.reason}
            return {} if decision.replace_text is None else {"replace_text": decision.replace_text}
        if event == "tool_result":
            content = settle(positional_call(handler, frame))
            if content is None:
                return {}
            if isinstance(content, (str, ToolResult)):
                content = coerce_tool_result(content).content
            if not isinstance(content, list):
                raise TypeError("tool_result interceptor must return a list of blocks, a ToolResult, a str or None")
            return {"content": content}
        return {}

    # -- events and panels -------------------------------------------------

    def _run_event(self, frame: Dict[str, Any]) -> None:
        with self.ext._lock:
            handlers: List[Callable[..., Any]] = list(self.ext._events.get(str(frame.get("event")), []))
        for handler in handlers:
            try:
                settle(positional_call(handler, frame))
            except Exception:
                self.log_exception("%s event handler" % frame.get("event"))

    def _run_panel(self, frame: Dict[str, Any]) -> None:
        ext = self.ext
        panel_id = str(frame.get("panel_id"))
        with ext._lock:
            panel = ext._panels.get(panel_id)
        if panel is None:
            ext.log("%s for unknown panel %r ignored" % (frame["type"], panel_id))
            return
        try:
            if frame["type"] == "panel_close":
                panel._host_close()
            elif panel.on_key is not None:
                text = frame.get("text")
                settle(positional_call(panel.on_key, str(frame.get("key", "")), text if isinstance(text, str) else ""))
        except Exception:
            self.log_exception("panel %s %s handler" % (panel_id, frame["type"]))

"""What handlers return, as small dataclasses with helper constructors:
ToolResult (text_result, error_result, image_result), Response for slash
commands (prompt, tool_prompt, insert, display, open_panel, noop, error), the
interceptor decisions, and HostInfo (hello_ack). Each knows the wire frame it
becomes; ``coerce_*`` turn the shortcuts handlers may return (a str, None, a
bool) into these types or raise TypeError naming what was wrong.
"""
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from .frames import CommandResponseFrame, ContentBlock, HelloAckFrame, ToolResultFrame


@dataclass
class ToolResult:
    content: List[ContentBlock] = field(default_factory=list)
    is_error: bool = False
    #: names of registered deferred tools to activate after this result
    activate_tools: List[str] = field(default_factory=list)
    #: set by the host on call_tool replies shortened to 256 KiB
    truncated: bool = False

    @property
    def text(self) -> str:
        """The text blocks joined with newlines."""
        return "\n".join(str(b.get("text", "")) for b in self.content if b.get("type") == "text")

    def to_frame(self, call_id: str) -> ToolResultFrame:
        frame: ToolResultFrame = {"type": "tool_result", "id": call_id, "content": list(self.content)}
        if self.is_error:
            frame["is_error"] = True
        if self.activate_tools:
            frame["activate_tools"] = list(self.activate_tools)
        return frame


def text_result(text: str) -> ToolResult:
    return ToolResult([{"type": "text", "text": text}])


def error_result(text: str) -> ToolResult:
    return ToolResult([{"type": "text", "text": text}], is_error=True)


def image_result(data_base64: str, mime_type: str = "image/png") -> ToolResult:
    return ToolResult([{"type": "image", "mime_type": mime_type, "data": data_base64}])


def coerce_tool_result(value: Any) -> ToolResult:
    if isinstance(value, ToolResult):
        return value
    if value is None:
        return ToolResult([])
    if isinstance(value, str):
        return text_result(value)
    raise TypeError("a tool handler must return a ToolResult, a str or None, not %s" % type(value).__name__)


@dataclass
class Response:
    """A slash command's answer (command_response)."""
    action: str = "noop"
    prompt: Optional[str] = None
    insert: Optional[str] = None
    display: Optional[str] = None
    open_panel: Optional[Dict[str, Any]] = None
    tool_name: Optional[str] = None
    tool_args: Optional[Dict[str, Any]] = None
    error: Optional[str] = None

    def to_frame(self, request_id: str) -> CommandResponseFrame:
        frame: Dict[str, Any] = {"type": "command_response", "id": request_id, "action": self.action}
        for key in ("prompt", "insert", "display", "open_panel", "tool_name", "tool_args", "error"):
            value = getattr(self, key)
            if value is not None:
                frame[key] = value
        return frame  # type: ignore[return-value]


def prompt(text: str) -> Response:
    """Submit ``text`` as a user message; the agent runs a turn."""
    return Response("prompt", prompt=text)


def tool_prompt(tool_name: str, tool_args: Dict[str, Any], text: str = "") -> Response:
    """Submit ``text``, run ``tool_name`` first and record its result (interactive mode)."""
    return Response("tool_prompt", prompt=text, tool_name=tool_name, tool_args=dict(tool_args))


def insert(text: str) -> Response:
    """Insert ``text`` into the editor at the cursor, without submitting."""
    return Response("insert", insert=text)


def display(text: str) -> Response:
    """Show ``text`` in the chat as a note (no model call, not in the transcript)."""
    return Response("display", display=text)


def noop() -> Response:
    return Response("noop")


def error(message: str) -> Response:
    """A red status line."""
    return Response("noop", error=message)


def open_panel(panel_id: str, title: str = "", lines: Optional[List[str]] = None, footer: str = "") -> Response:
    return Response("open_panel", open_panel={"id": panel_id, "title": title, "lines": list(lines or []), "footer": footer})


def coerce_response(value: Any) -> Response:
    if isinstance(value, Response):
        return value
    if value is None:
        return noop()
    if isinstance(value, str):
        return display(value)
    raise TypeError("a command handler must return a Response, a str or None, not %s" % type(value).__name__)


@dataclass
class ToolCallDecision:
    block: bool = False
    reason: str = ""
    #: the arguments the tool will see instead (a JSON object); ignored when blocking
    modified_args: Optional[Dict[str, Any]] = None


@dataclass
class TurnStartDecision:
    block: bool = False
    reason: str = ""


@dataclass
class AssistantMessageDecision:
    block: bool = False
    reason: str = ""
    #: the user-visible text instead (the transcript keeps the original)
    replace_text: Optional[str] = None


def block(reason: str) -> ToolCallDecision:
    """Refuse a tool call; the model sees ``reason`` as the tool error."""
    return ToolCallDecision(block=True, reason=reason)


def modify_args(args: Dict[str, Any]) -> ToolCallDecision:
    return ToolCallDecision(modified_args=dict(args))


@dataclass
class HostInfo:
    """What hello_ack said about the host."""
    protocol_version: int = 0
    zot_version: str = ""
    provider: str = ""
    model: str = ""
    #: the user's project directory (the extension itself runs in extension_dir)
    cwd: str = ""
    extension_dir: str = ""
    data_dir: str = ""
    capabilities: List[str] = field(default_factory=list)
    raw: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_frame(cls, frame: HelloAckFrame) -> "HostInfo":
        def text(key: str) -> str:
            value = frame.get(key)
            return value if isinstance(value, str) else ""
        version = frame.get("protocol_version")
        caps = frame.get("capabilities")
        return cls(
            protocol_version=version if isinstance(version, int) else 0,
            zot_version=text("zot_version"), provider=text("provider"), model=text("model"), cwd=text("cwd"),
            extension_dir=text("extension_dir"), data_dir=text("data_dir"),
            capabilities=[c for c in caps if isinstance(c, str)] if isinstance(caps, list) else [],
            raw=dict(frame),
        )

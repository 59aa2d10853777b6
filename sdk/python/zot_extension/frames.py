"""Every frame of the zot extension protocol (version 1), both directions, as
TypedDicts. Frames are plain dicts on the wire; these types describe them for
type checkers only (nothing is validated at runtime). Unknown fields may
appear in any host frame and must be tolerated; ids are strings.

Required keys live in a private base class, optional ones in the public
subclass declared ``total=False`` (Python 3.9 has no ``NotRequired``).
"""
from typing import Any, Dict, List, Literal, TypedDict, Union

JsonObject = Dict[str, Any]

# ---------------------------------------------------------------------------
# Blocks


class TextBlock(TypedDict):
    type: Literal["text"]
    text: str


class ImageBlock(TypedDict):
    type: Literal["image"]
    mime_type: str
    data: str  # base64


ContentBlock = Union[TextBlock, ImageBlock]


class PanelContent(TypedDict, total=False):
    id: str
    title: str
    lines: List[str]
    footer: str


# ---------------------------------------------------------------------------
# Extension -> host


class _Hello(TypedDict):
    type: Literal["hello"]
    name: str


class HelloFrame(_Hello, total=False):
    version: str
    capabilities: List[str]


class RegisterCommandFrame(TypedDict):
    type: Literal["register_command"]
    name: str
    description: str


class _RegisterTool(TypedDict):
    type: Literal["register_tool"]
    name: str
    description: str
    schema: JsonObject


class RegisterToolFrame(_RegisterTool, total=False):
    deferred: bool
    interactive: bool


class _Subscribe(TypedDict):
    type: Literal["subscribe"]


class SubscribeFrame(_Subscribe, total=False):
    events: List[str]
    intercept: List[str]
    on_timeout: Literal["allow", "deny"]  # zot addition


class ReadyFrame(TypedDict):
    type: Literal["ready"]


class _ToolResultOut(TypedDict):
    type: Literal["tool_result"]
    id: str
    content: List[ContentBlock]


class ToolResultFrame(_ToolResultOut, total=False):
    is_error: bool
    activate_tools: List[str]


class _CommandResponse(TypedDict):
    type: Literal["command_response"]
    id: str
    action: Literal["prompt", "tool_prompt", "insert", "display", "open_panel", "noop"]


class CommandResponseFrame(_CommandResponse, total=False):
    prompt: str
    insert: str
    display: str
    open_panel: PanelContent
    error: str
    tool_name: str
    tool_args: JsonObject


class _InterceptResponse(TypedDict):
    type: Literal["event_intercept_response"]
    id: str


class EventInterceptResponseFrame(_InterceptResponse, total=False):
    block: bool
    reason: str
    modified_args: JsonObject  # tool_call
    replace_text: str  # assistant_message
    system_prompt: str  # before_agent_start
    content: List[ContentBlock]  # tool_result (zot addition)


class _CallTool(TypedDict):
    type: Literal["call_tool"]
    id: str
    name: str
    args: JsonObject


class CallToolFrame(_CallTool, total=False):
    parent_id: str


class CallToolCancelFrame(TypedDict):
    type: Literal["call_tool_cancel"]
    id: str


class SubmitFrame(TypedDict):
    type: Literal["submit"]
    text: str


class NotifyFrame(TypedDict):
    type: Literal["notify"]
    level: Literal["info", "success", "warn", "error"]
    message: str


class ClearNotesFrame(TypedDict):
    type: Literal["clear_notes"]


class _PanelRender(TypedDict):
    type: Literal["panel_render"]
    panel_id: str


class PanelRenderFrame(_PanelRender, total=False):
    title: str
    lines: List[str]
    footer: str


class PanelCloseFrame(TypedDict):
    type: Literal["panel_close"]
    panel_id: str


class ShutdownAckFrame(TypedDict):
    type: Literal["shutdown_ack"]


ExtensionFrame = Union[
    HelloFrame, RegisterCommandFrame, RegisterToolFrame, SubscribeFrame, ReadyFrame,
    ToolResultFrame, CommandResponseFrame, EventInterceptResponseFrame, CallToolFrame,
    CallToolCancelFrame, SubmitFrame, NotifyFrame, ClearNotesFrame, PanelRenderFrame,
    PanelCloseFrame, ShutdownAckFrame,
]

# ---------------------------------------------------------------------------
# Host -> extension


class _HelloAck(TypedDict):
    type: Literal["hello_ack"]
    protocol_version: int


class HelloAckFrame(_HelloAck, total=False):
    zot_version: str
    provider: str
    model: str
    cwd: str
    extension_dir: str
    data_dir: str
    capabilities: List[str]


class _CommandInvoked(TypedDict):
    type: Literal["command_invoked"]
    id: str
    name: str


class CommandInvokedFrame(_CommandInvoked, total=False):
    args: str


class _ToolCall(TypedDict):
    type: Literal["tool_call"]
    id: str
    name: str


class ToolCallFrame(_ToolCall, total=False):
    args: JsonObject


class ToolCancelFrame(TypedDict):
    type: Literal["tool_cancel"]
    id: str


class _Event(TypedDict):
    type: Literal["event"]
    event: str


class EventFrame(_Event, total=False):
    """A lifecycle notification; the fields present depend on ``event``."""
    session_id: str
    cwd: str
    sequence: int
    step: int
    stop: str
    error: str
    reason: str
    text: str
    queued: bool
    image_count: int
    tool_id: str
    tool_name: str
    tool_args: JsonObject
    tool_args_raw: str
    tool_preview: str
    status: str
    executed: bool
    result: JsonObject
    decision: str
    source: str
    stage: str
    compaction_id: str
    message_count: int
    token_estimate: int
    agent_id: str
    agent_run_id: str
    name: str
    origin_extension: str


class _EventIntercept(TypedDict):
    type: Literal["event_intercept"]
    id: str
    event: str


class EventInterceptFrame(_EventIntercept, total=False):
    """An interception request; fields depend on ``event`` (see EventFrame)."""
    step: int
    text: str
    tool_id: str
    tool_name: str
    tool_args: JsonObject
    status: str
    executed: bool
    result: JsonObject
    session_id: str
    agent_run_id: str
    cwd: str
    provider: str
    model: str
    system_prompt: str
    origin_extension: str


class _CallToolResult(TypedDict):
    type: Literal["tool_result"]
    id: str
    content: List[ContentBlock]


class CallToolResultFrame(_CallToolResult, total=False):
    name: str
    is_error: bool
    truncated: bool


class _PanelKey(TypedDict):
    type: Literal["panel_key"]
    panel_id: str
    key: str


class PanelKeyFrame(_PanelKey, total=False):
    text: str


class ShutdownFrame(TypedDict):
    type: Literal["shutdown"]


HostFrame = Union[
    HelloAckFrame, CommandInvokedFrame, ToolCallFrame, ToolCancelFrame, EventFrame,
    EventInterceptFrame, CallToolResultFrame, PanelKeyFrame, PanelCloseFrame, ShutdownFrame,
]

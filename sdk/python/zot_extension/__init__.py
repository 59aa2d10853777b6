"""zot_extension: write zot extensions in Python (standard library only).

    from zot_extension import Extension, text_result, prompt

    ext = Extension("weather", "1.0.0")

    @ext.tool("weather", "Current weather for a city.",
              {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
    def weather(args):
        return text_result(args["city"] + ": sunny")

    ext.run()

The SDK's major version is the protocol_version it speaks (1). See README.md
for the concurrency model, the API and how an installed extension finds it.
"""
from .context import Answer, Cancelled, ToolContext
from .extension import CAPABILITIES, PROTOCOL_VERSION, CallToolError, Extension
from .panels import Panel
from .results import (AssistantMessageDecision, HostInfo, Response, ToolCallDecision, ToolResult,
                      TurnStartDecision, block, display, error, error_result, image_result, insert,
                      modify_args, noop, open_panel, prompt, text_result, tool_prompt)
from .transport import MAX_FRAME_BYTES

__version__ = "1.0.0"

__all__ = [
    "Answer", "AssistantMessageDecision", "CAPABILITIES", "CallToolError", "Cancelled", "Extension",
    "HostInfo", "MAX_FRAME_BYTES", "PROTOCOL_VERSION", "Panel", "Response", "ToolCallDecision",
    "ToolContext", "ToolResult", "TurnStartDecision", "__version__", "block", "display", "error",
    "error_result", "image_result", "insert", "modify_args", "noop", "open_panel", "prompt",
    "text_result", "tool_prompt",
]

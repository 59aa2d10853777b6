"""Every frame of the zot extension protocol (version 1), both directions, as
TypedDicts. The frame types are generated from the host's own schemas
(src/ext/wire-schemas.ts, the source of schemas/ too) into frames_generated.py
and re-exported here; this module adds the SDK's short names for them. Frames
are plain dicts on the wire; these types describe them for type checkers only
(nothing is validated at runtime). Unknown fields may appear in any host frame
and must be tolerated.

Extension -> host frames keep their names (HelloFrame, ToolResultFrame, ...);
host -> extension frames are HostHelloAckFrame, HostToolCallFrame, ... in the
generated module, with the SDK's earlier names kept as aliases below.
"""
from typing import Any, Dict, Union

from .frames_generated import *  # noqa: F401,F403  (the generated frame types, see its __all__)
from .frames_generated import (CommandResponseFrameOpenPanel, ExtensionToHostFrame, HostCommandInvokedFrame,
                               HostEventFrame, HostEventInterceptFrame, HostHelloAckFrame, HostPanelKeyFrame,
                               HostShutdownFrame, HostToExtensionFrame, HostToolCallFrame, HostToolCancelFrame,
                               HostToolResultFrame, HostToolResultFrameContentImage,
                               HostToolResultFrameContentText)

JsonObject = Dict[str, Any]

# Content blocks and panel content.
TextBlock = HostToolResultFrameContentText
ImageBlock = HostToolResultFrameContentImage
ContentBlock = Union[TextBlock, ImageBlock]
PanelContent = CommandResponseFrameOpenPanel

# Host -> extension frames under the SDK's earlier names.
HelloAckFrame = HostHelloAckFrame
CommandInvokedFrame = HostCommandInvokedFrame
ToolCallFrame = HostToolCallFrame
ToolCancelFrame = HostToolCancelFrame
EventFrame = HostEventFrame
EventInterceptFrame = HostEventInterceptFrame
CallToolResultFrame = HostToolResultFrame
PanelKeyFrame = HostPanelKeyFrame
ShutdownFrame = HostShutdownFrame

# Any frame of one direction.
ExtensionFrame = ExtensionToHostFrame
HostFrame = HostToExtensionFrame

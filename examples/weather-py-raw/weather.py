#!/usr/bin/env python3
import json, sys

def emit(frame):
    sys.stdout.write(json.dumps(frame) + "\n")
    sys.stdout.flush()

emit({"type": "hello", "name": "weather-raw", "version": "1.0.0", "capabilities": ["commands", "tools"]})
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello_ack":
        emit({"type": "register_tool", "name": "weather", "description": "Current weather for a city.",
              "schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}})
        emit({"type": "register_command", "name": "weather", "description": "weather for a city"})
        emit({"type": "ready"})
    elif msg["type"] == "tool_call":
        emit({"type": "tool_result", "id": msg["id"],
              "content": [{"type": "text", "text": msg["args"].get("city", "?") + ": 16°C, fog"}]})
    elif msg["type"] == "command_invoked":
        emit({"type": "command_response", "id": msg["id"], "action": "prompt",
              "prompt": "What is the weather in " + msg.get("args", "Berlin") + "?"})
    elif msg["type"] == "shutdown":
        emit({"type": "shutdown_ack"})
        break

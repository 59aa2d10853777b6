"""The weather example on the Python SDK: a tool the model can call, a
/weather command whose response runs a prompt, and a guard that refuses
`rm -rf` in bash. Raw-protocol version of the same: ../weather-py-raw/.
"""
import os
import sys

try:  # vendored beside this file (what `zot ext new --lang python` does)
    import zot_extension  # noqa: F401
except ImportError:  # run from the zot repository: use its sdk/python
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "sdk", "python"))

from zot_extension import Extension, HostInfo, block, prompt, text_result  # noqa: E402

ext = Extension("weather", "1.0.0")


@ext.tool("weather", "Current weather for a city.",
          {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
def weather(args):
    return text_result(str(args.get("city", "?")) + ": 16°C, fog")


@ext.command("weather", "weather for a city")
def weather_command(args):
    return prompt("What is the weather in " + (args or "Berlin") + "?")


@ext.intercept_tool_call
def guard(tool, args):
    if tool == "bash" and "rm -rf" in str(args.get("command", "")):
        return block("refused by the weather example: rm -rf")
    return None


@ext.on_hello
def hello(host: HostInfo):
    ext.log("zot %s, model %s, project %s" % (host.zot_version, host.model, host.cwd))


ext.run()

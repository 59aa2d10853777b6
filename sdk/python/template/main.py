"""A zot extension on the Python SDK (zot_extension, vendored beside this file).

Try it: zot --ext .   then type /hello, or ask the model to use `shout`.
"""
from zot_extension import Extension, prompt, text_result

ext = Extension("my-extension", "0.1.0")


@ext.command("hello", "say hi")
def hello(args):
    return prompt("Greet me in one short sentence." + (" My name is " + args + "." if args else ""))


@ext.tool("shout", "Upper-case a text.",
          {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
def shout(args):
    return text_result(str(args.get("text", "")).upper())


if __name__ == "__main__":
    ext.run()

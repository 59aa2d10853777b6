"""Unit tests of the Python SDK's mechanisms against a scripted host over real
pipes (run by test/sdk/python/sdk.test.ts via `python3 -m unittest`, so
`npm test` covers them). The end-to-end tests against dist/zot are in
sdk.test.ts; these check what the binary makes hard to provoke on purpose:
ordering under a slow handler, cancellation races, oversized frames, stray
print(), EOF.
"""
import ast
import json
import os
import pathlib
import queue
import sys
import threading
import time
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "sdk" / "python"))

import zot_extension as zx  # noqa: E402

WAIT = 10.0


class FakeHost:
    """Runs an Extension on a thread, wired to pipes this object drives."""

    def __init__(self, ext: zx.Extension, capabilities=("call_tool", "tool_cancel")) -> None:
        to_ext_r, self._to_ext_w = os.pipe()
        self._from_ext_r, from_ext_w = os.pipe()
        ext._stdin = os.fdopen(to_ext_r, "rb")
        ext._stdout = os.fdopen(from_ext_w, "wb")
        self._in = os.fdopen(self._to_ext_w, "wb")
        self.frames: "queue.Queue[dict]" = queue.Queue()
        self.ext = ext
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        threading.Thread(target=self._read, daemon=True).start()
        hello = self.next()
        assert hello["type"] == "hello", hello
        self.send({"type": "hello_ack", "protocol_version": 1, "cwd": "/project", "capabilities": list(capabilities)})
        self.startup = self.until("ready")

    def _run(self) -> None:
        try:
            self.ext.run()
        finally:
            self.ext._stdout.close()

    def _read(self) -> None:
        with os.fdopen(self._from_ext_r, "rb") as stream:
            for line in stream:
                self.frames.put(json.loads(line))

    def send(self, frame: dict) -> None:
        self.send_raw(json.dumps(frame).encode() + b"\n")

    def send_raw(self, data: bytes) -> None:
        self._in.write(data)
        self._in.flush()

    def close(self) -> None:
        self._in.close()

    def next(self) -> dict:
        return self.frames.get(timeout=WAIT)

    def until(self, frame_type: str) -> list:
        seen = []
        while True:
            frame = self.next()
            seen.append(frame)
            if frame["type"] == frame_type:
                return seen

    def reply(self, request_id: str) -> dict:
        while True:
            frame = self.next()
            if frame.get("id") == request_id:
                return frame


class HandshakeTest(unittest.TestCase):
    def test_registrations_from_on_hello_and_one_subscribe_before_ready(self) -> None:
        ext = zx.Extension("unit", "1.0.0", on_timeout="deny")
        ext.command("a", "first", lambda args: None)
        ext.on_event("turn_end", lambda frame: None)
        ext.intercept_tool_call(lambda tool, args: None)
        ext.on_hello(lambda host: ext.command("cwd", "the cwd", lambda args: zx.display(host.cwd)))
        host = FakeHost(ext)
        types = [f["type"] for f in host.startup]
        self.assertEqual(types, ["register_command", "register_command", "subscribe", "ready"])
        self.assertEqual(host.startup[2], {"type": "subscribe", "events": ["turn_end"], "intercept": ["tool_call"], "on_timeout": "deny"})
        host.send({"type": "command_invoked", "id": "c1", "name": "cwd", "args": ""})
        self.assertEqual(host.reply("c1")["display"], "/project")
        host.send({"type": "shutdown"})
        self.assertEqual(host.next()["type"], "shutdown_ack")
        host.thread.join(WAIT)
        self.assertFalse(host.thread.is_alive())


class ConcurrencyTest(unittest.TestCase):
    def test_a_slow_tool_blocks_nothing_and_cancellation_reaches_it(self) -> None:
        ext = zx.Extension("unit")
        started = threading.Event()
        seen_cancel = threading.Event()

        def slow(args, ctx):
            started.set()
            if ctx.wait_cancelled(WAIT):
                seen_cancel.set()
            return "late"

        ext.tool("slow", "", None, slow)
        ext.tool("fast", "", None, lambda args: "fast:" + args["x"])
        host = FakeHost(ext)
        host.send({"type": "tool_call", "id": "t1", "name": "slow", "args": {}})
        self.assertTrue(started.wait(WAIT))
        host.send({"type": "tool_call", "id": "t2", "name": "fast", "args": {"x": "1"}})
        self.assertEqual(host.reply("t2")["content"], [{"type": "text", "text": "fast:1"}])
        host.send({"type": "tool_cancel", "id": "t1"})
        host.send({"type": "tool_cancel", "id": "unknown"})
        self.assertTrue(seen_cancel.wait(WAIT))
        # The cancelled call gets no reply: the next frame is the one after it.
        host.send({"type": "tool_call", "id": "t3", "name": "fast", "args": {"x": "3"}})
        self.assertEqual(host.next()["id"], "t3")
        host.close()
        host.thread.join(WAIT)

    def test_panel_keys_reach_the_handler_in_order_even_when_it_is_slow(self) -> None:
        ext = zx.Extension("unit")
        keys = []
        done = threading.Event()

        def on_key(key, text):
            time.sleep(0.001 if len(keys) % 7 else 0.02)
            keys.append(text if key == "rune" else key)
            if len(keys) == 200:
                done.set()

        ext.panel("p", on_key=on_key)
        host = FakeHost(ext)
        typed = [chr(97 + i % 26) for i in range(199)]
        host.send_raw(b"".join(json.dumps({"type": "panel_key", "panel_id": "p", "key": "rune", "text": c}).encode() + b"\n" for c in typed))
        host.send({"type": "panel_key", "panel_id": "p", "key": "enter"})
        self.assertTrue(done.wait(WAIT))
        self.assertEqual(keys, typed + ["enter"])
        host.close()

    def test_async_handlers(self) -> None:
        import asyncio
        ext = zx.Extension("unit")

        async def tool(args):
            await asyncio.sleep(0)
            return "async ok"

        ext.tool("a", "", None, tool)
        host = FakeHost(ext)
        host.send({"type": "tool_call", "id": "t", "name": "a", "args": {}})
        self.assertEqual(host.reply("t")["content"][0]["text"], "async ok")
        host.close()


class ErrorsTest(unittest.TestCase):
    def test_throwing_handlers_become_error_replies_and_the_extension_lives(self) -> None:
        ext = zx.Extension("unit")

        def boom(args):
            raise ValueError("kaput")

        ext.tool("boom", "", None, boom)
        ext.command("boom", "", boom)
        ext.intercept_tool_call(lambda tool, args: 1 / 0)
        ext.tool("bad", "", None, lambda args: {"not": "a result"})
        host = FakeHost(ext)
        host.send({"type": "tool_call", "id": "t", "name": "boom", "args": {}})
        result = host.reply("t")
        self.assertTrue(result["is_error"])
        self.assertIn("kaput", result["content"][0]["text"])
        host.send({"type": "command_invoked", "id": "c", "name": "boom", "args": "x"})
        self.assertIn("kaput", host.reply("c")["error"])
        host.send({"type": "event_intercept", "id": "i", "event": "tool_call", "tool_name": "bash", "tool_args": {}})
        self.assertEqual(host.reply("i"), {"type": "event_intercept_response", "id": "i"})
        host.send({"type": "tool_call", "id": "b", "name": "bad", "args": {}})
        self.assertTrue(host.reply("b")["is_error"])
        host.send({"type": "tool_call", "id": "u", "name": "nope", "args": {}})
        self.assertTrue(host.reply("u")["is_error"])
        host.close()

    def test_a_failing_interceptor_of_an_on_timeout_deny_guard_blocks(self) -> None:
        # As the TypeScript SDK: a fail-closed guard that cannot judge refuses; one that fails open allows (above).
        ext = zx.Extension("guard", on_timeout="deny")
        ext.intercept_tool_call(lambda tool, args: 1 / 0)
        host = FakeHost(ext)
        host.send({"type": "event_intercept", "id": "i", "event": "tool_call", "tool_name": "bash", "tool_args": {}})
        reply = host.reply("i")
        self.assertTrue(reply["block"])
        self.assertEqual(reply["reason"], "guard: interceptor failed: division by zero")
        host.close()

    def test_malformed_and_huge_lines_and_oversized_results(self) -> None:
        ext = zx.Extension("unit")
        ext.tool("echo_len", "", None, lambda args: str(len(args["blob"])))
        ext.tool("huge", "", None, lambda args: "x" * (zx.MAX_FRAME_BYTES + 10))
        host = FakeHost(ext)
        host.send_raw(b"{not json\n" + b"[" * 100000 + b"\n" + b"\xff\xfe\n")
        blob = "y" * (12 * 1024 * 1024)
        host.send({"type": "tool_call", "id": "big", "name": "echo_len", "args": {"blob": blob}})
        self.assertEqual(host.reply("big")["content"][0]["text"], str(len(blob)))
        host.send({"type": "tool_call", "id": "h", "name": "huge", "args": {}})
        reply = host.reply("h")
        self.assertTrue(reply["is_error"])
        self.assertIn("could not be sent", reply["content"][0]["text"])
        host.close()

    def test_print_goes_to_stderr_not_the_protocol(self) -> None:
        ext = zx.Extension("unit")

        def noisy(args):
            print("stray output")
            return "ok"

        ext.tool("noisy", "", None, noisy)
        host = FakeHost(ext)
        host.send({"type": "tool_call", "id": "n", "name": "noisy", "args": {}})
        self.assertEqual(host.reply("n")["content"][0]["text"], "ok")
        host.close()


class CallToolTest(unittest.TestCase):
    def test_call_tool_with_parent_and_refusal_on_older_hosts(self) -> None:
        ext = zx.Extension("unit")
        ext.tool("outer", "", None, lambda args, ctx: ctx.call_tool("read", {"path": "x"}).text)
        host = FakeHost(ext)
        host.send({"type": "tool_call", "id": "o", "name": "outer", "args": {}})
        call = host.next()
        self.assertEqual((call["type"], call["name"], call["parent_id"]), ("call_tool", "read", "o"))
        host.send({"type": "tool_result", "id": call["id"], "name": "read", "content": [{"type": "text", "text": "body"}]})
        self.assertEqual(host.reply("o")["content"][0]["text"], "body")
        host.close()

        old = zx.Extension("unit")
        old.tool("outer", "", None, lambda args: old.call_tool("read", {}))
        host = FakeHost(old, capabilities=())
        host.send({"type": "tool_call", "id": "o", "name": "outer", "args": {}})
        reply = host.reply("o")
        self.assertTrue(reply["is_error"])
        self.assertIn("does not advertise call_tool", reply["content"][0]["text"])
        host.close()

    def test_eof_cancels_waiting_calls_and_returns(self) -> None:
        ext = zx.Extension("unit")
        cancelled = threading.Event()
        saved = []
        ext.on_shutdown(lambda: saved.append(True))

        def wait(args, ctx):
            answer: "zx.Answer[str]" = zx.Answer()
            try:
                return answer.wait(ctx)
            except zx.Cancelled:
                cancelled.set()
                raise

        ext.interactive_tool("ask", "", None, wait)
        host = FakeHost(ext)
        host.send({"type": "tool_call", "id": "a", "name": "ask", "args": {}})
        time.sleep(0.05)
        host.close()
        host.thread.join(WAIT)
        self.assertFalse(host.thread.is_alive())
        self.assertTrue(cancelled.wait(WAIT))
        self.assertEqual(saved, [True])


class PackagingTest(unittest.TestCase):
    def test_python_3_9_grammar(self) -> None:
        for path in sorted((ROOT / "sdk" / "python").rglob("*.py")):
            ast.parse(path.read_text(encoding="utf-8"), filename=str(path), feature_version=(3, 9))

    def test_version_is_the_protocol_major(self) -> None:
        text = (ROOT / "sdk" / "python" / "pyproject.toml").read_text(encoding="utf-8")
        self.assertIn('version = "%s"' % zx.__version__, text)
        self.assertEqual(int(zx.__version__.split(".")[0]), zx.PROTOCOL_VERSION)


if __name__ == "__main__":
    unittest.main()

"""The wire: one JSON object per line both ways.

- FrameWriter serializes every write under one lock: a frame is encoded
  first, then written and flushed whole, so frames from concurrent handler
  threads never interleave. A frame whose line would pass the host's 4 MiB
  limit (which disconnects the extension) is not written: ``send`` returns
  False and callers substitute a small error reply. After a broken pipe the
  writer is closed and further sends return False.
- read_frames yields decoded host frames from a binary stream, any line
  length (the host sends requests up to 16 MiB); a line that is not a JSON
  object (malformed, too deep for the parser, bad UTF-8) is logged and
  skipped.
- Lane runs callables one after another on its own thread, in the order
  they were queued (panel keys, events).
"""
import json
import queue
import threading
from typing import IO, Any, Callable, Dict, Iterator, Optional

#: the host's limit for one line from an extension, in bytes (LF excluded)
MAX_FRAME_BYTES = 4 * 1024 * 1024


def encode_frame(frame: Dict[str, Any]) -> bytes:
    """The frame as one line (no LF). Raises TypeError/ValueError when it is not JSON."""
    try:
        return json.dumps(frame, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: escape them instead
        return json.dumps(frame, ensure_ascii=True, separators=(",", ":")).encode("ascii")


class FrameWriter:
    def __init__(self, stream: IO[bytes], log: Callable[[str], None]) -> None:
        self._stream = stream
        self._log = log
        self._lock = threading.Lock()
        self.closed = False

    def send(self, frame: Dict[str, Any]) -> bool:
        try:
            line = encode_frame(frame)
        except (TypeError, ValueError, RecursionError) as exc:
            self._log("frame %s not sent: not JSON (%s)" % (frame.get("type"), exc))
            return False
        if len(line) > MAX_FRAME_BYTES:
            self._log("frame %s not sent: %d bytes is past the host's %d byte line limit"
                      % (frame.get("type"), len(line), MAX_FRAME_BYTES))
            return False
        with self._lock:
            if self.closed:
                return False
            try:
                self._stream.write(line + b"\n")
                self._stream.flush()
            except (BrokenPipeError, OSError, ValueError) as exc:
                self.closed = True
                self._log("host pipe closed: %s" % exc)
                return False
        return True


def read_frames(stream: IO[bytes], log: Callable[[str], None]) -> Iterator[Dict[str, Any]]:
    while True:
        try:
            line = stream.readline()
        except (OSError, ValueError) as exc:
            log("reading from the host failed: %s" % exc)
            return
        if not line:
            return
        if not line.strip():
            continue
        try:
            frame = json.loads(line)
        except (ValueError, RecursionError) as exc:
            log("malformed frame from the host skipped (%d bytes): %s" % (len(line), str(exc)[:200]))
            continue
        if not isinstance(frame, dict) or not isinstance(frame.get("type"), str):
            log("frame without a type skipped")
            continue
        yield frame


class Lane:
    """A single thread running queued callables strictly in order."""

    def __init__(self, name: str, log: Callable[[str], None]) -> None:
        self._name = name
        self._log = log
        self._queue: "queue.Queue[Optional[Callable[[], None]]]" = queue.Queue()
        self._thread: Optional[threading.Thread] = None
        self._lock = threading.Lock()

    def put(self, job: Callable[[], None]) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="zot-" + self._name, daemon=True)
                self._thread.start()
        self._queue.put(job)

    def stop(self, timeout: float) -> None:
        """Lets queued jobs finish for up to ``timeout`` seconds."""
        with self._lock:
            thread = self._thread
        if thread is None:
            return
        self._queue.put(None)
        thread.join(timeout)

    def _loop(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            try:
                job()
            except Exception as exc:  # jobs log their own errors; this is the last guard
                self._log("%s lane: %r" % (self._name, exc))

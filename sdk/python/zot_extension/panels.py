"""Extension-owned panels (interactive mode).

A Panel is created with ``ext.panel(id, on_key=..., on_close=...)``. A slash
command opens it by returning ``panel.open(...)`` (an open_panel response);
an interactive tool opens it by calling ``panel.render(...)`` while its call
is pending (zot opens a panel for an unknown id from an extension with an
interactive call waiting). ``render`` pushes a redraw (omitted parts keep
their last value); ``close`` closes it from the extension side.

Keys and host closes arrive on the SDK's panel lane: one thread, strictly in
the order zot sent them, so fast typing never reorders letters. After the
host closed the panel (Esc / Ctrl+C) ``render`` sends nothing until the panel
is opened again, as the spec asks.
"""
import threading
from typing import TYPE_CHECKING, Callable, List, Optional

from .results import Response, open_panel

if TYPE_CHECKING:
    from .extension import Extension

KeyHandler = Callable[[str, str], None]  # (key, text); text is "" unless key == "rune"
CloseHandler = Callable[[], None]


class Panel:
    def __init__(self, ext: "Extension", panel_id: str, on_key: Optional[KeyHandler], on_close: Optional[CloseHandler]) -> None:
        self.id = panel_id
        self.on_key = on_key
        self.on_close = on_close
        self.title = ""
        self.lines: List[str] = []
        self.footer = ""
        self._ext = ext
        self._lock = threading.Lock()
        self._host_closed = False

    @property
    def closed_by_host(self) -> bool:
        return self._host_closed

    def _update(self, title: Optional[str], lines: Optional[List[str]], footer: Optional[str]) -> None:
        if title is not None:
            self.title = title
        if lines is not None:
            self.lines = [str(line) for line in lines]
        if footer is not None:
            self.footer = footer

    def open(self, title: Optional[str] = None, lines: Optional[List[str]] = None, footer: Optional[str] = None) -> Response:
        """The command response that opens this panel."""
        with self._lock:
            self._update(title, lines, footer)
            self._host_closed = False
            return open_panel(self.id, self.title, self.lines, self.footer)

    def render(self, title: Optional[str] = None, lines: Optional[List[str]] = None, footer: Optional[str] = None) -> bool:
        """Pushes a redraw; False when not sent (closed by the host, or the pipe is gone)."""
        with self._lock:
            self._update(title, lines, footer)
            if self._host_closed:
                return False
            frame = {"type": "panel_render", "panel_id": self.id, "title": self.title, "lines": list(self.lines), "footer": self.footer}
        return self._ext.send(frame)

    def close(self) -> None:
        """Closes the panel from the extension side (on_close is not called)."""
        with self._lock:
            self._host_closed = True
        self._ext.send({"type": "panel_close", "panel_id": self.id})

    def dispose(self) -> None:
        """Forgets the panel (later keys for its id are ignored)."""
        self._ext._forget_panel(self.id)

    def _host_close(self) -> None:
        with self._lock:
            self._host_closed = True
        if self.on_close is not None:
            self.on_close()

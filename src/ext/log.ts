/**
 * Per-extension log file ($ZOT_HOME/logs/ext-<name>.log, append mode). The
 * extension's stderr is attached to it directly; the host adds its own
 * `[zot] …` diagnostic lines (start markers, dropped frames, shadowed
 * registrations, disconnect reasons). Logging never throws.
 */
import { appendFileSync, closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";

export class ExtensionLog {
  constructor(readonly path: string) {}

  /** Opens the file for a child's stderr; the caller closes the fd after spawn. */
  openForChild(): number | undefined {
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      return openSync(this.path, "a", 0o644);
    } catch {
      return undefined;
    }
  }

  startMarker(name: string, version: string | undefined): void {
    this.append(`\n[zot] starting ${name}/${version ?? "-"} at ${new Date().toISOString()}\n`);
  }

  note(message: string): void {
    this.append(`[zot] ${message}\n`);
  }

  private append(text: string): void {
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      appendFileSync(this.path, text, { mode: 0o644 });
    } catch {
      // A log that cannot be written must not take the extension down.
    }
  }
}

export function closeFd(fd: number | undefined): void {
  if (fd === undefined) return;
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

/**
 * ZOT_TUI_STATS=<file>: what the renderer did, for scripts/bench/tui.ts.
 * `instrumentRenderer` wraps the renderer's output and live source: a frame
 * is timed from the source's renderLive call to the end of the write that
 * follows it (so the figure covers the layout, the diff and the write), and
 * a frame that wrote nothing is not counted. At exit `write()` stores one
 * JSON object (mode 0600): `{"frames","bytes","screenClears","renderMs","frameMs"}`
 * (frameMs: the last 10,000 frames, oldest first). Without the variable
 * nothing is wrapped and nothing is written.
 */
import { writeFileSync } from "node:fs";
import type { LiveSource, LiveView, TerminalOutput } from "../../tui/index.ts";

const MAX_FRAMES_KEPT = 10_000;

export interface TuiStatsRecorder {
  readonly output: TerminalOutput;
  readonly source: LiveSource;
  /** Writes the file (errors are ignored: a benchmark aid must not fail an exit). */
  write(renderer: { readonly stats: { frames: number; bytes: number; screenClears: number } }): void;
}

export function instrumentRenderer(output: TerminalOutput, source: LiveSource, env: NodeJS.ProcessEnv = process.env): TuiStatsRecorder | undefined {
  const file = env.ZOT_TUI_STATS;
  if (file === undefined || file === "") return undefined;
  const frameMs: number[] = [];
  let renderMs = 0;
  let frameStart: number | undefined;
  return {
    output: {
      get size() {
        return output.size;
      },
      reflow: output.reflow,
      write(data: string): void {
        output.write(data);
        if (frameStart === undefined) return;
        const spent = performance.now() - frameStart;
        frameStart = undefined;
        renderMs += spent;
        frameMs.push(spent);
        if (frameMs.length > MAX_FRAMES_KEPT) frameMs.shift();
      },
    },
    source: {
      renderLive(width: number, height: number): LiveView {
        frameStart = performance.now();
        return source.renderLive(width, height);
      },
    },
    write(renderer): void {
      const { frames, bytes, screenClears } = renderer.stats;
      try {
        writeFileSync(file, `${JSON.stringify({ frames, bytes, screenClears, renderMs, frameMs })}\n`, { mode: 0o600 });
      } catch {
        // best effort
      }
    },
  };
}

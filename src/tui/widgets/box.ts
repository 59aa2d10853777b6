/**
 * A framed block (tool calls, panels): a top border carrying the title on
 * the left and titleRight on the right, the body rows between "│ " and " │",
 * a bottom border. Every row is exactly `width` columns (width ≥ 1; below 5
 * columns the frame is dropped and the rows are cut). Body rows wider than
 * the inside are cut with an ellipsis (the caller wraps first when it wants
 * wrapping); body text is sanitized. The tone colours the frame: running
 * accent, success green, error red, warning yellow, normal dim.
 */
import { displayText, fitWidth, padToWidth, visibleWidth } from "../text.ts";
import type { Theme } from "../theme.ts";

export type BoxTone = "normal" | "running" | "success" | "error" | "warning";

export interface BoxOptions {
  readonly theme: Theme;
  readonly title: string;
  readonly titleRight?: string;
  readonly body: readonly string[];
  readonly width: number;
  readonly tone?: BoxTone;
}

function toneOf(theme: Theme, tone: BoxTone): (text: string) => string {
  switch (tone) {
    case "running":
      return theme.accent;
    case "success":
      return theme.success;
    case "error":
      return theme.error;
    case "warning":
      return theme.warning;
    case "normal":
      return theme.dim;
  }
}

const oneLine = (text: string): string => displayText(text).replace(/\n/g, " ");

export function box(options: BoxOptions): string[] {
  const width = Math.max(1, Math.floor(options.width));
  const theme = options.theme;
  const frame = toneOf(theme, options.tone ?? "normal");
  const title = oneLine(options.title);
  const right = oneLine(options.titleRight ?? "");
  const body = options.body.flatMap((row) => displayText(row).split("\n"));
  if (width < 5) return [fitWidth(title, width), ...body.map((row) => fitWidth(row, width))];
  const inner = width - 4;
  // Top: "╭─ title ─── right ─╮"
  const room = width - 4; // "╭─" … "─╮" minus the spaces around the title
  const rightText = right === "" ? "" : fitWidth(right, Math.max(0, Math.floor(room / 3)));
  const rightWidth = rightText === "" ? 0 : visibleWidth(rightText) + 2;
  const titleText = fitWidth(title, Math.max(1, room - rightWidth - 2));
  const used = 2 + visibleWidth(titleText) + 2 + rightWidth + 2;
  const fill = Math.max(0, width - used);
  const top =
    frame("╭─ ") + theme.bold(titleText) + frame(` ${"─".repeat(fill)}`) + (rightText === "" ? "" : ` ${rightText} `) + frame("─╮");
  const rows = [fitWidth(top, width)];
  for (const row of body) rows.push(frame("│ ") + padToWidth(row, inner) + frame(" │"));
  rows.push(frame(`╰${"─".repeat(width - 2)}╯`));
  return rows;
}

/**
 * The small built-ins: `/help` (commands and keys in an overlay), `/compact`,
 * `/study` (the original zot's canned prompt: read the project, then sum it
 * up; STUDY_PROMPT is sent as a normal prompt), `/clear`, `/yolo`, `/exit` (`/quit`),
 * and the hidden `/settings` (as in the original: there is no settings
 * screen; it points to config.json and /model, /theme, /login). helpLines lists every command of the
 * catalog it is given, then the extensions' commands, then the keys.
 */
import { zotPaths } from "../../../common/home.ts";
import type { BuiltinCommand, CommandHost } from "../command-types.ts";

const KEY_HELP = [
  ["Enter", "send (Tab/Enter complete in a popup)"],
  ["Alt+Enter, Shift+Enter, \\ at the end", "new line"],
  ["←/→ Home/End Ctrl+A/E Alt+←/→", "move"],
  ["Ctrl+U / Ctrl+K / Ctrl+W", "delete to start / to end / word"],
  ["↑/↓", "prompt history (this project, across runs)"],
  ["/  @", "command popup / file picker (→ enters a directory)"],
  ["Esc", "close popup, notes or help; else stop the turn; else clear"],
  ["Ctrl+C", "stop the turn / clear; twice within 2 s: exit"],
  ["Ctrl+D", "exit (on an empty line)"],
  ["Ctrl+O", "full output of the tool calls (Esc closes)"],
  ["Ctrl+L", "redraw the screen"],
  ["pickers: type ↑/↓ PgUp/PgDn Enter Esc", "filter, move, choose, close"],
  ["viewers: ↑/↓ PgUp/PgDn Home/End Esc q", "scroll; Esc or q closes"],
] as const;

export function helpLines(host: CommandHost, catalog: readonly BuiltinCommand[]): string[] {
  const shown = catalog.filter((command) => command.hidden !== true);
  const extensionCommands = host.runtime.extensions?.manager.registry.commands() ?? [];
  // One column for every name, as wide as the longest (plus a gap), up to 28; a longer name just gets the gap.
  const column = Math.min(28, Math.max(...shown.map((command) => command.usage.length), ...extensionCommands.map((command) => command.name.length + 1)) + 2);
  const cell = (text: string): string => (text.length + 2 > column ? `${text}  ` : text.padEnd(column));
  const rows = shown.map((command) => `  ${cell(command.usage)}${command.description}`);
  if (extensionCommands.length > 0) {
    rows.push("extension commands:");
    for (const command of extensionCommands) rows.push(`  ${cell(`/${command.name}`)}${command.description} [${command.extension}]`);
  }
  rows.push("keys:");
  for (const [keys, what] of KEY_HELP) rows.push(`  ${keys.padEnd(38)} ${what}`);
  return ["commands:", ...rows];
}

async function compactCommand(host: CommandHost, signal: AbortSignal): Promise<void> {
  host.chat.info("compacting…");
  const result = await host.runtime.agent.compact({ signal });
  if (result.status === "completed") {
    host.chat.success(`compacted: ${result.messageCountBefore} → ${result.messageCountAfter} messages (~${result.tokenEstimateBefore} → ~${result.tokenEstimateAfter} tokens)`);
  } else if (result.status === "cancelled") host.chat.warn("compaction cancelled");
  else host.chat.error(`compaction ${result.status}: ${result.error?.message ?? "no summary"}`);
}

function yoloCommand(host: CommandHost): void {
  if (host.gate.yolo) {
    host.chat.info("yolo is already on: tool calls run without asking");
    return;
  }
  host.gate.enableYolo();
  host.chat.success("yolo on: tool calls run without asking for the rest of this session");
}

export const COMPACT_COMMAND: BuiltinCommand = {
  name: "compact",
  usage: "/compact",
  description: "summarise the older part of the conversation",
  immediate: false,
  run: (host, _args, signal) => compactCommand(host, signal),
};

/** What `/study` sends (the original zot's command; the wording is zot's own). */
export const STUDY_PROMPT =
  "Study this project before we work on it: list the files in the current working directory (recursively, skipping " +
  "dependency, build and VCS directories such as node_modules, dist and .git) and read every source, configuration and " +
  "documentation file you find. Do not change anything. Then give me a concise overview: what the project does, how it " +
  "is laid out, how to build and test it, and anything that looks unusual or worth knowing.";

export const STUDY_COMMAND: BuiltinCommand = {
  name: "study",
  usage: "/study",
  description: "have the model read the whole project, then sum it up",
  immediate: false,
  run: (host, _args, signal) => host.agentPrompt(STUDY_PROMPT, signal),
};

export const SETTINGS_COMMAND: BuiltinCommand = {
  name: "settings",
  usage: "/settings",
  description: "no settings screen (the original's hidden command)",
  immediate: true,
  hidden: true,
  run: (host) => host.chat.info(`/settings is disabled: settings live in ${zotPaths().configFile}; use /model, /theme and /login to change them here`),
};

export const CLEAR_COMMAND: BuiltinCommand = {
  name: "clear",
  usage: "/clear",
  description: "clear the conversation, the screen and its scrollback",
  immediate: false,
  run: (host) => host.clearConversation(),
};

export const YOLO_COMMAND: BuiltinCommand = {
  name: "yolo",
  usage: "/yolo",
  description: "stop asking before tool calls (with --no-yolo)",
  immediate: true,
  run: (host) => yoloCommand(host),
};

export const EXIT_COMMAND: BuiltinCommand = {
  name: "exit",
  usage: "/exit",
  description: "quit zot (also /quit, Ctrl+D, Ctrl+C twice)",
  immediate: true,
  aliases: ["quit"],
  run: (host) => host.exit(),
};

/**
 * System prompt assembly (reference notes §1.6). The result is
 *   base + "\n\n" + each non-blank append + project context file + footer
 * where base = --system-prompt when given and not "" (as the original, whose
 * flag cannot tell "" from absent), else trimmed $ZOT_HOME/SYSTEM.md when it
 * is non-empty, else DEFAULT_IDENTITY; the project context is AGENTS.md in
 * cwd, else CLAUDE.md (a zot addition), at most MAX_CONTEXT_FILE_CHARS of it
 * (every request carries it: a longer file is cut, with a note in the prompt
 * and a warning); the footer is always
 *   "\n\nCurrent date: YYYY-MM-DD\nCurrent working directory: <cwd>\n".
 * Missing files are skipped silently; unreadable ones are skipped and reported
 * through onWarning. Nothing here throws.
 */
import { join } from "node:path";
import { errorMessage, systemErrorCode } from "../common/errors.ts";
import { localDateText } from "../common/local-time.ts";
import { readRegularText } from "../common/regular-file.ts";

export const DEFAULT_IDENTITY =
  "You are an expert coding assistant working inside zot, a terminal coding agent. " +
  "You help the user understand, write and change code in their project with the tools you are given. " +
  "Your replies are rendered as Markdown in a terminal, so keep them concise and skip filler. " +
  "Act first, then summarise: do the work with your tools, then report briefly what you did and what is left. " +
  "Use `edit` for in-place changes to existing files and `write` for new files or complete rewrites; " +
  "never mutate files through shell redirection (`>`, `>>`, `tee`, `sed -i`) in `bash`. " +
  'If asked what "zot" means, answer exactly: zero-overhead-tool.';

/** Project instruction files looked up in cwd, most preferred first. */
export const CONTEXT_FILE_NAMES = ["AGENTS.md", "CLAUDE.md"] as const;
/** The most of a context file the prompt carries (64 Ki characters, ≈16k tokens). */
export const MAX_CONTEXT_FILE_CHARS = 64 * 1024;

export interface SystemPromptOptions {
  /** The user's working directory; "" renders as ".". */
  readonly cwd: string;
  /** Fixed at resolve time so the prompt stays cache friendly. */
  readonly date: Date;
  /** --system-prompt: replaces the base verbatim when given and not "". */
  readonly override?: string;
  /** Path of $ZOT_HOME/SYSTEM.md. */
  readonly systemFile?: string;
  /** --append-system-prompt values (repeatable), then e.g. the skills addendum. */
  readonly appends?: readonly string[];
  /** Include AGENTS.md / CLAUDE.md from cwd. */
  readonly contextFiles: boolean;
  /** Receives one line per unreadable file. */
  readonly onWarning?: (message: string) => void;
}

/** Local calendar date as YYYY-MM-DD (common/local-time.ts: no ICU time zone data on the startup path). */
export function formatPromptDate(date: Date): string {
  return localDateText(date);
}

export function systemPromptFooter(cwd: string, date: Date): string {
  return `\n\nCurrent date: ${formatPromptDate(date)}\nCurrent working directory: ${cwd === "" ? "." : cwd}\n`;
}

type FileRead = { readonly kind: "text"; readonly text: string } | { readonly kind: "absent" };

/** Synchronous: small files on the startup path, where the fs thread pool costs more than the read. */
function readOptionalFile(path: string, onWarning?: (message: string) => void): FileRead {
  try {
    return { kind: "text", text: readRegularText(path) };
  } catch (err) {
    const code = systemErrorCode(err);
    if (code !== "ENOENT" && code !== "ENOTDIR") onWarning?.(`cannot read ${path}: ${errorMessage(err)}`);
    return { kind: "absent" };
  }
}

function resolveBase(options: SystemPromptOptions): string {
  if (options.override !== undefined && options.override !== "") return options.override;
  if (options.systemFile !== undefined) {
    const file = readOptionalFile(options.systemFile, options.onWarning);
    if (file.kind === "text") {
      const trimmed = file.text.trim();
      if (trimmed !== "") return trimmed;
    }
  }
  return DEFAULT_IDENTITY;
}

/** The first non-blank context file in cwd, rendered with a header naming it. */
function projectContextSection(cwd: string, onWarning?: (message: string) => void): string | undefined {
  for (const name of CONTEXT_FILE_NAMES) {
    const file = readOptionalFile(join(cwd === "" ? "." : cwd, name), onWarning);
    if (file.kind !== "text") continue;
    let body = file.text.trim();
    if (body === "") continue;
    if (body.length > MAX_CONTEXT_FILE_CHARS) {
      const total = body.length;
      body = `${body.slice(0, MAX_CONTEXT_FILE_CHARS)}\n\n[${name} is cut here: the first ${MAX_CONTEXT_FILE_CHARS} of its ${total} characters]`;
      onWarning?.(`${name} is ${total} characters; the system prompt carries its first ${MAX_CONTEXT_FILE_CHARS}`);
    }
    return `# Project context (${name})\n\nInstructions from ${name} in the working directory:\n\n${body}`;
  }
  return undefined;
}

export async function buildSystemPrompt(options: SystemPromptOptions): Promise<string> {
  let prompt = resolveBase(options);
  for (const section of options.appends ?? []) {
    if (section.trim() !== "") prompt += `\n\n${section}`;
  }
  if (options.contextFiles) {
    const context = projectContextSection(options.cwd, options.onWarning);
    if (context !== undefined) prompt += `\n\n${context}`;
  }
  return prompt + systemPromptFooter(options.cwd, options.date);
}

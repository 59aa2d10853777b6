/**
 * SKILL.md parsing. A file may open with a frontmatter block: its first
 * non-blank line is `---` and the block ends at the next line starting with
 * `---` (the rest of that closing line is dropped). Anything else — no
 * opening fence, no closing fence — means the whole file is the body.
 * The frontmatter is a mini-YAML subset: top-level `key: value` lines, quoted
 * or plain scalars, `|`/`>` block scalars, inline `[a, b]` lists, block
 * `- item` lists and one level of nested mapping (used by `permissions`).
 * Recognised keys: name, description, allowed-tools / allowed_tools,
 * permissions. allowed-tools and permissions are parsed and kept, never
 * enforced. Every other top-level key lands in `others` (a list for `[a, b]`
 * or `- item` values, else the scalar), for other markdown-with-frontmatter
 * files (agent definitions, src/agents). Pure functions: nothing here touches the file system or throws.
 */

export interface SkillFrontmatter {
  /** Undefined when the frontmatter does not name the skill. */
  readonly name: string | undefined;
  /** Undefined when absent; multi-line descriptions keep their newlines. */
  readonly description: string | undefined;
  readonly allowedTools: readonly string[];
  /** Tool name → patterns, e.g. `bash: ["git *"]`. */
  readonly permissions: Readonly<Record<string, readonly string[]>>;
  /** Every other top-level key: a list for `[a, b]` / `- item` values, else the scalar. */
  readonly others: Readonly<Record<string, string | readonly string[]>>;
}

export interface SplitSkillFile {
  /** The raw frontmatter text between the fences; undefined when there is none (or it is malformed). */
  readonly frontmatter: string | undefined;
  readonly body: string;
}

export const EMPTY_FRONTMATTER: SkillFrontmatter = { name: undefined, description: undefined, allowedTools: [], permissions: {}, others: {} };

const FENCE = "---";

/** Index just past the end of the line starting at `from` (past its "\n"), or text.length. */
function nextLineStart(text: string, from: number): number {
  const newline = text.indexOf("\n", from);
  return newline === -1 ? text.length : newline + 1;
}

/** Splits a SKILL.md text into frontmatter and body (see the module contract). */
export function splitSkillFile(raw: string): SplitSkillFile {
  const text = raw.startsWith("\uFEFF") ? raw.slice(1) : raw;
  let lineStart = 0;
  while (lineStart < text.length) {
    const lineEnd = nextLineStart(text, lineStart);
    const line = text.slice(lineStart, lineEnd).trim();
    if (line !== "") {
      if (line !== FENCE) return { frontmatter: undefined, body: raw };
      const close = text.indexOf(`\n${FENCE}`, lineEnd - 1);
      if (close === -1) return { frontmatter: undefined, body: raw };
      const frontmatter = text.slice(lineEnd, close + 1);
      const body = text.slice(nextLineStart(text, close + 1));
      return { frontmatter, body };
    }
    lineStart = lineEnd;
  }
  return { frontmatter: undefined, body: raw };
}

/**
 * Whether `head` (a prefix of a file) is already known to hold the whole
 * frontmatter decision: either no frontmatter can follow, or the closing
 * fence has been seen. Used to read only the start of large files.
 */
export function frontmatterSettled(head: string): boolean {
  const text = head.startsWith("\uFEFF") ? head.slice(1) : head;
  const firstContent = text.search(/\S/);
  if (firstContent === -1) return false;
  const openEnd = text.indexOf("\n", firstContent);
  if (openEnd === -1) return false;
  if (text.slice(firstContent, openEnd).trim() !== FENCE) return true;
  const close = text.indexOf(`\n${FENCE}`, openEnd);
  return close !== -1;
}

function stripQuotes(value: string): string {
  const trimmed = value.trim();
  if (trimmed.length >= 2) {
    const first = trimmed[0];
    const last = trimmed[trimmed.length - 1];
    if ((first === '"' || first === "'") && first === last) return trimmed.slice(1, -1);
  }
  return trimmed;
}

/** Drops a trailing ` # comment` from an unquoted scalar. */
function stripComment(value: string): string {
  const trimmed = value.trim();
  if (trimmed.startsWith('"') || trimmed.startsWith("'")) return trimmed;
  const hash = trimmed.search(/\s#/);
  return hash === -1 ? trimmed : trimmed.slice(0, hash).trim();
}

/** Splits on commas that are not inside (), [] or quotes. */
function splitTopLevelCommas(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let current = "";
  for (const char of text) {
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === "(" || char === "[") depth++;
    else if ((char === ")" || char === "]") && depth > 0) depth--;
    else if (char === "," && depth === 0) {
      parts.push(current);
      current = "";
      continue;
    }
    current += char;
  }
  parts.push(current);
  return parts.map(stripQuotes).filter((part) => part !== "");
}

/** `[a, b]` → ["a", "b"]; `a, b` → ["a", "b"]; `a` → ["a"]; "" → []. */
function inlineList(value: string): string[] {
  const trimmed = stripComment(value);
  if (trimmed.startsWith("[") && trimmed.endsWith("]")) return splitTopLevelCommas(trimmed.slice(1, -1));
  return splitTopLevelCommas(trimmed);
}

interface Line {
  readonly indent: number;
  readonly text: string;
}

function toLines(frontmatter: string): Line[] {
  const lines: Line[] = [];
  for (const rawLine of frontmatter.split("\n")) {
    const line = rawLine.replace(/\r$/, "");
    const text = line.trim();
    const indent = line.length - line.trimStart().length;
    lines.push({ indent, text });
  }
  return lines;
}

function isSkippable(line: Line): boolean {
  return line.text === "" || line.text.startsWith("#");
}

/** The lines indented deeper than `indent` that follow `from` (blank lines included). */
function childLines(lines: readonly Line[], from: number, indent: number): Line[] {
  const children: Line[] = [];
  for (let at = from; at < lines.length; at++) {
    const line = lines[at];
    if (line === undefined) break;
    if (line.text !== "" && line.indent <= indent) break;
    children.push(line);
  }
  return children;
}

/** `- a` items among `children`. */
function blockList(children: readonly Line[]): string[] {
  return children
    .filter((line) => !isSkippable(line) && line.text.startsWith("-"))
    .map((line) => stripQuotes(stripComment(line.text.slice(1))))
    .filter((item) => item !== "");
}

/** `|` keeps newlines, `>` folds lines into spaces; trailing blank lines are dropped. */
function blockScalar(style: string, children: readonly Line[], rawLines: readonly string[]): string {
  const minIndent = Math.min(...children.filter((line) => line.text !== "").map((line) => line.indent));
  const texts = rawLines.map((line) => line.replace(/\r$/, "").slice(Number.isFinite(minIndent) ? minIndent : 0));
  while (texts.length > 0 && texts[texts.length - 1]?.trim() === "") texts.pop();
  if (style.startsWith("|")) return texts.join("\n");
  return texts
    .join("\n")
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.split("\n").map((part) => part.trim()).join(" "))
    .join("\n");
}

function keyValue(text: string): { key: string; value: string } | undefined {
  const match = /^([A-Za-z0-9_.-]+)\s*:(?:\s+(.*)|\s*)$/.exec(text);
  if (!match || match[1] === undefined) return undefined;
  return { key: match[1], value: match[2] ?? "" };
}

/** `tool: [patterns]`, `tool: pattern` or `tool:` followed by `- pattern` items. */
function permissionMap(children: readonly Line[]): Record<string, string[]> {
  const map: Record<string, string[]> = {};
  const entries = children.filter((line) => !isSkippable(line));
  const keyIndent = entries[0]?.indent ?? 0;
  for (let at = 0; at < entries.length; at++) {
    const line = entries[at];
    if (line === undefined || line.indent !== keyIndent) continue;
    const pair = keyValue(line.text);
    if (!pair) continue;
    const patterns = pair.value.trim() === "" ? blockList(childLines(entries, at + 1, keyIndent)) : inlineList(pair.value);
    map[pair.key] = [...(map[pair.key] ?? []), ...patterns];
  }
  return map;
}

/** Parses frontmatter text (without its fences) into the recognised fields. */
export function parseFrontmatter(frontmatter: string): SkillFrontmatter {
  const rawLines = frontmatter.split("\n");
  const lines = toLines(frontmatter);
  let name: string | undefined;
  let description: string | undefined;
  let allowedTools: string[] = [];
  let permissions: Record<string, string[]> = {};
  const others: Record<string, string | string[]> = {};
  for (let at = 0; at < lines.length; at++) {
    const line = lines[at];
    if (line === undefined || isSkippable(line) || line.indent > 0) continue;
    const pair = keyValue(line.text);
    if (!pair) continue;
    const children = childLines(lines, at + 1, 0);
    const value = pair.value.trim();
    const scalar = (): string => {
      if (/^[|>][+-]?$/.test(value)) return blockScalar(value, children, rawLines.slice(at + 1, at + 1 + children.length));
      if (value === "" && children.length > 0) return children.filter((child) => child.text !== "").map((child) => child.text).join(" ");
      return stripQuotes(stripComment(value));
    };
    switch (pair.key) {
      case "name":
        name = scalar().trim() || undefined;
        break;
      case "description":
        description = scalar().trim() || undefined;
        break;
      case "allowed-tools":
      case "allowed_tools":
        allowedTools = value === "" ? blockList(children) : inlineList(value);
        break;
      case "permissions":
        permissions = value === "" ? permissionMap(children) : {};
        break;
      default: {
        const isList = value.startsWith("[") || (value === "" && children.some((child) => child.text.startsWith("-")));
        others[pair.key] = isList ? (value === "" ? blockList(children) : inlineList(value)) : scalar();
        break;
      }
    }
    at += children.length;
  }
  return { name, description, allowedTools, permissions, others };
}

export interface ParsedSkillFile extends SkillFrontmatter {
  readonly body: string;
}

/** Splits and parses a whole SKILL.md text; the body is trimmed. */
export function parseSkillFile(raw: string): ParsedSkillFile {
  const split = splitSkillFile(raw);
  const fields = split.frontmatter === undefined ? EMPTY_FRONTMATTER : parseFrontmatter(split.frontmatter);
  return { ...fields, body: split.body.trim() };
}

/**
 * The `/sessions` picker (also what `zot --resume` opens on the chat
 * screen): this directory's sessions, newest first, one row each: when it
 * was last written (local time), the model, how many messages resuming it
 * restores (session/restored.ts: the count `resumed N message(s)` then
 * says), the cost so far, and its name or first prompt. The current session
 * is marked `(current)`; a session with no message is not listed.
 *
 * Keys (ListDialog, no filter): ↑/↓, PgUp/PgDn, Home/End move; Enter
 * resumes the selected session (session-switch.ts); `r` renames it (an
 * InputDialog on top; Enter stores a rename row, Esc backs out); `d`
 * deletes it after a ChoiceDialog (`y` delete, `n` / Esc keep); Esc closes.
 * The current session can be renamed, not deleted. A session another zot is
 * writing is refused (busy) for resume, rename and delete, with the error in
 * the chat (rename: under the input). Sessions are listed again after each
 * rename and delete.
 */
import { errorMessage } from "../../common/errors.ts";
import { zotPaths } from "../../common/home.ts";
import {
  cleanTitle,
  deleteSession,
  listSessions,
  localTime,
  renameSession,
  restoredMessageCount,
  sessionDirForCwd,
  sessionLabel,
  SessionWriter,
  type SessionSummary,
} from "../../session/index.ts";
import { ChoiceDialog, InputDialog, ListDialog, type SelectItem } from "../../tui/index.ts";
import type { CommandHost } from "./command-types.ts";
import { switchRefusal, switchSession } from "./session-switch.ts";

export const SESSIONS_HINT = "Enter resume · r rename · d delete · Esc close";

interface Row {
  readonly summary: SessionSummary;
  readonly messages: number;
  readonly current: boolean;
}

function cost(usd: number): string {
  return `$${usd.toFixed(4)}`;
}

async function sessionRows(host: CommandHost): Promise<Row[]> {
  const current = host.runtime.session.writer?.path;
  const listed = await listSessions(sessionDirForCwd(host.runtime.cwd, zotPaths().sessions));
  const rows: Row[] = [];
  for (const summary of listed) {
    const isCurrent = summary.path === current;
    const messages = isCurrent ? host.runtime.agent.messages.length : (restoredMessageCount(summary.path) ?? summary.messageCount);
    if (messages === 0) continue;
    rows.push({ summary, messages, current: isCurrent });
  }
  return rows;
}

function item(row: Row): SelectItem {
  const { summary } = row;
  const count = `${row.messages} msg${row.messages === 1 ? "" : "s"}`;
  const label = `${localTime(summary.mtime)}  ${summary.model || "?"}  ${count.padStart(8)}  ${cost(summary.cumulativeUsage.cost_usd).padStart(7)}`;
  return { value: summary.path, label, description: `${row.current ? "(current) " : ""}${sessionLabel(summary)}` };
}

async function resume(host: CommandHost, row: Row): Promise<void> {
  if (row.current) {
    host.chat.info("already in this session");
    return;
  }
  const refused = switchRefusal(host);
  if (refused !== undefined) {
    host.chat.error(refused);
    return;
  }
  let resumed;
  try {
    resumed = SessionWriter.resume(row.summary.path);
  } catch (err) {
    host.chat.error(`cannot resume: ${errorMessage(err)}`);
    return;
  }
  await switchSession(host, resumed, "resumed");
}

/** Opens the picker; resolves once it is open (or said there is nothing to pick). */
export async function openSessionsPicker(host: CommandHost, options: { readonly startup?: boolean } = {}): Promise<void> {
  let rows = await sessionRows(host);
  if (rows.length === 0) {
    host.chat.info(options.startup ? "no sessions to resume in this directory; this is a new one" : "no sessions in this directory yet");
    return;
  }
  const byPath = (path: string | undefined): Row | undefined => rows.find((row) => row.summary.path === path);
  const refresh = async (): Promise<void> => {
    rows = await sessionRows(host);
    if (rows.length === 0) {
      host.closeOverlay(dialog);
      host.chat.info("no sessions left in this directory");
      return;
    }
    dialog.setItems(rows.map(item));
    host.frame();
  };
  const rename = (row: Row): void => {
    const input: InputDialog = new InputDialog({
      theme: host.theme,
      title: "rename session",
      lines: [sessionLabel(row.summary)],
      initial: row.summary.title ?? "",
      placeholder: "a name for this session",
      hint: "Enter save · Esc back",
      onSubmit: (value) => {
        const title = cleanTitle(value);
        if (title === undefined) {
          input.setError("the name cannot be empty");
          return "handled";
        }
        try {
          const writer = host.runtime.session.writer;
          if (row.current && writer !== undefined) writer.appendRename(title);
          else renameSession(row.summary.path, title);
        } catch (err) {
          input.setError(errorMessage(err));
          return "handled";
        }
        host.chat.success(`renamed to "${title}"`);
        void refresh();
        return "close";
      },
    });
    host.openOverlay(input);
  };
  const remove = (row: Row): void => {
    if (row.current) {
      host.chat.warn("this is the current session; it cannot be deleted here");
      return;
    }
    host.openOverlay(
      new ChoiceDialog({
        theme: host.theme,
        title: "delete session",
        lines: [`Delete "${sessionLabel(row.summary)}" (${row.messages} message(s))? This cannot be undone.`],
        choices: [
          { key: "y", label: "delete", value: "delete" },
          { key: "n", label: "keep", value: "keep" },
        ],
        escape: "keep",
        onChoose: (value) => {
          if (value !== "delete") return;
          try {
            deleteSession(row.summary.path);
            host.chat.success(`deleted ${row.summary.path}`);
          } catch (err) {
            host.chat.error(`cannot delete: ${errorMessage(err)}`);
          }
          void refresh();
        },
      }),
    );
  };
  const dialog: ListDialog = new ListDialog({
    theme: host.theme,
    title: "sessions",
    items: rows.map(item),
    filter: false,
    hint: SESSIONS_HINT,
    onChoose: (selected) => {
      const row = byPath(selected?.value);
      if (row !== undefined) void resume(host, row);
      return "close";
    },
    keys: {
      r: (selected) => {
        const row = byPath(selected?.value);
        if (row !== undefined) rename(row);
        return "handled";
      },
      d: (selected) => {
        const row = byPath(selected?.value);
        if (row !== undefined) remove(row);
        return "handled";
      },
    },
  });
  host.openOverlay(dialog);
}

// A todo list on the TypeScript SDK (sdk/typescript): a /todos panel (keys handled in order, even
// typed fast), a tool the model can call to add todos, and state saved in the extension's data_dir.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Extension, textResult, type PanelKey } from "../../sdk/typescript/src/index.ts";

interface Todo { text: string; done: boolean }

const ext = new Extension("todo-ts", "1.0.0");
let file = "";
let todos: Todo[] = [];
let cursor = 0;
let draft: string | undefined; // text being typed after "a"

ext.onHello((host) => {
  file = join(host.dataDir || ".", "todos.json");
  if (existsSync(file)) todos = JSON.parse(readFileSync(file, "utf8")) as Todo[];
});

const save = (): void => writeFileSync(file, JSON.stringify(todos, null, 2));

function view(): { title: string; lines: string[]; footer: string } {
  const lines = todos.length === 0 ? ["(nothing to do)"] : todos.map((todo, i) => `${i === cursor ? "›" : " "} ${todo.done ? "✓" : "□"} ${todo.text}`);
  if (draft !== undefined) lines.push(`new: ${draft}▏`);
  const footer = draft !== undefined ? "type · enter saves · esc closes" : "↑/↓ move · x toggle · d delete · a add · esc close";
  return { title: "Todos", lines, footer };
}

async function onKey(key: PanelKey): Promise<void> {
  if (draft !== undefined) {
    if (key.key === "rune") draft += key.text ?? "";
    else if (key.key === "backspace") draft = draft.slice(0, -1);
    else if (key.key === "enter") {
      if (draft.trim() !== "") todos.push({ text: draft.trim(), done: false });
      draft = undefined;
      save();
    }
  } else if (key.key === "up") cursor = Math.max(0, cursor - 1);
  else if (key.key === "down") cursor = Math.min(todos.length - 1, cursor + 1);
  else if (key.key === "rune" && key.text === "a") draft = "";
  else if (key.key === "rune" && key.text === "x" && todos[cursor]) {
    todos[cursor]!.done = !todos[cursor]!.done;
    save();
  } else if (key.key === "rune" && key.text === "d" && todos[cursor]) {
    todos.splice(cursor, 1);
    cursor = Math.max(0, Math.min(cursor, todos.length - 1));
    save();
  }
  await ext.renderPanel("todos", view());
}

ext.command("todos", "your todo list", () => {
  draft = undefined;
  return ext.openPanel({ id: "todos", ...view() }, { onKey, onClose: () => void (draft = undefined) });
});

ext.tool(
  "add_todo",
  "Add an item to the user's todo list.",
  { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  async (args) => {
    const text = String(args.text ?? "").trim();
    if (text === "") return { content: [{ type: "text", text: "text is empty" }], is_error: true };
    todos.push({ text, done: false });
    save();
    await ext.notify("success", `added: ${text}`);
    return textResult(`added todo ${todos.length}: ${text}`);
  },
);

await ext.run();

/**
 * The usage text of a citty command (`zot ext …`, `zot mcp …`): citty's
 * renderUsage without trailing spaces, one final newline, and its colours
 * only when stdout is a terminal and NO_COLOR is unset.
 */
import { type ArgsDef, type CommandDef, renderUsage } from "citty";

export async function usageText(command: CommandDef<ArgsDef>, parent?: CommandDef<ArgsDef>): Promise<string> {
  const text = `${(await renderUsage(command, parent)).replace(/[ \t]+$/gm, "")}\n`;
  return process.stdout.isTTY && !process.env.NO_COLOR ? text : Bun.stripANSI(text);
}

/**
 * `/theme [name]`: without a name a picker (ListDialog: auto with what it
 * resolved to, dark, light, then the extensions' themes under their own
 * divider; the current one selected); Enter, or a name, switches the theme
 * from the next frame on and remembers it in config.json (`theme`). With
 * NO_COLOR the choice is remembered but colours stay off; with ZOT_THEME
 * set, a note says it wins at the next start.
 */
import { ListDialog, type SelectItem } from "../../../tui/index.ts";
import type { BuiltinCommand, CommandHost } from "../command-types.ts";

function items(host: CommandHost): SelectItem[] {
  const state = host.themes;
  const detected = state.background === undefined ? "no answer from the terminal: dark" : `${state.palette("auto")?.name ?? "dark"} background`;
  return [
    { value: "auto", label: "auto", description: `follow the terminal (${detected})` },
    { value: "dark", label: "dark", description: "built-in, for dark backgrounds" },
    { value: "light", label: "light", description: "built-in, for light backgrounds" },
    ...state.themes.map((theme) => ({
      value: theme.palette.name,
      label: theme.palette.name,
      description: `${theme.description ?? theme.palette.appearance} [${theme.extension}]`,
      group: "extensions",
    })),
  ];
}

async function choose(host: CommandHost, name: string): Promise<void> {
  const state = host.themes;
  const result = await state.choose(name);
  if (!result.ok) {
    host.chat.error(`/theme: ${result.error}`);
    return;
  }
  host.chat.success(`theme: ${name}${name === "auto" ? ` (${state.palette("auto")?.name ?? "dark"})` : ""}, remembered in config.json`);
  if (!state.colors) host.chat.info("colours stay off while NO_COLOR is set (or TERM=dumb)");
  if (state.request.source === "ZOT_THEME") host.chat.info(`ZOT_THEME=${state.request.name} still decides the theme at the next start`);
}

function themeCommand(host: CommandHost, args: string): Promise<void> | void {
  const name = args.trim();
  if (name !== "") return choose(host, name);
  const dialog = new ListDialog({
    theme: host.theme,
    title: "theme",
    items: items(host),
    initial: host.themes.choice,
    hint: "Enter use and remember · Esc close",
    onChoose: (item) => {
      if (item !== undefined) void choose(host, item.value);
      return "close";
    },
  });
  host.openOverlay(dialog);
}

export const THEME_COMMAND: BuiltinCommand = {
  name: "theme",
  usage: "/theme [name]",
  description: "pick the colour theme (remembered)",
  immediate: true,
  run: (host, args) => themeCommand(host, args),
};

/**
 * The chat screen's theme (docs/themes.md): one SwitchableTheme every widget
 * draws with, the themes to choose from (dark, light, the extensions'), and
 * what the run started with. start() decides the first theme before
 * anything is drawn: colours off → plain; else ZOT_THEME / config.json /
 * auto (auto asks the terminal through `probe`, bounded). choose(name)
 * switches from the next frame on (scrollback keeps its colours) and
 * remembers the name in config.json; "auto" re-uses the background seen at
 * startup.
 */
import type { ZotPaths } from "../../common/home.ts";
import { createTheme, DARK_PALETTE, type Palette, SwitchableTheme } from "../../tui/index.ts";
import type { ExtensionTheme, Rgb, ThemeRequest } from "../../themes/index.ts";
import { autoPalette, backgroundQueryMs, colorEnabled, namedPalette, parseBackground, rememberTheme, themeRequest, truecolorEnabled } from "../../themes/index.ts";

type Env = Readonly<Record<string, string | undefined>>;

export interface ThemeStartOptions {
  readonly env: Env;
  readonly paths: ZotPaths;
  readonly configTheme: unknown;
  readonly themes: readonly ExtensionTheme[];
  /** Asks the terminal's background (OSC 11); resolves with the answer's payload or undefined. */
  readonly probe: (timeoutMs: number) => Promise<string | undefined>;
}

export class ThemeState {
  readonly theme = new SwitchableTheme(createTheme(true));
  colors = true;
  themes: readonly ExtensionTheme[] = [];
  /** What was asked for ("auto", a name) and where that came from. */
  request: ThemeRequest = { name: "auto", source: "default" };
  /** The name in use: "auto" or a theme's name. */
  choice = "auto";
  background: Rgb | undefined;
  #truecolor = false;
  #configFile = "";

  /** Decides the first theme; returns warnings (an unknown name). */
  async start(options: ThemeStartOptions): Promise<string[]> {
    this.colors = colorEnabled(options.env);
    this.#truecolor = truecolorEnabled(options.env);
    this.#configFile = options.paths.configFile;
    this.themes = options.themes;
    this.request = themeRequest(options.env, options.configTheme);
    if (!this.colors) {
      this.theme.use(createTheme(false));
      return [];
    }
    const warnings: string[] = [];
    let name = this.request.name;
    if (name !== "auto" && namedPalette(name, this.themes) === undefined) {
      warnings.push(`zot: warning: ${this.request.source}: no theme named "${name}" (${this.names().join(", ")}); using auto`);
      name = "auto";
    }
    if (name === "auto") {
      const payload = await options.probe(backgroundQueryMs(options.env));
      this.background = payload === undefined ? undefined : parseBackground(payload);
    }
    this.#use(name);
    return warnings;
  }

  /** Every name /theme offers: auto, the built-ins, the extensions' themes. */
  names(): string[] {
    return ["auto", "dark", "light", ...this.themes.map((theme) => theme.palette.name)];
  }

  /** The palette `name` stands for now (auto: from the background seen at startup). */
  palette(name: string): Palette | undefined {
    return name === "auto" ? autoPalette(this.background) : namedPalette(name, this.themes);
  }

  /** Switches to `name` and remembers it in config.json; an error line when it could not be remembered. */
  async choose(name: string): Promise<{ ok: true } | { ok: false; error: string }> {
    if (this.palette(name) === undefined) return { ok: false, error: `no theme named "${name}"` };
    this.#use(name);
    return rememberTheme(this.#configFile, name);
  }

  #use(name: string): void {
    this.choice = name;
    if (!this.colors) return;
    this.theme.use(createTheme(true, this.palette(name) ?? DARK_PALETTE, { truecolor: this.#truecolor }));
  }
}

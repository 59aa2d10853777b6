/** The widgets of the terminal UI (re-exported by src/tui/index.ts). */
export { createTheme, type Theme } from "../theme.ts";
export { box, type BoxOptions, type BoxTone } from "./box.ts";
export { Editor, type EditorAction, type EditorOptions } from "./editor.ts";
export { fuzzyFilter, fuzzyScore } from "./fuzzy.ts";
export { MarkdownStream, type MarkdownStreamOptions, renderMarkdown } from "./markdown-stream.ts";
export { ScrollView, type ScrollViewOptions } from "./scroll-view.ts";
export { type SelectItem, SelectList, type SelectListOptions } from "./select-list.ts";
export { formatElapsed, SPINNER_FRAME_MS, spinnerFrame } from "./spinner.ts";

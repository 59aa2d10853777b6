/** The widgets of the terminal UI (re-exported by src/tui/index.ts). */
export { colourCode, createTheme, DARK_PALETTE, LIGHT_PALETTE, nearest256, PALETTE_SLOTS, SwitchableTheme, type Colour, type Palette, type PaletteSlot, type Theme, type ThemeOptions } from "../theme.ts";
export { box, type BoxOptions, type BoxTone } from "./box.ts";
export { Editor, type EditorAction, type EditorOptions } from "./editor.ts";
export { fuzzyFilter, fuzzyScore } from "./fuzzy.ts";
export { MarkdownStream, type MarkdownStreamOptions, renderMarkdown } from "./markdown-stream.ts";
export { ScrollView, type ScrollViewOptions } from "./scroll-view.ts";
export { type SelectItem, SelectList, type SelectListOptions } from "./select-list.ts";
export { formatElapsed, SPINNER_FRAME_MS, spinnerFrame } from "./spinner.ts";
export { type Choice, ChoiceDialog, type ChoiceDialogOptions } from "./choice-dialog.ts";
export { KeyClock, TYPEAHEAD_QUIET_MS } from "./key-clock.ts";
export { InputDialog, type InputDialogOptions } from "./input-dialog.ts";
export { type ListAction, ListDialog, type ListDialogOptions } from "./list-dialog.ts";
export { isPlainKey, type Overlay, type OverlayResult } from "./overlay.ts";
export { TextInput, type TextInputOptions } from "./text-input.ts";
export { TextViewer, type TextViewerOptions } from "./text-viewer.ts";

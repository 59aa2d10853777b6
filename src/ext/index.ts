/**
 * The extension host's public surface: the manager (discovery, lifecycle,
 * registry, command and tool routing), the UI / command-action interfaces a
 * mode implements, and the manifest types the CLI needs.
 */
export { ExtensionManager, type ExtensionManagerOptions, type ReloadStats, type InvokedCommand, type Subscription } from "./manager.ts";
export { type ExtensionUI, type CommandActionHandler, type NoteLevel, type PanelContent, headlessExtensionUI, dispatchCommandResponse } from "./host.ts";
export { ExtensionLoadError, ExtensionRequestError } from "./errors.ts";
export { type LoadedManifest, type Manifest, ManifestError, loadManifest } from "./manifest.ts";
export { type RegisteredCommand, type RegisteredTool, BUILTIN_TOOLS } from "./registry.ts";
export type { ExtensionConnection, ReadyState, ExtensionSource } from "./connection.ts";

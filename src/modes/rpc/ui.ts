/**
 * The extension host's UI in RPC mode (reference notes §2.16, extensions.md):
 * `notify` → `ext_notify{extension, level, message}` event, `clear_notes` →
 * `ext_clear_notes{extension}`, host warnings about an extension (e.g. a
 * failed before_agent_start replacement) → `ext_notify` with level `warn`.
 * `submit` and panels have no meaning without an editor and are ignored.
 * An extension that fails or crashes is reported on stderr (as in print
 * mode), keeping the client's event schema to the documented set.
 */
import type { ExtensionUI } from "../../ext/host.ts";
import type { RpcOutput } from "./output.ts";

export function rpcExtensionUI(output: RpcOutput, warn: (line: string) => void): ExtensionUI {
  return {
    notify: (extension, level, message) => output.event({ type: "ext_notify", extension, level, message }),
    clearNotes: (extension) => output.event({ type: "ext_clear_notes", extension }),
    submit: () => {},
    panelRender: () => {},
    panelClose: () => {},
    extensionFailed: (extension, message) => warn(`zot: extension ${extension}: ${message}\n`),
    hostWarning: (extension, message) => output.event({ type: "ext_notify", extension, level: "warn", message }),
  };
}

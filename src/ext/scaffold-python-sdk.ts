/**
 * The Python SDK (sdk/python/zot_extension) and its template
 * (sdk/python/template), embedded in the binary as text so `zot ext new
 * --lang python` can vendor the SDK beside the program: an installed
 * extension then needs nothing but python3 (sdk/python/README.md, "How an
 * installed extension finds the SDK"). test/ext/scaffold.test.ts fails when
 * the SDK gains a file this list misses. Loaded only by `zot ext new`.
 */
import sdkInit from "../../sdk/python/zot_extension/__init__.py" with { type: "text" };
import sdkContext from "../../sdk/python/zot_extension/context.py" with { type: "text" };
import sdkDispatch from "../../sdk/python/zot_extension/dispatch.py" with { type: "text" };
import sdkExtension from "../../sdk/python/zot_extension/extension.py" with { type: "text" };
import sdkFrames from "../../sdk/python/zot_extension/frames.py" with { type: "text" };
import sdkFramesGenerated from "../../sdk/python/zot_extension/frames_generated.py" with { type: "text" };
import sdkPanels from "../../sdk/python/zot_extension/panels.py" with { type: "text" };
import sdkTyped from "../../sdk/python/zot_extension/py.typed" with { type: "text" };
import sdkResults from "../../sdk/python/zot_extension/results.py" with { type: "text" };
import sdkTransport from "../../sdk/python/zot_extension/transport.py" with { type: "text" };
import templateManifest from "../../sdk/python/template/extension.json" with { type: "text" };
import templateMain from "../../sdk/python/template/main.py" with { type: "text" };
import templateReadme from "../../sdk/python/template/README.md" with { type: "text" };

/** The template's placeholder extension name, replaced by the new name. */
export const TEMPLATE_NAME = "my-extension";

export const PYTHON_SDK_FILES: Readonly<Record<string, string>> = {
  "__init__.py": sdkInit,
  "context.py": sdkContext,
  "dispatch.py": sdkDispatch,
  "extension.py": sdkExtension,
  "frames.py": sdkFrames,
  "frames_generated.py": sdkFramesGenerated,
  "panels.py": sdkPanels,
  "py.typed": sdkTyped,
  "results.py": sdkResults,
  "transport.py": sdkTransport,
};

export const PYTHON_TEMPLATE: Readonly<Record<"extension.json" | "main.py" | "README.md", string>> = {
  "extension.json": templateManifest as unknown as string,
  "main.py": templateMain,
  "README.md": templateReadme,
};

/**
 * The TypeScript SDK's compiled dist/ (sdk/typescript/dist, vendored by the
 * template as zot-sdk/) and its template (sdk/typescript/template), embedded
 * in the binary as text so `zot ext new --lang ts` writes an extension that
 * runs with nothing installed. test/ext/scaffold.test.ts fails when dist/
 * gains a file this list misses. Loaded only by `zot ext new`.
 */
// @ts-expect-error TS2846: a declaration file, embedded as text (not imported as types)
import sdk0 from "../../sdk/typescript/dist/calls.d.ts" with { type: "text" };
import sdk1 from "../../sdk/typescript/dist/calls.js" with { type: "text" };
// @ts-expect-error TS2846: a declaration file, embedded as text (not imported as types)
import sdk2 from "../../sdk/typescript/dist/extension.d.ts" with { type: "text" };
import sdk3 from "../../sdk/typescript/dist/extension.js" with { type: "text" };
// @ts-expect-error TS2846: a declaration file, embedded as text (not imported as types)
import sdkFrames0 from "../../sdk/typescript/dist/frames.generated.d.ts" with { type: "text" };
import sdkFrames1 from "../../sdk/typescript/dist/frames.generated.js" with { type: "text" };
// @ts-expect-error TS2846: a declaration file, embedded as text (not imported as types)
import sdk4 from "../../sdk/typescript/dist/handlers.d.ts" with { type: "text" };
import sdk5 from "../../sdk/typescript/dist/handlers.js" with { type: "text" };
// @ts-expect-error TS2846: a declaration file, embedded as text (not imported as types)
import sdk6 from "../../sdk/typescript/dist/index.d.ts" with { type: "text" };
import sdk7 from "../../sdk/typescript/dist/index.js" with { type: "text" };
// @ts-expect-error TS2846: a declaration file, embedded as text (not imported as types)
import sdk8 from "../../sdk/typescript/dist/intercepts.d.ts" with { type: "text" };
import sdk9 from "../../sdk/typescript/dist/intercepts.js" with { type: "text" };
// @ts-expect-error TS2846: a declaration file, embedded as text (not imported as types)
import sdk10 from "../../sdk/typescript/dist/lanes.d.ts" with { type: "text" };
import sdk11 from "../../sdk/typescript/dist/lanes.js" with { type: "text" };
// @ts-expect-error TS2846: a declaration file, embedded as text (not imported as types)
import sdk12 from "../../sdk/typescript/dist/line-reader.d.ts" with { type: "text" };
import sdk13 from "../../sdk/typescript/dist/line-reader.js" with { type: "text" };
// @ts-expect-error TS2846: a declaration file, embedded as text (not imported as types)
import sdk14 from "../../sdk/typescript/dist/protocol.d.ts" with { type: "text" };
import sdk15 from "../../sdk/typescript/dist/protocol.js" with { type: "text" };
// @ts-expect-error TS2846: a declaration file, embedded as text (not imported as types)
import sdk16 from "../../sdk/typescript/dist/results.d.ts" with { type: "text" };
import sdk17 from "../../sdk/typescript/dist/results.js" with { type: "text" };
// @ts-expect-error TS2846: a declaration file, embedded as text (not imported as types)
import sdk18 from "../../sdk/typescript/dist/transport.d.ts" with { type: "text" };
import sdk19 from "../../sdk/typescript/dist/transport.js" with { type: "text" };
// @ts-expect-error TS2846: a declaration file, embedded as text (not imported as types)
import sdk20 from "../../sdk/typescript/dist/wire-helpers.d.ts" with { type: "text" };
import sdk21 from "../../sdk/typescript/dist/wire-helpers.js" with { type: "text" };
import templateManifest from "../../sdk/typescript/template/extension.json" with { type: "text" };
// @ts-expect-error TS1192: a module, embedded as text (not imported)
import templateMain from "../../sdk/typescript/template/main.ts" with { type: "text" };
import templateReadme from "../../sdk/typescript/template/README.md" with { type: "text" };

export const TYPESCRIPT_SDK_FILES: Readonly<Record<string, string>> = {
  "calls.d.ts": sdk0 as unknown as string,
  "calls.js": sdk1 as unknown as string,
  "extension.d.ts": sdk2 as unknown as string,
  "extension.js": sdk3 as unknown as string,
  "frames.generated.d.ts": sdkFrames0 as unknown as string,
  "frames.generated.js": sdkFrames1 as unknown as string,
  "handlers.d.ts": sdk4 as unknown as string,
  "handlers.js": sdk5 as unknown as string,
  "index.d.ts": sdk6 as unknown as string,
  "index.js": sdk7 as unknown as string,
  "intercepts.d.ts": sdk8 as unknown as string,
  "intercepts.js": sdk9 as unknown as string,
  "lanes.d.ts": sdk10 as unknown as string,
  "lanes.js": sdk11 as unknown as string,
  "line-reader.d.ts": sdk12 as unknown as string,
  "line-reader.js": sdk13 as unknown as string,
  "protocol.d.ts": sdk14 as unknown as string,
  "protocol.js": sdk15 as unknown as string,
  "results.d.ts": sdk16 as unknown as string,
  "results.js": sdk17 as unknown as string,
  "transport.d.ts": sdk18 as unknown as string,
  "transport.js": sdk19 as unknown as string,
  "wire-helpers.d.ts": sdk20 as unknown as string,
  "wire-helpers.js": sdk21 as unknown as string,
};

export const TYPESCRIPT_TEMPLATE: Readonly<Record<"extension.json" | "main.ts" | "README.md", string>> = {
  "extension.json": templateManifest as unknown as string,
  "main.ts": templateMain as unknown as string,
  "README.md": templateReadme,
};

// A zot extension on the TypeScript SDK: a /hello command and a `greet` tool.
// Run it for one session with `zot --ext .`; its stderr goes to `zot ext logs my-extension`.
import { Extension, display, textResult } from "./zot-sdk/index.js";

const ext = new Extension("my-extension", "0.1.0");

ext.onHello((host) => ext.log(`loaded in ${host.cwd} (zot ${host.zotVersion}, ${host.provider}/${host.model})`));

ext.command("hello", "say hello (my-extension)", (args) => display(`hello${args ? `, ${args}` : ""} from my-extension`));

ext.tool(
  "greet",
  "Greet someone by name.",
  { type: "object", properties: { name: { type: "string", description: "who to greet" } }, required: ["name"] },
  (args) => textResult(`Hello, ${String(args.name)}!`),
);

await ext.run();

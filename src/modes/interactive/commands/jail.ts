/**
 * `/jail` and `/unjail`: turn --jail's confinement on or off for the rest
 * of the session (docs/jail.md): the file tools refuse paths outside the
 * working directory and bash runs in an OS sandbox (or is refused), from the
 * next tool call on, including extensions' call_tool requests. The status
 * bar's `jailed` tag follows. Nothing is remembered across runs.
 */
import type { BuiltinCommand, CommandHost } from "../command-types.ts";

function jail(host: CommandHost): void {
  const { agent, cwd } = host.runtime;
  if (agent.jailRoot !== undefined) {
    host.chat.info(`already jailed to ${agent.jailRoot} (/unjail lifts it)`);
    return;
  }
  agent.setJailRoot(cwd);
  host.chat.success(`jailed: tools are confined to ${cwd} from the next tool call on (bash in an OS sandbox; /unjail lifts it)`);
}

function unjail(host: CommandHost): void {
  const { agent } = host.runtime;
  if (agent.jailRoot === undefined) {
    host.chat.info("not jailed (/jail confines the tools to the working directory)");
    return;
  }
  agent.setJailRoot(undefined);
  host.chat.warn("unjailed: tools may reach outside the working directory again for the rest of this session");
}

export const JAIL_COMMAND: BuiltinCommand = {
  name: "jail",
  usage: "/jail",
  description: "confine the tools to the working directory (like --jail)",
  immediate: true,
  run: (host) => jail(host),
};

export const UNJAIL_COMMAND: BuiltinCommand = {
  name: "unjail",
  usage: "/unjail",
  description: "lift /jail or --jail for the rest of the session",
  immediate: true,
  run: (host) => unjail(host),
};

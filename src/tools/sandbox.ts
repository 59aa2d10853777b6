/**
 * OS confinement of the `bash` tool under --jail (docs/jail.md). confine()
 * turns the shell's argv into a sandboxed one whose writes are limited to the
 * jail root and a private temp dir, whose reads outside the jail are limited
 * to the system directories a shell needs, with no network unless
 * ZOT_JAIL_NETWORK=1, and with secret-looking variables removed from its
 * environment. Linux uses bubblewrap (`bwrap` on PATH, outside the jail);
 * macOS uses /usr/bin/sandbox-exec with a generated profile. Where neither is
 * available the answer is a refusal whose message says why and how to get
 * one: bash never runs unconfined under --jail. Nothing is detected until
 * the first jailed command.
 */
import { platform } from "node:process";
import { confineWithBwrap } from "./sandbox-linux.ts";
import { confineWithSandboxExec } from "./sandbox-macos.ts";
import { refusal, type SandboxPlan, type SandboxRequest } from "./sandbox-policy.ts";

export type { SandboxKind, SandboxPlan, SandboxRequest } from "./sandbox-policy.ts";

export async function confine(request: SandboxRequest): Promise<SandboxPlan> {
  if (platform === "linux") return confineWithBwrap(request);
  if (platform === "darwin") return confineWithSandboxExec(request);
  return refusal(`zot has no OS sandbox for ${platform}`, "Use Linux (bubblewrap) or macOS (sandbox-exec)");
}

/**
 * The client-facing side of one RPC process: takes each stdin line, applies
 * the auth gate and hands well-formed commands to the handlers.
 *
 * Auth (reference notes §5.3): when ZOTCORE_RPC_TOKEN is set (non-empty),
 * every command before a successful `hello{token}` gets `auth required: send
 * hello with token first` and the connection stays open; a `hello` with a
 * missing or wrong token gets `invalid token` and the connection must close
 * (handleLine answers "close"; the server exits with status 1). Malformed
 * lines are reported as such even before auth. Once authenticated, `hello`
 * is informational and its token is not checked again.
 *
 * Blank lines are ignored; an over-long line gets an error response with an
 * empty command.
 */
import { timingSafeEqual } from "node:crypto";
import { runCommand, type RpcContext } from "./commands.ts";
import { RPC_ERRORS, parseCommandLine } from "./protocol.ts";

export type LineVerdict = "continue" | "close";

function tokenMatches(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const want = Buffer.from(expected, "utf8");
  const got = Buffer.from(given, "utf8");
  return want.length === got.length && timingSafeEqual(want, got);
}

export class RpcConnection {
  #authenticated: boolean;

  /** `token`: the shared secret a client must present first; undefined when no auth is required. */
  constructor(
    private readonly context: RpcContext,
    private readonly token: string | undefined,
  ) {
    this.#authenticated = token === undefined;
  }

  async handleLine(line: string): Promise<LineVerdict> {
    if (line.trim() === "") return "continue";
    const { output } = this.context;
    const parsed = parseCommandLine(line);
    if (parsed.kind === "invalid") {
      const gated = !this.#authenticated && parsed.problem !== "malformed" && parsed.command !== "hello";
      const error = gated ? RPC_ERRORS.authRequired : parsed.error;
      output.failed(parsed.command, parsed.id, error);
      return "continue";
    }
    const { command } = parsed;
    if (!this.#authenticated && this.token !== undefined) {
      if (command.type !== "hello") {
        output.failed(command.type, command.id, RPC_ERRORS.authRequired);
        return "continue";
      }
      if (!tokenMatches(this.token, command.token)) {
        output.failed("hello", command.id, RPC_ERRORS.invalidToken);
        return "close";
      }
      this.#authenticated = true;
    }
    await runCommand(this.context, command);
    return "continue";
  }

  /** A stdin line over the size limit was skipped. */
  oversizedLine(bytes: number, limit: number): void {
    this.context.output.failed("", undefined, `line too long: ${bytes} bytes exceeds the ${limit}-byte limit; skipped`);
  }
}

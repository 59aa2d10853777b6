/**
 * A connection error names the proxy the request went through (Bun's fetch
 * uses HTTP_PROXY / HTTPS_PROXY itself; a CI runner behind a proxy that
 * refuses was told only that the provider's URL could not be reached):
 * through dist/zot with a proxy on a dead port, its user:password never
 * shown, and NO_PROXY honoured (no mention, the direct request works).
 * Unit: proxyFor's choice of variable and its NO_PROXY matching.
 */
import { describe, expect, test } from "bun:test";
import { proxyFor } from "../../src/providers/proxy.ts";
import { useModeEnv, type ModeEnv } from "../modes/helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

/** A port nothing listens on (bound, then released). */
function deadPort(): number {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = listener;
  listener.stop(true);
  return port;
}

describe("through dist/zot", () => {
  test("a proxy that refuses is named with its variable (no credentials); NO_PROXY bypasses it", async () => {
    const proxy = `http://ci:hunter2-secret@127.0.0.1:${deadPort()}`;
    const args = ["-p", "hi", ...env.providerArgs()];
    const refused = await env.run(args, { env: { HTTP_PROXY: proxy, ZOT_MAX_RETRIES: "0" } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `zot: anthropic: cannot connect to ${env.server.anthropicBaseUrl}/v1/messages through the proxy ${proxy.replace("ci:hunter2-secret@", "")} (HTTP_PROXY): ECONNREFUSED: Unable to connect. (retries disabled)\n`,
    );
    expect(env.server.requests.length).toBe(0);
    env.server.enqueue({ type: "text", text: "direct" });
    const bypassed = await env.run(args, { env: { HTTP_PROXY: proxy, NO_PROXY: "localhost,127.0.0.1" } });
    expect([bypassed.code, bypassed.stdout, bypassed.stderr]).toEqual([0, "direct\n", ""]);
  });
});

describe("proxyFor", () => {
  test("the scheme's variable, upper case first; none for a direct connection", () => {
    expect(proxyFor("https://api.anthropic.com/v1/messages", { HTTPS_PROXY: "http://p:3128", https_proxy: "http://q:1" })).toEqual({ proxy: "http://p:3128", variable: "HTTPS_PROXY" });
    expect(proxyFor("https://api.anthropic.com/v1/messages", { https_proxy: "http://q:1" })).toEqual({ proxy: "http://q:1", variable: "https_proxy" });
    expect(proxyFor("https://api.anthropic.com/v1/messages", { HTTP_PROXY: "http://p:3128" })).toBeUndefined();
    expect(proxyFor("http://localhost:11434/v1", { HTTP_PROXY: "http://p:3128" })).toEqual({ proxy: "http://p:3128", variable: "HTTP_PROXY" });
    expect(proxyFor("http://localhost:11434/v1", {})).toBeUndefined();
  });

  test("NO_PROXY: *, a host and its subdomains (leading dot or not), host:port", () => {
    const proxied = (url: string, noProxy: string): boolean => proxyFor(url, { HTTPS_PROXY: "http://p:1", NO_PROXY: noProxy }) !== undefined;
    expect(proxied("https://api.anthropic.com/", "*")).toBe(false);
    expect(proxied("https://api.anthropic.com/", "anthropic.com")).toBe(false);
    expect(proxied("https://api.anthropic.com/", ".anthropic.com")).toBe(false);
    expect(proxied("https://api.anthropic.com/", "notanthropic.com")).toBe(true);
    expect(proxied("https://api.anthropic.com/", "api.anthropic.com:443")).toBe(false);
    expect(proxied("https://api.anthropic.com/", "api.anthropic.com:8443")).toBe(true);
    expect(proxied("https://api.anthropic.com/", " other.org , ")).toBe(true);
  });
});

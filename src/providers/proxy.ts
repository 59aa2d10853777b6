/**
 * Which proxy a model request goes through, for error messages only (Bun's
 * fetch applies the proxy itself): HTTPS_PROXY / https_proxy for https
 * URLs, HTTP_PROXY / http_proxy for http ones (upper case first), unless
 * NO_PROXY / no_proxy names the host: `*`, a host (`api.example.com`, also
 * matching its subdomains, with or without a leading dot), or `host:port`.
 * `proxyFor` returns the proxy as shown (without user:password) and the
 * variable it came from, or undefined for a direct connection.
 */
type Env = Readonly<Record<string, string | undefined>>;

function setting(env: Env, name: string): { value: string; variable: string } | undefined {
  for (const variable of [name.toUpperCase(), name.toLowerCase()]) {
    const value = env[variable]?.trim();
    if (value) return { value, variable };
  }
  return undefined;
}

function bypassed(url: URL, env: Env): boolean {
  const list = setting(env, "no_proxy")?.value;
  if (list === undefined) return false;
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, "");
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return list.split(",").some((raw) => {
    const entry = raw.trim().toLowerCase();
    if (entry === "") return false;
    if (entry === "*") return true;
    const portMatch = /^(.*):(\d+)$/.exec(entry);
    const name = (portMatch?.[1] ?? entry).replace(/^\*?\./, "").replace(/^\[|\]$/g, "");
    if (portMatch !== null && portMatch[2] !== port) return false;
    return host === name || host.endsWith(`.${name}`);
  });
}

function shown(proxy: string): string {
  try {
    const parsed = new URL(proxy);
    parsed.username = "";
    parsed.password = "";
    return parsed.toString().replace(/\/$/, "");
  } catch {
    return proxy;
  }
}

export function proxyFor(target: string, env: Env = process.env): { readonly proxy: string; readonly variable: string } | undefined {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return undefined;
  }
  const found = url.protocol === "https:" ? setting(env, "https_proxy") : url.protocol === "http:" ? setting(env, "http_proxy") : undefined;
  if (found === undefined || bypassed(url, env)) return undefined;
  return { proxy: shown(found.value), variable: found.variable };
}

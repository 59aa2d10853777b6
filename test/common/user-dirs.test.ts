/** common/user-dirs.ts answers what node:os answers for the same environment. */
import { afterEach, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { tempDirectory } from "../../src/common/user-dirs.ts";

const saved = { TMPDIR: process.env.TMPDIR, TMP: process.env.TMP, TEMP: process.env.TEMP };

afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

function setEnv(values: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}

test("the temp directory: TMPDIR, TMP, TEMP, /tmp, without a trailing slash, as os.tmpdir()", () => {
  const cases: Record<string, string | undefined>[] = [
    { TMPDIR: "/var/tmp/x", TMP: "/other", TEMP: undefined },
    { TMPDIR: "/var/tmp/x/", TMP: undefined, TEMP: undefined },
    { TMPDIR: "", TMP: "/from-tmp", TEMP: "/from-temp" },
    { TMPDIR: undefined, TMP: undefined, TEMP: "/from-temp/" },
    { TMPDIR: undefined, TMP: undefined, TEMP: undefined },
    { TMPDIR: "/", TMP: undefined, TEMP: undefined },
  ];
  for (const values of cases) {
    setEnv(values);
    expect(tempDirectory()).toBe(tmpdir());
  }
});

test("the home directory: HOME when set and non-empty, else the passwd entry, as os.homedir() in a process started with that HOME", () => {
  // Bun's os.homedir() reads the environment the process started with, so each case is its own process.
  const probe = `import { homedir } from "node:os"; import { homeDirectory } from ${JSON.stringify(`${import.meta.dir}/../../src/common/user-dirs.ts`)}; console.log(JSON.stringify([homeDirectory(), homedir()]));`;
  for (const home of ["/home/someone", "/root/", undefined, ""]) {
    const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
    if (home !== undefined) env.HOME = home;
    const child = Bun.spawnSync([process.execPath, "-e", probe], { env, stderr: "pipe" });
    expect(child.stderr.toString()).toBe("");
    const [ours, node] = JSON.parse(child.stdout.toString()) as [string, string];
    expect(ours).toBe(node);
  }
});

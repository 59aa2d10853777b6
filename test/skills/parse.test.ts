import { describe, expect, test } from "bun:test";
import { parseFrontmatter, parseSkillFile, splitSkillFile } from "../../src/skills/parse.ts";

describe("splitSkillFile", () => {
  test("splits frontmatter from body", () => {
    const split = splitSkillFile("---\nname: a\n---\nbody\n");
    expect(split.frontmatter).toBe("name: a\n");
    expect(split.body).toBe("body\n");
  });

  test("leading blank lines before the opening fence are allowed", () => {
    const split = splitSkillFile("\n  \r\n---\nname: a\n---\nbody");
    expect(split.frontmatter).toBe("name: a\n");
    expect(split.body).toBe("body");
  });

  test("no fence on the first non-blank line → whole file is body", () => {
    const raw = "# Title\n---\nname: a\n---\n";
    expect(splitSkillFile(raw)).toEqual({ frontmatter: undefined, body: raw });
  });

  test("unterminated frontmatter → whole file is body", () => {
    const raw = "---\nname: a\ndescription: b\n";
    expect(splitSkillFile(raw)).toEqual({ frontmatter: undefined, body: raw });
  });

  test("empty frontmatter and CRLF line endings", () => {
    expect(splitSkillFile("---\n---\nbody").frontmatter).toBe("");
    const crlf = parseSkillFile("---\r\nname: win\r\ndescription: \"crlf\"\r\n---\r\nbody\r\n");
    expect(crlf.name).toBe("win");
    expect(crlf.description).toBe("crlf");
    expect(crlf.body).toBe("body");
  });

  test("the rest of the closing fence line is dropped", () => {
    expect(splitSkillFile("---\nname: a\n--- trailing\nbody").body).toBe("body");
  });
});

describe("parseFrontmatter", () => {
  test("name and description with quotes stripped", () => {
    const fields = parseFrontmatter(`name: "commit"\ndescription: 'Write a good commit message'\n`);
    expect(fields.name).toBe("commit");
    expect(fields.description).toBe("Write a good commit message");
  });

  test("plain values keep inner colons and quotes", () => {
    const fields = parseFrontmatter("description: Use when: the user says \"ship it\"\n");
    expect(fields.description).toBe('Use when: the user says "ship it"');
  });

  test("allowed-tools inline list, quoted items", () => {
    expect(parseFrontmatter("allowed-tools: [read, \"bash\", 'edit']\n").allowedTools).toEqual(["read", "bash", "edit"]);
  });

  test("allowed_tools block list", () => {
    expect(parseFrontmatter("allowed_tools:\n  - read\n  - bash\nname: x\n").allowedTools).toEqual(["read", "bash"]);
  });

  test("allowed-tools comma string keeps parenthesised commas", () => {
    expect(parseFrontmatter("allowed-tools: Bash(git add:*, git status:*), Read\n").allowedTools).toEqual([
      "Bash(git add:*, git status:*)",
      "Read",
    ]);
  });

  test("permissions: inline lists, scalars and block lists", () => {
    const fields = parseFrontmatter(
      ["permissions:", "  bash: [git *, ls]", "  write: src/**", "  edit:", "    - docs/*", "    - README.md", "name: p"].join("\n"),
    );
    expect(fields.permissions).toEqual({ bash: ["git *", "ls"], write: ["src/**"], edit: ["docs/*", "README.md"] });
    expect(fields.name).toBe("p");
  });

  test("block scalars: folded and literal descriptions", () => {
    expect(parseFrontmatter("description: >-\n  first line\n  second line\nname: n\n").description).toBe("first line second line");
    expect(parseFrontmatter("description: |\n  one\n  two\n").description).toBe("one\ntwo");
  });

  test("comments, unknown keys and missing fields", () => {
    const fields = parseFrontmatter("# comment\nlicense: MIT\nmetadata:\n  owner: me\n");
    expect(fields).toEqual({ name: undefined, description: undefined, allowedTools: [], permissions: {}, others: { license: "MIT", metadata: "owner: me" } });
  });

  test("trailing comments on plain values are dropped", () => {
    expect(parseFrontmatter("name: tidy # the name\n").name).toBe("tidy");
  });
});

describe("parseSkillFile", () => {
  test("body is trimmed; malformed frontmatter leaves no fields", () => {
    const parsed = parseSkillFile("---\nname: a\n---\n\n\nDo the thing.\n\n");
    expect(parsed.name).toBe("a");
    expect(parsed.body).toBe("Do the thing.");
    const malformed = parseSkillFile("---\nname: a\nno end");
    expect(malformed.name).toBeUndefined();
    expect(malformed.body).toBe("---\nname: a\nno end");
  });
});

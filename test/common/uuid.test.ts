/** common/uuid.ts: version 4, RFC 4122 variant, lowercase, and no repeats. */
import { expect, test } from "bun:test";
import { randomUuid } from "../../src/common/uuid.ts";

test("random UUIDs are version 4, RFC 4122 variant, lowercase hex, distinct", () => {
  const seen = new Set<string>();
  for (let i = 0; i < 2000; i++) {
    const id = randomUuid();
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    seen.add(id);
  }
  expect(seen.size).toBe(2000);
});

test("every hex digit outside the fixed bits varies", () => {
  const ids = Array.from({ length: 400 }, () => randomUuid().replace(/-/g, ""));
  for (let position = 0; position < 32; position++) {
    if (position === 12) continue; // the version digit
    const digits = new Set(ids.map((id) => id[position]));
    expect(digits.size).toBeGreaterThan(position === 16 ? 3 : 8);
  }
});

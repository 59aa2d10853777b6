/**
 * common/sha256.ts against the runtime's own SHA-256 (Bun.CryptoHasher) and
 * the FIPS 180-4 examples: padding at every block boundary, multi-block
 * input, non-ASCII text (hashed as UTF-8).
 */
import { expect, test } from "bun:test";
import { sha256Hex } from "../../src/common/sha256.ts";

const reference = (text: string): string => new Bun.CryptoHasher("sha256").update(text).digest("hex");

test("the FIPS 180-4 examples", () => {
  expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  expect(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")).toBe(
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
});

test("every length around the block boundaries, and multi-block input, match the runtime's digest", () => {
  for (let length = 0; length <= 200; length++) {
    const text = "a".repeat(length);
    expect(sha256Hex(text)).toBe(reference(text));
  }
  const long = Array.from({ length: 5000 }, (_, i) => String.fromCharCode(32 + (i % 90))).join("");
  expect(sha256Hex(long)).toBe(reference(long));
});

test("non-ASCII text is hashed as UTF-8", () => {
  for (const text of ["/home/zoë/projekt", "/tmp/日本語/ディレクトリ", "emoji 🎉 path", "\u00e9\u0301"]) {
    expect(sha256Hex(text)).toBe(reference(text));
  }
});

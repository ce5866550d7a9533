import { describe, expect, it } from "vitest";
import { createSecretBox } from "../../core/index.ts";

const SECRET = "a-test-secret-of-at-least-32-characters!!";

describe("secret box", () => {
  it("opens what it sealed", () => {
    const box = createSecretBox(SECRET);
    const sealed = box.seal("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    expect(box.open(sealed)).toBe("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    expect(box.open(box.seal(""))).toBe("");
    expect(box.open(box.seal("ünïcødé ✓"))).toBe("ünïcødé ✓");
  });

  it("writes the versioned format v1.<iv>.<ciphertext+tag> without the plaintext in it", () => {
    const sealed = createSecretBox(SECRET).seal("whsec_plain");
    const [version, iv, body, ...rest] = sealed.split(".");
    expect(version).toBe("v1");
    expect(rest).toEqual([]);
    expect(Buffer.from(iv!, "base64url")).toHaveLength(12);
    expect(Buffer.from(body!, "base64url")).toHaveLength("whsec_plain".length + 16);
    expect(sealed).not.toContain("whsec_plain");
  });

  it("seals the same plaintext differently each time (random IV)", () => {
    const box = createSecretBox(SECRET);
    expect(box.seal("same")).not.toBe(box.seal("same"));
  });

  it("opens with a second box built from the same secret", () => {
    expect(createSecretBox(SECRET).open(createSecretBox(SECRET).seal("shared"))).toBe("shared");
  });

  it("refuses a value sealed under another secret", () => {
    const sealed = createSecretBox("another-secret-of-at-least-32-characters").seal("x");
    expect(() => createSecretBox(SECRET).open(sealed)).toThrow(/failed authentication/);
  });

  it("refuses a tampered ciphertext, IV or tag", () => {
    const box = createSecretBox(SECRET);
    const [version, iv, body] = box.seal("whsec_abcdef").split(".") as [string, string, string];
    const flip = (text: string, index: number) => {
      const bytes = Buffer.from(text, "base64url");
      bytes[index]! ^= 1;
      return bytes.toString("base64url");
    };
    expect(() => box.open(`${version}.${iv}.${flip(body, 0)}`)).toThrow(Error);
    expect(() => box.open(`${version}.${flip(iv, 3)}.${body}`)).toThrow(Error);
    expect(() =>
      box.open(`${version}.${iv}.${flip(body, Buffer.from(body, "base64url").length - 1)}`),
    ).toThrow(Error);
  });

  it("refuses malformed and foreign values with a plain Error", () => {
    const box = createSecretBox(SECRET);
    for (const value of ["", "whsec_plain", "v2.aaaa.bbbb", "v1.aaaa", "v1.AAAAAAAAAAAAAAAA.AA", "v1..."]) {
      expect(() => box.open(value)).toThrow(Error);
    }
    try {
      box.open("v1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    } catch (error) {
      expect((error as Error).name).toBe("Error");
    }
  });
});

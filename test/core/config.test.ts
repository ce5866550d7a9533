import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../core/index.ts";

describe("loadConfig", () => {
  const base = { TESSERA_DATA_DIR: "/nonexistent" };

  it("takes TESSERA_PUBLIC_URL without its trailing slashes, and leaves it unset by default", () => {
    expect(loadConfig(base).publicUrl).toBeUndefined();
    expect(loadConfig({ ...base, TESSERA_PUBLIC_URL: "https://tessera.example.com//" }).publicUrl).toBe(
      "https://tessera.example.com",
    );
  });

  it("refuses a TESSERA_PUBLIC_URL that is not an http(s) URL, naming the variable", () => {
    for (const value of ["tessera.example.com", "ftp://tessera.example.com"]) {
      let error: unknown;
      try {
        loadConfig({ ...base, TESSERA_PUBLIC_URL: value });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toContain("TESSERA_PUBLIC_URL");
    }
  });
});

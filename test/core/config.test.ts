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

  it("takes TESSERA_FUNCTIONS_URL as a host of its own, or as a port of its own when it names another than PORT", () => {
    expect(loadConfig(base).functionsOrigin).toBeUndefined();
    expect(
      loadConfig({ ...base, TESSERA_FUNCTIONS_URL: "https://Functions.Example.com/" }).functionsOrigin,
    ).toEqual({
      url: "https://functions.example.com",
      host: "functions.example.com",
      port: undefined,
    });
    expect(loadConfig({ ...base, TESSERA_FUNCTIONS_URL: "http://127.0.0.1:8788" }).functionsOrigin).toEqual({
      url: "http://127.0.0.1:8788",
      host: "127.0.0.1:8788",
      port: 8788,
    });
    // Another host on the main listener's port: told apart by Host, no second listener.
    expect(
      loadConfig({ ...base, PORT: "8787", TESSERA_FUNCTIONS_URL: "http://localhost:8787" }).functionsOrigin
        ?.port,
    ).toBeUndefined();
  });

  it("refuses a TESSERA_FUNCTIONS_URL that is not an origin, or is the dashboard's own", () => {
    for (const env of [
      { TESSERA_FUNCTIONS_URL: "functions.example.com" },
      { TESSERA_FUNCTIONS_URL: "https://example.com/functions" },
      { TESSERA_FUNCTIONS_URL: "https://user@functions.example.com" },
      { TESSERA_FUNCTIONS_URL: "http://127.0.0.1:8787" },
      {
        TESSERA_FUNCTIONS_URL: "https://tessera.example.com",
        TESSERA_PUBLIC_URL: "https://tessera.example.com/",
      },
    ]) {
      expect(() => loadConfig({ ...base, ...env }), JSON.stringify(env)).toThrow(/TESSERA_FUNCTIONS_URL/);
    }
  });
});

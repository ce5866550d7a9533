import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { platformCacheDir } from "../../sandbox/web-platform.ts";

/**
 * The platform bundle is cached under the temp dir, which every user of the machine shares; what
 * is cached there runs as the platform of every function isolate, so only a directory that is
 * this user's alone is used.
 */
describe("the platform bundle's cache directory", () => {
  const uid = process.getuid?.();
  let temp: string;
  const expected = () => join(temp, `tessera-guest-platform-${uid}`);

  beforeEach(() => {
    temp = mkdtempSync(join(tmpdir(), "tessera-cache-dir-"));
  });
  afterEach(() => {
    rmSync(temp, { recursive: true, force: true });
  });

  it.skipIf(uid === undefined)("is made private to this user (0700) and used again", () => {
    expect(platformCacheDir(temp)).toBe(expected());
    expect(lstatSync(expected()).mode & 0o777).toBe(0o700);
    expect(platformCacheDir(temp)).toBe(expected());
  });

  it.skipIf(uid === undefined)("is not used when others may write to it", () => {
    mkdirSync(expected());
    chmodSync(expected(), 0o777);
    expect(platformCacheDir(temp)).toBeUndefined();
  });

  it.skipIf(uid === undefined)("is not used when a link stands in its place", () => {
    const elsewhere = join(temp, "elsewhere");
    mkdirSync(elsewhere, { mode: 0o700 });
    symlinkSync(elsewhere, expected());
    expect(platformCacheDir(temp)).toBeUndefined();
  });

  // Only root can give a directory to another user.
  it.skipIf(uid !== 0)("is not used when another user made it", () => {
    mkdirSync(expected(), { mode: 0o700 });
    chownSync(expected(), 4242, 4242);
    expect(platformCacheDir(temp)).toBeUndefined();
  });
});

import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { useTestApp } from "../helpers/app.ts";
import { signedInMember } from "../helpers/members.ts";
import { storeKinds } from "../helpers/stores.ts";
import { baseUrlOf, describeBrowser, signInTab, useBrowser } from "./browser.ts";

/**
 * The penetration test's attack, in Chromium: organization B's public function serves an HTML page
 * whose script reads `document.cookie`, fetches `/settings/api-keys` (for its CSRF token) and
 * `/v1/me`, and posts what it read back to the function. A's owner, signed in, opens it (a link is
 * enough). On the dashboard's origin the page is a sandbox (`Content-Security-Policy: sandbox`,
 * api/invocation/headers.ts): its script does not run, and script in its document would be an
 * opaque origin, with no cookie to read and no same-origin answer to read. Screenshot:
 * test/browser/screenshots/security-hostile-function.png.
 */

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/functions/${name}/index.ts`, import.meta.url), "utf8");

/** What the fixture's script tries, run in the page's document as if its script could run. */
const ATTACK = `(async () => {
  const seen = {};
  try { seen.cookie = document.cookie; } catch (error) { seen.cookie = "refused: " + error.name; }
  for (const [name, path] of [["keys", "/settings/api-keys"], ["me", "/v1/me"]]) {
    try {
      const response = await fetch(path, { credentials: "include" });
      seen[name] = response.status + " " + (await response.text());
    } catch (error) {
      seen[name] = "refused: " + error.name;
    }
  }
  seen.origin = self.origin;
  return seen;
})()`;

describeBrowser("a hostile function's page opened by a signed-in owner", () => {
  const t = useTestApp(storeKinds()[0]!, { http: true });
  const browser = useBrowser();

  it("reaches nothing of the owner's: its script does not run, and its document is an opaque origin", async () => {
    const base = await baseUrlOf(t);
    const victim = await t.newOrg();
    const attacker = await t.newOrg();
    const owner = await signedInMember(t, victim.id, "owner");
    const deploy = async (name: string) => {
      const response = await t.request("POST", "/v1/functions", {
        key: attacker.key,
        body: { name, auth: "public", files: { "index.ts": fixture(name) }, limits: { cpu_time_ms: 1_000 } },
      });
      expect(response.status, response.text).toBe(201);
      return response.body.id as string;
    };
    const stealer = await deploy("steals-from-dashboard");
    const planter = await deploy("sets-platform-cookies");
    const keysBefore = (await t.request("GET", "/v1/api_keys", { key: victim.key })).body.data.length;

    const tab = await browser.openTab();
    const { page, context } = tab;
    await signInTab(tab, base, owner);
    // Signed in: the dashboard shows the owner their keys.
    const settings = await page.goto(`${base}/settings/api-keys`);
    expect(settings?.status()).toBe(200);
    expect(page.url()).toBe(`${base}/settings/api-keys`);

    const requests: Array<{ method: string; url: string; cookie: string | undefined }> = [];
    page.on("request", (request) => {
      void request
        .allHeaders()
        .then((headers) =>
          requests.push({ method: request.method(), url: request.url(), cookie: headers.cookie }),
        );
    });
    const opened = await page.goto(`${base}/v1/functions/${stealer}/invoke`);
    expect(opened?.status()).toBe(200);
    expect(opened?.headers()["content-security-policy"]).toBe("sandbox");
    expect(await page.locator("h1").textContent()).toBe("Nothing to see here");
    await tab.screenshot("security-hostile-function");

    // Its script never ran: Chromium refused it, the page says so, nothing was posted back.
    expect(tab.errors.join("\n")).toMatch(/Blocked script execution .* sandboxed .*'allow-scripts'/);
    expect(await page.title()).toBe("hostile page");
    expect(await page.locator("#seen").textContent()).toBe("The script has not run.");

    // Even script in that document (what `allow-scripts` would let run) is an opaque origin there.
    const seen = await page.evaluate<Record<string, string>>(ATTACK);
    expect(seen.origin).toBe("null");
    expect(seen.cookie).toBe("refused: SecurityError");
    expect(seen.keys).toBe("refused: TypeError");
    expect(seen.me).toBe("refused: TypeError");
    const fromThePage = requests.filter((request) => /\/(settings\/api-keys|v1\/me)$/.test(request.url));
    expect(fromThePage.length).toBe(2);
    expect(fromThePage.map((request) => request.cookie ?? "")).not.toContainEqual(
      expect.stringContaining(owner.token),
    );
    expect(requests.filter((request) => request.method === "POST")).toEqual([]);

    // A page that sets the platform's cookies leaves the owner's session as it was.
    await page.goto(`${base}/v1/functions/${planter}/invoke`);
    const cookies = await context.cookies(base);
    expect(cookies.filter((cookie) => cookie.name.includes("tessera_"))).toEqual([
      expect.objectContaining({ name: "tessera_session", value: owner.token }),
    ]);
    expect(cookies.map((cookie) => cookie.name)).toContain("theme");
    expect((await page.goto(`${base}/settings/api-keys`))?.status()).toBe(200);
    expect(page.url()).toBe(`${base}/settings/api-keys`);

    // Nothing was made in the owner's organization, nothing reached the attacker's logs.
    expect((await t.request("GET", "/v1/api_keys", { key: victim.key })).body.data.length).toBe(keysBefore);
    const logs = await t.request("GET", `/v1/functions/${stealer}/logs`, { key: attacker.key });
    expect(logs.body.data).toEqual([]);
    expect(tab.blocked).toEqual([]);
  });
});

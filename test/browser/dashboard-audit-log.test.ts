import { expect, it } from "vitest";
import { randomBase62 } from "../../core/index.ts";
import { useTestApp } from "../helpers/app.ts";
import { signedInMember } from "../helpers/members.ts";
import { storeKinds } from "../helpers/stores.ts";
import { baseUrlOf, describeBrowser, signInTab, useBrowser } from "./browser.ts";

/**
 * Settings → Audit log in Chromium: an owner makes a key and invites someone in the dashboard, a key
 * makes a webhook endpoint on the API; the owner opens the Audit log tab and finds each action with its
 * actor by name, filters to the API key's actions, follows an action to its event, and back. No
 * request leaves the machine, no console error, nothing the CSP refuses. Screenshot:
 * test/browser/screenshots/dashboard-audit-log.png.
 */
describeBrowser("the audit log in Chromium", () => {
  const t = useTestApp(storeKinds()[0]!, { http: true });
  const browser = useBrowser();

  it("lists the actions done in the dashboard and on the API, with who did them, and filters them", async () => {
    const base = await baseUrlOf(t);
    const org = await t.newOrg();
    const owner = await signedInMember(t, org.id, "owner");
    const deployer = await t.request("POST", "/v1/api_keys", {
      key: org.key,
      body: { kind: "full_access", name: "CI deploy key" },
    });
    expect(deployer.status).toBe(201);
    const endpoint = await t.request("POST", "/v1/webhook_endpoints", {
      key: deployer.body.secret,
      body: { url: "https://example.com/audited-hooks" },
    });
    expect(endpoint.status).toBe(201);

    const tab = await browser.openTab();
    const { page } = tab;
    await signInTab(tab, base, owner);
    await page.goto(`${base}/settings/api-keys`);
    await page.getByLabel("Name").fill("Reporting");
    await page.getByLabel("Access", { exact: true }).selectOption("read_only");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.locator("#new-secret").waitFor();
    await page.getByRole("link", { name: "Members", exact: true }).click();
    const email = `auditee-${randomBase62(8).toLowerCase()}@example.com`;
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Create an invitation link" }).click();
    await page.locator("#invite-link").waitFor();

    await page.getByRole("link", { name: "Audit log", exact: true }).click();
    await page.getByRole("heading", { name: "Audit log" }).waitFor();
    const rows = page.locator("table.audit tbody tr");
    const row = (action: string) =>
      rows.filter({ has: page.getByRole("link", { name: action, exact: true }) });
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(5);
    const invited = row("member.invited");
    expect(await invited.count()).toBe(1);
    await invited.getByRole("cell", { name: email }).waitFor();
    const ownerName = owner.email.split("-").slice(0, 2).join(" ");
    expect(await invited.getByRole("link", { name: ownerName, exact: true }).count()).toBe(1);
    await invited.getByText(`${owner.email} · Dashboard user`).waitFor();
    const keyMade = rows.filter({ hasText: "Reporting" });
    expect(await keyMade.getByRole("link", { name: "api_key.created" }).count()).toBe(1);
    const byKey = row("webhook_endpoint.created");
    await byKey.getByRole("link", { name: "CI deploy key" }).waitFor();
    await byKey.getByText("https://example.com/audited-hooks").waitFor();
    await tab.screenshot("dashboard-audit-log", { fullPage: true });

    await page.getByLabel("Actor").selectOption("api_key");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/actor_type=api_key/);
    const actions = await page.locator("table.audit tbody tr td:nth-child(2)").allTextContents();
    expect(actions.map((text) => text.trim()).sort()).toEqual([
      "api_key.created",
      "webhook_endpoint.created",
    ]);

    await page.getByRole("link", { name: "CI deploy key" }).click();
    await page.getByText("Actions by").waitFor();
    await page.getByRole("link", { name: "webhook_endpoint.created" }).click();
    await page.getByRole("heading", { name: "webhook_endpoint.created" }).waitFor();
    await page.getByText(`api_key ${deployer.body.id}`).waitFor();

    expect(tab.blocked).toEqual([]);
    expect(tab.errors).toEqual([]);
    expect(await tab.cspViolations()).toEqual([]);
  });
});

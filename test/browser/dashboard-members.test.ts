import { expect, it } from "vitest";
import { randomBase62 } from "../../core/index.ts";
import { useTestApp } from "../helpers/app.ts";
import { signedInMember } from "../helpers/members.ts";
import { storeKinds } from "../helpers/stores.ts";
import { baseUrlOf, describeBrowser, signInTab, useBrowser } from "./browser.ts";

/**
 * People in Chromium: an owner invites someone as a viewer from Settings → Members, the invited
 * person opens the link in a browser of their own and joins; as a viewer they see the data with no
 * way to change it, and a change they force anyway (the form posted by hand) is refused with 403.
 */
describeBrowser("members in Chromium", () => {
  const t = useTestApp(storeKinds()[0]!, { http: true });
  const browser = useBrowser();

  it("invites a viewer who joins, sees no write buttons, and is refused a change", async () => {
    const base = await baseUrlOf(t);
    const org = await t.newOrg();
    const owner = await signedInMember(t, org.id, "owner");
    const contact = await t.request("POST", "/v1/contacts", {
      key: org.key,
      body: { name: "Vera Visible", email: "vera@example.com" },
    });
    expect(contact.status, contact.text).toBe(201);
    const email = `viewer-${randomBase62(8).toLowerCase()}@example.com`;

    const ownerTab = await browser.openTab();
    await signInTab(ownerTab, base, owner);
    await ownerTab.page.goto(`${base}/settings/members`);
    await ownerTab.page.getByLabel("Email").fill(email);
    await ownerTab.page.getByLabel("Role", { exact: true }).selectOption("viewer");
    await ownerTab.page.getByRole("button", { name: "Create an invitation link" }).click();
    const link = (await ownerTab.page.locator("#invite-link").textContent())!.trim();
    expect(link).toMatch(/\/invite\//);

    const viewerTab = await browser.openTab();
    const { page } = viewerTab;
    await page.goto(link);
    await page.getByRole("heading", { name: "Join as viewer" }).waitFor();
    await page.getByLabel("Your name").fill("Vic Viewer");
    await page.getByLabel(/Choose a password/).fill("a long enough passphrase");
    await page.getByRole("button", { name: "Join" }).click();
    await page.getByRole("heading", { name: org.name }).waitFor();

    await page.goto(`${base}/data/contacts/${contact.body.id}`);
    await page.getByRole("heading", { name: /Vera Visible/ }).waitFor();
    expect(await page.getByRole("link", { name: "Edit" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Delete" }).count()).toBe(0);
    await page.goto(`${base}/settings/api-keys`);
    expect(await page.getByRole("button", { name: "Create key" }).count()).toBe(0);

    // Forced anyway: the same form a writer would post, with this session's own CSRF token.
    const csrf = await page.locator('input[name="_csrf"]').first().getAttribute("value");
    const forced = await page.evaluate(
      `fetch("/settings/api-keys", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: ${JSON.stringify(csrf)}, kind: "full_access" }),
      }).then((response) => response.status)`,
    );
    expect(forced).toBe(403);

    const owners = await ownerTab.page.goto(`${base}/settings/members`);
    expect(owners?.status()).toBe(200);
    await ownerTab.page.getByRole("cell", { name: "Vic Viewer", exact: true }).waitFor();
    for (const tab of [ownerTab, viewerTab]) {
      expect(tab.blocked).toEqual([]);
      expect(await tab.cspViolations()).toEqual([]);
    }
    expect(ownerTab.errors).toEqual([]);
    // The one console line is Chromium noting the forced post's 403.
    expect(viewerTab.errors).toEqual([
      "console: Failed to load resource: the server responded with a status of 403 (Forbidden)",
    ]);
  });
});

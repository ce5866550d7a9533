import { afterAll, beforeAll, expect, it } from "vitest";
import { silentLogger } from "../../core/index.ts";
import { createWebhookWorker, type WebhookWorker } from "../../webhooks/index.ts";
import { useTestApp } from "../helpers/app.ts";
import { signedInMember } from "../helpers/members.ts";
import { storeKinds } from "../helpers/stores.ts";
import { startReceiver, testBox, type Receiver } from "../helpers/webhooks.ts";
import { baseUrlOf, describeBrowser, signInTab, useBrowser } from "./browser.ts";

/**
 * Webhooks and Events in Chromium, with a delivery worker running in the process as `tessera serve`
 * runs one: an endpoint made with the event-type picker pointing at a local receiver, its secret
 * revealed, a test event that arrives and shows as delivered with its attempt, and the event in the
 * explorer. No request leaves the machine, no console error, nothing the CSP refuses. Screenshots:
 * test/browser/screenshots/dashboard-webhooks.png, dashboard-webhook-delivery.png, dashboard-events.png.
 */
describeBrowser("the dashboard's webhooks in Chromium", () => {
  const t = useTestApp(storeKinds()[0]!, {
    http: true,
    env: { TESSERA_ALLOW_PRIVATE_TARGETS: "1", TESSERA_ALLOW_HTTP_TARGETS: "1" },
  });
  const browser = useBrowser();
  let receiver: Receiver;
  let worker: WebhookWorker;

  beforeAll(async () => {
    receiver = await startReceiver();
    worker = createWebhookWorker({
      store: t.store,
      clock: t.clock,
      log: silentLogger,
      config: t.config,
      box: testBox,
    });
    await worker.start();
  });
  afterAll(async () => {
    await worker.dispose();
    await receiver.close();
  });

  it("creates an endpoint, sends it a test event that arrives, and finds the event in the explorer", async () => {
    const base = await baseUrlOf(t);
    const org = await t.newOrg();
    const owner = await signedInMember(t, org.id, "owner");
    const tab = await browser.openTab();
    const { page } = tab;
    await signInTab(tab, base, owner);

    await page.goto(`${base}/webhooks`);
    await page.getByRole("link", { name: "Add an endpoint" }).click();
    await page.getByLabel("Endpoint URL").fill(`${receiver.url}/hooks`);
    await page.getByLabel("Description").fill("Local <receiver>");
    await page.getByLabel("Only the kinds ticked below").check();
    await page.getByRole("checkbox", { name: "contact.created", exact: true }).check();
    await page.getByRole("checkbox", { name: /every invoice event/ }).check();
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await page.getByRole("heading", { name: `${receiver.url}/hooks` }).waitFor();
    expect(await page.getByText("Local <receiver>").count()).toBe(1);

    await page.getByRole("button", { name: "Reveal" }).click();
    const secret = (await page.locator("#endpoint-secret").textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole("button", { name: "Copy", exact: true }).waitFor();
    await tab.screenshot("dashboard-webhooks", { fullPage: true });

    await page.getByRole("button", { name: "Send a test event" }).click();
    await page.getByRole("heading", { name: "Delivery of webhook_endpoint.test" }).waitFor();
    // The page reloads itself while the delivery is pending (client/webhooks.js).
    await page.locator("#delivery-status .badge-succeeded").waitFor({ timeout: 20_000 });
    expect(receiver.received).toHaveLength(1);
    const [arrived] = receiver.received;
    expect(arrived!.path).toBe("/hooks");
    expect(JSON.parse(arrived!.body)).toMatchObject({ type: "webhook_endpoint.test" });
    await page.getByText("Attempt 1: HTTP 200").waitFor();
    await tab.screenshot("dashboard-webhook-delivery", { fullPage: true });

    await page.getByRole("link", { name: "Events", exact: true }).click();
    await page.getByLabel("Type").selectOption("webhook_endpoint.test");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.getByRole("link", { name: "webhook_endpoint.test" }).first().waitFor();
    await tab.screenshot("dashboard-events", { fullPage: true });
    await page.getByRole("link", { name: "webhook_endpoint.test" }).first().click();
    await page.getByRole("heading", { name: "Payload" }).waitFor();
    expect(await page.locator("pre.json").textContent()).toContain('"type": "webhook_endpoint.test"');

    expect(tab.blocked).toEqual([]);
    expect(tab.errors).toEqual([]);
    expect(await tab.cspViolations()).toEqual([]);
  });
});

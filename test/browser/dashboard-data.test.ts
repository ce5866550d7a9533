import { expect, it } from "vitest";
import { useTestApp } from "../helpers/app.ts";
import { signedInMember } from "../helpers/members.ts";
import { storeKinds } from "../helpers/stores.ts";
import { baseUrlOf, describeBrowser, signInTab, useBrowser } from "./browser.ts";

/**
 * Data as a person uses it, in Chromium: the invoices filtered to the overdue ones with the filter
 * form (a URL to bookmark), an invoice paid with its button, a contact whose name is markup shown as
 * text; no request leaves the machine, no console error, nothing the page's Content-Security-Policy
 * refuses. Screenshots: test/browser/screenshots/dashboard-data-*.png.
 */
describeBrowser("the Data pages in Chromium", () => {
  const t = useTestApp(storeKinds()[0]!, { http: true });
  const browser = useBrowser();
  const EVIL = "<img src=x onerror=alert(1)>";

  it("filters invoices to the overdue ones, pays one, and shows markup in the data as text", async () => {
    const base = await baseUrlOf(t);
    t.clock.set("2025-06-10T09:00:00Z");
    const org = await t.newOrg();
    const v1 = async (path: string, body: object) => {
      const response = await t.request("POST", `/v1${path}`, { key: org.key, body });
      expect(response.status, response.text).toBe(201);
      return response.body as { id: string; number: string };
    };
    const contact = await v1("/contacts", { name: EVIL, company: "Hostile Inc" });
    const invoice = (client: string, due_date: string, extra: object = {}) =>
      v1("/invoices", { client, currency: "EUR", amount: "250", due_date, ...extra });
    // Due before the FakeClock's today and unpaid: overdue at request time.
    const late = await invoice("Late Payer GmbH", "2025-05-20", { contact_id: contact.id });
    const current = await invoice("On Time Ltd", "2025-07-01");
    await invoice("Draft Bistro", "2025-08-01", { status: "draft" });

    const owner = await signedInMember(t, org.id, "owner");
    const tab = await browser.openTab();
    const { page } = tab;
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await signInTab(tab, base, owner);

    await page.goto(`${base}/data`);
    await page.getByRole("link", { name: "Invoices" }).click();
    await page.getByLabel("Status").selectOption("overdue");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(/\/data\/invoices\?status=overdue$/);
    await page.getByText("Showing 1–1 of 1").waitFor();
    expect(await page.getByRole("link", { name: late.number }).count()).toBe(1);
    expect(await page.getByRole("link", { name: current.number }).count()).toBe(0);
    await tab.screenshot("dashboard-data-invoices", { fullPage: true });

    await page.getByRole("link", { name: late.number }).click();
    await page.getByRole("heading", { name: `Invoice ${late.number}` }).waitFor();
    // Its contact's name is shown as written, not run.
    expect(await page.getByRole("link", { name: EVIL }).count()).toBe(1);
    expect(await page.getByLabel("Amount (EUR)").inputValue()).toBe("250");
    await tab.screenshot("dashboard-data-invoice", { fullPage: true });
    await page.getByRole("button", { name: "Record payment" }).click();
    await page.getByText("invoice.paid", { exact: true }).waitFor();
    expect(await page.locator(".data-head .badge").textContent()).toBe("paid");
    const paid = await t.request("GET", `/v1/invoices/${late.id}`, { key: org.key });
    expect(paid.body).toMatchObject({ status: "paid", amount_paid: 250 });

    await page.goto(`${base}/data/contacts`);
    await page.getByRole("link", { name: EVIL }).waitFor();
    expect(await page.locator("img").count()).toBe(0);

    expect(dialogs).toEqual([]);
    expect(tab.errors).toEqual([]);
    expect(await tab.cspViolations()).toEqual([]);
    expect(tab.blocked).toEqual([]);
  });

  it("creates an invoice with line items on a phone, an error shown at its field first", async () => {
    const base = await baseUrlOf(t);
    const org = await t.newOrg();
    const owner = await signedInMember(t, org.id, "owner");
    const tab = await browser.openTab();
    const { page } = tab;
    await page.setViewportSize({ width: 390, height: 844 });
    // Wide tables scroll inside their wrapper; the page itself never scrolls sideways.
    const sidewaysOverflow = () =>
      page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
    await signInTab(tab, base, owner);

    await page.goto(`${base}/data/invoices`);
    await page.getByRole("link", { name: "New invoice" }).click();
    await page.getByLabel("Client").fill("Corner Café");
    await page.getByLabel("Currency").fill("eur");
    await page.getByLabel("Due date").fill("2025-07-31");
    await page.getByLabel("Line items, row 1: Description").fill("Espresso beans");
    await page.getByLabel("Line items, row 1: Quantity").fill("3");
    await page.getByLabel("Line items, row 1: Unit price").fill("18.5");
    await page.getByRole("button", { name: "Create invoice" }).click();
    await page.locator("#currency-error").waitFor();
    expect(await page.locator("#currency-error").textContent()).toContain("ISO 4217");
    // What was typed is still there.
    expect(await page.getByLabel("Line items, row 1: Unit price").inputValue()).toBe("18.5");
    await tab.screenshot("dashboard-data-invoice-new-phone", { fullPage: true });
    expect(await sidewaysOverflow()).toBeLessThanOrEqual(0);

    await page.getByLabel("Currency").fill("EUR");
    await page.getByRole("button", { name: "Create invoice" }).click();
    await page.getByRole("heading", { name: /^Invoice INV-/ }).waitFor();
    expect(await page.locator("dd", { hasText: "55.5" }).count()).toBeGreaterThan(0);
    expect(await sidewaysOverflow()).toBeLessThanOrEqual(0);
    await tab.screenshot("dashboard-data-invoice-phone", { fullPage: true });

    // Chromium logs the refused form's own 422 answer as a failed load; nothing else may appear.
    expect(tab.errors.filter((error) => !error.includes("status of 422"))).toEqual([]);
    expect(await tab.cspViolations()).toEqual([]);
    expect(tab.blocked).toEqual([]);
  });
});

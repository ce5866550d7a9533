import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { beforeAll, expect, it } from "vitest";
import { seedDemo } from "../../engines/index.ts";
import { useTestApp } from "../helpers/app.ts";
import { signedInMember, type TestMember } from "../helpers/members.ts";
import { storeKinds } from "../helpers/stores.ts";
import { baseUrlOf, describeBrowser, signInTab, useBrowser } from "./browser.ts";

/** axe-core, the accessibility engine, evaluated in the page (not as a tag: the page's CSP allows none). */
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface AxeViolation {
  id: string;
  impact: "minor" | "moderate" | "serious" | "critical" | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** The page's serious and critical WCAG 2.1 A/AA violations, by axe-core. */
async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(`${AXE}\n;0`);
  const violations = await page.evaluate<AxeViolation[]>(
    `axe.run(document, { runOnly: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] }).then((r) => r.violations)`,
  );
  return violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
}

/**
 * Every page of the dashboard, signed in as an owner of an organization with demo data, light and
 * dark, checked by axe-core against WCAG 2 A and AA: no serious or critical violation. A page that
 * fails names the rule and the elements.
 */
describeBrowser("the dashboard's accessibility (axe-core)", () => {
  const t = useTestApp(storeKinds()[0]!, { http: true });
  const browser = useBrowser();

  let pages: string[] = [];
  let owner: TestMember;
  beforeAll(async () => {
    const org = await t.newOrg();
    await seedDemo(t.store, t.clock, org.id);
    owner = await signedInMember(t, org.id, "owner");
    const first = async (resource: string) => {
      const listed = await t.request("GET", `/v1/${resource}?per_page=1`, { key: org.key });
      expect(listed.status, listed.text).toBe(200);
      return listed.body.data[0].id as string;
    };
    pages = [
      "/",
      "/data",
      "/data/invoices",
      "/data/invoices?status=overdue",
      `/data/invoices/${await first("invoices")}`,
      "/data/invoices/new",
      `/data/contacts/${await first("contacts")}/edit`,
      "/webhooks",
      "/webhooks/new",
      "/functions",
      "/functions/new",
      "/events",
      "/sync",
      "/settings/api-keys",
      "/settings/members",
      "/settings/sessions",
      "/settings/organization",
      "/settings/integrations",
      "/settings/audit-log",
    ];
  });

  it.each(["light", "dark"] as const)(
    "finds no serious or critical violation on any page, %s",
    async (scheme) => {
      const base = await baseUrlOf(t);
      const found: string[] = [];
      const tab = await browser.openTab();
      await tab.page.emulateMedia({ colorScheme: scheme });
      await signInTab(tab, base, owner);
      for (const path of pages) {
        const response = await tab.page.goto(`${base}${path}`);
        if (response?.status() !== 200) {
          found.push(`${path}: answered ${response?.status()}`);
          continue;
        }
        if (path === "/") await tab.screenshot(`dashboard-overview-${scheme}`, { fullPage: true });
        for (const violation of await axeViolations(tab.page)) {
          const where = violation.nodes.map((node) => node.target.join(" ")).join(", ");
          found.push(`${path}: ${violation.id} (${violation.impact}) ${violation.help} at ${where}`);
        }
      }
      found.push(...tab.errors);
      await tab.context.close();
      expect(found).toEqual([]);
    },
    120_000,
  );

  it("serves a signed-out visitor an accessible sign-in page", async () => {
    const base = await baseUrlOf(t);
    const tab = await browser.openTab();
    await tab.page.goto(`${base}/sign-in`);
    expect(await axeViolations(tab.page)).toEqual([]);
    await tab.context.close();
  });
});

import { expect, it } from "vitest";
import { useTestApp } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";
import { baseUrlOf, describeBrowser, useBrowser } from "./browser.ts";

describeBrowser("the API reference at /docs in Chromium", () => {
  const t = useTestApp(storeKinds()[0]!, { http: true });
  const browser = useBrowser();

  it("renders the operations from this server alone, with nothing the page's policy refuses", async () => {
    const base = await baseUrlOf(t);
    const tab = await browser.openTab();
    const requested: string[] = [];
    tab.page.on("request", (request) => requested.push(request.url()));

    await tab.page.goto(`${base}/docs`);
    const listInvoices = tab.page.locator(
      '.opblock-get:has(.opblock-summary-path[data-path="/v1/invoices"])',
    );
    await listInvoices.locator(".opblock-summary").waitFor();
    await tab.screenshot("docs");
    // Opening an operation renders its parameters, examples and schemas: more of Swagger UI's styles.
    await listInvoices.locator(".opblock-summary-control").click();
    await listInvoices.locator(".responses-wrapper").waitFor();
    await listInvoices.scrollIntoViewIfNeeded();
    await tab.screenshot("docs-list-invoices");

    expect(tab.blocked).toEqual([]);
    expect(tab.errors).toEqual([]);
    expect(await tab.cspViolations()).toEqual([]);
    expect(requested.filter((url) => !url.startsWith(`${base}/`))).toEqual([]);
    expect(requested).toContain(`${base}/v1/openapi.json`);
    expect(await tab.page.title()).toBe("Tessera API reference");
  });

  it("runs Try it out against this server with the key given to Authorize", async () => {
    const base = await baseUrlOf(t);
    const org = await t.newOrg();
    const tab = await browser.openTab();
    await tab.page.goto(`${base}/docs`);
    const listInvoices = tab.page.locator(
      '.opblock-get:has(.opblock-summary-path[data-path="/v1/invoices"])',
    );
    await tab.page.locator(".auth-wrapper .authorize").click();
    await tab.page.locator(".modal-ux input").fill(org.key);
    await tab.page.locator(".modal-ux .auth-btn-wrapper .authorize").click();
    await tab.page.locator(".modal-ux .btn-done").click();

    await listInvoices.locator(".opblock-summary-control").click();
    await listInvoices.locator(".try-out__btn").click();
    await listInvoices.locator(".execute").click();
    const status = listInvoices.locator(".live-responses-table .response .response-col_status");
    await status.waitFor();
    await status.scrollIntoViewIfNeeded();
    await tab.screenshot("docs-try-it-out");

    expect((await status.innerText()).trim()).toBe("200");
    expect(tab.blocked).toEqual([]);
    expect(tab.errors).toEqual([]);
    expect(await tab.cspViolations()).toEqual([]);
  });

  it("sends the page with a policy that runs no inline script and forbids framing", async () => {
    const response = await t.fetch("/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = directives(response.headers.get("content-security-policy") ?? "");
    expect(csp.get("script-src")).toEqual(["'self'"]);
    expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
    expect([...csp.values()].flat()).not.toContain("'unsafe-eval'");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await response.text()).not.toMatch(/<script(?![^>]*\ssrc=)/);
  });

  it("caches Swagger UI's files for good under their version, and init.js never", async () => {
    const page = await (await t.fetch("/docs")).text();
    const bundle = /src="([^"]*\/swagger-ui-dist@[^"/]+\/swagger-ui-bundle\.js)"/.exec(page)?.[1];
    expect(bundle).toBeDefined();
    const script = await t.fetch(bundle!);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(script.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(script.headers.get("x-content-type-options")).toBe("nosniff");
    await script.arrayBuffer();

    const init = await t.fetch("/docs/assets/init.js");
    expect(init.headers.get("cache-control")).toBe("no-cache");
    expect(await init.text()).toContain(
      'SwaggerUIBundle({ url: "/v1/openapi.json", dom_id: "#swagger-ui" })',
    );

    const otherVersion = await t.fetch("/docs/assets/swagger-ui-dist@0.0.1/swagger-ui-bundle.js");
    expect(otherVersion.status).toBe(404);
    await otherVersion.arrayBuffer();
  });
});

/** A policy's directives, by name (CSP3 §2.2.1: `;`-separated, names case-insensitive). */
function directives(policy: string): Map<string, string[]> {
  const parsed = new Map<string, string[]>();
  for (const directive of policy.split(";")) {
    const [name, ...values] = directive.trim().split(/\s+/);
    if (name) parsed.set(name.toLowerCase(), values);
  }
  return parsed;
}

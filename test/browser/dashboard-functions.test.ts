import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { useTestApp } from "../helpers/app.ts";
import { signedInMember } from "../helpers/members.ts";
import { storeKinds } from "../helpers/stores.ts";
import { baseUrlOf, describeBrowser, signInTab, useBrowser } from "./browser.ts";

/**
 * Dashboard → Functions in Chromium: a folder picked with the folder input (Chromium sends each file
 * under its path in the folder) deploys a function; the request builder invokes it; a line the
 * function logs while the page is open appears without a reload (the live tail); the editor's Tab
 * key indents and Escape, Tab leaves it. No console error, no CSP refusal, nothing leaves the
 * machine. Screenshots: test/browser/screenshots/dashboard-function(s).png.
 */
describeBrowser("dashboard functions in Chromium", () => {
  const t = useTestApp(storeKinds()[0]!, { http: true });
  const browser = useBrowser();
  let folder: string;

  beforeAll(async () => {
    const root = await mkdtemp(join(tmpdir(), "tessera-fn-"));
    folder = join(root, "greeter");
    await mkdir(join(folder, "lib"), { recursive: true });
    await writeFile(
      join(folder, "index.ts"),
      `import { greet } from "./lib/greet.ts";
export default {
  async fetch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    console.log("served", path);
    return new Response(greet(await request.text()));
  },
};
`,
    );
    await writeFile(
      join(folder, "lib", "greet.ts"),
      `export const greet = (who: string) => "hello " + who;\n`,
    );
  });
  afterAll(async () => {
    await rm(join(folder, ".."), { recursive: true, force: true });
  });

  it("deploys a folder, invokes it with the request builder, and follows its logs live", async () => {
    const base = await baseUrlOf(t);
    const org = await t.newOrg();
    const owner = await signedInMember(t, org.id, "owner");
    const tab = await browser.openTab();
    const { page } = tab;
    await signInTab(tab, base, owner);

    await page.goto(`${base}/functions`);
    await page.getByRole("link", { name: "Deploy a function" }).click();
    const uploadForm = page.locator("form.fn-upload");
    await uploadForm.getByLabel("Function name").fill("greeter");
    await page.locator("#fn-folder").setInputFiles(folder);
    await uploadForm.getByRole("button", { name: "Deploy the upload" }).click();
    await page.getByText("Version 1 is deployed").waitFor();
    await page.getByRole("heading", { name: "greeter" }).waitFor();

    await page.getByLabel("Method").selectOption("POST");
    await page.getByLabel("Path").fill("/from-the-builder");
    await page.getByLabel("Body").fill("<builder>");
    await page.getByRole("button", { name: "Send" }).click();
    await page.locator(".fn-response .fn-body").getByText("hello <builder>").waitFor();

    // Logged by a call from elsewhere while the page is open: the tail brings it in.
    const before = await page.locator(".fn-logs li").count();
    const call = await fetch(`${base}/v1/functions/greeter/invoke/live-tail`, {
      method: "POST",
      headers: { authorization: `Bearer ${org.key}` },
      body: "tail",
    });
    expect(await call.text()).toBe("hello tail");
    await page
      .locator(".fn-logs li")
      .filter({ hasText: "served /v1/functions/greeter/invoke/live-tail" })
      .waitFor();
    expect(await page.locator(".fn-logs li").count()).toBeGreaterThan(before);
    expect(await page.locator("#fn-tail-status").textContent()).toBe("Following new lines");
    await tab.screenshot("dashboard-function", { fullPage: true });

    await page.goto(`${base}/functions`);
    await page.getByRole("link", { name: "greeter" }).waitFor();
    await tab.screenshot("dashboard-functions");

    // The editor: Tab indents; Escape, then Tab, moves on.
    await page.goto(`${base}/functions/new`);
    const code = page.locator("#fn-code");
    await code.fill("x");
    await code.press("End");
    await code.press("Tab");
    expect(await code.inputValue()).toBe("x  ");
    await code.press("Escape");
    await code.press("Tab");
    expect(await page.evaluate<string | undefined>("document.activeElement?.id")).toBe("fn-editor-auth");

    expect(tab.blocked).toEqual([]);
    expect(tab.errors).toEqual([]);
    expect(await tab.cspViolations()).toEqual([]);
    await tab.context.close();
  });
});

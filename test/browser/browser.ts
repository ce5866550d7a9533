import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe } from "vitest";
import type { TestApp } from "../helpers/app.ts";

/** Debian's `chromium` package: the browser the tests drive (playwright-core brings none). */
export const CHROMIUM = "/usr/bin/chromium";

/**
 * Headless, and quiet: no GPU, and none of the browser's own traffic (update checks, sync,
 * field trials), so the only requests are the page's. `--no-sandbox`: tests run as root here.
 */
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** Where `tab.screenshot(name)` writes `<name>.png` (git-ignored). */
export const SCREENSHOTS_DIR = fileURLToPath(new URL("./screenshots/", import.meta.url));

const INSTALL = `install it with \`apt-get install chromium\` (Debian/Ubuntu; .ci/run does)`;

/** Why the browser tests cannot run here, or null when Chromium is installed. */
export function chromiumMissing(): string | null {
  return existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM}: ${INSTALL}`;
}

/**
 * `describe` for browser tests. On a developer machine without Chromium (`CI` unset) the
 * suite is skipped with a warning, so `npm test` passes there; in CI it runs and fails,
 * saying what to install: a browser suite never passes there by not running.
 */
export function describeBrowser(name: string, body: () => void): void {
  const missing = chromiumMissing();
  if (missing && !process.env.CI) {
    console.warn(`browser tests skipped (${name}): ${missing}`);
    describe.skip(name, body);
    return;
  }
  describe(name, body);
}

/** Browsers launched and not yet closed: a file that leaves one fails (below). */
export const openBrowsers = new Set<Browser>();

/**
 * Chromium, headless, on a fresh profile: playwright-core makes a temporary user-data dir per
 * launch and deletes it on `close()`. Close it (or use `useBrowser`).
 */
export async function launchChromium(): Promise<Browser> {
  const missing = chromiumMissing();
  if (missing) throw new Error(`browser tests need Chromium: ${missing}`);
  const browser = await chromium
    .launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS })
    .catch((error: unknown) => {
      throw new Error(`Chromium at ${CHROMIUM} did not start (reinstall it: ${INSTALL})`, { cause: error });
    });
  openBrowsers.add(browser);
  browser.on("disconnected", () => openBrowsers.delete(browser));
  return browser;
}

// Like test/setup.ts for apps and sockets: the file that leaves a browser open fails, and the
// browser is closed so the worker can exit. Registered when a test file imports this module.
afterAll(async () => {
  const left = [...openBrowsers];
  if (left.length === 0) return;
  await Promise.all(left.map((browser) => browser.close()));
  throw new Error(`${left.length} browser(s) left open: close them (useBrowser does)`);
});

/** A CSP violation the page reported (`securitypolicyviolation`, CSP3 §5.3). */
export interface CspViolation {
  directive: string;
  blocked: string;
  sample: string;
}

/** A page in a context of its own, offline but for 127.0.0.1, that records what went wrong. */
export interface BrowserTab {
  page: Page;
  context: BrowserContext;
  /** URLs the page tried to reach on any other host: aborted, so nothing leaves the machine. */
  blocked: string[];
  /** Console errors (a CSP refusal, a failed load) and uncaught exceptions, in order. */
  errors: string[];
  cspViolations(): Promise<CspViolation[]>;
  /** Saves what the viewport shows (or the whole page) as `SCREENSHOTS_DIR/<name>.png`; returns the path. */
  screenshot(name: string, options?: { fullPage?: boolean }): Promise<string>;
}

// Runs in the page before its own scripts (Playwright injects it past the page's CSP).
const RECORD_CSP_VIOLATIONS = `
  window.__cspViolations = [];
  document.addEventListener("securitypolicyviolation", (event) => {
    window.__cspViolations.push({
      directive: event.effectiveDirective,
      blocked: event.blockedURI,
      sample: event.sample,
    });
  });
`;

/** Opens a tab as described by `BrowserTab`. Each has its own context: no cookie or storage is shared. */
export async function openTab(browser: Browser): Promise<BrowserTab> {
  // Service workers would fetch past `route`: none are allowed.
  const context = await browser.newContext({ serviceWorkers: "block" });
  const blocked: string[] = [];
  const errors: string[] = [];
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (new URL(url).hostname === "127.0.0.1") return route.continue();
    blocked.push(url);
    return route.abort("blockedbyclient");
  });
  await context.addInitScript({ content: RECORD_CSP_VIOLATIONS });
  const page = await context.newPage();
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => errors.push(`uncaught: ${error.message}`));
  return {
    page,
    context,
    blocked,
    errors,
    cspViolations: () => page.evaluate<CspViolation[]>("window.__cspViolations ?? []"),
    screenshot: async (name, options = {}) => {
      await mkdir(SCREENSHOTS_DIR, { recursive: true });
      const path = `${SCREENSHOTS_DIR}${name}.png`;
      await page.screenshot({ path, fullPage: options.fullPage ?? false, type: "png" });
      return path;
    },
  };
}

/**
 * A file's Chromium: launched before the suite's tests, closed after them.
 *
 * @example
 *   describeBrowser("the dashboard", () => {
 *     const t = useTestApp(storeKinds()[0]!, { http: true });
 *     const browser = useBrowser();
 *     it("shows the invoices", async () => {
 *       const tab = await browser.openTab();
 *       await tab.page.goto(`${await baseUrlOf(t)}/dashboard`);
 *       …
 *       expect(tab.blocked).toEqual([]);
 *     });
 *   });
 */
export function useBrowser(): { openTab(): Promise<BrowserTab> } {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    openTab: () => {
      if (!browser) throw new Error("useBrowser: the browser exists from the suite's beforeAll on");
      return openTab(browser);
    },
  };
}

/**
 * The origin (`http://127.0.0.1:<port>`) of an app made with `useTestApp(kind, { http: true })`.
 * Its server starts on its first request, and a fetched response's URL names the port.
 */
export async function baseUrlOf(t: TestApp): Promise<string> {
  const response = await t.fetch("/healthz");
  await response.arrayBuffer();
  if (!response.url.startsWith("http://127.0.0.1:")) {
    throw new Error("baseUrlOf: the app serves no socket; make it with useTestApp(kind, { http: true })");
  }
  return new URL(response.url).origin;
}

/**
 * Gives the tab's context the member's session cookie, so its pages open signed in (the sign-in page
 * has its own test).
 *
 * @example
 *   const owner = await signedInMember(t, org.id, "owner");
 *   const tab = await browser.openTab();
 *   await signInTab(tab, base, owner);
 *   await tab.page.goto(`${base}/data/invoices`);
 */
export async function signInTab(tab: BrowserTab, base: string, member: { token: string }): Promise<void> {
  await tab.context.addCookies([
    { name: "tessera_session", value: member.token, url: base, httpOnly: true, sameSite: "Lax" },
  ]);
}

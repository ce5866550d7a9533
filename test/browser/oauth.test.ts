import * as oauth from "oauth4webapi";
import { expect, it } from "vitest";
import { useTestApp } from "../helpers/app.ts";
import { signedInMember } from "../helpers/members.ts";
import { storeKinds } from "../helpers/stores.ts";
import { baseUrlOf, describeBrowser, signInTab, useBrowser } from "./browser.ts";

const INSECURE = { [oauth.allowInsecureRequests]: true } as const;

/**
 * OAuth as people meet it, in Chromium: an owner registers an app in Settings → Integrations (its
 * secret shown once); the app sends a signed-out browser to the authorization endpoint, which goes
 * through the dashboard's sign-in and back to the consent page; Approve lands on the app's redirect
 * URI with a code that oauth4webapi exchanges for a token that reads overdue invoices; Disconnect in
 * Settings stops it. No console error, no CSP violation, nothing leaves the machine. Screenshot:
 * test/browser/screenshots/dashboard-oauth-consent.png.
 */
describeBrowser("OAuth consent in Chromium", () => {
  const t = useTestApp(storeKinds()[0]!, { http: true });
  const browser = useBrowser();

  it("registers an app, consents through sign-in, and disconnects it", async () => {
    const base = await baseUrlOf(t);
    const org = await t.newOrg();
    const owner = await signedInMember(t, org.id, "owner");
    await t.request("POST", "/v1/invoices", {
      key: org.key,
      body: { client: "Acme", currency: "EUR", amount: 90, due_date: "2020-02-01" },
    });
    // The app's redirect URI: a page of this server (a loopback http URI is allowed, RFC 8252 §7.3).
    const redirectUri = `${base}/healthz`;

    const settings = await browser.openTab();
    await signInTab(settings, base, owner);
    await settings.page.goto(`${base}/settings/integrations`);
    await settings.page.getByLabel("Name").fill("Ledger Sync");
    await settings.page.getByLabel(/Redirect URIs/).fill(redirectUri);
    await settings.page.getByLabel("finance:read").check();
    await settings.page.getByRole("button", { name: "Register app" }).click();
    const secret = (await settings.page.locator("#new-secret").textContent())!.trim();
    const clientId = (await settings.page.locator(".notice code").textContent())!.trim();
    expect(secret).toMatch(/^ocs_/);

    const issuer = new URL(`${base}/oauth`);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...INSECURE }),
    );
    const client = { client_id: clientId };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorize = new URL(as.authorization_endpoint!);
    authorize.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: "code",
      scope: "finance:read",
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    }).toString();

    const tab = await browser.openTab();
    const { page } = tab;
    await page.goto(authorize.href);
    await page.getByLabel("Email").fill(owner.email);
    await page.getByLabel("Password").fill(owner.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: `Ledger Sync wants access to ${org.name}` }).waitFor();
    expect(await page.getByText("Finance: invoices, products and payments").count()).toBe(1);
    await tab.screenshot("dashboard-oauth-consent");
    await page.getByRole("button", { name: "Approve" }).click();
    await page.waitForURL((url) => url.pathname === "/healthz");

    const params = oauth.validateAuthResponse(as, client, new URL(page.url()), state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.ClientSecretBasic(secret),
        params,
        redirectUri,
        verifier,
        INSECURE,
      ),
    );
    const bearer = { headers: { authorization: `Bearer ${tokens.access_token}` } };
    const overdue = await fetch(`${base}/v1/invoices?status=overdue`, bearer);
    expect(overdue.status).toBe(200);
    expect(((await overdue.json()) as { data: unknown[] }).data).toHaveLength(1);

    await settings.page.goto(`${base}/settings/integrations`);
    await settings.page.getByRole("button", { name: "Disconnect Ledger Sync" }).click();
    await settings.page.getByText("No app has access to this organization.").waitFor();
    expect((await fetch(`${base}/v1/me`, bearer)).status).toBe(401);

    for (const opened of [settings, tab]) {
      expect(opened.errors).toEqual([]);
      expect(opened.blocked).toEqual([]);
      expect(await opened.cspViolations()).toEqual([]);
    }
  });
});

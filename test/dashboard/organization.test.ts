import { describe, expect, it } from "vitest";
import { randomBase62 } from "../../core/index.ts";
import { useTestApp } from "../helpers/app.ts";
import { signedInMember } from "../helpers/members.ts";
import { storeKinds } from "../helpers/stores.ts";

/** Settings → Organization: name, id, plan and its rate limit; only an owner renames. */
describe.each(storeKinds())("Settings → Organization on $name", (kind) => {
  const t = useTestApp(kind);
  const post = (path: string, fields: Record<string, string>, cookie: string) =>
    t.request("POST", path, {
      raw: new URLSearchParams(fields).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    });

  it("shows the plan's rate limit and lets an owner rename, keeping a refused name at the field", async () => {
    const org = await t.newOrg({ plan: "pro" });
    const other = await t.newOrg();
    const owner = await signedInMember(t, org.id, "owner");
    const shown = await t.request("GET", "/settings/organization", { headers: { cookie: owner.cookie } });
    expect(shown.status).toBe(200);
    expect(shown.text).toContain(org.id);
    const { limit, window_s } = t.config.rateLimits.pro;
    expect(shown.text).toContain(`${limit.toLocaleString("en")} requests per ${window_s} s`);

    const bad = await post("/settings/organization", { _csrf: owner.csrf, name: "<b>no</b>" }, owner.cookie);
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('value="&lt;b&gt;no&lt;/b&gt;"');
    expect(bad.text).toMatch(/id="name-error"[^>]*>must be 1-63 letters/);

    const taken = await post("/settings/organization", { _csrf: owner.csrf, name: other.name }, owner.cookie);
    expect(taken.status).toBe(409);
    expect(taken.text).toContain(`An organization named &#39;${other.name}&#39; exists`);

    const name = `Renamed ${randomBase62(6)}`;
    const renamed = await post("/settings/organization", { _csrf: owner.csrf, name }, owner.cookie);
    expect(renamed.status).toBe(303);
    const me = await t.request("GET", "/v1/me", { headers: { cookie: owner.cookie } });
    expect(me.body.organization.name).toBe(name);
    const page = await t.request("GET", "/settings/organization", { headers: { cookie: owner.cookie } });
    expect(page.text).toContain(`<dd>${name}</dd>`);
  });

  it("shows an admin no rename form and refuses its post", async () => {
    const org = await t.newOrg();
    const admin = await signedInMember(t, org.id, "admin");
    const shown = await t.request("GET", "/settings/organization", { headers: { cookie: admin.cookie } });
    expect(shown.text).not.toContain("Rename");
    const tried = await post(
      "/settings/organization",
      { _csrf: admin.csrf, name: "Taken Over" },
      admin.cookie,
    );
    expect(tried.status).toBe(403);
    const missingCsrf = await post("/settings/organization", { name: "Taken Over" }, admin.cookie);
    expect(missingCsrf.status).toBe(403);
  });
});

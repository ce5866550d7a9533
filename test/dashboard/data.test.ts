import { beforeAll, describe, expect, it } from "vitest";
import { useTestApp, type TestOrg, type TestResponse } from "../helpers/app.ts";
import { signedInMember, type TestMember } from "../helpers/members.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * Data pages through the app, as a browser's forms and links use them: tables that take exactly the
 * API's list parameters (a bad one is the API's 400 and message), record pages with related records
 * and history, forms whose errors show at the field with the entered values kept, state transitions
 * as buttons through the same services as /v1, what a viewer may not do, CSRF, and escaping.
 * test/browser/dashboard-data.test.ts drives the same pages in Chromium.
 */
describe.each(storeKinds())("the Data pages on $name", (kind) => {
  const t = useTestApp(kind);
  let org: TestOrg;
  let owner: TestMember;
  let viewer: TestMember;

  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  const get = (path: string, member: TestMember = owner) =>
    t.request("GET", path, { headers: { cookie: member.cookie } });
  /** A form post with the member's CSRF token, unless the fields carry their own `_csrf`. */
  const post = (path: string, fields: Record<string, string>, member: TestMember = owner) =>
    t.request("POST", path, {
      raw: form({ _csrf: member.csrf, ...fields }),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: member.cookie },
    });
  const v1 = async (method: string, path: string, body?: unknown) => {
    const response = await t.request(method, `/v1${path}`, { key: org.key, body });
    expect(response.status, response.text).toBeLessThan(300);
    return response.body as { id: string } & Record<string, unknown>;
  };
  /** The id a create redirected to (`/data/invoices/inv_…`). */
  const createdId = (response: TestResponse) => {
    expect(response.status, response.text).toBe(303);
    return response.headers.get("location")!.split("/").pop()!;
  };
  /** Markup's text as read: hono/html escapes `'` and the like in every value. */
  const unescape = (text: string) =>
    text
      .replaceAll("&#39;", "'")
      .replaceAll("&quot;", '"')
      .replaceAll("&lt;", "<")
      .replaceAll("&gt;", ">")
      .replaceAll("&amp;", "&");
  /** The text of the element with this id (a field's error paragraph, say). */
  const byId = (text: string, id: string) => {
    const found = new RegExp(`id="${id.replace(/[[\].]/g, "\\$&")}"[^>]*>([^<]*)<`).exec(text)?.[1];
    return found === undefined ? undefined : unescape(found.trim());
  };

  let contact: { id: string };
  let overdue: { id: string; number: string };
  let open: { id: string; number: string };

  beforeAll(async () => {
    t.clock.set("2025-06-10T09:00:00Z");
    org = await t.newOrg();
    owner = await signedInMember(t, org.id, "owner");
    viewer = await signedInMember(t, org.id, "viewer");
    contact = await v1("POST", "/contacts", { name: "Acme Ltd", email: "ap@acme.example" });
    const invoice = (client: string, due_date: string, extra: object = {}) =>
      v1("POST", "/invoices", { client, currency: "EUR", amount: "120.50", due_date, ...extra });
    overdue = (await invoice("Late Co", "2025-06-01")) as typeof overdue;
    open = (await invoice("Acme Ltd", "2025-07-01", { contact_id: contact.id })) as typeof open;
    await invoice("Draft Co", "2025-08-01", { status: "draft" });
    await v1("POST", "/payments", { invoice_id: open.id, amount: "20.50", method: "card" });
  });

  it("lists every engine's resources with their totals", async () => {
    const index = await get("/data");
    expect(index.status).toBe(200);
    expect(index.text).toContain('href="/data/invoices"');
    expect(index.text).toContain('href="/data/candidates"');
    expect(index.text).toMatch(/Invoices<\/a>\s*<span class="muted">3<\/span>/);
  });

  it("filters, sorts and pages a table with the API's own parameters", async () => {
    const late = await get("/data/invoices?status=overdue");
    expect(late.status).toBe(200);
    expect(late.text).toContain(overdue.number);
    expect(late.text).not.toContain(open.number);
    expect(late.text).toContain("Showing 1–1 of 1");
    // The filter form shows the value it was given.
    expect(late.text).toMatch(/<option\s+selected\s*>overdue<\/option>/);

    const byNumber = await get("/data/invoices?sort=number");
    const ascending = [
      ...byNumber.text.matchAll(/<th scope="row">\s*<a href="\/data\/invoices\/(inv_\w+)"/g),
    ];
    const byNumberDown = await get("/data/invoices?sort=-number");
    const descending = [
      ...byNumberDown.text.matchAll(/<th scope="row">\s*<a href="\/data\/invoices\/(inv_\w+)"/g),
    ];
    expect(ascending.map((m) => m[1])).toEqual(descending.map((m) => m[1]).reverse());
    // The sorted column's header links to the other direction, keeping the filters.
    const sorted = await get("/data/invoices?currency=EUR&sort=number");
    expect(sorted.text).toContain('href="/data/invoices?currency=EUR&amp;sort=-number"');
    expect(sorted.text).toContain('aria-sort="ascending"');

    const second = await get("/data/invoices?per_page=2&page=2");
    expect(second.text).toContain("Showing 3–3 of 3");
    expect(second.text).toContain('rel="prev" href="/data/invoices?per_page=2"');
    const first = await get("/data/invoices?per_page=2");
    expect(first.text).toContain('rel="next" href="/data/invoices?per_page=2&amp;page=2"');

    const search = await get("/data/invoices?q=draft");
    expect(search.text).toContain("Showing 1–1 of 1");
  });

  it("drops a filter form's blank fields by redirecting to the bookmarkable URL", async () => {
    const submitted = await get("/data/invoices?q=&status=overdue&currency=&per_page=");
    expect(submitted.status).toBe(303);
    expect(submitted.headers.get("location")).toBe("/data/invoices?status=overdue");
  });

  it("answers a bad parameter with the API's 400 and message, at its filter", async () => {
    const bad = await get("/data/invoices?status=late");
    expect(bad.status).toBe(400);
    const api = await t.request("GET", "/v1/invoices?status=late", { key: org.key });
    expect(unescape(bad.text)).toContain(api.body.detail as string);
    expect(byId(bad.text, "filter-status-error")).toBe(api.body.errors[0].message);
    expect((await get("/data/invoices?colour=red")).text).toContain("colour: is not a known parameter");
    expect((await get("/data/invoices?sort=colour")).status).toBe(400);
    expect((await get("/data/nothing")).status).toBe(404);
  });

  it("shows a record with the records it names, those naming it, and its history", async () => {
    const page = await get(`/data/invoices/${open.id}`);
    expect(page.status).toBe(200);
    // Its contact, by name; its payments; its events.
    expect(page.text).toContain(`<a href="/data/contacts/${contact.id}">Acme Ltd</a>`);
    expect(page.text).toMatch(/id="related-payments">Payments <span class="muted">1<\/span>/);
    expect(page.text).toContain("20.5");
    expect(page.text).toContain("<code>invoice.created</code>");
    expect(page.text).toContain("<code>invoice.partially_paid</code>");
    expect(page.text).toContain("Amount paid: 0 → 20.5");
    // The contact's page lists its invoices.
    const person = await get(`/data/contacts/${contact.id}`);
    expect(person.text).toContain(`href="/data/invoices/${open.id}"`);
    expect(person.text).toContain(`href="/data/deals/new?contact_id=${contact.id}"`);
    expect((await get("/data/invoices/inv_doesnotexist")).status).toBe(404);
  });

  it("shows a create form's errors at their fields, keeps what was entered, then creates", async () => {
    const blank = await get("/data/invoices/new");
    expect(blank.status).toBe(200);
    expect(blank.text).toContain('name="line_items[2].unit_price"');
    // The contact is a choice of the organization's contacts.
    expect(blank.text).toMatch(new RegExp(`<option value="${contact.id}"\\s*>\\s*Acme Ltd\\s*</option>`));

    const wrong = await post("/data/invoices/new", {
      client: "Bistro <Nord>",
      currency: "eur",
      due_date: "2025-07-15",
      "line_items[0].description": "Catering",
      "line_items[0].quantity": "two",
      "line_items[0].unit_price": "40",
      metadata: "po=77\nnot a pair",
    });
    expect(wrong.status).toBe(422);
    expect(byId(wrong.text, "currency-error")).toMatch(/ISO 4217/);
    expect(byId(wrong.text, "line_items[0].quantity-error")).toBe("must be a decimal number");
    expect(byId(wrong.text, "metadata-error")).toMatch(/key=value/);
    // Nothing lost: every value is back in its field (escaped).
    expect(wrong.text).toContain('value="Bistro &lt;Nord&gt;"');
    expect(wrong.text).toContain('value="eur"');
    expect(wrong.text).toContain('value="two"');
    expect(wrong.text).toContain("po=77\nnot a pair</textarea>");

    // A refusal of the service (not the schema) shows at its field too.
    const mismatch = await post("/data/invoices/new", {
      client: "Bistro Nord",
      currency: "EUR",
      due_date: "2025-07-15",
      amount: "99",
      "line_items[1].quantity": "2",
      "line_items[1].unit_price": "40",
    });
    expect(mismatch.status).toBe(422);
    expect(byId(mismatch.text, "amount-error")).toBe("line_items total 80");

    const made = await post("/data/invoices/new", {
      client: "Bistro Nord",
      currency: "EUR",
      due_date: "2025-07-15",
      status: "draft",
      // A blank row in between is skipped.
      "line_items[0].description": "Catering",
      "line_items[0].quantity": "2",
      "line_items[0].unit_price": "40",
      "line_items[2].description": "Delivery",
      "line_items[2].quantity": "1",
      "line_items[2].unit_price": "12.5",
      metadata: "po=77",
    });
    const id = createdId(made);
    const created = await v1("GET", `/invoices/${id}`);
    expect(created).toMatchObject({
      client: "Bistro Nord",
      amount: 92.5,
      status: "draft",
      metadata: { po: "77" },
    });
    expect(created.line_items).toHaveLength(2);
  });

  it("edits only what changed, with the same errors at the field", async () => {
    const invoice = await v1("POST", "/invoices", {
      client: "Edit Me",
      currency: "EUR",
      due_date: "2025-09-01",
      line_items: [{ description: "Work", quantity: 3, unit_price: 100 }],
      metadata: { keep: "1", drop: "2" },
    });
    const edit = await get(`/data/invoices/${invoice.id}/edit`);
    expect(edit.status).toBe(200);
    expect(edit.text).toContain('value="Edit Me"');
    expect(edit.text).toMatch(/name="line_items\[0\]\.quantity"[^>]*value="3"/);
    // The status is changed by the record page's buttons, not here.
    expect(edit.text).not.toContain('name="status"');
    const fields = {
      number: invoice.number as string,
      client: "Edited Ltd",
      contact_id: "",
      amount: "300",
      currency: "EUR",
      due_date: "2025-09-01",
      description: "",
      "line_items[0].product_id": "",
      "line_items[0].description": "Work",
      "line_items[0].quantity": "3",
      "line_items[0].unit_price": "100",
      metadata: "keep=1",
    };
    const bad = await post(`/data/invoices/${invoice.id}/edit`, { ...fields, due_date: "2025-02-30" });
    expect(bad.status).toBe(422);
    expect(byId(bad.text, "due_date-error")).toBe("is not a real calendar date");
    expect(bad.text).toContain('value="Edited Ltd"');

    expect(createdId(await post(`/data/invoices/${invoice.id}/edit`, fields))).toBe(invoice.id);
    const edited = await v1("GET", `/invoices/${invoice.id}`);
    expect(edited).toMatchObject({ client: "Edited Ltd", amount: 300, metadata: { keep: "1" } });
  });

  it("issues, pays and voids an invoice with buttons, offering only the moves allowed", async () => {
    const draft = await v1("POST", "/invoices", {
      client: "Buttons",
      currency: "EUR",
      amount: 50,
      due_date: "2025-07-01",
      status: "draft",
    });
    const page = await get(`/data/invoices/${draft.id}`);
    expect(page.text).toContain(">Issue</button>");
    expect(page.text).not.toContain(">Record payment</button>");
    createdId(await post(`/data/invoices/${draft.id}/move`, { to: "open" }));
    expect((await v1("GET", `/invoices/${draft.id}`)).status).toBe("open");

    const issued = await get(`/data/invoices/${draft.id}`);
    expect(issued.text).not.toContain(">Issue</button>");
    expect(issued.text).toContain('id="pay-amount" name="amount" value="50"');
    // Too much: the payments service's message, at the amount.
    const over = await post(`/data/invoices/${draft.id}/move`, { to: "paid", amount: "80", method: "cash" });
    expect(over.status).toBe(422);
    expect(byId(over.text, "amount-error")).toBe("at most 50");
    expect(over.text).toContain('id="pay-amount" name="amount" value="80"');
    createdId(await post(`/data/invoices/${draft.id}/move`, { to: "paid", amount: "50", method: "cash" }));
    const paid = await v1("GET", `/invoices/${draft.id}`);
    expect(paid).toMatchObject({ status: "paid", amount_paid: 50 });
    const payments = await v1("GET", `/payments?invoice_id=${draft.id}`);
    expect((payments as unknown as { data: unknown[] }).data).toHaveLength(1);
    // A paid invoice is final: no buttons, and a forged move is the state machine's 409.
    expect((await get(`/data/invoices/${draft.id}`)).text).not.toContain(
      'action="/data/invoices/' + draft.id + '/move"',
    );
    const refused = await post(`/data/invoices/${draft.id}/move`, { to: "void" });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain("Invoice is paid; it cannot become void");

    createdId(await post(`/data/invoices/${overdue.id}/move`, { to: "void" }));
    expect((await v1("GET", `/invoices/${overdue.id}`)).status).toBe("void");
  });

  it("moves a deal through its stages, a candidate through its statuses, and verifies a skill", async () => {
    const deal = await v1("POST", "/deals", {
      title: "Big one",
      value: 1000,
      currency: "EUR",
      contact_id: contact.id,
    });
    const lead = await get(`/data/deals/${deal.id}`);
    expect(lead.text).toContain(">Move to qualified</button>");
    expect(lead.text).not.toContain(">Mark won</button>");
    createdId(await post(`/data/deals/${deal.id}/move`, { to: "proposal" }));
    createdId(await post(`/data/deals/${deal.id}/move`, { to: "won" }));
    expect((await v1("GET", `/deals/${deal.id}`)).stage).toBe("won");
    expect((await get(`/data/deals/${deal.id}`)).text).toContain("<code>deal.won</code>");

    const candidate = await v1("POST", "/candidates", {
      name: "Cleo",
      email: "cleo@example.com",
      position: "Chef",
    });
    expect((await get(`/data/candidates/${candidate.id}`)).text).not.toContain(">Hire</button>");
    createdId(await post(`/data/candidates/${candidate.id}/move`, { to: "screening" }));
    expect((await v1("GET", `/candidates/${candidate.id}`)).status).toBe("screening");
    const skipped = await post(`/data/candidates/${candidate.id}/move`, { to: "hired" });
    expect(skipped.status).toBe(409);

    const skill = await v1("POST", "/skills", { candidate_id: candidate.id, name: "Pastry" });
    expect((await get(`/data/candidates/${candidate.id}`)).text).toContain(`href="/data/skills/${skill.id}"`);
    createdId(await post(`/data/skills/${skill.id}/move`, { to: "verified" }));
    expect(await v1("GET", `/skills/${skill.id}`)).toMatchObject({
      status: "verified",
      verified_by: expect.stringMatching(/^owner \d+$/) as string,
    });
    expect((await get(`/data/skills/${skill.id}`)).text).not.toContain(">Verify</button>");
  });

  it("deletes after a confirmation, and shows why when the resource refuses", async () => {
    const product = await v1("POST", "/products", { name: "Old mug", price: 4, currency: "EUR" });
    const confirm = await get(`/data/products/${product.id}/delete`);
    expect(confirm.text).toContain(">Delete Old mug</button>");
    const gone = await post(`/data/products/${product.id}/delete`, {});
    expect(gone.status).toBe(303);
    expect(gone.headers.get("location")).toBe("/data/products");
    expect((await t.request("GET", `/v1/products/${product.id}`, { key: org.key })).status).toBe(404);

    const refused = await post(`/data/invoices/${open.id}/delete`, {});
    expect(refused.status).toBe(409);
    expect(refused.text).toContain("only drafts can be deleted");
  });

  it("shows a viewer no way to write, and refuses its posts", async () => {
    const page = await get(`/data/invoices/${open.id}`, viewer);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain("/move");
    expect(page.text).not.toContain(`/data/invoices/${open.id}/edit`);
    expect((await get("/data/invoices", viewer)).text).not.toContain('href="/data/invoices/new"');
    expect((await get("/data/invoices/new", viewer)).status).toBe(403);
    expect((await get(`/data/invoices/${open.id}/edit`, viewer)).status).toBe(403);
    expect((await post(`/data/invoices/${open.id}/move`, { to: "void" }, viewer)).status).toBe(403);
    expect((await post("/data/contacts/new", { name: "Sneaky" }, viewer)).status).toBe(403);
    expect((await post(`/data/invoices/${open.id}/delete`, {}, viewer)).status).toBe(403);
    expect((await v1("GET", `/invoices/${open.id}`)).status).toBe("open");
  });

  it("refuses a form without the session's CSRF token", async () => {
    const forged = (path: string, fields: Record<string, string>) =>
      t.request("POST", path, {
        raw: form(fields),
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: owner.cookie },
      });
    expect((await forged("/data/contacts/new", { name: "Forged" })).status).toBe(403);
    expect((await forged(`/data/invoices/${open.id}/move`, { to: "void", _csrf: "wrong" })).status).toBe(403);
    expect((await forged(`/data/invoices/${open.id}/delete`, {})).status).toBe(403);
    expect((await v1("GET", `/invoices/${open.id}`)).status).toBe("open");
  });

  it("escapes every value from the data", async () => {
    const evil = "<img src=x onerror=alert(1)>";
    const made = await post("/data/contacts/new", { name: evil, tags: "vip, <b>x</b>" });
    const id = createdId(made);
    for (const path of [
      "/data/contacts",
      `/data/contacts/${id}`,
      `/data/contacts/${id}/edit`,
      "/data/deals/new",
    ]) {
      const page = await get(path);
      expect(page.status, path).toBe(200);
      expect(page.text, path).not.toContain("<img src=x");
      expect(page.text, path).toContain("&lt;img src=x onerror=alert(1)&gt;");
    }
    expect((await get(`/data/contacts/${id}`)).headers.get("content-security-policy")).toContain(
      "script-src 'self'",
    );
  });
});

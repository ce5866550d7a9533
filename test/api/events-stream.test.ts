import { describe, expect, it } from "vitest";
import { useTestApp } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";

/** `GET /v1/events/stream`: new events as Server-Sent Events, resumable, filtered, scoped. */
describe.each(storeKinds())("the event stream on $name", (kind) => {
  const t = useTestApp(kind);

  /** Reads SSE messages off a streamed response until `count` arrived, then cancels it. */
  const read = async (response: Response, count: number) => {
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    const messages: Array<Record<string, string>> = [];
    let buffer = "";
    while (messages.length < count) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const fields = Object.fromEntries(
          buffer
            .slice(0, end)
            .split("\n")
            .filter((line) => !line.startsWith(":"))
            .map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2)]),
        );
        buffer = buffer.slice(end + 2);
        if (fields.data) messages.push(fields);
      }
    }
    await reader.cancel();
    return messages;
  };
  const stream = (key: string, query = "", headers: Record<string, string> = {}) =>
    t.fetch(`/v1/events/stream${query}`, { headers: { authorization: `Bearer ${key}`, ...headers } });
  const contact = async (key: string, name: string) =>
    (await t.request("POST", "/v1/contacts", { key, body: { name } })).body.id as string;

  it("sends each new event once, as `id`, `event` and the event JSON, leaving earlier ones out", async () => {
    const org = await t.newOrg();
    await contact(org.key, "Before The Stream");
    const response = await stream(org.key, "?type=contact.created");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const id = await contact(org.key, "Ada Stream");
    const [message] = await read(response, 1);
    const event = JSON.parse(message!.data!);
    expect(message!.event).toBe("contact.created");
    expect(message!.id).toBe(event.id);
    expect(event).toMatchObject({ object: "event", type: "contact.created", data: { object: { id } } });
  });

  it("resumes after an event (Last-Event-ID or after=) and filters by family", async () => {
    const org = await t.newOrg();
    await contact(org.key, "First");
    const events = (await t.request("GET", "/v1/events?type=contact.created", { key: org.key })).body.data;
    const first = events[0].id as string;
    await t.request("POST", "/v1/products", {
      key: org.key,
      body: { name: "Widget", price: 1, currency: "EUR" },
    });
    await contact(org.key, "Second");
    const byHeader = await read(await stream(org.key, "?type=contact.*", { "last-event-id": first }), 1);
    expect(JSON.parse(byHeader[0]!.data!).data.object.name).toBe("Second");
    const byQuery = await read(await stream(org.key, `?after=${first}`), 2);
    expect(byQuery.map((message) => message.event)).toEqual(["product.created", "contact.created"]);
  });

  it("never sends another organization's events", async () => {
    const mine = await t.newOrg();
    const other = await t.newOrg();
    const response = await stream(mine.key);
    await contact(other.key, "Not Yours");
    const id = await contact(mine.key, "Yours");
    const [message] = await read(response, 1);
    expect(JSON.parse(message!.data!).data.object.id).toBe(id);
  });

  it("refuses an unknown type (400), an unknown event to resume after (404), and a key without webhooks:read (403)", async () => {
    const org = await t.newOrg();
    const unknown = await t.request("GET", "/v1/events/stream?type=nope.happened", { key: org.key });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].param).toBe("type");
    const gone = await t.request("GET", "/v1/events/stream?after=evt_doesnotexist", { key: org.key });
    expect(gone.status).toBe(404);
    const narrow = await org.addKey({ kind: "engine", engines: ["finance"], access: "read" });
    expect((await t.request("GET", "/v1/events/stream", { key: narrow })).status).toBe(403);
  });
});

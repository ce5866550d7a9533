import { Hono } from "hono";

interface Contact {
  id: number;
  name: string;
  email: string;
}

/** An in-memory list: each isolate (or Deno process) starts with the same two contacts. */
const store: Contact[] = [
  { id: 1, name: "Ada Lovelace", email: "ada@example.com" },
  { id: 2, name: "Alan Turing", email: "alan@example.com" },
];

export const contacts = new Hono();

contacts.get("/", (c) => {
  const q = c.req.query("q")?.toLowerCase();
  const data = q ? store.filter((contact) => contact.name.toLowerCase().includes(q)) : store;
  return c.json({ data, total: data.length });
});

contacts.get("/:id{[0-9]+}", (c) => {
  const contact = store.find((candidate) => candidate.id === Number(c.req.param("id")));
  return contact ? c.json(contact) : c.json({ error: "no such contact" }, 404);
});

contacts.post("/", async (c) => {
  const body = await c.req.json<Partial<Contact>>().catch(() => null);
  if (!body?.name || !body.email?.includes("@")) {
    return c.json({ error: "name and a valid email are required" }, 422);
  }
  const contact = { id: store.length + 1, name: body.name, email: body.email };
  store.push(contact);
  return c.json(contact, 201, { location: `/contacts/${contact.id}` });
});

import { describe, expect, it } from "vitest";
import { AppError } from "../../core/index.ts";
import { addMembership, changeMembership, inviteMember, listMembers, OPERATOR } from "../../engines/index.ts";
import { useTestApp } from "../helpers/app.ts";
import { signedInMember } from "../helpers/members.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * People's events: `member.invited`, `member.joined`, `member.role_changed` and `member.removed` are
 * written with the change (the outbox), so `/v1/events`, webhooks and triggers see them; an event
 * carries neither a password hash nor a link's token.
 */
describe.each(storeKinds())("member events on $name", (kind) => {
  const t = useTestApp(kind);

  const eventsOf = async (key: string, type: string) =>
    (await t.request("GET", `/v1/events?type=${type}`, { key })).body.data as Array<{
      data: { object: Record<string, unknown>; previous_attributes?: Record<string, unknown> };
    }>;

  it("records an invitation, a join, a role change and a removal", async () => {
    const org = await t.newOrg();
    const owner = await signedInMember(t, org.id, "owner");
    const token = await inviteMember(
      t.store,
      t.clock,
      org.id,
      { email: "new-person@example.com", role: "viewer" },
      OPERATOR,
    );
    const [invited] = await eventsOf(org.key, "member.invited");
    expect(invited!.data.object).toMatchObject({
      object: "member",
      user: null,
      email: "new-person@example.com",
      role: "viewer",
      status: "invited",
    });
    expect(JSON.stringify(invited)).not.toContain(token);

    const joined = await eventsOf(org.key, "member.joined");
    expect(joined.map((event) => event.data.object.user)).toEqual([owner.userId]);
    expect(JSON.stringify(joined)).not.toContain("scrypt");

    const developer = await signedInMember(t, org.id, "developer");
    await t.store.transaction((tx) =>
      changeMembership(tx, t.clock, org.id, developer.userId, "admin", OPERATOR),
    );
    const [changed] = await eventsOf(org.key, "member.role_changed");
    expect(changed!.data.object).toMatchObject({ user: developer.userId, role: "admin", status: "active" });
    expect(changed!.data.previous_attributes).toEqual({ role: "developer" });

    await t.store.transaction((tx) =>
      changeMembership(tx, t.clock, org.id, developer.userId, undefined, OPERATOR),
    );
    const [removed] = await eventsOf(org.key, "member.removed");
    expect(removed!.data.object).toMatchObject({ user: developer.userId, status: "removed" });
    expect((await listMembers(t.store, org.id)).map((member) => member.user)).toEqual([owner.userId]);
  });

  it("keeps the last owner, and records a join once when an invitation is accepted twice", async () => {
    const org = await t.newOrg();
    const owner = await signedInMember(t, org.id, "owner");
    const refused = await t.store
      .transaction((tx) => changeMembership(tx, t.clock, org.id, owner.userId, "viewer", OPERATOR))
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe("conflict");

    const other = await t.newOrg();
    const member = await signedInMember(t, other.id, "viewer");
    await t.store.transaction((tx) => addMembership(tx, t.clock, member.userId, org.id, "developer"));
    await t.store.transaction((tx) => addMembership(tx, t.clock, member.userId, org.id, "developer"));
    const joined = await eventsOf(org.key, "member.joined");
    expect(joined.filter((event) => event.data.object.user === member.userId)).toHaveLength(1);
    // Scoped: the other organization's events hold only its own member.
    expect((await eventsOf(other.key, "member.joined")).map((event) => event.data.object.user)).toEqual([
      member.userId,
    ]);
  });
});

import type { Hono } from "hono";
import { html, raw } from "hono/html";
import {
  ACTOR_TYPES,
  actorKey,
  AUDIT_EVENT_TYPES,
  describeActors,
  listAuditEvents,
  type Actor,
  type ActorName,
  type ActorType,
  type Event,
} from "../engines/index.ts";
import type { AppEnv } from "../api/env.ts";
import { page, settingsTabs, type Html } from "./layout.ts";
import { requires } from "./gates.ts";
import type { DashboardParts } from "./parts.ts";
import { listQuery, pager, when } from "./webhooks/views.ts";

const PATH = "/settings/audit-log";
const PER_PAGE = 50;

/** How each kind of actor reads in the filter and beside a name. */
const ACTOR_LABELS: Record<ActorType, string> = {
  user: "Dashboard user",
  api_key: "API key",
  oauth_app: "OAuth app",
  cli: "Operator (CLI)",
};

/** `member.invited` → `member.*`, the API's family filter. */
const familyOf = (type: string) => `${type.split(".")[0]}.*`;
const FAMILIES = [...new Set(AUDIT_EVENT_TYPES.map(familyOf))];

/** The page's filters as the URL gives them; anything the selects do not offer is a hand-edited URL. */
interface AuditFilters {
  type: string;
  actorType: string;
  actorId: string;
}

const validFilters = ({ type, actorType, actorId }: AuditFilters): boolean =>
  (type === "" || (AUDIT_EVENT_TYPES as readonly string[]).includes(type) || FAMILIES.includes(type)) &&
  (actorType === "" || (ACTOR_TYPES as readonly string[]).includes(actorType)) &&
  actorId.length <= 200 &&
  !actorId.includes("\u0000");

/**
 * Settings → Audit log: the organization's management actions (keys, members, sessions, OAuth apps,
 * functions, webhook endpoints), newest first, each with its time, kind, actor (by name where one is
 * known) and object; filtered by kind and by actor, a page at a time. The reads `GET /v1/audit_events`
 * makes, with its scopes: `keys:read` and `webhooks:read`.
 */
export function auditLogRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  const { deps, signedIn, nav } = parts;
  app.get(PATH, signedIn, requires("keys", "read"), requires("webhooks", "read"), async (c) => {
    const { signed } = c.var;
    const asked: AuditFilters = {
      type: c.req.query("type") ?? "",
      actorType: c.req.query("actor_type") ?? "",
      actorId: c.req.query("actor_id") ?? "",
    };
    const valid = validFilters(asked);
    const filters = valid ? asked : { type: "", actorType: "", actorId: "" };
    const { page: pageNumber, perPage } = listQuery(c.req.query("page"), PER_PAGE);
    const orgId = signed.session.orgId;
    const list = await listAuditEvents(deps.store, orgId, {
      page: pageNumber,
      perPage,
      ...(filters.type.endsWith(".*")
        ? { typePrefix: filters.type.slice(0, -1) }
        : filters.type
          ? { types: [filters.type] }
          : {}),
      ...(filters.actorType ? { actorTypes: [filters.actorType as ActorType] } : {}),
      ...(filters.actorId ? { actorId: filters.actorId } : {}),
    });
    const actors = list.data.flatMap((event) => (event.actor ? [event.actor] : []));
    const names = await describeActors(deps.store, orgId, actors);
    const params = Object.fromEntries(
      Object.entries({ type: filters.type, actor_type: filters.actorType, actor_id: filters.actorId }).filter(
        ([, value]) => value !== "",
      ),
    );
    const body = html`${settingsTabs(PATH)}
      <h1>Audit log</h1>
      <p class="muted">
        Who changed keys, members, sessions, OAuth apps, functions and webhook endpoints. Kept as long as
        events are; also at <code>GET /v1/audit_events</code>.
      </p>
      ${filterForm(filters)}
      ${valid ? "" : html`<p class="error" role="alert">Unknown filter: showing every action.</p>`}
      ${filters.actorId ? actorNotice(filters, names) : ""} ${auditTable(list.data, names)}
      ${pager(PATH, params, list.meta)}`;
    return c.html(page("Audit log", nav(signed, PATH), body), valid ? 200 : 400);
  });
}

function filterForm(filters: AuditFilters): Html {
  const option = (value: string, label: string, current: string) =>
    html`<option value="${value}" ${raw(value === current ? "selected" : "")}>${label}</option>`;
  return html`<form method="get" action="${PATH}" class="audit-filter">
    <div>
      <label for="audit-type">Action</label>
      <select id="audit-type" name="type">
        ${option("", "All actions", filters.type)}
        ${FAMILIES.map(
          (family) =>
            html`<optgroup label="${family.slice(0, -2)}">
              ${option(family, `every ${family.slice(0, -2)} action (${family})`, filters.type)}
              ${AUDIT_EVENT_TYPES.filter((type) => familyOf(type) === family).map((type) =>
                option(type, type, filters.type),
              )}
            </optgroup>`,
        )}
      </select>
    </div>
    <div>
      <label for="audit-actor-type">Actor</label>
      <select id="audit-actor-type" name="actor_type">
        ${option("", "Anyone", filters.actorType)}
        ${ACTOR_TYPES.map((type) => option(type, ACTOR_LABELS[type], filters.actorType))}
      </select>
    </div>
    ${filters.actorId ? html`<input type="hidden" name="actor_id" value="${filters.actorId}" />` : ""}
    <button type="submit">Filter</button>
  </form>`;
}

/** Shown while the list is one actor's: who, and the way back to everyone's. */
function actorNotice(filters: AuditFilters, names: ReadonlyMap<string, ActorName>): Html {
  const type = filters.actorType as ActorType;
  const name = (ACTOR_TYPES as readonly string[]).includes(type)
    ? names.get(actorKey({ type, id: filters.actorId }))?.name
    : undefined;
  const query = filters.type ? `?${new URLSearchParams({ type: filters.type }).toString()}` : "";
  return html`<p class="notice" role="status">
    Actions by ${name ?? ""} <code>${filters.actorId}</code>. <a href="${PATH}${query}">Show everyone's</a>
  </p>`;
}

function auditTable(events: readonly Event[], names: ReadonlyMap<string, ActorName>): Html {
  if (events.length === 0) return html`<p class="muted">No actions recorded.</p>`;
  return html`<table class="audit">
    <thead>
      <tr>
        <th>Time</th>
        <th>Action</th>
        <th>Actor</th>
        <th>Object</th>
      </tr>
    </thead>
    <tbody>
      ${events.map(
        (event) =>
          html`<tr>
            <td>${when(event.timestamp)}</td>
            <td>
              <a href="/events/${event.id}"><code>${actionOf(event.type)}</code></a>
            </td>
            <td>${event.actor ? actorCell(event.actor, names) : html`<span class="muted">—</span>`}</td>
            <td>${objectCell(event.data.object)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** `webhook_endpoint.created`, free to wrap after its dot (and only there) in a narrow column. */
const actionOf = (type: string): Html => {
  const dot = type.indexOf(".");
  return html`${type.slice(0, dot + 1)}<wbr />${type.slice(dot + 1)}`;
};

/** The actor by name where known (else its id), linked to the list of its actions; its kind below. */
function actorCell(actor: Actor, names: ReadonlyMap<string, ActorName>): Html {
  const href = `${PATH}?${new URLSearchParams({ actor_type: actor.type, actor_id: actor.id }).toString()}`;
  if (actor.type === "cli") return html`<a href="${href}">${ACTOR_LABELS.cli}</a>`;
  const known = names.get(actorKey(actor));
  return html`<a href="${href}">${known?.name ?? html`<code>${actor.id}</code>`}</a>
    <span class="muted audit-kind"
      >${known?.detail ? `${known.detail} · ` : ""}${ACTOR_LABELS[actor.type]}</span
    >`;
}

/** What the action was on: its kind, the name it goes by (a key's, a member's email, an endpoint's URL), its id. */
function objectCell(object: Record<string, unknown>): Html {
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
  const app = object.app as Record<string, unknown> | undefined;
  const label =
    text(object.name) ??
    text(object.email) ??
    text(object.url) ??
    text(app?.name) ??
    text(object.redacted_secret) ??
    text(object.user_agent);
  return html`<span class="muted">${text(object.object) ?? ""}</span> ${label ?? ""}
    <code>${text(object.id) ?? ""}</code>`;
}

import { html, raw } from "hono/html";
import type { EventType } from "../../engines/index.ts";
import type { WebhookEndpoint } from "../../webhooks/index.ts";
import { csrfField, fieldError, type Html } from "../layout.ts";
import { textOf, type Form } from "../parts.ts";

/**
 * The create and edit form of an endpoint: URL, description, which events (all of them, or the kinds
 * and families ticked in a picker built from the catalog), rate limit, and at creation the signing
 * scheme. What the form posts becomes the API's own body, checked by its schema and service.
 */

export interface EndpointFormValues {
  url: string;
  description: string;
  /** `all`: no filter (the API's empty `event_types`, kinds added later included). */
  scope: "all" | "some";
  eventTypes: string[];
  rateLimit: string;
  scheme: string;
}

export const EMPTY_FORM: EndpointFormValues = {
  url: "",
  description: "",
  scope: "all",
  eventTypes: [],
  rateLimit: "",
  scheme: "v1",
};

export function valuesOfForm(form: Form): EndpointFormValues {
  return {
    url: textOf(form, "url").trim(),
    description: textOf(form, "description").trim(),
    scope: textOf(form, "scope") === "some" ? "some" : "all",
    eventTypes: [form.event_types ?? []].flat(),
    rateLimit: textOf(form, "rate_limit_per_s").trim(),
    scheme: textOf(form, "signing_scheme") || "v1",
  };
}

export function valuesOfEndpoint(endpoint: WebhookEndpoint): EndpointFormValues {
  return {
    url: endpoint.url,
    description: endpoint.description ?? "",
    scope: endpoint.event_types.length === 0 ? "all" : "some",
    eventTypes: endpoint.event_types,
    rateLimit: endpoint.rate_limit_per_s === null ? "" : String(endpoint.rate_limit_per_s),
    scheme: endpoint.signing_scheme,
  };
}

/**
 * The API body the form stands for (`WebhookEndpointUpdate`, plus `signing_scheme` when creating).
 * "Only these" with nothing ticked is refused here: sent as `[]` it would mean every event.
 */
export function bodyOfValues(
  values: EndpointFormValues,
  creating: boolean,
): { body: Record<string, unknown>; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  if (values.scope === "some" && values.eventTypes.length === 0) {
    errors.event_types = "Tick at least one kind of event, or choose all events.";
  }
  const body: Record<string, unknown> = {
    url: values.url,
    description: values.description || null,
    event_types: values.scope === "all" ? [] : values.eventTypes,
    rate_limit_per_s: values.rateLimit === "" ? null : Number(values.rateLimit),
    ...(creating ? { signing_scheme: values.scheme } : {}),
  };
  return { body, errors };
}

/** A field error as the form shows it: `event_types[2]` belongs to the picker as a whole. */
export function formField(param: string): string {
  return param.replace(/\[\d+\]$/, "");
}

/** The catalog's kinds grouped by what they are about (`invoice`, `webhook_endpoint`…), in order. */
function groupsOf(catalog: readonly EventType[]): Array<[family: string, types: string[]]> {
  const groups = new Map<string, string[]>();
  for (const { type } of catalog) {
    const family = type.split(".")[0]!;
    groups.set(family, [...(groups.get(family) ?? []), type]);
  }
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b));
}

const checked = (on: boolean) => raw(on ? "checked" : "");

function eventPicker(
  catalog: readonly EventType[],
  values: EndpointFormValues,
  errors: Record<string, string>,
): Html {
  const ticked = new Set(values.eventTypes);
  const described = errors.event_types ? raw('aria-describedby="event_types-error"') : "";
  return html`<fieldset class="event-picker" ${described}>
    <legend>Events to send</legend>
    <label
      ><input type="radio" name="scope" value="all" ${checked(values.scope === "all")} /> All events,
      including kinds added later</label
    >
    <label
      ><input type="radio" name="scope" value="some" ${checked(values.scope === "some")} /> Only the kinds
      ticked below</label
    >
    ${fieldError(errors, "event_types")}
    <div class="event-groups">
      ${groupsOf(catalog).map(
        ([family, types]) =>
          html`<fieldset class="event-group">
            <legend>${family}</legend>
            <label class="family"
              ><input
                type="checkbox"
                name="event_types"
                value="${family}.*"
                ${checked(ticked.has(`${family}.*`))}
              />
              every ${family} event (<code>${family}.*</code>)</label
            >
            ${types.map(
              (type) =>
                html`<label
                  ><input type="checkbox" name="event_types" value="${type}" ${checked(ticked.has(type))} />
                  <code>${type}</code></label
                >`,
            )}
          </fieldset>`,
      )}
    </div>
  </fieldset>`;
}

/** The scheme is chosen once: rotating keeps it, and receivers verify with what it gave them. */
function schemeField(values: EndpointFormValues): Html {
  const option = (value: string, label: string) =>
    html`<option value="${value}" ${raw(values.scheme === value ? "selected" : "")}>${label}</option>`;
  return html`<label for="endpoint-scheme">Signing scheme</label>
    <select id="endpoint-scheme" name="signing_scheme">
      ${option("v1", "v1: HMAC-SHA256 with a shared whsec_ secret (default)")}
      ${option("v1a", "v1a: ed25519; receivers verify with a whpk_ public key")}
    </select>`;
}

export function endpointForm(options: {
  action: string;
  submit: string;
  csrf: string;
  catalog: readonly EventType[];
  values: EndpointFormValues;
  errors: Record<string, string>;
  creating: boolean;
}): Html {
  const { values, errors } = options;
  const invalid = (name: string) =>
    raw(errors[name] ? `aria-invalid="true" aria-describedby="${name}-error"` : "");
  return html`<form method="post" action="${options.action}" class="card endpoint-form">
    ${csrfField(options)} ${fieldError(errors, "_form")}
    <label for="endpoint-url">Endpoint URL</label>
    <input
      id="endpoint-url"
      name="url"
      type="url"
      required
      maxlength="2048"
      value="${values.url}"
      placeholder="https://example.com/webhooks/tessera"
      ${invalid("url")}
    />
    ${fieldError(errors, "url")}
    <label for="endpoint-description">Description</label>
    <input
      id="endpoint-description"
      name="description"
      type="text"
      maxlength="500"
      value="${values.description}"
      ${invalid("description")}
    />
    ${fieldError(errors, "description")} ${eventPicker(options.catalog, values, errors)}
    <label for="endpoint-rate">Rate limit (deliveries per second, empty for none)</label>
    <input
      id="endpoint-rate"
      name="rate_limit_per_s"
      type="text"
      inputmode="numeric"
      value="${values.rateLimit}"
      ${invalid("rate_limit_per_s")}
    />
    ${fieldError(errors, "rate_limit_per_s")} ${options.creating ? schemeField(values) : ""}
    ${options.creating ? fieldError(errors, "signing_scheme") : ""}
    <button type="submit">${options.submit}</button>
  </form>`;
}

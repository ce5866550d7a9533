import type { Hono } from "hono";
import { html } from "hono/html";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { AppError } from "../../core/index.ts";
import {
  SECRET_NAME,
  SecretsUpdateSchema,
  type FunctionObject,
  type SecretInfo,
} from "../../runtime/index.ts";
import type { AppEnv } from "../../api/env.ts";
import { statusOf } from "../../api/problem.ts";
import { csrfField, fieldError, type Html, postButton } from "../layout.ts";
import { textOf, type DashboardParts, type Signed } from "../parts.ts";
import { sessionActor } from "../session.ts";
import { canWrite, changing, functionPage, userError, viewing, when } from "./function-page.ts";

/**
 * Secrets: names only. A value is typed once, sealed by the service `PUT /v1/functions/{name}/secrets`
 * calls, and never shown again: no page, not even a refused form, sends one back. Setting and
 * removing need `functions:write`.
 */
export function secretRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  const { functions } = parts.deps;
  app.get("/functions/:name/secrets", ...viewing(parts), async (c) =>
    c.html(await secretsPage(parts, c.var.signed, c.var.fn, {})),
  );
  app.post("/functions/:name/secrets", ...changing(parts, "write"), async (c) => {
    const { signed, fn, form } = c.var;
    const name = textOf(form, "name").trim();
    const parsed = SecretsUpdateSchema.safeParse({ [name]: textOf(form, "value") });
    const again = async (errors: Record<string, string>, status: ContentfulStatusCode) =>
      c.html(await secretsPage(parts, signed, fn, { errors, name }), status);
    if (!parsed.success) return again(secretErrors(parsed.error.issues), 422);
    try {
      await functions.setSecrets(signed.session.orgId, fn.id, parsed.data, sessionActor(signed.session));
    } catch (error) {
      const refused = userError(error);
      return again({ _form: refused.message }, statusOf(refused.code) as ContentfulStatusCode);
    }
    return c.html(await secretsPage(parts, signed, fn, { saved: name }));
  });
  app.post("/functions/:name/secrets/:secret/delete", ...changing(parts, "write"), async (c) => {
    const { signed, fn } = c.var;
    const secret = c.req.param("secret") ?? "";
    try {
      if (!SECRET_NAME.test(secret)) throw notASecret(secret);
      await functions.deleteSecret(signed.session.orgId, fn.id, secret, sessionActor(signed.session));
    } catch (error) {
      const refused = userError(error);
      const status = statusOf(refused.code) as ContentfulStatusCode;
      return c.html(await secretsPage(parts, signed, fn, { errors: { _form: refused.message } }), status);
    }
    return c.redirect(`/functions/${fn.name}/secrets`, 303);
  });
}

/** A name the API's path would not take (`SECRET_NAME`) names no secret: a 404, as /v1 answers. */
const notASecret = (name: string) => new AppError("not_found", `No such secret: '${name.slice(0, 100)}'`);

/** The schema's refusals: about the name (the record's key) or about the value. */
function secretErrors(issues: ReadonlyArray<{ path: PropertyKey[]; message: string; code: string }>) {
  const errors: Record<string, string> = {};
  for (const issue of issues) {
    const field = issue.code === "too_big" ? "value" : "name";
    errors[field] ??= issue.message;
  }
  return errors;
}

interface SecretsState {
  errors?: Record<string, string>;
  /** The name typed (kept on a refusal); never the value. */
  name?: string;
  saved?: string;
}

async function secretsPage(
  parts: DashboardParts,
  signed: Signed,
  fn: FunctionObject,
  state: SecretsState,
): Promise<Html> {
  const secrets = await parts.deps.functions.secrets(signed.session.orgId, fn.id);
  const errors = state.errors ?? {};
  return functionPage(
    parts,
    signed,
    fn,
    "/secrets",
    html`${state.saved ? html`<p class="notice" role="status">Secret ${state.saved} is set.</p>` : ""}
      ${errors._form ? html`<p class="error" role="alert">${errors._form}</p>` : ""}
      <p class="muted">
        The function reads them with <code>Deno.env.get(name)</code> or <code>env</code>. Values are sealed at
        rest and never shown.
      </p>
      ${
        secrets.length === 0
          ? html`<p class="muted">No secrets.</p>`
          : html`<table class="fn-table">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Updated</th>
                  <th></th>
                </tr>
              </thead>
              <tbody>
                ${secrets.map((secret) => secretRow(signed, fn, secret))}
              </tbody>
            </table>`
      }
      ${
        canWrite(signed)
          ? html`<form method="post" action="/functions/${fn.name}/secrets" class="card" autocomplete="off">
              <h2>Set a secret</h2>
              ${csrfField(signed)}
              <label for="secret-name">Name</label>
              <input
                id="secret-name"
                name="name"
                type="text"
                required
                maxlength="128"
                spellcheck="false"
                autocapitalize="characters"
                value="${state.name ?? ""}"
              />
              ${fieldError(errors, "name")}
              <label for="secret-value">Value</label>
              <textarea
                id="secret-value"
                name="value"
                rows="3"
                spellcheck="false"
                autocomplete="off"
              ></textarea>
              ${fieldError(errors, "value")}
              <p class="fn-hint">Setting a name that exists replaces its value.</p>
              <button type="submit">Set secret</button>
            </form>`
          : ""
      }`,
  );
}

function secretRow(signed: Signed, fn: FunctionObject, secret: SecretInfo): Html {
  return html`<tr>
    <td><code>${secret.name}</code></td>
    <td>${when(secret.updated_at)}</td>
    <td>
      ${
        canWrite(signed)
          ? postButton(signed, `/functions/${fn.name}/secrets/${secret.name}/delete`, "Delete", {
              buttonClass: "danger",
              ariaLabel: `Delete ${secret.name}`,
              confirm: `Delete the secret ${secret.name}? The function will no longer see it.`,
            })
          : ""
      }
    </td>
  </tr>`;
}

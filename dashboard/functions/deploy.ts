import { principalOfSession } from "../session.ts";
import type { Context, Hono, MiddlewareHandler } from "hono";
import { html, raw } from "hono/html";
import type { FieldError } from "../../core/index.ts";
import { actorOf } from "../../engines/index.ts";
import {
  FUNCTION_AUTH,
  FunctionDeploySchema,
  type FunctionObject,
  type UploadedFiles,
} from "../../runtime/index.ts";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "../../api/env.ts";
import { fieldErrors, statusOf } from "../../api/problem.ts";
import { csrfField, type Html, page } from "../layout.ts";
import { requires, type DashboardEnv, type PostedEnv } from "../gates.ts";
import type { DashboardParts, Signed } from "../parts.ts";
import {
  canWrite,
  findFunction,
  functionPage,
  FUNCTIONS_SCRIPT,
  notFound,
  userError,
  viewing,
} from "./function-page.ts";
import { editorFiles, readDeployForm, SourceRefused, uploadedFiles } from "./upload.ts";

/**
 * Deploy: a new function (`/functions/new`) or a new version of one (its Deploy tab), from an
 * uploaded folder or zip, or from the editor's single `index.ts`. Everything goes through the
 * service `POST /v1/functions` calls, with its schema and limits; a refusal (a compile error with
 * file:line:column, a limit) comes back at the field that chose the files, the code kept, as 422.
 */

/** What the editor starts with: the smallest function that answers and logs. */
export const HELLO_FUNCTION = `// A Tessera function: a standard Request in, a Response out.
export default {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    console.log(\`\${request.method} \${url.pathname}\`);
    return Response.json({ hello: "world" });
  },
};
`;

type Source = "upload" | "editor";

interface DeployState {
  /** The function getting a new version; none for a new function (the form then asks its name). */
  existing?: { name: string; auth: string };
  values: { name: string; auth: string; entrypoint: string; code: string };
  /** Field → message: `name`, `auth`, `entrypoint`, `upload`, `editor`, or `_form`. */
  errors: Record<string, string>;
  /** The form that was sent: its fields show the errors. */
  source?: Source;
}

/** A deploy form's function (none for a new one) and its form, read under the upload limit. */
interface Deploying {
  existing: FunctionObject | undefined;
  form: FormData;
}
interface DeployEnv {
  Variables: DashboardEnv["Variables"] & { deploying: Deploying };
}

export function deployRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  const writes = requires("functions", "write");
  app.get("/functions/new", parts.signedIn, writes, (c) =>
    c.html(newFunctionPage(parts, c.var.signed, freshState())),
  );
  // Signed in; the function and the files (a refusal of either is shown on the page); then the
  // form's CSRF token and the role.
  const gates = [parts.signedIn, deploying(parts), parts.posted, writes] as const;
  app.post("/functions/new", ...gates, (c) => postDeploy(c, parts));
  app.get("/functions/:name/deploy", ...viewing(parts), (c) => {
    const { signed, fn } = c.var;
    const state = freshState({ name: fn.name, auth: fn.auth });
    return c.html(functionPage(parts, signed, fn, "/deploy", deployBody(signed, state)));
  });
  app.post("/functions/:name/deploy", ...gates, (c) => postDeploy(c, parts));
}

function freshState(existing?: { name: string; auth: string }): DeployState {
  return {
    ...(existing ? { existing } : {}),
    values: {
      name: existing?.name ?? "",
      auth: existing?.auth ?? "key",
      entrypoint: "",
      code: HELLO_FUNCTION,
    },
    errors: {},
  };
}

/**
 * The function a Deploy tab names (else the 404 page) and the posted form, read under the upload
 * limit (past it, or unreadable: the form again, the refusal at its upload field), as
 * `c.var.deploying`.
 */
function deploying(parts: DashboardParts): MiddlewareHandler<DeployEnv> {
  return async (c, next) => {
    const { signed } = c.var;
    const name = c.req.param("name");
    const existing = name === undefined ? undefined : await findFunction(parts, signed, name);
    if (name !== undefined && !existing) return notFound(c, parts, signed);
    let form: FormData;
    try {
      form = await readDeployForm(c, maxUpload(parts));
    } catch (error) {
      const refused = userError(error);
      const state: DeployState = {
        ...freshState(existing),
        errors: { upload: refused.message },
        source: "upload",
      };
      return again(c, parts, signed, existing, state, statusOf(refused.code));
    }
    c.set("deploying", { existing, form });
    await next();
  };
}

/** The deploy page again (a new function's, or the function's Deploy tab) in `state`. */
function again(
  c: Context,
  parts: DashboardParts,
  signed: Signed,
  existing: FunctionObject | undefined,
  state: DeployState,
  status: number,
): Response | Promise<Response> {
  return c.html(
    existing
      ? functionPage(parts, signed, existing, "/deploy", deployBody(signed, state))
      : newFunctionPage(parts, signed, state),
    status as ContentfulStatusCode,
  );
}

/** A deploy form posted: checked, deployed, then to the function's page. */
async function postDeploy(
  c: Context<{ Variables: PostedEnv["Variables"] & DeployEnv["Variables"] }>,
  parts: DashboardParts,
): Promise<Response> {
  const { signed } = c.var;
  const { existing, form } = c.var.deploying;
  const source: Source = form.get("source") === "editor" ? "editor" : "upload";
  const values = valuesOf(form, existing);
  const failed = (errors: Record<string, string>, status = 422) =>
    again(c, parts, signed, existing, { ...(existing ? { existing } : {}), values, errors, source }, status);
  let files: UploadedFiles;
  try {
    files = source === "editor" ? editorFiles(form) : await uploadedFiles(form, maxUpload(parts));
  } catch (error) {
    if (error instanceof SourceRefused) return failed({ [source]: error.message });
    throw error;
  }
  const parsed = FunctionDeploySchema.safeParse({
    name: values.name,
    files,
    ...(values.auth ? { auth: values.auth } : {}),
    ...(values.entrypoint ? { entrypoint: values.entrypoint } : {}),
  });
  if (!parsed.success) return failed(deployErrors(fieldErrors(parsed.error), source));
  try {
    const { orgId } = signed.session;
    const principal = principalOfSession(signed.session);
    const deployed = await parts.deps.functions.deploy(orgId, parsed.data, actorOf(principal), principal);
    return c.redirect(`/functions/${deployed.name}?deployed=${deployed.version}`, 303);
  } catch (error) {
    const refused = userError(error);
    const errors =
      refused.errors.length > 0 ? refused.errors : [{ param: "", code: "", message: refused.message }];
    return failed(deployErrors(errors, source), statusOf(refused.code));
  }
}

const maxUpload = (parts: DashboardParts) => parts.deps.config.functions.maxUploadBytes;

function valuesOf(form: FormData, existing: { name: string } | undefined): DeployState["values"] {
  const text = (name: string) => {
    const value = form.get(name);
    return typeof value === "string" ? value : "";
  };
  return {
    name: existing?.name ?? text("name").trim(),
    auth: text("auth"),
    entrypoint: text("entrypoint").trim(),
    code: text("code") || HELLO_FUNCTION,
  };
}

/**
 * The API's refusals at the form's fields: the files' (compile errors, paths, sizes) at the source
 * that chose them, all of them, one a line; the rest at their field, or at the top.
 */
function deployErrors(errors: readonly FieldError[], source: Source): Record<string, string> {
  const byField: Record<string, string[]> = {};
  for (const { param, message } of errors) {
    const isFiles = param === "files" || param.startsWith("files.");
    const field = isFiles ? source : FORM_FIELDS.has(param) ? param : "_form";
    // A file's own problem names the file (a compile error's message already does, with line:column).
    const path = param.slice("files.".length);
    const shown = param.startsWith("files.") && !message.startsWith(path) ? `${path}: ${message}` : message;
    (byField[field] ??= []).push(shown);
  }
  return Object.fromEntries(Object.entries(byField).map(([field, messages]) => [field, messages.join("\n")]));
}

const FORM_FIELDS = new Set(["name", "auth", "entrypoint"]);

function newFunctionPage(parts: DashboardParts, signed: Signed, state: DeployState): Html {
  return page(
    "Deploy a function",
    parts.nav(signed, "/functions"),
    html`<p class="fn-crumbs"><a href="/functions">Functions</a></p>
      <h1>Deploy a function</h1>
      ${deployBody(signed, state)} ${FUNCTIONS_SCRIPT}`,
  );
}

/** The two ways to deploy, side by side: upload a folder or zip, or write one file here. */
function deployBody(signed: Signed, state: DeployState): Html {
  if (!canWrite(signed)) {
    return html`<p class="muted">
      Your role (${signed.session.role}) can see functions but not deploy them.
    </p>`;
  }
  const { errors } = state;
  const action = state.existing ? `/functions/${state.existing.name}/deploy` : "/functions/new";
  return html`${errors._form ? html`<p class="error" role="alert">${errors._form}</p>` : ""}
    <div class="fn-deploy">
      <form method="post" action="${action}" enctype="multipart/form-data" class="card fn-upload">
        <h2>Upload a folder or a zip</h2>
        ${csrfField(signed)}
        <input type="hidden" name="source" value="upload" />
        ${nameField(state, "upload")}
        <label for="fn-folder">Folder</label>
        <input
          id="fn-folder"
          name="folder"
          type="file"
          multiple
          webkitdirectory
          aria-describedby="fn-folder-hint"
        />
        <p class="fn-hint" id="fn-folder-hint">
          The function's folder: <code>index.ts</code> (or <code>main</code> in <code>deno.json</code>), its
          modules and <code>deno.json</code>.
        </p>
        <label for="fn-zip">Or a zip</label>
        <input id="fn-zip" name="zip" type="file" accept=".zip,application/zip" />
        ${errorAt(state, "upload", "upload")}
        <label for="fn-entrypoint">Entrypoint <span class="muted">(optional)</span></label>
        <input
          id="fn-entrypoint"
          name="entrypoint"
          type="text"
          maxlength="512"
          placeholder="index.ts"
          value="${state.values.entrypoint}"
        />
        ${errorAt(state, "upload", "entrypoint")} ${authField(state, "upload")}
        <button type="submit">Deploy the upload</button>
      </form>
      <form method="post" action="${action}" class="card fn-editor">
        <h2>Or write it here</h2>
        ${csrfField(signed)}
        <input type="hidden" name="source" value="editor" />
        ${nameField(state, "editor")}
        <label for="fn-code">index.ts</label>
        <textarea
          id="fn-code"
          name="code"
          rows="14"
          spellcheck="false"
          autocapitalize="off"
          data-code
          aria-describedby="fn-code-hint"
        >
${state.values.code}</textarea>
        <p class="fn-hint" id="fn-code-hint" hidden>Tab indents; press Esc, then Tab, to leave the editor.</p>
        ${errorAt(state, "editor", "editor")} ${authField(state, "editor")}
        <button type="submit">Deploy the code</button>
      </form>
    </div>`;
}

/** The new function's name (a new version keeps its function's: no field). */
function nameField(state: DeployState, form: Source): Html {
  if (state.existing) return html``;
  return html`<label for="fn-${form}-name">Function name</label>
    <input
      id="fn-${form}-name"
      name="name"
      type="text"
      required
      maxlength="63"
      autocomplete="off"
      value="${state.values.name}"
      aria-describedby="fn-${form}-name-hint"
    />
    <p class="fn-hint" id="fn-${form}-name-hint">Lowercase letters, digits, - and _.</p>
    ${errorAt(state, form, "name")}`;
}

function authField(state: DeployState, form: Source): Html {
  return html`<label for="fn-${form}-auth">Who may invoke it</label>
    <select id="fn-${form}-auth" name="auth">
      ${FUNCTION_AUTH.map(
        (auth) =>
          html`<option value="${auth}" ${raw(state.values.auth === auth ? "selected" : "")}>
            ${auth === "key" ? "Callers with an API key (functions:read)" : "Anyone (public)"}
          </option>`,
      )}
    </select>
    ${errorAt(state, form, "auth")}`;
}

/** A field's error, one message a line (a compile error lists every problem esbuild found). */
function errorAt(state: DeployState, form: Source, field: string): Html {
  const message = state.source === form ? state.errors[field] : undefined;
  const id = field === form ? `fn-${form}-error` : `fn-${form}-${field}-error`;
  return message ? html`<pre class="error fn-error" id="${id}" role="alert">${message}</pre>` : html``;
}

import type { Context, Hono } from "hono";
import { html, raw } from "hono/html";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { AppError } from "../../core/index.ts";
import { RUN_LIST, RUN_STATUSES, type FunctionObject, type FunctionRun } from "../../runtime/index.ts";
import type { AppEnv } from "../../api/env.ts";
import { parseListQuery } from "../../api/list-params.ts";
import { statusOf } from "../../api/problem.ts";
import { csrfField, type Html, postButton } from "../layout.ts";
import { textOf, type DashboardParts, type Signed } from "../parts.ts";
import {
  canWrite,
  changing,
  functionPage,
  userError,
  viewing,
  when,
  type FunctionFormEnv,
} from "./function-page.ts";
import { pager, pageParams } from "./pager.ts";

const PER_PAGE = 50;
const RUN_ID = /^frun_[0-9a-f]{32}$/;

/**
 * Runs of a function's event and cron triggers, newest first, by status; a failed one can be
 * retried and a cron schedule run now, through the services `POST /v1/functions/{name}/runs/{run}/retry`
 * and `POST …/runs` call (`functions:write`).
 */
export function runRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  const { functions } = parts.deps;
  app.get("/functions/:name/runs", ...viewing(parts), async (c) =>
    c.html(
      await runsPage(parts, c.var.signed, c.var.fn, filterOf(c.req.query("status"), c.req.query("page"))),
    ),
  );
  const act =
    (action: (orgId: string, fn: FunctionObject, run: string, schedule: string) => Promise<unknown>) =>
    async (c: Context<FunctionFormEnv>) => {
      const { signed, fn, form } = c.var;
      try {
        await action(signed.session.orgId, fn, c.req.param("run") ?? "", textOf(form, "schedule"));
      } catch (error) {
        const refused = userError(error);
        const status = statusOf(refused.code) as ContentfulStatusCode;
        return c.html(
          await runsPage(parts, signed, fn, filterOf(undefined, undefined), refused.message),
          status,
        );
      }
      return c.redirect(`/functions/${fn.name}/runs`, 303);
    };
  app.post(
    "/functions/:name/runs/:run/retry",
    ...changing(parts, "write"),
    act((orgId, fn, run) => {
      if (!RUN_ID.test(run)) throw new AppError("not_found", `No such run: '${run.slice(0, 100)}'`);
      return functions.retryRun(orgId, fn.id, run);
    }),
  );
  app.post(
    "/functions/:name/runs",
    ...changing(parts, "write"),
    act((orgId, fn, _run, schedule) => functions.startRun(orgId, fn.id, schedule ? { schedule } : {})),
  );
}

interface RunFilter {
  status: string | undefined;
  page: string | undefined;
}

/** The page's filter: a known status or none (what /v1 would refuse is simply not a filter here). */
function filterOf(status: string | undefined, page: string | undefined): RunFilter {
  return { status: (RUN_STATUSES as readonly string[]).includes(status ?? "") ? status : undefined, page };
}

async function runsPage(
  parts: DashboardParts,
  signed: Signed,
  fn: FunctionObject,
  filter: RunFilter,
  error?: string,
): Promise<Html> {
  const params = pageParams(filter.page, PER_PAGE);
  if (filter.status) params.set("status", filter.status);
  const runs = await parts.deps.functions.runs(signed.session.orgId, fn.id, parseListQuery(params, RUN_LIST));
  const base = `/functions/${fn.name}/runs`;
  const schedules = fn.triggers.flatMap((trigger) => (trigger.type === "cron" ? [trigger.schedule] : []));
  return functionPage(
    parts,
    signed,
    fn,
    "/runs",
    html`${error ? html`<p class="error" role="alert">${error}</p>` : ""}
      <nav class="fn-filters" aria-label="Run status">
        ${[undefined, ...RUN_STATUSES].map(
          (status) =>
            html`<a
              href="${status ? `${base}?status=${status}` : base}"
              ${raw(filter.status === status ? 'aria-current="page"' : "")}
              >${status ?? "all"}</a
            >`,
        )}
      </nav>
      ${
        runs.data.length === 0
          ? html`<p class="muted">
              No runs${filter.status ? ` ${filter.status}` : ""}. Event and cron triggers run the function
              here; HTTP invocations show under Logs.
            </p>`
          : html`<table class="fn-table fn-runs">
              <thead>
                <tr>
                  <th>Trigger</th>
                  <th>Status</th>
                  <th>Attempts</th>
                  <th>Started</th>
                  <th></th>
                </tr>
              </thead>
              <tbody>
                ${runs.data.map((run) => runRow(signed, fn, run))}
              </tbody>
            </table>`
      }
      ${pager(filter.status ? `${base}?status=${filter.status}` : base, runs.meta)}
      ${canWrite(signed) && schedules.length > 0 ? runNow(signed, fn, schedules) : ""}`,
  );
}

function runRow(signed: Signed, fn: FunctionObject, run: FunctionRun): Html {
  const what = run.trigger === "event" ? (run.event_type ?? "event") : `cron ${run.schedule ?? ""}`;
  return html`<tr>
    <td>${what} ${run.event_id ? html`<br /><code class="muted">${run.event_id}</code>` : ""}</td>
    <td>
      <span class="fn-run fn-run-${run.status}">${run.status}</span>
      ${run.last_status_code !== null ? html` · answered ${run.last_status_code}` : ""}
      ${run.last_error ? html`<br /><span class="fn-run-error">${run.last_error}</span>` : ""}
    </td>
    <td>${run.attempts} of ${run.max_attempts}</td>
    <td>${when(run.created_at)}</td>
    <td>
      ${
        run.status === "failed" && canWrite(signed)
          ? postButton(signed, `/functions/${fn.name}/runs/${run.id}/retry`, "Retry", {
              buttonClass: "fn-secondary",
              ariaLabel: `Retry ${what} run ${run.id}`,
            })
          : ""
      }
    </td>
  </tr>`;
}

/** Runs a cron schedule now, as if it had fallen due. */
function runNow(signed: Signed, fn: FunctionObject, schedules: string[]): Html {
  return html`<form method="post" action="/functions/${fn.name}/runs" class="card">
    <h2>Run a schedule now</h2>
    ${csrfField(signed)}
    <label for="run-schedule">Schedule</label>
    <select id="run-schedule" name="schedule">
      ${schedules.map((schedule) => html`<option>${schedule}</option>`)}
    </select>
    <button type="submit">Run now</button>
  </form>`;
}

import type { Hono } from "hono";
import { html } from "hono/html";
import { isoDate } from "../core/index.ts";
import {
  CANDIDATE_STATUSES,
  computeSnapshot,
  hasScope,
  OPEN_DEAL_STAGES,
  receivedByWeek,
  type SnapshotBody,
  type WeekReceived,
} from "../engines/index.ts";
import type { AppEnv } from "../api/env.ts";
import { barList, columnChart } from "./charts.ts";
import { page, type Html } from "./layout.ts";
import type { DashboardParts, Signed } from "./parts.ts";

const DAY_MS = 86_400_000;
/** Weeks of "cash collected" the overview draws. */
const WEEKS = 12;

/**
 * The overview at `/`: the organization's figures as the intelligence snapshot defines them, computed
 * at the moment of the visit (the same SQL as `POST /v1/intelligence/snapshots`, not stored), and
 * money collected per week. Every figure links to the filtered list behind it (`/data/…`).
 */
export function overviewRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  const { deps, signedIn, nav } = parts;
  app.get("/", signedIn, async (c) => {
    const { signed } = c.var;
    const now = deps.clock.now();
    const { figures, weeks } = await deps.store.transaction(async (tx) => {
      // One instant for every figure, as refreshSnapshot reads them.
      await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
      return {
        figures: await computeSnapshot(tx, signed.session.orgId, now),
        weeks: await receivedByWeek(tx, signed.session.orgId, now, WEEKS),
      };
    });
    return c.html(page("Overview", nav(signed, "/"), overview(signed, figures, weeks, now)));
  });
}

function overview(signed: Signed, figures: SnapshotBody, weeks: WeekReceived[], now: Date): Html {
  const { session } = signed;
  const reads = (engine: "finance" | "growth" | "talent") => hasScope(session.scopes, engine, "read");
  const empty =
    figures.finance.outstanding_count === 0 &&
    figures.growth.contacts === 0 &&
    Object.values(figures.talent.candidates_by_status).every((count) => count === 0);
  return html`<h1>${session.orgName}</h1>
    <p>
      Signed in as <strong>${session.user.name}</strong> (${session.user.email}), ${session.role} of this
      organization.
    </p>
    ${empty ? getStarted() : ""}
    <div class="overview">
      ${reads("finance") ? finance(figures.finance, weeks) : ""}
      ${reads("growth") ? growth(figures.growth) : ""} ${reads("talent") ? talent(figures.talent, now) : ""}
    </div>`;
}

function getStarted(): Html {
  return html`<section class="card">
    <h2>Get started</h2>
    <p>
      <a href="/settings/api-keys">Create an API key</a> for your integrations, then call the REST API; the
      reference is at <a href="/docs">/docs</a>. Or add data by hand under <a href="/data">Data</a>.
    </p>
  </section>`;
}

function finance(figures: SnapshotBody["finance"], weeks: WeekReceived[]): Html {
  const currencies = [...new Set(weeks.flatMap((week) => Object.keys(week.received)))].sort().slice(0, 3);
  return html`<section class="card figures" aria-labelledby="finance-heading">
    <h2 id="finance-heading">Finance</h2>
    <dl>
      <div>
        <dt><a href="/data/invoices?status=overdue">Overdue</a></dt>
        <dd>
          ${moneyList(figures.overdue)}
          <span class="muted">(${count(figures.overdue_count, "invoice")})</span>
        </dd>
      </div>
      <div>
        <dt><a href="/data/invoices?status=open,overdue">Outstanding</a></dt>
        <dd>
          ${moneyList(figures.outstanding)}
          <span class="muted">(${count(figures.outstanding_count, "invoice")})</span>
        </dd>
      </div>
      <div>
        <dt><a href="/data/payments">Collected, last 30 days</a></dt>
        <dd>${moneyList(figures.paid_30_days)}</dd>
      </div>
    </dl>
    <h3>Cash collected per week</h3>
    ${
      currencies.length === 0
        ? html`<p class="muted">No money received in the last ${WEEKS} weeks.</p>`
        : currencies.map(
            (currency) =>
              html`<h4>${currency}</h4>
                ${columnChart(
                  `Cash collected per week in ${currency}`,
                  weeks.map((week) => ({
                    label: `Week of ${week.since.slice(0, 10)}`,
                    value: week.received[currency] ?? 0,
                    display: formatMoney(week.received[currency] ?? 0, currency),
                  })),
                )}`,
          )
    }
  </section>`;
}

function growth(figures: SnapshotBody["growth"]): Html {
  return html`<section class="card figures" aria-labelledby="growth-heading">
    <h2 id="growth-heading">Pipeline</h2>
    ${barList(
      "Open deals by stage",
      OPEN_DEAL_STAGES.map((stage) => ({
        label: stage,
        value: figures.open_deals_by_stage[stage],
        display: `${count(figures.open_deals_by_stage[stage], "deal")} · ${moneyText(figures.pipeline_value_by_stage[stage])}`,
        href: `/data/deals?stage=${stage}`,
      })),
    )}
    <p>
      <a href="/data/deals?stage=won">${count(figures.deals_won, "deal")} won</a>,
      <a href="/data/deals?stage=lost">${figures.deals_lost} lost</a>${
        figures.win_rate === null ? "" : html` (win rate ${(figures.win_rate * 100).toFixed(1)} %)`
      }; <a href="/data/contacts">${count(figures.contacts, "contact")}</a>, ${figures.new_contacts_30_days}
      new in 30 days.
    </p>
  </section>`;
}

function talent(figures: SnapshotBody["talent"], now: Date): Html {
  const since = isoDate(new Date(now.getTime() - 30 * DAY_MS));
  return html`<section class="card figures" aria-labelledby="talent-heading">
    <h2 id="talent-heading">Candidates</h2>
    ${barList(
      "Candidates by status",
      CANDIDATE_STATUSES.map((status) => ({
        label: status,
        value: figures.candidates_by_status[status],
        display: String(figures.candidates_by_status[status]),
        href: `/data/candidates?status=${status}`,
      })),
    )}
    <p>
      <a href="/data/skills?status=verified&amp;verified_after=${since}"
        >${count(figures.skills_verified_30_days, "skill")} verified</a
      >
      in the last 30 days.
    </p>
  </section>`;
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

/** An amount in its currency, as the reader's locale would write it (en here: the page's language). */
export function formatMoney(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency }).format(amount);
  } catch {
    // Not a currency Intl knows: the number and the code, as stored.
    return `${amount} ${currency}`;
  }
}

const moneyText = (money: Record<string, number>): string =>
  Object.keys(money).length === 0
    ? "nothing"
    : Object.entries(money)
        .map(([currency, amount]) => formatMoney(amount, currency))
        .join(", ");

function moneyList(money: Record<string, number>): Html {
  return html`<strong>${moneyText(money)}</strong>`;
}

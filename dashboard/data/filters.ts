import { html } from "hono/html";
import { DEFAULT_PER_PAGE, MAX_PER_PAGE, type AnyResourceService, type Filter } from "../../engines/index.ts";
import type { Html } from "../layout.ts";
import { flag, labelOf } from "./common.ts";

/**
 * The filters as a GET form: submitting it is a plain navigation to the table's URL. Each of the
 * resource's filters gets the control its kind suggests; a value the control cannot show (a comma
 * list) is kept as an extra choice, so nothing the URL says is lost.
 */
export function filterForm(
  service: AnyResourceService,
  params: URLSearchParams,
  errors: Record<string, string>,
): Html {
  const { definition } = service;
  const sort = params.get("sort");
  const controls: Html[] = [];
  if (definition.search.length > 0) {
    controls.push(
      control(
        "q",
        "Search",
        html`<input type="search" id="filter-q" name="q" value="${params.get("q") ?? ""}" />`,
        errors,
      ),
    );
  }
  for (const [name, filter] of Object.entries(definition.filters)) {
    controls.push(control(name, labelOf(name), filterInput(name, filter, params.get(name) ?? ""), errors));
  }
  for (const name of ["created_after", "created_before"]) {
    const input = html`<input
      type="date"
      id="filter-${name}"
      name="${name}"
      value="${params.get(name) ?? ""}"
    />`;
    controls.push(control(name, labelOf(name), input, errors));
  }
  // The default size is the empty choice, so an unchanged form leaves `per_page` out of the URL.
  const perPage = params.get("per_page") ?? String(DEFAULT_PER_PAGE);
  const sizes = [...new Set(["10", "50", String(MAX_PER_PAGE), perPage])].filter(
    (size) => size !== String(DEFAULT_PER_PAGE),
  );
  controls.push(
    control(
      "per_page",
      "Per page",
      html`<select id="filter-per_page" name="per_page">
        <option value="">${DEFAULT_PER_PAGE}</option>
        ${sizes.map((size) => html`<option ${flag(size === perPage, "selected")}>${size}</option>`)}
      </select>`,
      errors,
    ),
  );
  return html`<form method="get" action="/data/${definition.name}" class="filters card" role="search">
    <div class="filter-grid">${controls}</div>
    ${sort ? html`<input type="hidden" name="sort" value="${sort}" />` : ""}
    ${errors.sort ? html`<p class="error">Sort: ${errors.sort}</p>` : ""}
    <button type="submit">Apply</button>
    <a href="/data/${definition.name}">Clear</a>
  </form>`;
}

function control(name: string, label: string, input: Html, errors: Record<string, string>): Html {
  const message = errors[name];
  return html`<div class="filter">
    <label for="filter-${name}">${label}</label>
    ${input} ${message ? html`<p class="error" id="filter-${name}-error">${message}</p>` : ""}
  </div>`;
}

function filterInput(name: string, filter: Filter, value: string): Html {
  const id = `filter-${name}`;
  const values = filter.kind === "enum" || filter.kind === "custom" ? filter.values : undefined;
  const choices = values ?? (filter.kind === "boolean" ? ["true", "false"] : undefined);
  if (choices) {
    const options = value && !choices.includes(value) ? [...choices, value] : choices;
    return html`<select id="${id}" name="${name}">
      <option value="">Any</option>
      ${options.map((option) => html`<option ${flag(option === value, "selected")}>${option}</option>`)}
    </select>`;
  }
  if (filter.kind === "date") return html`<input type="date" id="${id}" name="${name}" value="${value}" />`;
  const hint = filter.kind === "instant" ? "2025-03-31 or 2025-03-31T09:30:00Z" : "";
  return html`<input type="text" id="${id}" name="${name}" value="${value}" placeholder="${hint}" />`;
}

import { html } from "hono/html";
import { csrfField, fieldError, type Html } from "../layout.ts";
import type { Signed } from "../parts.ts";
import { errorSummary, flag, labelOf } from "./common.ts";
import { cellName, rowCount, type FormField, type Values } from "./fields.ts";

/** Records another field may name, by id prefix (`con` → the organization's contacts). */
export type Choices = Map<string, Array<{ id: string; label: string }>>;

export interface FormView {
  action: string;
  submit: string;
  fields: readonly FormField[];
  values: Values;
  errors: Record<string, string>;
  choices: Choices;
  /** Blank rows offered beyond the filled ones (line items to add). */
  blankRows: number;
}

/**
 * A record's form: one labelled control per field, each with the API's message for it beside it
 * and the entered text kept. `novalidate`: the API's own messages are the ones shown, in one place.
 */
export function recordForm(signed: Signed, view: FormView): Html {
  const shown = new Set(view.fields.flatMap((field) => namesOf(field, view)));
  return html`${errorSummary(view.errors, shown)}
    <form method="post" action="${view.action}" class="card record-form" novalidate>
      ${csrfField(signed)} ${view.fields.map((field) => fieldControl(field, view))}
      <button type="submit">${view.submit}</button>
    </form>`;
}

/** The input names a field renders (a rows field: one per cell). */
function namesOf(field: FormField, view: FormView): string[] {
  if (field.kind !== "rows") return [field.name];
  const rows = rowCount(field, view.values) + view.blankRows;
  return Array.from({ length: rows }, (_, index) =>
    (field.columns ?? []).map((column) => cellName(field, index, column)),
  ).flat();
}

function fieldControl(field: FormField, view: FormView): Html {
  if (field.kind === "rows") return rowsControl(field, view);
  const label = html`<label for="field-${field.name}"
    >${labelOf(field.name)}${field.required ? html` <span class="muted">(required)</span>` : ""}</label
  >`;
  const hint = hintOf(field);
  return html`<div class="field">
    ${label} ${hint ? html`<p class="hint" id="field-${field.name}-hint">${hint}</p>` : ""}
    ${input(field, field.name, view)} ${fieldError(view.errors, field.name)}
  </div>`;
}

function hintOf(field: FormField): string | undefined {
  if (field.kind === "metadata") return "One key=value per line.";
  if (field.kind === "list") return "Separated by commas.";
  if (field.kind === "instant") return "A date and time with its zone, e.g. 2025-03-31T09:30:00Z.";
  return field.hint;
}

/** One control, named `name`: a field's own (labelled by its `<label>`), or a row's cell (by `cellLabel`). */
function input(field: FormField, name: string, view: FormView, cellLabel?: string): Html {
  const value = view.values[name] ?? "";
  const error = view.errors[name];
  const common = html`id="field-${name}" name="${name}" ${cellLabel ? html`aria-label="${cellLabel}"` : ""}
  ${error ? html`aria-invalid="true" aria-describedby="${name}-error"` : ""}`;
  const records = field.refPrefix ? view.choices.get(field.refPrefix) : undefined;
  if (records) {
    const known = records.some((record) => record.id === value);
    return html`<select ${common}>
      <option value="">—</option>
      ${known || !value ? "" : html`<option selected>${value}</option>`}
      ${records.map(
        (record) =>
          html`<option value="${record.id}" ${flag(record.id === value, "selected")}>
            ${record.label}
          </option>`,
      )}
    </select>`;
  }
  switch (field.kind) {
    case "choice":
    case "boolean": {
      const choices = field.choices ?? ["true", "false"];
      const shownAs = (choice: string) =>
        field.kind === "boolean" ? (choice === "true" ? "Yes" : "No") : choice;
      return html`<select ${common}>
        <option value="">—</option>
        ${choices.map(
          (choice) =>
            html`<option value="${choice}" ${flag(choice === value, "selected")}>${shownAs(choice)}</option>`,
        )}
      </select>`;
    }
    case "long":
    case "metadata":
    case "json":
      return html`<textarea ${common} rows="4">${value}</textarea>`;
    case "date":
      return html`<input type="date" ${common} value="${value}" />`;
    case "email":
      return html`<input type="email" ${common} value="${value}" autocomplete="off" />`;
    case "decimal":
    case "number":
      return html`<input type="text" inputmode="decimal" ${common} value="${value}" />`;
    default:
      return html`<input type="text" ${common} value="${value}" />`;
  }
}

/** A list of objects (line items) as a table of inputs: the filled rows, then blank ones to add. */
function rowsControl(field: FormField, view: FormView): Html {
  const columns = field.columns ?? [];
  const rows = rowCount(field, view.values) + view.blankRows;
  return html`<fieldset class="field rows" id="field-${field.name}">
    <legend>${labelOf(field.name)}</legend>
    <p class="hint">Fill one row per item; leave a row blank to skip it.</p>
    ${fieldError(view.errors, field.name)}
    <div class="table-scroll">
      <table class="rows-table">
        <thead>
          <tr>
            <th scope="col">#</th>
            ${columns.map((column) => html`<th scope="col">${labelOf(column.name)}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${Array.from({ length: rows }, (_, index) => {
            const row = `${labelOf(field.name)}, row ${index + 1}`;
            return html`<tr>
              <th scope="row">${index + 1}</th>
              ${columns.map((column) => {
                const name = cellName(field, index, column);
                return html`<td>
                  ${input(column, name, view, `${row}: ${labelOf(column.name)}`)}
                  ${fieldError(view.errors, name)}
                </td>`;
              })}
            </tr>`;
          })}
        </tbody>
      </table>
    </div>
  </fieldset>`;
}

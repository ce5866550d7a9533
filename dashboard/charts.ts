import { html } from "hono/html";
import type { Html } from "./layout.ts";

/**
 * Charts drawn on the server as SVG: no script, no inline style (the CSP forbids both), colours
 * from the stylesheet (`.bars rect`, `.columns rect`), so light and dark both work. Every chart
 * says what it shows in text too: a bar list is a list of links, a column chart has a table.
 */

export interface Bar {
  label: string;
  value: number;
  /** The value as the reader should read it (a count, or money). */
  display: string;
  /** The filtered list behind the bar. */
  href: string;
}

/** Horizontal bars, one per item, each label a link to the list it counts. */
export function barList(name: string, bars: readonly Bar[]): Html {
  const max = Math.max(1, ...bars.map((bar) => bar.value));
  return html`<ul class="bars" aria-label="${name}">
    ${bars.map(
      (bar) =>
        html`<li>
          <a href="${bar.href}">${bar.label}</a>
          <svg viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false">
            <rect x="0" y="0" height="10" width="${((bar.value / max) * 100).toFixed(2)}"></rect>
          </svg>
          <span class="value">${bar.display}</span>
        </li>`,
    )}
  </ul>`;
}

export interface Column {
  /** Under the column (e.g. a week's first day). */
  label: string;
  value: number;
  display: string;
}

/** Vertical columns over time, with the same figures as a table for screen readers and copying. */
export function columnChart(name: string, columns: readonly Column[]): Html {
  const max = Math.max(1, ...columns.map((column) => column.value));
  const width = 100 / Math.max(1, columns.length);
  return html`<figure class="columns">
    <svg viewBox="0 0 100 40" preserveAspectRatio="none" role="img" aria-label="${name}">
      ${columns.map((column, index) => {
        const height = (column.value / max) * 38;
        return html`<rect
          x="${(index * width + width * 0.15).toFixed(2)}"
          y="${(40 - height).toFixed(2)}"
          width="${(width * 0.7).toFixed(2)}"
          height="${height.toFixed(2)}"
        >
          <title>${column.label}: ${column.display}</title>
        </rect>`;
      })}
    </svg>
    <figcaption>
      <details>
        <summary>${name} as a table</summary>
        <table>
          <tbody>
            ${columns.map(
              (column) =>
                html`<tr>
                  <th scope="row">${column.label}</th>
                  <td>${column.display}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </details>
    </figcaption>
  </figure>`;
}

import { readdirSync, readFileSync } from "node:fs";

/**
 * The dashboard's base stylesheet, served from `/dashboard/assets/app.css` (same origin, no CDN): system
 * fonts, light and dark from the reader's preference, readable on a phone.
 */
const BASE_CSS = `
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #ffffff; --muted: #59636e; --line: #d0d7de;
  --accent: #0b5cad; --on-accent: #ffffff; --danger: #b42318; --panel: #f6f8fa; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #30363d; --accent: #4493f8;
    --on-accent: #0d1117; --danger: #f85149; --panel: #161b22; }
}
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
  background: var(--bg); }
a { color: var(--accent); }
.top { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; padding: .75rem 1.25rem;
  border-bottom: 1px solid var(--line); background: var(--panel); }
.brand { font-weight: 700; text-decoration: none; color: var(--fg); }
nav { display: flex; gap: 1rem; flex-wrap: wrap; }
nav a[aria-current="page"] { font-weight: 600; text-decoration: none; color: var(--fg); }
.who { margin-left: auto; display: flex; gap: .75rem; align-items: center; color: var(--muted); }
main { max-width: 60rem; margin: 0 auto; padding: 1.5rem 1.25rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
form.card, section.card { border: 1px solid var(--line); border-radius: 8px; padding: 1rem 1.25rem;
  margin: 0 0 1.5rem; background: var(--panel); }
label { display: block; margin: .5rem 0 .25rem; font-weight: 600; }
input[type=text], input[type=email], input[type=password], input[type=search], input[type=date],
  input[type=number], input[type=url], input[type=datetime-local], select { width: 100%; max-width: 28rem;
  padding: .5rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); font: inherit; }
fieldset { border: 0; padding: 0; margin: .5rem 0; }
fieldset label { display: inline-flex; gap: .35rem; font-weight: 400; margin-right: 1rem; }
button { font: inherit; padding: .45rem 1rem; border-radius: 6px; border: 1px solid var(--accent);
  background: var(--accent); color: var(--on-accent); cursor: pointer; margin-top: .75rem; }
button.danger { background: transparent; color: var(--danger); border-color: var(--danger); margin: 0; }
.who button { margin: 0; background: transparent; color: var(--accent); }
button:focus-visible, a:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid var(--accent);
  outline-offset: 2px; }
.error { color: var(--danger); margin: .25rem 0; }
.notice { border-left: 4px solid var(--accent); padding: .5rem 1rem; background: var(--panel); }
.secret { font: 15px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; word-break: break-all;
  padding: .75rem; border: 1px dashed var(--line); border-radius: 6px; background: var(--bg); }
table { width: 100%; border-collapse: collapse; margin: .5rem 0 1.5rem; }
th, td { text-align: left; padding: .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
td code { font-size: .9em; }
.muted { color: var(--muted); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1rem; margin: 0 0 1.5rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
textarea { width: 100%; padding: .5rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg);
  color: var(--fg); font: inherit; }
.turn .asked { margin-top: 0; }
.turn .action { border-top: 1px solid var(--line); padding-top: .5rem; }
form.inline { display: inline-block; margin-right: .5rem; }
@media (max-width: 40rem) { th:nth-child(4), td:nth-child(4) { display: none; } }
`;

/** The folder of the pages' own client files: `<area>.css` (appended to app.css) and `<name>.js` islands. */
const CLIENT_DIR = new URL("./client/", import.meta.url);

/**
 * Each page group keeps its styles and scripts in `client/` beside its module, so no two groups
 * edit one file. Read once at start: a few kilobytes, served from memory.
 */
function clientFiles(extension: ".css" | ".js"): Map<string, string> {
  const names = readdirSync(CLIENT_DIR)
    .filter((name) => name.endsWith(extension))
    .sort();
  return new Map(names.map((name) => [name, readFileSync(new URL(name, CLIENT_DIR), "utf8")]));
}

/** `/dashboard/assets/app.css`: the base, then every group's stylesheet in name order. */
export const APP_CSS = [BASE_CSS, ...clientFiles(".css").values()].join("\n");

/** `/dashboard/assets/<name>.js`: the client-side islands (no inline script anywhere: see layout.ts). */
export const CLIENT_SCRIPTS: ReadonlyMap<string, string> = clientFiles(".js");

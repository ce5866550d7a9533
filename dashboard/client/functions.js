// Functions pages, enhanced: the editor's Tab key indents, a rollback or a secret's removal asks
// first, and a function's logs follow new lines as they are written. Every page works without it.
"use strict";

const INDENT = "  ";

/**
 * Tab indents in `textarea[data-code]`. Not a keyboard trap (WCAG 2.1.2): Escape, then Tab, moves
 * on, and Shift+Tab always does; the hint saying so shows only when this script runs.
 */
function indentWithTab() {
  for (const editor of document.querySelectorAll("textarea[data-code]")) {
    const hint = document.getElementById(editor.getAttribute("aria-describedby") ?? "");
    if (hint) hint.hidden = false;
    let leaving = false;
    editor.addEventListener("keydown", (event) => {
      if (event.key === "Escape") return void (leaving = true);
      if (event.key !== "Tab") return void (leaving = false);
      if (leaving || event.shiftKey || event.altKey || event.ctrlKey || event.metaKey) return;
      event.preventDefault();
      editor.setRangeText(INDENT, editor.selectionStart, editor.selectionEnd, "end");
    });
    editor.addEventListener("blur", () => (leaving = false));
  }
}

/** Forms marked `data-confirm` ask before they are sent. */
function confirmForms() {
  document.addEventListener("submit", (event) => {
    const form = event.target instanceof HTMLFormElement ? event.target : null;
    const question = form?.dataset.confirm;
    if (question && !window.confirm(question)) event.preventDefault();
  });
}

const TAIL_MS = 2000;
const HIDDEN_TAIL_MS = 15000;
const MAX_BACKOFF_MS = 30000;
const MAX_LINES = 500;

/**
 * The live tail: polls the API's log list (`data-tail`, read with the session cookie) and adds,
 * newest first, the lines not shown yet, built as the server builds them (logs.ts). Slower while
 * the tab is hidden, backing off on errors; a Pause button stops it (WCAG 2.2.2).
 */
function followLogs() {
  const list = document.querySelector("ol[data-tail]");
  const status = document.getElementById("fn-tail-status");
  if (!list || !status) return;
  const seen = new Set([...list.children].map((item) => item.dataset.id));
  let failures = 0;
  let paused = false;
  let timer;

  const say = (text) => (status.textContent = text);
  const schedule = () => {
    clearTimeout(timer);
    if (paused) return;
    const delay = document.hidden ? HIDDEN_TAIL_MS : Math.min(TAIL_MS * 2 ** failures, MAX_BACKOFF_MS);
    timer = setTimeout(poll, delay);
  };
  async function poll() {
    try {
      const response = await fetch(list.dataset.tail, {
        headers: { accept: "application/json" },
        credentials: "same-origin",
      });
      if (response.status === 401) return say("Stopped: sign in again to follow the logs");
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const page = await response.json();
      addLines(list, seen, page.data);
      failures = 0;
      say("Following new lines");
    } catch {
      failures += 1;
      say("Cannot reach the logs; trying again");
    }
    schedule();
  }

  const toggle = document.createElement("button");
  toggle.type = "button";
  toggle.className = "fn-secondary";
  toggle.textContent = "Pause";
  toggle.setAttribute("aria-pressed", "false");
  toggle.addEventListener("click", () => {
    paused = !paused;
    toggle.setAttribute("aria-pressed", String(paused));
    toggle.textContent = paused ? "Resume" : "Pause";
    say(paused ? "Paused" : "Following new lines");
    if (!paused) void poll();
    else clearTimeout(timer);
  });
  status.after(toggle);
  document.addEventListener("visibilitychange", schedule);
  say("Following new lines");
  schedule();
}

/** The API lists lines newest first: the oldest new one goes on top first, then the next above it. */
function addLines(list, seen, lines) {
  const fresh = lines.filter((line) => !seen.has(line.id)).reverse();
  for (const line of fresh) {
    seen.add(line.id);
    list.prepend(lineElement(line));
  }
  while (list.children.length > MAX_LINES) list.lastElementChild.remove();
  const empty = document.querySelector(".fn-logs-empty");
  if (empty && list.children.length > 0) empty.hidden = true;
}

/** One line as logs.ts renders it; text only, never markup. */
function lineElement(line) {
  const item = document.createElement("li");
  item.className = `fn-log fn-log-${line.level}`;
  item.dataset.id = line.id;
  const time = document.createElement("time");
  time.dateTime = line.timestamp;
  time.textContent = line.timestamp.slice(11, 19);
  item.append(
    time,
    " ",
    part("span", "fn-log-level", line.level),
    " ",
    part("code", "fn-log-message", line.message),
    " ",
    part("span", "fn-log-request muted", line.request_id),
  );
  return item;
}

function part(tag, className, text) {
  const element = document.createElement(tag);
  element.className = className;
  element.textContent = text;
  return element;
}

indentWithTab();
confirmForms();
followLogs();

// Webhooks pages, enhanced: a Copy button beside a revealed secret, and a pending delivery's page
// reloading itself until the outcome lands. Both pages work without this file.
"use strict";

/** A Copy button after each `[data-copy]` element, when the clipboard is available (secure contexts). */
function addCopyButtons() {
  if (!navigator.clipboard) return;
  for (const target of document.querySelectorAll("[data-copy]")) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.textContent = "Copy";
    button.addEventListener("click", () => {
      navigator.clipboard.writeText(target.textContent.trim()).then(
        () => (button.textContent = "Copied"),
        () => (button.textContent = "Copy failed: select the text instead"),
      );
    });
    target.after(button);
  }
}

/** While a delivery is pending, look again every few seconds (a minute at most). */
const REFRESH_MS = 2000;
const MAX_REFRESHES = 30;

function refreshWhilePending() {
  if (!document.querySelector("[data-refresh]")) return;
  const url = new URL(location.href);
  const count = Number(url.searchParams.get("refresh") ?? "0");
  if (count >= MAX_REFRESHES) return;
  url.searchParams.set("refresh", String(count + 1));
  // The notice of the action that led here has been read.
  url.searchParams.delete("done");
  setTimeout(() => location.replace(url.href), REFRESH_MS);
}

addCopyButtons();
refreshWhilePending();

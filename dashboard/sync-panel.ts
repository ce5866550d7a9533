import type { Context, Hono } from "hono";
import { html, raw } from "hono/html";
import { AppError, isAppError } from "../core/index.ts";
import { hasScope } from "../engines/index.ts";
import { type SyncCaller, type SyncInteraction } from "../sync/index.ts";
import type { AppEnv } from "../api/env.ts";
import { csrfField, type Html, page, postButton } from "./layout.ts";
import { requires, type PostedEnv } from "./gates.ts";
import { textOf, type DashboardParts, type Signed } from "./parts.ts";

/**
 * The SYNC chat panel (`/sync`): a conversation's turns with each reply, and the actions SYNC
 * proposed with Approve and Reject buttons for a user whose role can decide them. Plain forms,
 * posted and redirected back (no script): the same service and checks as `POST /v1/sync/chat`.
 */
export function syncPanelRoutes(app: Hono<AppEnv>, panel: DashboardParts): void {
  const { deps } = panel;
  const callerOf = (signed: Signed): SyncCaller => ({
    orgId: signed.session.orgId,
    scopes: signed.session.scopes,
    credential: { type: "user", id: signed.session.user.id },
  });

  app.get("/sync", panel.signedIn, async (c) => {
    const { signed } = c.var;
    const conversationId = c.req.query("conversation");
    let turns: SyncInteraction[] = [];
    if (conversationId && /^conv_[A-Za-z0-9]{1,64}$/.test(conversationId)) {
      const conversation = await deps.sync
        .getConversation(signed.session.orgId, conversationId)
        .catch(() => undefined);
      turns = conversation?.interactions ?? [];
    }
    const error = c.req.query("error");
    return c.html(page("SYNC", panel.nav(signed, "/sync"), chatPage(signed, turns, conversationId, error)));
  });

  // A refusal here is the app's error page (403), as `POST /v1/sync/chat` would refuse it.
  const mayAsk = requires("sync", "read", () => {
    throw new AppError("insufficient_scope", "Your role cannot ask SYNC");
  });
  app.post("/sync", panel.posted, mayAsk, async (c) => {
    const { signed, form } = c.var;
    const message = String([form.message ?? ""].flat()[0] ?? "").trim();
    const conversation = String([form.conversation_id ?? ""].flat()[0] ?? "");
    try {
      if (!message) throw new AppError("validation_failed", "Write a question or a request first");
      const interaction = await deps.sync.chat(callerOf(signed), {
        message,
        ...(conversation ? { conversation_id: conversation } : {}),
      });
      return c.redirect(`/sync?conversation=${interaction.conversation_id}`, 303);
    } catch (error) {
      if (!isAppError(error) || !error.isUserError) throw error;
      const back = conversation ? `conversation=${conversation}&` : "";
      return c.redirect(`/sync?${back}error=${encodeURIComponent(error.message)}`, 303);
    }
  });

  /** Back to the conversation, with what went wrong when something did. */
  const backToChat = (c: Context<PostedEnv>, error: string) => {
    const conversation = textOf(c.var.form, "conversation_id");
    const query = new URLSearchParams({
      ...(conversation ? { conversation } : {}),
      ...(error ? { error } : {}),
    });
    return c.redirect(`/sync?${query.toString()}`, 303);
  };
  // A refusal here reads like the service's own: back to the conversation, the reason shown.
  const mayDecide = requires<PostedEnv>("sync", "write", (c) =>
    backToChat(c, "Your role cannot decide SYNC's actions"),
  );
  for (const verb of ["approve", "reject"] as const) {
    app.post(`/sync/actions/:id/${verb}`, panel.posted, mayDecide, async (c) => {
      const { signed } = c.var;
      let error = "";
      try {
        const caller = callerOf(signed);
        const id = c.req.param("id");
        const action =
          verb === "approve" ? await deps.sync.approve(caller, id) : await deps.sync.reject(caller, id);
        if (action.status === "failed") {
          const reason = action.error?.message;
          error = `The change failed: ${typeof reason === "string" ? reason : "see the action"}`;
        }
      } catch (caught) {
        if (!isAppError(caught) || !caught.isUserError) throw caught;
        error = caught.message;
      }
      return backToChat(c, error);
    });
  }
}

function chatPage(
  signed: Signed,
  turns: SyncInteraction[],
  conversationId: string | undefined,
  error: string | undefined,
): Html {
  const canDecide = hasScope(signed.session.scopes, "sync", "write");
  return html`<h1>SYNC</h1>
    ${error ? html`<p class="error" role="alert">${error}</p>` : ""}
    ${turns.map(
      (turn) =>
        html`<section class="card turn">
          <p class="asked"><strong>You:</strong> ${turn.message}</p>
          <div class="reply">${markdown(turn.reply)}</div>
          ${turn.actions.map(
            (action) =>
              html`<div class="action">
                <p><strong>${action.preview}</strong> <span class="muted">(${action.status})</span></p>
                ${
                  action.status === "proposed" && canDecide
                    ? html`${(["approve", "reject"] as const).map((verb) =>
                        postButton(
                          signed,
                          `/sync/actions/${action.id}/${verb}`,
                          verb === "approve" ? "Approve" : "Reject",
                          {
                            formClass: "inline",
                            fields: { conversation_id: turn.conversation_id },
                            ...(verb === "reject" ? { buttonClass: "danger" } : {}),
                          },
                        ),
                      )}`
                    : ""
                }
              </div>`,
          )}
        </section>`,
    )}
    <form method="post" action="/sync" class="card">
      ${csrfField(signed)}
      ${conversationId ? html`<input type="hidden" name="conversation_id" value="${conversationId}" />` : ""}
      <label for="message"
        >${turns.length ? "Ask a follow-up" : "Ask about your invoices, contacts, deals, candidates…"}</label
      >
      <textarea id="message" name="message" rows="3" required maxlength="4000"></textarea>
      <button type="submit">Ask</button>
      ${turns.length ? html` <a href="/sync">New conversation</a>` : ""}
    </form>`;
}

/**
 * The little Markdown SYNC's replies use (**bold**, `- ` lists, paragraphs), rendered after every
 * character of the text is escaped: nothing in a reply (which quotes the data) becomes markup.
 */
export function markdown(text: string): Html {
  const escape = (value: string) =>
    value.replace(
      /[&<>"']/g,
      (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
    );
  const inline = (value: string) => escape(value).replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
  const blocks: string[] = [];
  let list: string[] = [];
  const flush = () => {
    if (list.length) blocks.push(`<ul>${list.map((item) => `<li>${item}</li>`).join("")}</ul>`);
    list = [];
  };
  for (const line of text.split("\n")) {
    if (/^\s*- /.test(line)) list.push(inline(line.replace(/^\s*- /, "")));
    else {
      flush();
      if (line.trim()) blocks.push(`<p>${inline(line)}</p>`);
    }
  }
  flush();
  return raw(blocks.join(""));
}

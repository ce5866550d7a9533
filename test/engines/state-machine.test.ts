import { describe, expect, it } from "vitest";
import { INVOICE_LIFECYCLE } from "../../engines/finance/invoices.ts";
import { DEAL_LIFECYCLE } from "../../engines/growth/deals.ts";
import { defineStateMachine } from "../../engines/state-machine.ts";
import { CANDIDATE_LIFECYCLE } from "../../engines/talent/candidates.ts";

/**
 * A lifecycle declared as data (engines/state-machine.ts): a move's columns and a change's events
 * come from the one machine. The API suites (invoices, deals, candidates, payments) check the
 * events as they are recorded; this checks the machines themselves.
 */
const now = new Date("2026-01-02T03:04:05Z");

describe("defineStateMachine", () => {
  it("gives a move's columns (the state and its stamp), none for staying put, and refuses a move not declared", () => {
    expect(DEAL_LIFECYCLE.move("proposal", "won", now)).toEqual({ stage: "won", closed_at: now });
    expect(DEAL_LIFECYCLE.move("lead", "qualified", now)).toEqual({ stage: "qualified" });
    expect(DEAL_LIFECYCLE.move("won", "won", now)).toEqual({});
    expect(INVOICE_LIFECYCLE.move("draft", "open", now)).toEqual({ status: "open", issued_at: now });
    expect(CANDIDATE_LIFECYCLE.move("offer", "hired", now)).toEqual({ status: "hired", hired_at: now });
    expect(() => DEAL_LIFECYCLE.move("won", "lead", now)).toThrow("Deal is won; it cannot become lead");
  });

  it("gives a change's events: the change, then the state entered; a create only the entry", () => {
    expect(DEAL_LIFECYCLE.eventsOf("proposal", "won")).toEqual(["deal.stage_changed", "deal.won"]);
    expect(DEAL_LIFECYCLE.eventsOf("lead", "qualified")).toEqual(["deal.stage_changed"]);
    expect(DEAL_LIFECYCLE.eventsOf("lead", "lead")).toEqual([]);
    expect(DEAL_LIFECYCLE.eventsOf(undefined, "lead")).toEqual([]);
    expect(CANDIDATE_LIFECYCLE.eventsOf("offer", "rejected")).toEqual([
      "candidate.status_changed",
      "candidate.rejected",
    ]);
    expect(INVOICE_LIFECYCLE.eventsOf(undefined, "open")).toEqual(["invoice.sent"]);
    expect(INVOICE_LIFECYCLE.eventsOf("open", "paid")).toEqual(["invoice.paid"]);
    // Time makes an invoice overdue: the scheduler records that event, an update never does.
    expect(INVOICE_LIFECYCLE.eventsOf("open", "overdue")).toEqual([]);
    expect(INVOICE_LIFECYCLE.timedEvent("overdue")).toBe("invoice.overdue");
  });

  it("lists every event it records for the catalog, and wants transitions for every state", () => {
    expect(DEAL_LIFECYCLE.eventTypes.map((event) => event.type)).toEqual([
      "deal.stage_changed",
      "deal.won",
      "deal.lost",
    ]);
    expect(INVOICE_LIFECYCLE.eventTypes.map((event) => event.type)).toEqual([
      "invoice.sent",
      "invoice.paid",
      "invoice.voided",
      "invoice.overdue",
    ]);
    expect(() =>
      defineStateMachine<"a" | "b">({
        object: "Thing",
        param: "status",
        states: ["a", "b"],
        // A state left out, as plain JavaScript or a cast could.
        transitions: { a: ["b"] } as unknown as Record<"a" | "b", readonly ("a" | "b")[]>,
        finalEditable: [],
        events: {},
      }),
    ).toThrow("Thing: no transitions for b");
  });
});

import { AppError } from "../core/index.ts";

/**
 * A resource's lifecycle (invoice status, deal stage, candidate status), declared as data: its
 * states, which moves are allowed, what a final state still lets change, the column each state
 * stamps with the time of the move, and the events a change of state records. States without
 * moves are final. Refusals are 409 `invalid_state_transition` naming both states or each locked
 * field, the same wording for every resource.
 *
 * A resource declares its machine as its definition's `lifecycle` (engines/resource.ts): the
 * update's columns come from `move`, and the generic service records `eventsOf` with every
 * change it makes (a `recordChange` too), in the same transaction, so a move and its events
 * cannot be separated.
 *
 * @example
 *   const machine = defineStateMachine({
 *     object: "Deal", param: "stage", states: DEAL_STAGES, transitions, finalEditable: ["metadata", "title"],
 *     stamps: { won: "closed_at", lost: "closed_at" },
 *     events: { changed: { type: "deal.stage_changed", description: "…" }, entered: { won: { type: "deal.won", description: "…" } } },
 *   });
 *   machine.move("proposal", "won", now); // { stage: "won", closed_at: now }
 *   machine.eventsOf("proposal", "won"); // ["deal.stage_changed", "deal.won"]
 *   machine.move("won", "lead", now); // throws: "Deal is won; it cannot become lead"
 */
export interface StateMachine<S extends string> {
  /** The field that holds the state, e.g. `status` or `stage`. */
  readonly param: string;
  canMove(from: S, to: S): boolean;
  isFinal(state: S): boolean;
  /** Throws unless `from → to` is allowed (staying put always is). */
  assertMove(from: S, to: S): void;
  /** Throws when `patch` changes anything but the final-editable fields of a final object. */
  assertEditable(current: S, patch: object): void;
  /**
   * The columns a move writes: none when staying put, else the state and the column its new
   * state stamps (`now`). Throws as `assertMove` does.
   */
  move(from: S, to: S, now: Date): Record<string, unknown>;
  /**
   * The events of a change from `before` (undefined for a create) to `after`: none when the state
   * is the same; else `changed`, then what entering `after` records. A create enters its first
   * state: only its entry event, if it has one (an invoice created open is sent).
   */
  eventsOf(before: S | undefined, after: S): string[];
  /** The event of a state time moves an object into, for the job that records the move. */
  timedEvent(state: S): string;
  /** Every kind of event the machine records, for the event catalog. */
  readonly eventTypes: readonly StateEvent[];
}

/** A kind of event a machine records, as the catalog lists it. */
export interface StateEvent {
  type: string;
  description: string;
}

export interface StateMachineSpec<S extends string> {
  /** Capitalized name for messages, e.g. `Invoice`. */
  object: string;
  /** The field that holds the state, e.g. `status` or `stage`. */
  param: string;
  /** Every state, in order. */
  states: readonly S[];
  transitions: Record<S, readonly S[]>;
  /** Fields a final object still lets change (besides re-sending its own state). */
  finalEditable: readonly string[];
  /** The timestamp column a move into a state sets, e.g. `{ paid: "paid_at" }`. */
  stamps?: Partial<Record<S, string>>;
  events: {
    /** Recorded on every change of state, e.g. `deal.stage_changed`. */
    changed?: StateEvent;
    /** Recorded on entering a state, after `changed`, e.g. `{ won: deal.won }`. */
    entered?: Partial<Record<S, StateEvent>>;
    /**
     * States an object reaches as time passes rather than by a write (an invoice whose due date
     * passed): their event is recorded by the job that records the state (`timedEvent`), never
     * by an update, which sees such a state derived from the date before anything recorded it.
     */
    timed?: Partial<Record<S, StateEvent>>;
  };
}

export function defineStateMachine<S extends string>(spec: StateMachineSpec<S>): StateMachine<S> {
  for (const state of spec.states) {
    if (!spec.transitions[state]) throw new Error(`${spec.object}: no transitions for ${state}`);
  }
  const editable = new Set(spec.finalEditable);
  const lower = spec.object.toLowerCase();
  const { changed } = spec.events;
  const entered: Partial<Record<S, StateEvent>> = spec.events.entered ?? {};
  const timed: Partial<Record<S, StateEvent>> = spec.events.timed ?? {};
  const stamps: Partial<Record<S, string>> = spec.stamps ?? {};
  const canMove = (from: S, to: S) => spec.transitions[from].includes(to);
  const isFinal = (state: S) => spec.transitions[state].length === 0;
  const assertMove = (from: S, to: S) => {
    if (from === to || canMove(from, to)) return;
    throw new AppError("invalid_state_transition", `${spec.object} is ${from}; it cannot become ${to}`, {
      errors: [{ param: spec.param, code: "invalid_transition", message: `${from} → ${to} is not allowed` }],
    });
  };
  const declared = (events: Partial<Record<S, StateEvent>>) =>
    spec.states.flatMap((state) => (events[state] ? [events[state]] : []));
  return {
    param: spec.param,
    canMove,
    isFinal,
    assertMove,
    assertEditable(current, patch) {
      if (!isFinal(current)) return;
      const values = patch as Record<string, unknown>;
      const locked = Object.keys(values).filter(
        (key) => !editable.has(key) && !(key === spec.param && values[key] === current),
      );
      if (locked.length === 0) return;
      const allowed = spec.finalEditable.join(" and ");
      throw new AppError(
        "invalid_state_transition",
        `${spec.object} is ${current}; only ${allowed} can change`,
        {
          errors: locked.map((param) => ({
            param,
            code: `${lower}_final`,
            message: `cannot change a ${current} ${lower}`,
          })),
        },
      );
    },
    move(from, to, now) {
      if (from === to) return {};
      assertMove(from, to);
      const stamp = stamps[to];
      return stamp ? { [spec.param]: to, [stamp]: now } : { [spec.param]: to };
    },
    eventsOf(before, after) {
      if (before === after) return [];
      const types = before !== undefined && changed ? [changed.type] : [];
      const entry = entered[after];
      if (entry) types.push(entry.type);
      return types;
    },
    timedEvent(state) {
      const event = timed[state];
      if (!event) throw new Error(`${spec.object}: no timed event for ${state}`);
      return event.type;
    },
    eventTypes: [...(changed ? [changed] : []), ...declared(entered), ...declared(timed)],
  };
}

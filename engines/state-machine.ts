import { AppError } from "../core/index.ts";

/**
 * A resource's lifecycle (invoice status, deal stage, candidate status): which moves
 * are allowed, and what a final state still lets change. States without moves are
 * final. Refusals are 409 `invalid_state_transition` naming both states or each
 * locked field, the same wording for every resource.
 *
 * @example
 *   const machine = defineStateMachine({ object: "Deal", param: "stage", transitions, finalEditable: ["metadata", "title"] });
 *   machine.assertMove("won", "lead"); // throws: "Deal is won; it cannot become lead"
 */
export interface StateMachine<S extends string> {
  canMove(from: S, to: S): boolean;
  isFinal(state: S): boolean;
  /** Throws unless `from → to` is allowed (staying put always is). */
  assertMove(from: S, to: S): void;
  /** Throws when `patch` changes anything but the final-editable fields of a final object. */
  assertEditable(current: S, patch: object): void;
}

export interface StateMachineSpec<S extends string> {
  /** Capitalized name for messages, e.g. `Invoice`. */
  object: string;
  /** The field that holds the state, e.g. `status` or `stage`. */
  param: string;
  transitions: Record<S, readonly S[]>;
  /** Fields a final object still lets change (besides re-sending its own state). */
  finalEditable: readonly string[];
}

export function defineStateMachine<S extends string>(spec: StateMachineSpec<S>): StateMachine<S> {
  const editable = new Set(spec.finalEditable);
  const lower = spec.object.toLowerCase();
  const canMove = (from: S, to: S) => spec.transitions[from].includes(to);
  const isFinal = (state: S) => spec.transitions[state].length === 0;
  return {
    canMove,
    isFinal,
    assertMove(from, to) {
      if (from === to || canMove(from, to)) return;
      throw new AppError("invalid_state_transition", `${spec.object} is ${from}; it cannot become ${to}`, {
        errors: [
          { param: spec.param, code: "invalid_transition", message: `${from} → ${to} is not allowed` },
        ],
      });
    },
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
  };
}

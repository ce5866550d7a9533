// SYNC's built-in planner (no model): see README.md.
export { createBuiltinPlanner } from "./planner.ts";

import cron from "node-cron";
import { describe, expect, it } from "vitest";
import { cronProblem } from "../../core/index.ts";

/** core/ imports no cron library, so its check is held to node-cron's own `validate`. */
describe("cronProblem", () => {
  it("accepts exactly what node-cron accepts", () => {
    const cases = [
      "0 * * * *",
      "*/5 * * * *",
      "0 0 1 1 *",
      "0 0 * jan mon",
      "0 0 * January Monday",
      "0 0 * * 7",
      "1-5/2 * * * *",
      "0,15,30,45 * * * *",
      "59 59 23 31 12 7",
      "* * * * * *",
      "0 0 * * sun-sat",
      "0 25 * * *",
      "* * * *",
      "0 0 32 * *",
      "0 0 0 * *",
      "0 0 * * 8",
      "*/0 * * * *",
      "a * * * *",
      "60 * * * * *",
      "* * * * * * *",
      "",
      "0 0 * 13 *",
      "-1 * * * *",
      "1--2 * * * *",
      "*/5/2 * * * *",
      "? * * * *",
    ];
    for (const expression of cases)
      expect(cronProblem(expression) === undefined, expression).toBe(cron.validate(expression));
  });

  it("names the field at fault", () => {
    expect(cronProblem("0 25 * * *")).toBe("hour: 25 is outside 0-23");
    expect(cronProblem("0 * * *")).toMatch(/5 fields/);
  });
});

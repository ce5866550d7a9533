/**
 * The order subjects are loaded in, round by round: as given, then reversed, then as given…
 *
 * These machines drift: the closing run of function-invoke (bench/README.md, 2026-11-27) saw
 * bare Hono's rate move by a quarter within minutes. In a fixed order the subject loaded last
 * in every round always meets the machine later than the first, and a steady drift then reads
 * as a difference between them. Reversing every other round gives each subject the same mean
 * place over each pair of rounds, so a steady drift falls on all of them alike.
 */
export function orderOfRound<T>(subjects: readonly T[], round: number): readonly T[] {
  return round % 2 === 0 ? subjects : [...subjects].reverse();
}

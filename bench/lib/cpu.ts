/** CPU time from Linux `/proc`, for the load reports (undefined elsewhere). */
import { readFileSync } from "node:fs";

const TICKS_PER_S = 100;

/** CPU seconds a process has used so far, all its threads (Linux /proc; undefined elsewhere). */
export function processCpuS(pid: number): number | undefined {
  return statCpuS(`/proc/${pid}/stat`);
}

/** CPU seconds one thread of a process has used so far. */
export function threadCpuS(pid: number, tid: number): number | undefined {
  return statCpuS(`/proc/${pid}/task/${tid}/stat`);
}

/** utime + stime of a `stat` file: the 12th and 13th fields after the parenthesized command. */
export function statCpuS(path: string): number | undefined {
  try {
    const fields = readFileSync(path, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
  } catch {
    return undefined;
  }
}

/** CPU seconds of the whole machine so far, summed over cores (Linux /proc). */
export function machineCpuS(): { busy: number; steal: number } | undefined {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n")[0]!;
    // user nice system idle iowait irq softirq steal …; guest time is already inside user.
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    const busy = (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0);
    return { busy: busy / TICKS_PER_S, steal: (steal ?? 0) / TICKS_PER_S };
  } catch {
    return undefined;
  }
}

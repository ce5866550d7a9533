/** `Temporal` (TC39 proposal, stage 3): calendar arithmetic and durations without `Date`. */
export function temporal() {
  const leapDay = Temporal.PlainDate.from("2024-02-29");
  const duration = Temporal.Duration.from({ hours: 1, minutes: 90 });
  return {
    next_year: leapDay.add({ years: 1 }).toString(),
    day_of_week: leapDay.dayOfWeek,
    duration: duration.round({ largestUnit: "hour" }).toString(),
    total_minutes: duration.total({ unit: "minute" }),
    until: leapDay.until(Temporal.PlainDate.from("2024-12-25")).toString(),
  };
}

/** The wall clock of an instant in a zone straight from ICU: the oracle of the time-zone tests. */

/** Wall-clock fields of `utcMs` in `zoneId` (an ICU zone name), as epoch ms of those fields in UTC. */
export function wallClock(zoneId: string, utcMs: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zoneId,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(utcMs));
  const f = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return (
    Date.UTC(f('year'), f('month') - 1, f('day'), f('hour'), f('minute'), f('second')) +
    (((utcMs % 1000) + 1000) % 1000)
  );
}

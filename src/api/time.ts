/** Durations are milliseconds. These helpers make job code read like the intent. */
export const Time = {
  milliseconds: (n: number): number => n,
  seconds: (n: number): number => n * 1000,
  minutes: (n: number): number => n * 60_000,
  hours: (n: number): number => n * 3_600_000,
  days: (n: number): number => n * 86_400_000,
} as const;

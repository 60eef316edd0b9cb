/** The generated logins of examples/login-fraud.ts (no imports, so tests can regenerate them). */

export interface Login {
  readonly user: string;
  readonly ok: boolean;
  readonly country: string;
  /** When the login happened (epoch ms). */
  readonly time: number;
}

export const COUNTRIES = ['NL', 'DE', 'FR', 'BR', 'US', 'JP'];
/** A fixed start, so every run produces the same alerts. */
export const START = Date.UTC(2025, 0, 1, 12, 0, 0);
export const MAX_OUT_OF_ORDERNESS = 5_000;
export const USERS = 2_000;

/** Login `i`: one every 50 ms; a user's home country is fixed, one login in ten comes from elsewhere. */
export function generateLogin(
  i: number,
  random: { int(n: number): number; next(): number },
): Login {
  const u = random.int(USERS);
  const foreign = random.next() < 0.1;
  return {
    user: `user-${u}`,
    ok: random.next() > 0.4,
    country: foreign ? COUNTRIES[random.int(COUNTRIES.length)]! : COUNTRIES[u % COUNTRIES.length]!,
    time: Math.max(START, START + i * 50 - random.int(MAX_OUT_OF_ORDERNESS + 1)),
  };
}

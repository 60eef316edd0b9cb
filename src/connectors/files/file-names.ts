/** Orders file names or paths by UTF-16 code units: the same order on every machine and locale. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

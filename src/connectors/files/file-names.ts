/** Orders file names or paths by UTF-16 code units: the same order on every machine and locale. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The subtask of `parallelism` that reads the file named `name`: a hash of
 * the name (FNV-1a over its UTF-16 code units), so every subtask agrees
 * without talking to the others, on every machine.
 */
export function ownerOf(name: string, parallelism: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % parallelism;
}

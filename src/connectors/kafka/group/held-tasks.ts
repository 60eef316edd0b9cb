/**
 * The group tasks (`topic:partition`) this process holds now, by the reader
 * that holds them. A process runs its stages on one thread, so the writer
 * of a keyed exchange learns here which producing tasks it speaks for when
 * it writes watermarks.
 */
const byReader = new Map<object, ReadonlySet<string>>();

/** Records the tasks `reader` holds after an assignment change (empty when it closes). */
export function setHeldTasks(reader: object, tasks: ReadonlySet<string>): void {
  if (tasks.size === 0) byReader.delete(reader);
  else byReader.set(reader, tasks);
}

/** The tasks held now of the given topics. */
export function heldTasksOf(topics: readonly string[]): string[] {
  const out: string[] = [];
  for (const tasks of byReader.values())
    for (const t of tasks) if (topics.includes(t.slice(0, t.lastIndexOf(':')))) out.push(t);
  return out;
}

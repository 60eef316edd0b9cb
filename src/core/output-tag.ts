/**
 * Names a side output: a second stream an operator can emit to, such as late
 * records. Tags are compared by identity, and the id must be unique in a job.
 */
export class OutputTag<T> {
  /** Type-level marker only; never set. */
  declare readonly __type?: T;
  constructor(readonly id: string) {
    if (id.length === 0) throw new TypeError('OutputTag id must not be empty');
  }
}

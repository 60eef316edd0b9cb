import { type Change, type ChangelogMode, isChange } from '../../core/changelog.js';
import { describeRecord, WeirError } from '../../core/errors.js';

/**
 * The check of a declared changelog (`asChangelog(mode)`): returns a change
 * of `mode` unchanged and fails the job, naming the record, on anything else.
 */
export function changeChecker(mode: ChangelogMode): (change: unknown) => Change<unknown> {
  const allowed =
    mode === 'insert-only'
      ? ['+I']
      : mode === 'upsert'
        ? ['+I', '+U', '-D']
        : ['+I', '-U', '+U', '-D'];
  return (change) => {
    if (!isChange(change) || !allowed.includes(change.kind)) {
      throw new WeirError(
        'BAD_RECORD',
        `a ${mode} changelog record must be { kind: ${allowed.map((k) => `'${k}'`).join(' | ')}, value }, got ${describeRecord(change)}`,
        { record: describeRecord(change) },
      );
    }
    return change;
  };
}

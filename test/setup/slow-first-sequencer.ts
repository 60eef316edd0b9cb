import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds of wall time of the slowest test files in a CI run (two files at a
 * time on two busy cores). Only the order matters: keep the list roughly
 * sorted and add a file here when it takes more than about 25 s.
 */
export const SLOW_FILES: Readonly<Record<string, number>> = {
  'test/checkpoint/backpressure.test.ts': 181,
  'test/kafka/outage.test.ts': 150,
  'test/checkpoint/crash.test.ts': 138,
  'test/postgres/outage.test.ts': 101,
  'test/process/exactly-once-group.test.ts': 86,
  'test/process/task-snapshots-group.test.ts': 71,
  'test/package/npm-package.test.ts': 69,
  'test/workers/equivalence.test.ts': 66,
  'test/kafka/exactly-once.test.ts': 55,
  'test/process/process-group-keyed.test.ts': 52,
  'test/process/keyed-state-handover.test.ts': 49,
  'test/postgres/crash.test.ts': 44,
  'test/nexmark/flink-equivalence.test.ts': 44,
  'test/package/consumer.test.ts': 41,
  'test/kafka/schema-registry.test.ts': 39,
  'test/kafka/credential-leak.test.ts': 37,
  'test/cli/savepoint.test.ts': 34,
  'test/kafka/security.test.ts': 34,
  'test/process/process-group-cli.test.ts': 32,
  'test/process/keyed-queries-group.test.ts': 32,
  'test/process/single-owner-cli.test.ts': 28,
};

/**
 * Starts the known-slow files first, longest first. Vitest's own order needs
 * the durations of an earlier run, which a clean clone (CI) lacks: it then
 * starts the largest files first, and a small file that runs for minutes
 * (a throttled sink, a broker kept down) could start last and leave one
 * worker busy long after the other has run out of files. The remaining files
 * keep vitest's order (durations when known, otherwise size).
 */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rest = await super.sort(files);
    const seconds = (file: TestSpecification) =>
      SLOW_FILES[relative(file.project.config.root, file.moduleId).replaceAll('\\', '/')] ?? 0;
    // Stable: files outside the list (0 s) keep vitest's order behind the slow ones.
    return rest
      .map((file, index) => ({ file, index, seconds: seconds(file) }))
      .sort((a, b) => b.seconds - a.seconds || a.index - b.index)
      .map(({ file }) => file);
  }
}

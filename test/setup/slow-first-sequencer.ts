import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds of wall time of the slowest test files in a CI run (two files at a
 * time on two busy cores; estimates for files changed since). Only the order
 * matters: keep the list roughly sorted and add a file here when it takes more
 * than about 25 s.
 */
export const SLOW_FILES: Readonly<Record<string, number>> = {
  'test/checkpoint/crash.test.ts': 230,
  // Three minutes of a throttled sink at 12 CPU-seconds: it starts beside the heaviest file,
  // which then has both cores (the crash test alone: 162 s, 203 CPU-s), rather than two of
  // the heaviest starting together.
  'test/checkpoint/backpressure.test.ts': 225,
  'test/process/process-group-joins.test.ts': 220,
  'test/process/exactly-once-group.test.ts': 190,
  'test/package/npm-package.test.ts': 150,
  'test/process/process-group-keyed.test.ts': 147,
  'test/process/keyed-state-handover.test.ts': 136,
  'test/nexmark/flink-equivalence.test.ts': 130,
  'test/postgres/outage.test.ts': 113,
  'test/kafka/outage.test.ts': 100,
  'test/kafka/schema-registry.test.ts': 100,
  'test/postgres/crash.test.ts': 85,
  'test/cli/savepoint.test.ts': 45,
  'test/kafka/security.test.ts': 70,
  'test/kafka/exactly-once.test.ts': 70,
  'test/process/process-group-cli.test.ts': 61,
  'test/process/single-owner-cli.test.ts': 59,
  'test/workers/equivalence.test.ts': 55,
  'test/kafka/reconcile.test.ts': 56,
  'test/sql/differential/differential.test.ts': 54,
  'test/process/zombie-fencing-group.test.ts': 47,
  'test/kafka/credential-leak.test.ts': 46,
  'test/process/interactive-queries-group.test.ts': 44,
  'test/process/keyed-queries-group.test.ts': 43,
  'test/process/task-snapshots-group.test.ts': 42,
  'test/package/consumer.test.ts': 40,
  'test/cli/cli.test.ts': 37,
  'test/cep/example.test.ts': 37,
  'test/sql/nexmark-flink.test.ts': 35,
  'test/cli/observe.test.ts': 30,
  'test/workers/features.test.ts': 33,
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

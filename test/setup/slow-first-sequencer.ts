import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that run for more than about 25 s, in the order they start (add a file here when it
 * grows that slow). Two files run at a time, so the order also pairs them: the first files
 * alternate between one that mostly computes (jobs killed and started again, a build, the Flink
 * peer's JVM: more CPU-seconds than wall seconds when alone) and one that mostly waits (a
 * throttled sink, a server kept down). Two of the first kind together starve each other: in
 * CI runs, `process-group-joins` beside `exactly-once-group` ran 429 s (and failed) against
 * 187 s alone, the crash test 444 s beside the join test against 162 s. CPU-seconds / wall
 * seconds of a run alone, where measured.
 */
export const SLOW_FILES: readonly string[] = [
  'test/checkpoint/crash.test.ts', // 203 / 162
  'test/checkpoint/backpressure.test.ts', // 12 / 191
  'test/process/process-group-joins.test.ts', // 253 / 187
  'test/postgres/outage.test.ts', // 25 / 111
  'test/process/exactly-once-group.test.ts', // like process-group-joins
  'test/kafka/outage.test.ts', // 81 / 131
  'test/package/npm-package.test.ts', // 240 / 160
  'test/kafka/security.test.ts', // 43 / 62
  'test/nexmark/flink-equivalence.test.ts', // 199 / 127
  'test/process/process-group-keyed.test.ts',
  'test/process/keyed-state-handover.test.ts',
  'test/kafka/schema-registry.test.ts', // 77 / 69
  'test/kafka/reconcile.test.ts', // 84 / 72
  'test/postgres/crash.test.ts',
  'test/kafka/exactly-once.test.ts',
  'test/process/process-group-cli.test.ts',
  'test/process/single-owner-cli.test.ts',
  'test/workers/equivalence.test.ts',
  'test/sql/differential/differential.test.ts',
  'test/process/zombie-fencing-group.test.ts',
  'test/kafka/credential-leak.test.ts',
  'test/cli/savepoint.test.ts',
  'test/process/interactive-queries-group.test.ts',
  'test/process/keyed-queries-group.test.ts',
  'test/process/task-snapshots-group.test.ts',
  'test/package/consumer.test.ts',
  'test/cli/cli.test.ts',
  'test/cep/example.test.ts',
  'test/sql/nexmark-flink.test.ts',
  'test/workers/features.test.ts',
  'test/cli/observe.test.ts',
];

/**
 * Starts the known-slow files first, in the order of {@link SLOW_FILES}. Vitest's own order needs
 * the durations of an earlier run, which a clean clone (CI) lacks: it then
 * starts the largest files first, and a small file that runs for minutes
 * (a throttled sink, a broker kept down) could start last and leave one
 * worker busy long after the other has run out of files. The remaining files
 * keep vitest's order (durations when known, otherwise size).
 */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rest = await super.sort(files);
    const position = (file: TestSpecification) => {
      const at = SLOW_FILES.indexOf(
        relative(file.project.config.root, file.moduleId).replaceAll('\\', '/'),
      );
      return at < 0 ? SLOW_FILES.length : at;
    };
    // Stable: files outside the list keep vitest's order behind the slow ones.
    return rest
      .map((file, index) => ({ file, index, position: position(file) }))
      .sort((a, b) => a.position - b.position || a.index - b.index)
      .map(({ file }) => file);
  }
}

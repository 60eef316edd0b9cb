/** Where Flink SQL's rows for the MATCH_RECOGNIZE cases are recorded. */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const GOLDEN_FILE = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'fixtures',
  'match-recognize-flink.jsonl',
);

/** Where Flink SQL's rows for the window operator cases are recorded. */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const WINDOW_GOLDEN_FILE = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'fixtures',
  'window-operators-flink.jsonl',
);

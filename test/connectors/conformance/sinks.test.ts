/**
 * The sink conformance checks (weir/testing) for every sink that needs no
 * external server: collect, discard, print, JSON Lines and exactly-once files.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll } from 'vitest';
import {
  CollectSink,
  DiscardingSink,
  ExactlyOnceFileSink,
  JsonLinesSink,
  PrintSink,
} from '../../../src/index.js';
import { sinkChecks } from '../../../src/testing/index.js';
import { committedLines } from '../../helpers/committed-lines.js';
import { conformance } from './register.js';

let dir = '';
let files = 0;
/** A path no sink wrote to yet. */
const fresh = (name: string) => join(dir, `${files++}-${name}`);
const records = Array.from({ length: 19 }, (_, i) => ({ id: i, text: `r${i}` }));
const parse = (lines: readonly string[]) => lines.map((l) => JSON.parse(l) as unknown);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weir-sink-conformance-'));
  await writeFile(join(dir, 'a-file'), '');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Under a regular file: no directory can be made there. */
const unwritable = (name: string) => join(dir, 'a-file', name);

conformance(
  'CollectSink',
  sinkChecks({ create: () => new CollectSink<object>(), records, visible: (s) => s.values }),
);

conformance('DiscardingSink', sinkChecks({ create: () => new DiscardingSink<object>(), records }));

/** A print sink writing into a stream the test reads. */
class CapturedPrintSink extends PrintSink<object> {
  text = '';
  constructor() {
    const stream = new PassThrough();
    super({ stream });
    stream.on('data', (chunk: Buffer) => {
      this.text += chunk.toString('utf8');
    });
  }
}

conformance(
  'PrintSink',
  sinkChecks({
    create: () => new CapturedPrintSink(),
    records,
    visible: (s) => parse(s.text.split('\n').filter(Boolean)),
  }),
);

/** A JSON Lines sink with the file it writes. */
class FileJsonLinesSink extends JsonLinesSink<object> {
  async lines(): Promise<unknown[]> {
    const text = await readFile(this.path, 'utf8').catch(() => '');
    return parse(text.split('\n').filter(Boolean));
  }
}

conformance(
  'JsonLinesSink',
  sinkChecks({
    create: () => new FileJsonLinesSink(fresh('out.jsonl')),
    records,
    visible: (s) => s.lines(),
    createFailing: () => new JsonLinesSink(unwritable('out.jsonl')),
  }),
);

/** An exactly-once file sink with the directory it commits into. */
class DirectoryFileSink extends ExactlyOnceFileSink<object> {
  constructor(readonly directory: string) {
    super({ directory });
  }
}

conformance(
  'ExactlyOnceFileSink',
  sinkChecks({
    create: () => new DirectoryFileSink(fresh('parts')),
    records,
    twoPhaseCommit: true,
    visible: async (s) => parse(await committedLines(s.directory).catch(() => [])),
    // A dead writer leaves its files; close() commits nothing, as after a crash.
    abandon: (w) => w.close(),
    createFailing: () => new ExactlyOnceFileSink({ directory: unwritable('parts') }),
  }),
);

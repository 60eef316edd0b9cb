/** The Flink CEP golden files: test/cep/fixtures/flink/<suite>.json. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CaseJson, CaseResult } from './case.js';

export interface GoldenCase extends CaseJson {
  /** Flink CEP's answer. */
  readonly flink: CaseResult;
}

export interface GoldenFile {
  readonly regenerate: string;
  readonly cases: readonly GoldenCase[];
}

export function goldenFile(suite: string): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'flink', `${suite}.json`);
}

export function readGoldens(suite: string): GoldenFile {
  return JSON.parse(readFileSync(goldenFile(suite), 'utf8')) as GoldenFile;
}

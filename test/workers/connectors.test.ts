import { describe, expect, it } from 'vitest';
import { runJobModule } from '../../src/index.js';
import { createTopic, json, produce, readAll, uniqueTopic } from '../kafka/helpers.js';
import { cleanup, freshSchema, PG_URL, sql } from '../postgres/helpers.js';
import { fixture } from './harness.js';

describe('worker mode with connectors gives the single-thread output', () => {
  it('Kafka source -> window -> exactly-once Kafka sink', async () => {
    const input = uniqueTopic('workers-in');
    await createTopic(input, 1);
    const users = ['a', 'b', 'c', 'd', 'e'];
    await produce(
      input,
      Array.from({ length: 2000 }, (_, i) => ({
        key: users[i % 5]!,
        value: JSON.stringify({ user: users[(i * 7) % 5], time: i }),
      })),
    );
    const outputs: string[][] = [];
    for (const options of [{ parallelism: 1 }, { parallelism: 2, workers: 2 }]) {
      const output = uniqueTopic('workers-out');
      await createTopic(output, 2);
      await runJobModule(fixture('kafka-windows.ts'), { ...options, args: [input, output] });
      outputs.push((await readAll(output, json())).map((r) => JSON.stringify(r)).sort());
    }
    expect(outputs[0]!.length).toBe(5 * 20);
    expect(outputs[1]).toEqual(outputs[0]);
  });

  it('Kafka records without an event time are skipped and counted, never reaching a window', async () => {
    const input = uniqueTopic('workers-bad-times');
    await createTopic(input, 2);
    // Every tenth record has no time: the assigner returns undefined for it.
    await produce(
      input,
      Array.from({ length: 400 }, (_, i) => ({
        partition: i % 2,
        value: JSON.stringify(i % 10 === 3 ? { user: 'u' } : { user: `u${i % 3}`, time: i }),
      })),
    );
    const outputs: string[][] = [];
    for (const options of [
      { parallelism: 1 },
      { parallelism: 2 },
      { parallelism: 2, workers: 2 },
    ]) {
      const run = await runJobModule(fixture('kafka-bad-times.ts'), { ...options, args: [input] });
      expect(run.result.metric('weir_source_bad_records_total')).toBe(40);
      const counts = run.collected('counts') as string[];
      expect(counts.reduce((n, line) => n + Number(line.split(' ')[2]), 0)).toBe(360);
      outputs.push([...counts].sort());
    }
    expect(outputs[1]).toEqual(outputs[0]);
    expect(outputs[2]).toEqual(outputs[0]);
  }, 120_000);

  it('keyed windows -> PostgreSQL upsert sink', async () => {
    const schema = 'weir_workers_sink';
    await freshSchema(schema);
    try {
      const tables: string[][] = [];
      for (const [i, options] of [{ parallelism: 1 }, { parallelism: 2, workers: 2 }].entries()) {
        const table = `${schema}.counts${i}`;
        await sql(
          `CREATE TABLE ${table} (k text, start bigint, total bigint, PRIMARY KEY (k, start))`,
        );
        await runJobModule(fixture('postgres-sink.ts'), { ...options, args: [PG_URL, table] });
        const rows = await sql<{ r: string }>(
          `SELECT k || ' ' || start || ' ' || total AS r FROM ${table} ORDER BY k, start`,
        );
        tables.push(rows.map((row) => row.r));
      }
      expect(tables[0]!.length).toBeGreaterThan(50);
      expect(tables[1]).toEqual(tables[0]);
    } finally {
      await cleanup(schema, []);
    }
  });
});

/**
 * A single-owner job (PostgreSQL CDC -> exactly-once Kafka sink) run by two
 * `weir run --group` processes: one owns the task, the other waits; the
 * owner is killed with SIGKILL while changes keep coming, the other takes
 * the task over from the shared checkpoints (a directory, then S3), and the
 * read_committed output holds every change of the table exactly once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OwnedChange } from '../cli/fixtures/cdc-owner.js';
import { type RunningCli, startWeir } from '../cli/run-cli.js';
import { freshS3Location, S3_ENV } from '../helpers/s3.js';
import { createTopic, json, readAll, uniqueTopic, waitFor } from '../kafka/helpers.js';
import { cleanup, client, freshSchema, PG_URL } from '../postgres/helpers.js';
import { groupMemberArgs } from './group-member-args.js';

const FIXTURE = 'test/cli/fixtures/cdc-owner.ts';
const SCHEMA = 'weir_single_owner';
const SLOTS = ['weir_single_owner_dir', 'weir_single_owner_s3', 'weir_single_owner_short'];
const running: RunningCli[] = [];
const checkpoints = mkdtempSync(join(tmpdir(), 'weir-single-owner-'));

beforeAll(async () => {
  await freshSchema(SCHEMA);
  const c = await client();
  for (const t of ['items_dir', 'items_s3', 'items_short'])
    await c.query(`CREATE TABLE ${SCHEMA}.${t} (id int PRIMARY KEY, v int NOT NULL)`);
  await c.end();
});
afterAll(async () => {
  for (const r of running) r.child.kill('SIGKILL');
  await Promise.all(running.map((r) => r.done));
  await cleanup(SCHEMA, SLOTS);
  rmSync(checkpoints, { recursive: true, force: true });
});

/** A change as the table saw it: the oracle the output must equal. */
type Change = Omit<OwnedChange, 'member'>;
const byKey = (a: Change, b: Change) =>
  a.id - b.id || a.op.localeCompare(b.op) || (a.v ?? 0) - (b.v ?? 0);

const VARIANTS = [
  {
    storage: 'a shared directory',
    checkpointDir: checkpoints,
    table: 'items_dir',
    slot: SLOTS[0]!,
    env: {},
    flags: [],
    localCopy: false,
  },
  {
    storage: 's3://',
    checkpointDir: freshS3Location('single-owner'),
    table: 'items_s3',
    slot: SLOTS[1]!,
    env: S3_ENV,
    flags: [],
    localCopy: true,
  },
  {
    // A shorter session than the 6 s default (the test broker accepts 1 s and more); not
    // shorter here, so a busy CI machine does not stall the owner past it.
    storage: 'a shared directory, with a 3 s session',
    checkpointDir: join(checkpoints, 'short-session'),
    table: 'items_short',
    slot: SLOTS[2]!,
    env: {},
    flags: ['--session-timeout', '3'],
    localCopy: false,
  },
];

describe('weir run --group with a single-owner job', () => {
  it.each(VARIANTS)(
    'a CDC job fails over between two processes with every change exactly once (checkpoints in $storage)',
    async ({ checkpointDir, table, slot, env, flags, localCopy }) => {
      const output = uniqueTopic('so-out');
      const app = uniqueTopic('so-app');
      await createTopic(output, 1);
      const member = (name: string): RunningCli => {
        const cli = startWeir(
          groupMemberArgs(
            FIXTURE,
            app,
            checkpointDir,
            [PG_URL, `${SCHEMA}.${table}`, slot, output, name],
            flags,
          ),
          200_000,
          { env },
        );
        running.push(cli);
        return cli;
      };

      // Inserts and updates in small transactions; the oracle is what was committed.
      const writer = await client();
      const made: Change[] = [];
      let nextId = 0;
      const write = async (): Promise<void> => {
        await writer.query('BEGIN');
        const batch: Change[] = [];
        for (let i = 0; i < 5; i++) {
          const id = nextId++;
          await writer.query(`INSERT INTO ${SCHEMA}.${table} VALUES ($1, $2)`, [id, 0]);
          batch.push({ id, op: 'c', v: 0 });
          if (id % 3 === 0) {
            await writer.query(`UPDATE ${SCHEMA}.${table} SET v = 1 WHERE id = $1`, [id]);
            batch.push({ id, op: 'u', v: 1 });
          }
        }
        await writer.query('COMMIT');
        made.push(...batch);
      };

      let out: OwnedChange[] = [];
      const read = async () => {
        out = await readAll(output, json<OwnedChange>());
        return out;
      };
      const diagnose = () =>
        `${out.length} records out of ${made.length}; stderr: ${running.map((r) => r.output('stderr').slice(-800)).join(' | ')}`;
      const writeUntil = (what: string, check: (o: OwnedChange[]) => boolean) =>
        waitFor(
          what,
          async () => {
            await write();
            return check(await read());
          },
          150_000,
          diagnose,
        );

      const a = member('a');
      await a.waitFor('stderr', /this member owns task/);
      await a.waitFor('stderr', /no checkpoint in .* yet; starting 'cdc-owner' without state/);
      const b = member('b');
      await b.waitFor('stderr', /waiting until the group .* gives it to this one/);
      // The standby starts its Kafka sink's producer thread ahead, so a take-over need not.
      await b.waitFor('stderr', /standing by: the writers of .* are started ahead/);
      // With checkpoints in an object store, it also copies the task's latest checkpoint.
      if (localCopy) await b.waitFor('stderr', /standing by: keeping a local copy of task/);
      else expect(b.output('stderr')).not.toMatch(/keeping a local copy/);
      await writeUntil('a to write changes', (o) => o.length >= 40);
      expect(new Set(out.map((r) => r.member))).toEqual(new Set(['a']));
      // B stays a standby while A lives.
      expect(b.output('stderr')).not.toMatch(/this member owns task/);

      a.child.kill('SIGKILL');
      await a.done;
      await writeUntil('b to take the task over and write changes', (o) =>
        o.some((r) => r.member === 'b'),
      );
      // B resumed from A's last checkpoint in the shared per-task directory.
      expect(b.output('stderr')).toMatch(/this member owns task/);
      expect(b.output('stderr')).toContain(`restoring 'cdc-owner' from checkpoint `);
      expect(b.output('stderr')).toContain(`${checkpointDir}/tasks/cdc-owner/chk-`);
      await write();

      const expected = [...made].sort(byKey);
      await waitFor(
        'every change to come out',
        async () => (await read()).length >= expected.length,
        60_000,
        diagnose,
      );
      const changes = out.map(({ member: _, ...c }) => c).sort(byKey);
      // Exactly once: nothing missing, nothing twice, across the SIGKILL.
      expect(changes).toEqual(expected);
      await writer.end();
      b.child.kill('SIGTERM');
      expect((await b.done).code).toBe(0);
    },
    240_000,
  );
});

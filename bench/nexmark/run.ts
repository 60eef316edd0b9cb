/**
 * Nexmark benchmark: Weir's queries (bench/nexmark/queries) and, with `--peer flink`, the same
 * queries as Flink SQL in a local MiniCluster (bench/peers/flink), over the same generated
 * events, one after another. Each (query, engine) runs in its own process, so peak RSS is its
 * own. Prints a table and appends JSON lines to bench/results/.
 *
 *   npm run bench:nexmark -- --queries q0,q5 --events 1000000 --parallelism 1 [--peer flink]
 *     [--engine weir-sql]
 *
 * `--engine weir-sql` also runs each query's SQL text (the peer's, verbatim) on Weir SQL,
 * beside the hand-written query, and reports planning time and the ratios SQL / hand-written
 * and SQL / Flink SQL.
 *
 * `gen` (the default list starts with it) is the generator alone in a plain loop: the ceiling
 * for any query. Options: --rate (event-time events/s, default 10000), --seed, --reps,
 * --jvm-heap (default 4g), --flink-object-reuse (default true; false = the reference's
 * setting), --out (results file).
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  type NexmarkConfig,
  nexmarkConfig,
  nexmarkEvent,
  nexmarkEventByteSize,
} from '../../src/connectors/nexmark/index.js';
import { BlackholeSink } from './blackhole-sink.js';
import { FlinkPeer, flinkPeerDir } from './flink-peer.js';
import { NEXMARK_QUERIES, nexmarkQuery } from './queries/index.js';
import { runOnWeir } from './weir-job.js';
import { runSqlOnWeir } from './weir-sql-job.js';

/** One measurement: the JSON line written to bench/results. */
interface Measurement {
  readonly query: string;
  readonly engine: 'weir' | 'weir-sql' | 'flink';
  /** weir-sql: milliseconds from parsing the SQL to the physical plan. */
  readonly planningMs?: number;
  readonly events: number;
  /** Wall-clock seconds of the job (Flink: its net runtime, without planning and start-up). */
  readonly seconds: number;
  readonly eventsPerSec: number;
  readonly peakRssMb: number;
  readonly parallelism: number;
  /** CPU seconds of the process over the job, all threads (compiler and GC included). */
  readonly cpuSeconds: number;
  /** Events per CPU-second: steadier than events/s on a loaded machine. */
  readonly eventsPerCpuSec: number;
  /** Result rows the sink consumed (Weir), -1 when not counted (Flink's blackhole, `gen`). */
  readonly rows: number;
}

const { values } = parseArgs({
  options: {
    queries: { type: 'string', default: ['gen', ...NEXMARK_QUERIES.map((q) => q.name)].join(',') },
    events: { type: 'string', default: '1000000' },
    parallelism: { type: 'string', default: '1' },
    peer: { type: 'string' },
    rate: { type: 'string', default: '10000' },
    seed: { type: 'string', default: '0' },
    reps: { type: 'string', default: '1' },
    'jvm-heap': { type: 'string', default: '4g' },
    'flink-object-reuse': { type: 'string', default: 'true' },
    out: { type: 'string' },
    child: { type: 'string' },
    engine: { type: 'string', default: 'weir' },
    sql: { type: 'boolean', default: false },
  },
});

const events = Number(values.events);
const parallelism = Number(values.parallelism);
const config: Partial<NexmarkConfig> = {
  maxEvents: events,
  eventsPerSecond: Number(values.rate),
  seed: Number(values.seed),
};

/** The generator alone: every event materialized, in one plain loop. */
function generateOnly(): number {
  const c = nexmarkConfig(config);
  let checksum = 0;
  for (let i = 0; i < c.maxEvents; i++) {
    // Use a string of every event (as the Java loop does), so nothing is optimized away.
    checksum += nexmarkEventByteSize(nexmarkEvent(i, c));
  }
  return checksum;
}

/** Child process: runs one query on Weir and prints its measurement. */
async function child(query: string): Promise<void> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  let rows = -1;
  let planningMs: number | undefined;
  if (query === 'gen') {
    if (generateOnly() < 0) throw new Error('unreachable');
  } else if (values.sql) {
    const sink = new BlackholeSink();
    planningMs = (await runSqlOnWeir(query, config, parallelism, sink)).planningMs;
    rows = sink.records;
  } else {
    const sink = new BlackholeSink();
    await runOnWeir(nexmarkQuery(query), { config, parallelism }, sink);
    rows = sink.records;
  }
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  const m: Measurement = {
    query,
    engine: values.sql ? 'weir-sql' : 'weir',
    ...(planningMs === undefined ? {} : { planningMs }),
    events,
    seconds,
    eventsPerSec: events / seconds,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    parallelism,
    cpuSeconds,
    eventsPerCpuSec: events / cpuSeconds,
    rows,
  };
  process.stdout.write(`${JSON.stringify(m)}\n`);
}

function runWeir(query: string, sql = false): Measurement {
  const self = fileURLToPath(import.meta.url);
  const args = [self, '--child', query, '--events', String(events), ...(sql ? ['--sql'] : [])];
  args.push('--parallelism', String(parallelism), '--rate', values.rate, '--seed', values.seed);
  const out = execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').pop()!) as Measurement;
}

async function runFlink(peer: FlinkPeer, query: string): Promise<Measurement> {
  const objectReuse = values['flink-object-reuse'] !== 'false';
  const job = { query, mode: 'blackhole' as const, parallelism, config, objectReuse };
  const [r] = await peer.runJobs([job], {
    timeoutMs: 60 * 60_000,
    jvmOptions: [`-Xmx${values['jvm-heap']}`],
  });
  if (r === undefined) throw new Error(`no report from Flink for ${query}`);
  return {
    query: r.query,
    engine: 'flink',
    events: r.events,
    seconds: r.seconds,
    eventsPerSec: r.eventsPerSec,
    peakRssMb: r.peakRssMb,
    parallelism: r.parallelism,
    cpuSeconds: r.cpuSeconds,
    eventsPerCpuSec: r.events / r.cpuSeconds,
    rows: r.rows,
  };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

function rate(r: number): string {
  return r >= 1e6 ? `${(r / 1e6).toFixed(2)} M` : `${(r / 1e3).toFixed(0)} K`;
}

async function main(): Promise<void> {
  const queries = values.queries.split(',').map((q) => q.trim());
  for (const q of queries) if (q !== 'gen') nexmarkQuery(q);
  const withFlink = values.peer === 'flink';
  const withSql = values.engine.split(',').includes('weir-sql');
  for (const e of values.engine.split(','))
    if (e !== 'weir' && e !== 'weir-sql') throw new Error(`unknown engine '${e}' (weir, weir-sql)`);
  if (values.peer !== undefined && !withFlink) throw new Error(`unknown peer '${values.peer}'`);
  const resultsDir = join(dirname(flinkPeerDir()), '..', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const outFile = values.out ?? join(resultsDir, `nexmark-${stamp}.jsonl`);
  let peer: FlinkPeer | undefined;
  if (withFlink) {
    console.log('building the Flink peer (mvn, first time downloads Flink)...');
    peer = await FlinkPeer.build({ timeoutMs: 20 * 60_000 });
  }
  const all: Measurement[] = [];
  const record = (m: Measurement) => {
    all.push(m);
    appendFileSync(outFile, `${JSON.stringify(m)}\n`);
    console.log(
      `${m.query.padEnd(4)} ${m.engine.padEnd(8)} ${rate(m.eventsPerSec).padStart(8)} events/s  ${rate(m.eventsPerCpuSec).padStart(8)} events/CPU-s  ${m.seconds.toFixed(2).padStart(7)} s  peak RSS ${m.peakRssMb.toFixed(0).padStart(5)} MB${m.rows >= 0 ? `  ${m.rows} rows` : ''}${m.planningMs === undefined ? '' : `  planned in ${m.planningMs.toFixed(0)} ms`}`,
    );
  };
  for (let rep = 0; rep < Number(values.reps); rep++) {
    for (const q of queries) {
      // Alternate which engine goes first, so neither always gets the cooler machine.
      const engines = withSql && q !== 'gen' ? ['weir', 'weir-sql', 'flink'] : ['weir', 'flink'];
      const order = rep % 2 === 0 ? engines : [...engines].reverse();
      for (const engine of order) {
        if (engine === 'weir') record(runWeir(q));
        else if (engine === 'weir-sql') {
          try {
            record(runWeir(q, true));
          } catch {
            console.log(`${q.padEnd(4)} weir-sql not supported by Weir SQL yet (the child failed)`);
          }
        } else if (peer !== undefined) record(await runFlink(peer, q));
      }
    }
  }
  console.log('');
  console.log(
    `${events} events, event-time rate ${values.rate}/s, seed ${values.seed}, parallelism ${parallelism}, ${values.reps} rep(s): medians`,
  );
  const header = withFlink
    ? '| query | Weir events/s | Weir events/CPU-s | Weir peak RSS MB | Flink events/s | Flink events/CPU-s | Flink peak RSS MB | Weir / Flink (events/s) | Weir / Flink (events/CPU-s) |'
    : '| query | Weir events/s | Weir events/CPU-s | Weir peak RSS MB | result rows |';
  console.log(header);
  console.log(header.replace(/[^|]+/g, '---'));
  for (const q of queries) {
    const w = all.filter((m) => m.query === q && m.engine === 'weir');
    const f = all.filter((m) => m.query === q && m.engine === 'flink');
    const wRate = median(w.map((m) => m.eventsPerSec));
    const wCpu = median(w.map((m) => m.eventsPerCpuSec));
    const wRss = median(w.map((m) => m.peakRssMb)).toFixed(0);
    if (withFlink) {
      const fRate = median(f.map((m) => m.eventsPerSec));
      const fCpu = median(f.map((m) => m.eventsPerCpuSec));
      const fRss = median(f.map((m) => m.peakRssMb)).toFixed(0);
      const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
      console.log(
        `| ${q} | ${rate(wRate)} | ${rate(wCpu)} | ${wRss} | ${rate(fRate)} | ${rate(fCpu)} | ${fRss} | ${ratio(wRate, fRate)} | ${ratio(wCpu, fCpu)} |`,
      );
    } else {
      const rows = w[0]?.rows ?? -1;
      console.log(`| ${q} | ${rate(wRate)} | ${rate(wCpu)} | ${wRss} | ${rows >= 0 ? rows : ''} |`);
    }
  }
  if (withSql) {
    console.log('');
    console.log(
      '| query | SQL events/CPU-s | hand-written events/CPU-s | SQL / hand-written | Flink SQL events/CPU-s | SQL / Flink SQL | planning ms |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const q of queries) {
      const of = (engine: string) => all.filter((m) => m.query === q && m.engine === engine);
      const s = of('weir-sql');
      if (s.length === 0) continue;
      const sCpu = median(s.map((m) => m.eventsPerCpuSec));
      const hCpu = median(of('weir').map((m) => m.eventsPerCpuSec));
      const fCpu = median(of('flink').map((m) => m.eventsPerCpuSec));
      const plan = median(s.map((m) => m.planningMs ?? Number.NaN));
      const ratio = (a: number, b: number) => (Number.isNaN(b) ? '' : `${(a / b).toFixed(2)}x`);
      console.log(
        `| ${q} | ${rate(sCpu)} | ${rate(hCpu)} | ${ratio(sCpu, hCpu)} | ${Number.isNaN(fCpu) ? '' : rate(fCpu)} | ${ratio(sCpu, fCpu)} | ${plan.toFixed(0)} |`,
      );
    }
  }
  console.log(`\nresults appended to ${outFile}`);
}

if (values.child !== undefined) await child(values.child);
else await main();

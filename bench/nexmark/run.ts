/**
 * Nexmark benchmark: Weir's queries (bench/nexmark/queries) and, with `--peer`, the same
 * queries on Flink 2.2.1 in a local MiniCluster (bench/peers/flink), over the same generated
 * events, one after another. Each (query, engine) runs in its own process, so peak RSS is its
 * own. Prints a table per peer and appends JSON lines to bench/results/.
 *
 *   npm run bench:nexmark -- --queries q0,q5 --events 1000000 --parallelism 1 \
 *     [--peer flink-sql|flink-datastream|flink-sql,flink-datastream] [--workers N]
 *     [--engine weir-sql]
 *
 * `--engine weir-sql` also runs each query's SQL text (the peer's, verbatim) on Weir SQL,
 * beside the hand-written query, and reports planning time and the ratios SQL / hand-written
 * and SQL / Flink SQL.
 *
 * Peers (none by default: Weir alone): `flink-sql` runs the Nexmark SQL texts (`flink` is the
 * same), `flink-datastream` runs DataStream jobs written with the algorithms of Weir's queries
 * (package weir.nexmark.datastream). Without `--workers`, Weir runs all subtasks on one thread;
 * `--workers N` runs them on N worker threads (as `weir run --workers`), so at parallelism 2
 * with `--workers 2` both engines have two cores. `gen` (the default list starts with it) is the
 * generator alone in a plain loop: the ceiling for any query. Options: --rate (event-time
 * events/s, default 10000), --seed, --reps (median and range reported), --jvm-heap (default
 * 4g), --flink-object-reuse (default true; false = the reference's setting), --fusion (default
 * true; false runs Weir's chained stateless operators one batch loop each), --out.
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
import { runJobModule } from '../../src/index.js';
import { BlackholeSink } from './blackhole-sink.js';
import { type FlinkApi, FlinkPeer, flinkPeerDir } from './flink-peer.js';
import { NEXMARK_QUERIES, nexmarkQuery } from './queries/index.js';
import { runOnWeir } from './weir-job.js';
import { runSqlOnWeir } from './weir-sql-job.js';

/** The engines a run compares: Weir, and Flink through one of its APIs. */
type Engine = 'weir' | 'weir-sql' | 'flink-sql' | 'flink-datastream';
type Peer = Exclude<Engine, 'weir' | 'weir-sql'>;

const PEER_API: Readonly<Record<Peer, FlinkApi>> = {
  'flink-sql': 'sql',
  'flink-datastream': 'datastream',
};

const PEER_LABEL: Readonly<Record<Engine, string>> = {
  weir: 'Weir',
  'weir-sql': 'Weir SQL',
  'flink-sql': 'Flink SQL',
  'flink-datastream': 'Flink DataStream',
};

/** One measurement: the JSON line written to bench/results. */
interface Measurement {
  readonly query: string;
  readonly engine: Engine;
  /** weir-sql: milliseconds from parsing the SQL to the physical plan. */
  readonly planningMs?: number;
  readonly events: number;
  /** Wall-clock seconds of the job (Flink: its net runtime, without planning and start-up). */
  readonly seconds: number;
  readonly eventsPerSec: number;
  readonly peakRssMb: number;
  readonly parallelism: number;
  /** Weir's worker threads (0: all subtasks on the main thread); absent for Flink. */
  readonly workers?: number;
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
    engine: { type: 'string', default: 'weir' },
    sql: { type: 'boolean', default: false },
    workers: { type: 'string', default: '0' },
    fusion: { type: 'string', default: 'true' },
    rate: { type: 'string', default: '10000' },
    seed: { type: 'string', default: '0' },
    reps: { type: 'string', default: '1' },
    'jvm-heap': { type: 'string', default: '4g' },
    'flink-object-reuse': { type: 'string', default: 'true' },
    out: { type: 'string' },
    child: { type: 'string' },
    /** weir-sql: `kept` keeps an updating query's update-befores (before the inference dropped them). */
    'update-before': { type: 'string', default: 'ignored' },
  },
});

const events = Number(values.events);
const parallelism = Number(values.parallelism);
const workers = Number(values.workers);
if (!Number.isInteger(workers) || workers < 0 || workers > parallelism) {
  throw new Error(
    `--workers must be an integer from 0 to the parallelism, got '${values.workers}'`,
  );
}
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
    const updateBefore = values['update-before'] === 'kept' ? 'kept' : 'ignored';
    planningMs = (await runSqlOnWeir(query, config, parallelism, sink, true, updateBefore))
      .planningMs;
    rows = sink.records;
  } else if (workers > 0) {
    // Each worker loads the job module; the results sink counts on its worker, so the count
    // comes back through the sink's metric.
    const job = fileURLToPath(new URL('./worker-job.js', import.meta.url));
    const run = await runJobModule(job, {
      parallelism,
      workers,
      args: [query, JSON.stringify(config)],
    });
    rows = run.result.metric('weir_operator_records_in_total', { operator: 'results' });
  } else {
    const sink = new BlackholeSink();
    const fusion = values.fusion !== 'false';
    await runOnWeir(nexmarkQuery(query), { config, parallelism, fusion }, sink);
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
    workers,
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
  args.push('--workers', String(workers), '--fusion', values.fusion);
  const out = execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').pop()!) as Measurement;
}

async function runFlink(peer: FlinkPeer, engine: Peer, query: string): Promise<Measurement> {
  const objectReuse = values['flink-object-reuse'] !== 'false';
  const api = PEER_API[engine];
  const job = { query, mode: 'blackhole' as const, parallelism, config, objectReuse, api };
  const [r] = await peer.runJobs([job], {
    timeoutMs: 60 * 60_000,
    jvmOptions: [`-Xmx${values['jvm-heap']}`],
  });
  if (r === undefined) throw new Error(`no report from Flink for ${query}`);
  return {
    query: r.query,
    engine,
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

/** `median [min-max]` of a rate. */
function spread(xs: readonly number[]): string {
  if (xs.length === 1) return rate(xs[0]!);
  return `${rate(median(xs))} [${rate(Math.min(...xs))}-${rate(Math.max(...xs))}]`;
}

/** The peers `--peer` names (a comma-separated list); `flink` is `flink-sql`. */
function peersOf(option: string | undefined): Peer[] {
  if (option === undefined) return [];
  const peers: Peer[] = [];
  for (const raw of option.split(',')) {
    const name = raw.trim() === 'flink' ? 'flink-sql' : raw.trim();
    if (name !== 'flink-sql' && name !== 'flink-datastream') {
      throw new Error(`unknown peer '${raw}'; known: flink-sql (or flink), flink-datastream`);
    }
    if (!peers.includes(name)) peers.push(name);
  }
  return peers;
}

async function main(): Promise<void> {
  const queries = values.queries.split(',').map((q) => q.trim());
  for (const q of queries) if (q !== 'gen') nexmarkQuery(q);
  const peers = peersOf(values.peer);
  const withSql = values.engine.split(',').includes('weir-sql');
  for (const e of values.engine.split(','))
    if (e !== 'weir' && e !== 'weir-sql') throw new Error(`unknown engine '${e}' (weir, weir-sql)`);
  const resultsDir = join(dirname(flinkPeerDir()), '..', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const outFile = values.out ?? join(resultsDir, `nexmark-${stamp}.jsonl`);
  let peer: FlinkPeer | undefined;
  if (peers.length > 0) {
    console.log('building the Flink peer (mvn, first time downloads Flink)...');
    peer = await FlinkPeer.build({ timeoutMs: 20 * 60_000 });
  }
  const all: Measurement[] = [];
  const record = (m: Measurement) => {
    all.push(m);
    appendFileSync(outFile, `${JSON.stringify(m)}\n`);
    console.log(
      `${m.query.padEnd(4)} ${m.engine.padEnd(16)} ${rate(m.eventsPerSec).padStart(8)} events/s  ${rate(m.eventsPerCpuSec).padStart(8)} events/CPU-s  ${m.seconds.toFixed(2).padStart(7)} s  peak RSS ${m.peakRssMb.toFixed(0).padStart(5)} MB${m.rows >= 0 ? `  ${m.rows} rows` : ''}${m.planningMs === undefined ? '' : `  planned in ${m.planningMs.toFixed(0)} ms`}`,
    );
  };
  for (let rep = 0; rep < Number(values.reps); rep++) {
    for (const q of queries) {
      const engines: Engine[] = [
        'weir',
        ...(withSql && q !== 'gen' ? ['weir-sql' as const] : []),
        ...peers,
      ];
      // Rotate which engine goes first, so none always gets the cooler machine.
      for (let i = 0; i < engines.length; i++) {
        const engine = engines[(i + rep) % engines.length]!;
        if (engine === 'weir') record(runWeir(q));
        else if (engine === 'weir-sql') {
          try {
            record(runWeir(q, true));
          } catch {
            console.log(`${q.padEnd(4)} weir-sql not supported by Weir SQL yet (the child failed)`);
          }
        } else record(await runFlink(peer!, engine, q));
      }
    }
  }
  const weirMode =
    workers === 0
      ? 'Weir on one thread'
      : `Weir on ${workers} worker thread${workers > 1 ? 's' : ''}`;
  console.log('');
  console.log(
    `${events} events, event-time rate ${values.rate}/s, seed ${values.seed}, parallelism ${parallelism}, ${weirMode}, ${values.reps} rep(s): median [min-max]`,
  );
  const stats = (q: string, engine: Engine) => {
    const ms = all.filter((m) => m.query === q && m.engine === engine);
    return {
      rates: ms.map((m) => m.eventsPerSec),
      cpu: ms.map((m) => m.eventsPerCpuSec),
      rss: median(ms.map((m) => m.peakRssMb)),
      rows: ms[0]?.rows ?? -1,
    };
  };
  if (peers.length === 0) {
    const header = '| query | Weir events/s | Weir events/CPU-s | Weir peak RSS MB | result rows |';
    console.log(header);
    console.log(header.replace(/[^|]+/g, '---'));
    for (const q of queries) {
      const w = stats(q, 'weir');
      console.log(
        `| ${q} | ${spread(w.rates)} | ${spread(w.cpu)} | ${w.rss.toFixed(0)} | ${w.rows >= 0 ? w.rows : ''} |`,
      );
    }
  }
  for (const p of peers) {
    const f = PEER_LABEL[p];
    console.log(`\nWeir vs ${f}:`);
    const header = `| query | Weir events/s | Weir events/CPU-s | Weir peak RSS MB | ${f} events/s | ${f} events/CPU-s | ${f} peak RSS MB | Weir / ${f} (events/s) | Weir / ${f} (events/CPU-s) |`;
    console.log(header);
    console.log(header.replace(/[^|]+/g, '---'));
    for (const q of queries) {
      const w = stats(q, 'weir');
      const o = stats(q, p);
      const ratio = (a: number[], b: number[]) => `${(median(a) / median(b)).toFixed(2)}x`;
      console.log(
        `| ${q} | ${spread(w.rates)} | ${spread(w.cpu)} | ${w.rss.toFixed(0)} | ${spread(o.rates)} | ${spread(o.cpu)} | ${o.rss.toFixed(0)} | ${ratio(w.rates, o.rates)} | ${ratio(w.cpu, o.cpu)} |`,
      );
    }
  }
  if (withSql) {
    console.log('');
    console.log(
      '| query | SQL events/CPU-s | hand-written events/CPU-s | SQL / hand-written | Flink SQL events/CPU-s | SQL / Flink SQL | planning ms |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const q of queries) {
      const s = stats(q, 'weir-sql');
      if (s.cpu.length === 0) continue;
      const sCpu = median(s.cpu);
      const hCpu = median(stats(q, 'weir').cpu);
      const fCpu = median(stats(q, 'flink-sql').cpu);
      const plans = all.filter((m) => m.query === q && m.engine === 'weir-sql');
      const plan = median(plans.map((m) => m.planningMs ?? Number.NaN));
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

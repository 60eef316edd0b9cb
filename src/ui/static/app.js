/**
 * The Weir web UI: polls the REST API of the server it came from and renders
 * one job: summary cards, the job graph, per-operator metrics, checkpoints,
 * exceptions and, for a member of a process group, the group's tasks. No framework, no build step.
 */
import { ago, bytes, clock, compact, count, duration, percent } from './format.js';
import { renderGraph } from './graph.js';

const METRICS_MS = 1000;
const SLOW_MS = 2000;

const $ = (id) => document.getElementById(id);

const state = {
  jobId: null,
  details: null,
  metrics: null,
  lastStatus: null,
};

async function getJson(path, init) {
  const response = await fetch(path, { cache: 'no-store', ...init });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error ?? `${response.status} ${response.statusText}`);
  return body;
}

function setText(id, text) {
  const node = $(id);
  if (node.textContent !== text) node.textContent = text;
}

function cell(text, className) {
  const td = document.createElement('td');
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

/** Picks the job: ?job=<id>, else the newest running one, else the newest. */
async function chooseJob() {
  const { jobs } = await getJson('/jobs');
  const select = $('job-select');
  select.hidden = jobs.length < 2;
  select.replaceChildren(
    ...jobs.map((j) => {
      const option = document.createElement('option');
      option.value = j.id;
      option.textContent = `${j.name} (${j.status})`;
      return option;
    }),
  );
  const wanted = new URLSearchParams(location.search).get('job');
  const pick =
    jobs.find((j) => j.id === wanted) ??
    [...jobs].reverse().find((j) => j.status === 'running' || j.status === 'restarting') ??
    jobs[jobs.length - 1];
  if (pick !== undefined) select.value = pick.id;
  return pick?.id ?? null;
}

async function loadDetails() {
  state.details = await getJson(`/jobs/${state.jobId}`);
  setText('job-name', state.details.name);
  document.title = `${state.details.name} · Weir`;
  renderGraph($('graph'), state.details.graph, state.metrics);
}

function renderStatus(status, uptimeMs) {
  const node = $('job-status');
  node.textContent = status;
  node.className = `status ${status}`;
  setText('job-uptime', `up ${duration(uptimeMs)}`);
}

function renderCards(m) {
  setText('card-rate', compact(m.recordsReadPerSecond));
  setText('card-read', count(m.recordsRead));
  setText('card-watermark', m.watermark === null ? '–' : clock(m.watermark));
  setText(
    'card-lag',
    m.watermarkLagMs === null ? 'no watermark yet' : `${duration(m.watermarkLagMs)} behind`,
  );
  const { latency } = m;
  setText(
    'card-latency',
    latency.samples === 0 ? '–' : `${duration(latency.p50Ms)} / ${duration(latency.p99Ms)}`,
  );
  setText('card-latency-samples', `${count(latency.samples)} samples`);
  const cp = m.lastCheckpoint;
  setText('card-checkpoint', cp === null ? 'none yet' : `#${cp.id} ${ago(cp.completedAt)}`);
  setText(
    'card-checkpoint-detail',
    cp === null ? '' : `${duration(cp.durationMs)} · ${bytes(cp.sizeBytes)}`,
  );
  setText('card-restarts', count(m.restarts));
}

function renderOperators(m) {
  const rows = m.operators.map((op) => {
    const tr = document.createElement('tr');
    tr.dataset.operator = op.id;
    const name = cell(op.name);
    const id = document.createElement('div');
    id.className = 'muted small';
    id.textContent = op.id;
    name.append(id);
    tr.append(
      name,
      cell(String(op.parallelism), 'num'),
      cell(count(op.recordsIn), 'num'),
      cell(op.recordsInPerSecond === null ? '–' : compact(op.recordsInPerSecond), 'num'),
      cell(count(op.recordsOut), 'num'),
      cell(compact(op.recordsOutPerSecond), 'num'),
      cell(percent(op.busyRatio), 'num'),
      cell(percent(op.backpressuredRatio), `num bp-text-${op.backpressure}`),
      cell(op.inputWatermark === null ? '–' : clock(op.inputWatermark)),
      cell(op.watermarkLagMs === null ? '–' : duration(op.watermarkLagMs), 'num'),
      cell(op.lateRecords === null ? '–' : count(op.lateRecords), 'num'),
      cell(op.stateEntries === null ? '–' : count(op.stateEntries), 'num'),
    );
    return tr;
  });
  $('operators').tBodies[0].replaceChildren(...rows);
}

async function refreshMetrics() {
  const m = await getJson(`/jobs/${state.jobId}/metrics`);
  state.metrics = m;
  renderStatus(m.status, m.uptimeMs);
  renderCards(m);
  renderOperators(m);
  if (state.details !== null) renderGraph($('graph'), state.details.graph, m);
  state.lastStatus = m.status;
}

async function refreshCheckpoints() {
  const { counts, history } = await getJson(`/jobs/${state.jobId}/checkpoints`);
  setText(
    'checkpoint-counts',
    `${count(counts.completed)} completed · ${count(counts.failed)} failed · ${count(counts.inProgress)} in progress`,
  );
  const rows = history.map((c) => {
    const tr = document.createElement('tr');
    tr.className = `cp-${c.status}`;
    tr.append(
      cell(String(c.id), 'num'),
      cell(c.kind),
      cell(c.status.replace('_', ' ')),
      cell(clock(c.triggeredAt, false)),
      cell(duration(c.durationMs ?? null), 'num'),
      cell(c.sizeBytes === undefined ? '–' : bytes(c.sizeBytes), 'num'),
      cell(duration(c.alignmentMs), 'num'),
      cell(`${c.acknowledged}/${c.tasks}`, 'num'),
    );
    return tr;
  });
  if (rows.length === 0) {
    const tr = document.createElement('tr');
    const td = cell('No checkpoints yet (is checkpointing enabled?)', 'muted');
    td.colSpan = 8;
    tr.append(td);
    rows.push(tr);
  }
  $('checkpoints').tBodies[0].replaceChildren(...rows);
}

async function refreshExceptions() {
  const { exceptions } = await getJson(`/jobs/${state.jobId}/exceptions`);
  const items = exceptions.map((e) => {
    const li = document.createElement('li');
    li.className = e.fatal ? 'fatal' : '';
    const head = document.createElement('div');
    head.className = 'exception-head';
    head.textContent = `${clock(e.time)} · ${e.name}${e.code ? ` ${e.code}` : ''}: ${e.message}`;
    li.append(head);
    const where = [e.operator ? `operator ${e.operator}` : '', e.record ? `record ${e.record}` : '']
      .filter((s) => s.length > 0)
      .join(' · ');
    if (where) {
      const div = document.createElement('div');
      div.className = 'muted small';
      div.textContent = where;
      li.append(div);
    }
    if (e.stack) {
      const details = document.createElement('details');
      const summary = document.createElement('summary');
      summary.textContent = 'stack trace';
      const pre = document.createElement('pre');
      pre.textContent = e.stack;
      details.append(summary, pre);
      li.append(details);
    }
    return li;
  });
  if (items.length === 0) {
    const li = document.createElement('li');
    li.className = 'muted';
    li.textContent = 'No exceptions.';
    items.push(li);
  }
  $('exceptions').replaceChildren(...items);
}

/**
 * The process group this job is a member of (`weir run --group`): every
 * task of the group with its owner, and this member's positions and lag.
 * Hidden for a job outside a group (the API answers 404).
 */
async function refreshGroup() {
  const response = await fetch(`/jobs/${state.jobId}/group`, { cache: 'no-store' });
  if (response.status === 404) return;
  const group = await response.json();
  if (!response.ok) throw new Error(group.error ?? `${response.status} ${response.statusText}`);
  $('group-panel').hidden = false;
  const last =
    group.lastRebalanceAt === undefined
      ? 'no rebalance yet'
      : `last rebalance ${ago(group.lastRebalanceAt)}${group.lastRebalanceMs === undefined ? ', in progress' : `, took ${duration(group.lastRebalanceMs)}`}`;
  setText(
    'group-summary',
    `${group.applicationId} · member ${group.member} · ${count(group.members.length)} members · ${count(group.rebalances)} rebalances · ${last}`,
  );
  const mine = new Map(group.tasks.map((t) => [t.task, t]));
  const owners = new Map();
  for (const m of group.members) for (const t of m.tasks) owners.set(t, m.member);
  const rows = [...new Set([...owners.keys(), ...group.unassigned])].sort().map((task) => {
    const tr = document.createElement('tr');
    const own = mine.get(task);
    const owner = owners.get(task);
    if (own !== undefined) tr.className = 'own-task';
    const number = (n) => (n === undefined ? '–' : count(n));
    tr.append(
      cell(task),
      cell(owner === undefined ? 'unassigned' : owner === group.member ? `${owner} (this)` : owner),
      cell(number(own?.position), 'num'),
      cell(number(own?.endOffset), 'num'),
      cell(number(own?.lag), 'num'),
    );
    return tr;
  });
  $('group-tasks').tBodies[0].replaceChildren(...rows);
}

/** Runs `task` now and every `ms`, reporting the connection state. */
function every(ms, task) {
  const run = async () => {
    try {
      await task();
      setText('connection', '');
    } catch (error) {
      setText('connection', `⚠ ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  run();
  return setInterval(run, ms);
}

/** What each button of the savepoint form asks of the job, and what the page says meanwhile. */
const JOB_ACTIONS = {
  savepoints: { pending: 'taking savepoint…', done: ({ path }) => `saved to ${path}` },
  stop: {
    pending: 'stopping with a savepoint…',
    done: ({ path }) => `stopped; savepoint in ${path}`,
  },
  cancel: { pending: 'cancelling…', done: () => 'cancelled' },
};

async function requestJobAction(event) {
  event.preventDefault();
  const action = event.submitter?.value ?? 'savepoints';
  const { pending, done } = JOB_ACTIONS[action] ?? JOB_ACTIONS.savepoints;
  const directory = $('savepoint-dir').value.trim();
  // Pasted by the user from the job's token file; never stored by the page.
  const token = $('savepoint-token').value.trim();
  setText('savepoint-result', pending);
  try {
    const answer = await getJson(`/jobs/${state.jobId}/${action}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify(action === 'cancel' ? {} : { directory }),
    });
    setText('savepoint-result', done(answer));
  } catch (error) {
    setText(
      'savepoint-result',
      `failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

async function start() {
  state.jobId = await chooseJob();
  if (state.jobId === null) {
    setText('job-name', 'no jobs');
    setText('job-status', '');
    return;
  }
  $('job-select').addEventListener('change', (event) => {
    const url = new URL(location.href);
    url.searchParams.set('job', event.target.value);
    location.href = url.toString();
  });
  $('savepoint-form').addEventListener('submit', requestJobAction);
  await loadDetails();
  every(METRICS_MS, refreshMetrics);
  every(SLOW_MS, refreshCheckpoints);
  every(SLOW_MS, refreshExceptions);
  every(SLOW_MS, refreshGroup);
}

start().catch((error) => {
  setText('connection', `⚠ ${error instanceof Error ? error.message : String(error)}`);
});

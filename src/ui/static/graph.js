/**
 * The job graph as SVG: operators laid out left to right in layers (longest
 * path from a source), edges labelled with their partitioning. Each operator
 * box shows its parallelism, live rates and watermark lag; its fill shows
 * backpressure and a bar along its bottom shows how busy its task is.
 */
import { compact, duration, percent } from './format.js';

const SVG = 'http://www.w3.org/2000/svg';
const NODE_W = 196;
const NODE_H = 104;
const GAP_X = 120;
const GAP_Y = 30;
const PAD = 16;

/**
 * Positions of the operators: x by layer, y by order within the layer
 * (sorted by the mean position of their inputs, which keeps edges short).
 */
export function layout(graph) {
  const layer = new Map();
  const inputs = new Map(graph.operators.map((op) => [op.id, []]));
  for (const e of graph.edges) inputs.get(e.to)?.push(e.from);
  for (const op of graph.operators) {
    const from = inputs.get(op.id) ?? [];
    layer.set(op.id, from.length === 0 ? 0 : Math.max(...from.map((f) => layer.get(f) ?? 0)) + 1);
  }
  const layers = [];
  for (const op of graph.operators) {
    const l = layer.get(op.id);
    layers[l] ??= [];
    layers[l].push(op.id);
  }
  const row = new Map();
  layers.forEach((ids, l) => {
    if (l > 0) {
      const mean = (id) => {
        const from = inputs.get(id) ?? [];
        return from.length === 0
          ? 0
          : from.reduce((s, f) => s + (row.get(f) ?? 0), 0) / from.length;
      };
      ids.sort((a, b) => mean(a) - mean(b));
    }
    ids.forEach((id, i) => {
      row.set(id, i);
    });
  });
  const tallest = Math.max(...layers.map((ids) => ids.length));
  const height = PAD * 2 + tallest * NODE_H + (tallest - 1) * GAP_Y;
  const positions = new Map();
  layers.forEach((ids, l) => {
    const columnHeight = ids.length * NODE_H + (ids.length - 1) * GAP_Y;
    const top = (height - columnHeight) / 2;
    ids.forEach((id, i) => {
      positions.set(id, { x: PAD + l * (NODE_W + GAP_X), y: top + i * (NODE_H + GAP_Y) });
    });
  });
  const width = PAD * 2 + layers.length * NODE_W + (layers.length - 1) * GAP_X;
  return { positions, width, height };
}

/** How an edge is labelled: Flink's words for the partitionings. */
export function edgeLabel(edge) {
  const kind =
    edge.partitioning === 'keyed'
      ? `HASH${edge.key && edge.key !== 'keyBy' ? ` (${edge.key})` : ''}`
      : edge.partitioning.toUpperCase();
  if (edge.sideOutput !== undefined) {
    return edge.chained ? `side: ${edge.sideOutput}` : `${kind} · side: ${edge.sideOutput}`;
  }
  return edge.chained ? 'chained' : kind;
}

function el(name, attributes = {}, text) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

function truncate(text, max) {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * Draws `graph` into `container`, with the numbers of `metrics` (the
 * /jobs/:id/metrics document, or null before the first).
 */
export function renderGraph(container, graph, metrics) {
  const { positions, width, height } = layout(graph);
  const byId = new Map((metrics?.operators ?? []).map((m) => [m.id, m]));
  const svg = el('svg', {
    viewBox: `0 0 ${width} ${height}`,
    width: '100%',
    // Shrinks to fit a narrower window, never grows past its natural size.
    style: `max-width: ${width}px; height: auto`,
    role: 'img',
    'aria-label': 'job graph',
  });
  const defs = el('defs');
  const marker = el('marker', {
    id: 'arrow',
    viewBox: '0 0 10 10',
    refX: 9,
    refY: 5,
    markerWidth: 7,
    markerHeight: 7,
    orient: 'auto-start-reverse',
  });
  marker.append(el('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow-head' }));
  defs.append(marker);
  svg.append(defs);

  const edgeLayer = el('g', { class: 'edges' });
  const labelLayer = el('g', { class: 'edge-labels' });
  for (const edge of graph.edges) {
    const a = positions.get(edge.from);
    const b = positions.get(edge.to);
    if (a === undefined || b === undefined) continue;
    const x1 = a.x + NODE_W;
    const y1 = a.y + NODE_H / 2;
    const x2 = b.x - 2;
    const y2 = b.y + NODE_H / 2;
    const mx = (x1 + x2) / 2;
    const classes = ['edge', edge.chained ? 'chained' : 'exchange'];
    if (edge.sideOutput !== undefined) classes.push('side');
    edgeLayer.append(
      el('path', {
        d: `M ${x1} ${y1} C ${mx} ${y1}, ${mx} ${y2}, ${x2} ${y2}`,
        class: classes.join(' '),
        'marker-end': 'url(#arrow)',
      }),
    );
    const text = edgeLabel(edge);
    const lx = mx;
    const ly = (y1 + y2) / 2;
    const w = text.length * 6.4 + 10;
    const label = el('g', { class: 'edge-label', 'data-from': edge.from, 'data-to': edge.to });
    label.append(el('rect', { x: lx - w / 2, y: ly - 9, width: w, height: 18, rx: 4 }));
    label.append(el('text', { x: lx, y: ly + 4, 'text-anchor': 'middle' }, text));
    labelLayer.append(label);
  }
  svg.append(edgeLayer);

  for (const op of graph.operators) {
    const p = positions.get(op.id);
    const m = byId.get(op.id);
    const level = m?.backpressure ?? 'ok';
    const g = el('g', {
      class: `node ${op.kind} bp-${level}`,
      transform: `translate(${p.x} ${p.y})`,
      'data-operator': op.id,
    });
    const title = el('title', {}, `${op.name} (${op.id}), task ${op.task}`);
    g.append(title);
    g.append(el('rect', { class: 'box', width: NODE_W, height: NODE_H, rx: 8 }));
    const busy = m?.busyRatio ?? 0;
    g.append(
      el('rect', {
        class: 'busy-track',
        x: 10,
        y: NODE_H - 10,
        width: NODE_W - 20,
        height: 4,
        rx: 2,
      }),
    );
    g.append(
      el('rect', {
        class: 'busy-bar',
        x: 10,
        y: NODE_H - 10,
        width: Math.max(0, Math.min(1, busy)) * (NODE_W - 20),
        height: 4,
        rx: 2,
      }),
    );
    g.append(el('text', { class: 'name', x: 12, y: 21 }, truncate(op.name, 23)));
    g.append(
      el(
        'text',
        { class: 'meta', x: 12, y: 38 },
        `${op.kind === 'operator' ? '' : `${op.kind} · `}parallelism ${op.parallelism}`,
      ),
    );
    const rateText =
      m === undefined
        ? '…'
        : op.kind === 'source'
          ? `out ${compact(m.recordsOutPerSecond)}/s`
          : op.kind === 'sink'
            ? `in ${compact(m.recordsInPerSecond)}/s`
            : `in ${compact(m.recordsInPerSecond)}/s · out ${compact(m.recordsOutPerSecond)}/s`;
    g.append(el('text', { class: 'rate', x: 12, y: 56 }, rateText));
    const detail =
      m === undefined
        ? ''
        : `busy ${percent(m.busyRatio)} · backpressured ${percent(m.backpressuredRatio)}`;
    g.append(el('text', { class: 'detail', x: 12, y: 73 }, detail));
    const lag = m?.watermarkLagMs;
    const watermark =
      op.kind === 'source'
        ? ''
        : lag === null || lag === undefined
          ? 'no watermark'
          : `watermark lag ${duration(lag)}`;
    g.append(el('text', { class: 'detail', x: 12, y: 89 }, watermark));
    svg.append(g);
  }
  svg.append(labelLayer);
  container.replaceChildren(svg);
}

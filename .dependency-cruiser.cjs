// Layer rules of src/ (see docs/architecture.md, "What may import what").
// `npm run lint:layers` checks them. The `layers` table is the source of the
// layer rules; docs/architecture.md reproduces it, and
// test/package/layers.test.ts keeps the two equal.

/**
 * Layers, each a path pattern, and the layers each may import (besides itself).
 * `connectors` is special-cased below: a connector folder may also import
 * `connectors/shared/` but no other connector folder. The entry points
 * src/index.ts (`weir`) and src/metrics/index.ts (`weir/metrics`) gather
 * names from several layers: `weir` sits at the sql level (the highest layer it exports
 * from), `weir/metrics` at the api level.
 */
const layers = {
  core: { path: '^src/core/', may: [] },
  util: { path: '^src/util/', may: ['core'] },
  metrics: { path: '^src/metrics/(?!index\\.ts$)', may: ['core', 'util'] },
  state: { path: '^src/state/', may: ['core', 'util', 'metrics'] },
  runtime: { path: '^src/runtime/', may: ['core', 'util', 'metrics', 'state'] },
  plan: { path: '^src/plan/', may: ['core', 'util', 'metrics', 'state', 'runtime'] },
  connectors: { path: '^src/connectors/', may: ['core', 'util', 'metrics'] },
  api: {
    path: '^src/(api/|metrics/index\\.ts$)',
    may: ['core', 'util', 'metrics', 'state', 'runtime', 'plan', 'connectors'],
  },
  sql: {
    path: '^src/(sql/|index\\.ts$)',
    may: ['core', 'util', 'metrics', 'state', 'runtime', 'plan', 'connectors', 'api'],
  },
  replay: {
    path: '^src/replay/',
    may: ['core', 'util', 'metrics', 'state', 'runtime', 'plan', 'connectors', 'api'],
  },
  testing: {
    path: '^src/testing/',
    may: ['core', 'util', 'metrics', 'state', 'runtime', 'plan', 'connectors', 'api', 'sql'],
  },
  ui: {
    path: '^src/ui/',
    may: [
      'core',
      'util',
      'metrics',
      'state',
      'runtime',
      'plan',
      'connectors',
      'api',
      'sql',
      'testing',
    ],
  },
  cli: {
    path: '^src/cli/',
    may: [
      'core',
      'util',
      'metrics',
      'state',
      'runtime',
      'plan',
      'connectors',
      'api',
      'sql',
      'testing',
      'ui',
      'replay',
    ],
  },
};

// One rule per forbidden (from, to) pair, so a report names both layers.
const layerRules = [];
for (const [from, { path: fromPath, may }] of Object.entries(layers)) {
  for (const [to, { path: toPath }] of Object.entries(layers)) {
    if (to === from || may.includes(to)) continue;
    layerRules.push({
      name: `layer-${from}-not-${to}`,
      comment: `${from} may import only ${[from, ...may].join(', ')}; not ${to}.`,
      severity: 'error',
      from: { path: fromPath },
      to: { path: toPath },
    });
  }
}

/** Client libraries that only their connector folder may import. */
const clients = [
  { name: 'kafka', folder: 'kafka', packages: ['@platformatic/kafka'] },
  { name: 'postgres', folder: 'postgres', packages: ['pg', 'pg-logical-replication'] },
];
// Matches both a resolved path and a bare name that did not resolve.
const packagePath = (names) => `(^|/node_modules/)(${names.join('|')})(/|$)`;

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'no-cycles',
      comment:
        'No import cycles, type-only edges included: a type cycle still ties ' +
        'the modules together, and under verbatimModuleSyntax `import { type X }` ' +
        'stays a runtime import.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-imports-nothing-of-ours',
      comment: 'core holds the contracts; everything else depends on it, never the reverse.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
    {
      name: 'connector-not-other-connector',
      comment:
        'A connector folder uses core, util, metrics and connectors/shared; ' +
        'another connector is never its dependency.',
      severity: 'error',
      from: { path: '^src/connectors/([^/]+)/' },
      to: { path: '^src/connectors/', pathNot: '^src/connectors/($1|shared)/' },
    },
    ...clients.map(({ name, folder, packages }) => ({
      name: `${name}-client-only-in-its-connector`,
      comment: `Only src/connectors/${folder}/ imports ${packages.join(', ')}.`,
      severity: 'error',
      from: { pathNot: `^src/connectors/${folder}/` },
      to: { path: packagePath(packages) },
    })),
    {
      name: 'aws-sdk-only-in-s3-client',
      comment:
        'Only src/runtime/checkpoint/store/s3-client.ts imports the AWS SDK, so that ' +
        'one module decides how it is configured and what its errors say.',
      severity: 'error',
      from: { pathNot: '^src/runtime/checkpoint/store/s3-client\\.ts$' },
      to: { path: packagePath(['@aws-sdk/[^/]+', '@smithy/[^/]+']) },
    },
    {
      name: 's3-client-loaded-on-demand',
      comment:
        'The AWS SDK loads only when an s3:// location is used: s3-client.ts is ' +
        'imported dynamically (or for its types only).',
      severity: 'error',
      from: {},
      to: {
        path: '^src/runtime/checkpoint/store/s3-client\\.ts$',
        dependencyTypesNot: ['dynamic-import', 'type-only'],
      },
    },
    {
      name: 'entry-point-stays-light',
      comment:
        'The `weir` entry point loads no Kafka, PostgreSQL, web UI or metrics ' +
        'server code: those are the weir/kafka, weir/postgres, weir/ui and ' +
        'weir/metrics subpaths.',
      severity: 'error',
      from: { path: '^src/index\\.ts$' },
      to: {
        path: '^src/(connectors/(kafka|postgres)/|ui/|metrics/metrics-server\\.ts$)',
      },
    },
    {
      name: 'entry-point-never-reaches-kafka-postgres-ui',
      comment:
        'Nothing `weir` imports, directly or not, is a Kafka or PostgreSQL ' +
        'connector module, their client library, or the web UI.',
      severity: 'error',
      from: { path: '^src/index\\.ts$' },
      to: {
        reachable: true,
        path: [
          '^src/(connectors/(kafka|postgres)|ui)/',
          packagePath(clients.flatMap(({ packages }) => packages)),
        ],
      },
    },
    {
      name: 'no-orphans',
      comment: 'A module nothing imports and that imports nothing is dead code.',
      severity: 'error',
      from: { orphan: true, pathNot: '\\.d\\.ts$' },
      to: {},
    },
    {
      name: 'no-dev-dependencies-in-src',
      comment: 'Published code must not need a devDependency at run time.',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports count: layers and cycles are about what a module knows.
    tsPreCompilationDeps: true,
    // Packages such as @platformatic/kafka publish ESM-only `exports`.
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};

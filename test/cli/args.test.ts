import { describe, expect, it } from 'vitest';
import {
  apiUrl,
  DEFAULT_API_URL,
  DEFAULT_UI_PORT,
  DEMO_DEFAULTS,
  parseCommandLine,
} from '../../src/cli/args.js';
import { UsageError } from '../../src/cli/failure.js';

describe('parseCommandLine', () => {
  it('parses run with flags and job arguments after --', () => {
    expect(
      parseCommandLine(['run', 'job.ts', '-p', '4', '--batch-size', '256', '--', 'a', '--b']),
    ).toEqual({
      kind: 'run',
      options: {
        module: 'job.ts',
        parallelism: 4,
        maxParallelism: undefined,
        batchSize: 256,
        workers: 'auto',
        name: undefined,
        jobArgs: ['a', '--b'],
        verbose: false,
        logFormat: 'text',
        statusIntervalMs: 5000,
        checkpointDir: undefined,
        checkpointIntervalMs: undefined,
        restoreFrom: undefined,
        allowNonRestoredState: false,
        savepointOnStop: undefined,
        metricsPort: undefined,
        metricsHost: undefined,
        uiPort: undefined,
      },
    });
  });

  it('parses --group and --bootstrap: one thread, with checkpoints', () => {
    const parsed = parseCommandLine([
      'run',
      'job.ts',
      '--group',
      'orders',
      '--bootstrap',
      'k1:9092,k2:9092',
      '--checkpoint-dir',
      'c',
    ]);
    expect(parsed).toMatchObject({
      kind: 'run',
      options: {
        workers: 0,
        processGroup: { applicationId: 'orders', brokers: ['k1:9092', 'k2:9092'] },
      },
    });
    const refused = (argv: string[], message: string) => {
      expect(() => parseCommandLine(['run', 'job.ts', ...argv])).toThrow(UsageError);
      expect(() => parseCommandLine(['run', 'job.ts', ...argv])).toThrow(message);
    };
    refused(['--group', 'g', '--checkpoint-dir', 'c'], '--group needs --bootstrap');
    refused(['--bootstrap', 'k:9092'], '--bootstrap needs --group');
    refused(['--group', 'g', '--bootstrap', 'k:9092'], '--group needs --checkpoint-dir');
    refused(
      ['--group', 'g', '--bootstrap', 'k:9092', '--checkpoint-dir', 'c', '--workers', '2'],
      '--workers must be 0',
    );
    refused(
      ['--group', 'g', '--bootstrap', 'k', '--checkpoint-dir', 'c'],
      "--bootstrap takes host:port[,host:port...], got 'k'",
    );
    refused(['--session-timeout', '2'], '--session-timeout needs --group');
    refused(
      ['--group', 'g', '--bootstrap', 'k:9092', '--checkpoint-dir', 'c', '--session-timeout', '0'],
      "--session-timeout must be a positive number of seconds, got '0'",
    );
  });

  it('parses --session-timeout of a process group member, in seconds', () => {
    const parsed = parseCommandLine([
      'run',
      'job.ts',
      '--group',
      'orders',
      '--bootstrap',
      'k1:9092',
      '--checkpoint-dir',
      'c',
      '--session-timeout',
      '1.5',
    ]);
    expect(parsed).toMatchObject({
      kind: 'run',
      options: {
        processGroup: { applicationId: 'orders', brokers: ['k1:9092'], sessionTimeoutMs: 1_500 },
      },
    });
  });

  it('parses --standby-replicas of a process group member', () => {
    const member = ['run', 'job.ts', '--group', 'orders', '--bootstrap', 'k1:9092'];
    expect(
      parseCommandLine([...member, '--checkpoint-dir', 's3://b/p', '--standby-replicas', '2']),
    ).toMatchObject({ options: { processGroup: { standbyReplicas: 2 } } });
    expect(() => parseCommandLine(['run', 'job.ts', '--standby-replicas', '1'])).toThrow(
      '--standby-replicas needs --group',
    );
    expect(() =>
      parseCommandLine([...member, '--checkpoint-dir', 'c', '--standby-replicas', 'one']),
    ).toThrow("--standby-replicas takes a whole number of copies (0 or more), got 'one'");
  });

  it('applies demo defaults', () => {
    expect(parseCommandLine(['demo'])).toEqual({
      kind: 'demo',
      options: {
        durationMs: DEMO_DEFAULTS.durationSeconds * 1000,
        rate: DEMO_DEFAULTS.rate,
        parallelism: 1,
        windowMs: DEMO_DEFAULTS.windowSeconds * 1000,
        verbose: false,
        metricsPort: undefined,
        metricsHost: undefined,
        uiPort: undefined,
      },
    });
    expect(parseCommandLine(['demo', '-d', '0', '--window', '0.5'])).toMatchObject({
      options: { durationMs: 0, windowMs: 500 },
    });
  });

  it('parses the observability flags', () => {
    expect(
      parseCommandLine([
        'run',
        'job.ts',
        '--ui',
        '--metrics-port',
        '9249',
        '--log-format',
        'json',
        '--status-interval',
        '2.5',
        '--checkpoint-dir',
        'ckpt',
        '--checkpoint-interval',
        '0.5',
      ]),
    ).toMatchObject({
      options: {
        uiPort: DEFAULT_UI_PORT,
        metricsPort: 9249,
        metricsHost: undefined,
        logFormat: 'json',
        statusIntervalMs: 2500,
        checkpointDir: 'ckpt',
        checkpointIntervalMs: 500,
      },
    });
    expect(parseCommandLine(['demo', '--ui-port', '0'])).toMatchObject({ options: { uiPort: 0 } });
    expect(
      parseCommandLine(['demo', '--metrics-port', '0', '--metrics-host', '0.0.0.0']),
    ).toMatchObject({ options: { metricsPort: 0, metricsHost: '0.0.0.0', uiPort: undefined } });
  });

  it('parses restore and savepoint flags of run', () => {
    expect(
      parseCommandLine([
        'run',
        'job.ts',
        '--checkpoint-dir',
        'ckpt',
        '--from',
        'latest',
        '--allow-non-restored-state',
        '--savepoint-on-stop',
        'sp',
        '-p',
        '2',
      ]),
    ).toMatchObject({
      kind: 'run',
      options: {
        checkpointDir: 'ckpt',
        restoreFrom: 'latest',
        allowNonRestoredState: true,
        savepointOnStop: 'sp',
        parallelism: 2,
      },
    });
    expect(parseCommandLine(['run', 'job.ts', '--from', 'sp/savepoint-0000000007'])).toMatchObject({
      options: { restoreFrom: 'sp/savepoint-0000000007', checkpointDir: undefined },
    });
  });

  it('parses --allow-duplicate-output', () => {
    expect(
      parseCommandLine([
        'run',
        'job.ts',
        '--from',
        'ckpt/chk-0000000003',
        '--allow-duplicate-output',
      ]),
    ).toMatchObject({ options: { allowDuplicateOutput: true } });
    const plain = parseCommandLine(['run', 'job.ts', '--from', 'ckpt/chk-0000000003']);
    expect(plain.kind === 'run' && 'allowDuplicateOutput' in plain.options).toBe(false);
  });

  it('parses savepoint and jobs', () => {
    expect(parseCommandLine(['savepoint', '5f0c', '--to', 'sp'])).toEqual({
      kind: 'savepoint',
      options: { jobId: '5f0c', directory: 'sp', url: DEFAULT_API_URL },
    });
    expect(
      parseCommandLine(['savepoint', '5f0c', '--to', '/sp', '--url', 'http://127.0.0.1:9249']),
    ).toMatchObject({ options: { url: 'http://127.0.0.1:9249' } });
    expect(parseCommandLine(['jobs'])).toEqual({ kind: 'jobs', options: { url: DEFAULT_API_URL } });
    expect(parseCommandLine(['jobs', '--url', '9000'])).toEqual({
      kind: 'jobs',
      options: { url: 'http://127.0.0.1:9000' },
    });
    expect(parseCommandLine(['savepoint', '--help'])).toEqual({ kind: 'help' });
  });

  it('normalizes --url', () => {
    expect(apiUrl(undefined)).toBe('http://127.0.0.1:8081');
    expect(apiUrl('9249')).toBe('http://127.0.0.1:9249');
    expect(apiUrl('localhost:9249')).toBe('http://localhost:9249');
    expect(apiUrl('http://127.0.0.1:9249/')).toBe('http://127.0.0.1:9249');
    // The address `weir run --metrics-port` prints.
    expect(apiUrl('http://127.0.0.1:9249/metrics')).toBe('http://127.0.0.1:9249');
    expect(apiUrl('https://weir.example/api/')).toBe('https://weir.example/api');
  });

  it('parses the REST API security flags', () => {
    expect(
      parseCommandLine([
        'run',
        'job.ts',
        '--ui',
        '--ui-host',
        '0.0.0.0',
        '--tls-cert',
        'c.pem',
        '--tls-key',
        'k.pem',
        '--token-file',
        'tok',
        '--savepoint-dir',
        'a',
        '--savepoint-dir',
        'b',
      ]),
    ).toMatchObject({
      options: {
        uiHost: '0.0.0.0',
        tlsCert: 'c.pem',
        tlsKey: 'k.pem',
        tokenFile: 'tok',
        savepointDirs: ['a', 'b'],
      },
    });
    expect(
      parseCommandLine(['savepoint', '5f0c', '--to', 'sp', '--token-file', 'tok']),
    ).toMatchObject({ options: { tokenFile: 'tok' } });
  });

  it.each([
    [['run', 'job.ts', '--from', 'latest'], '--from latest needs --checkpoint-dir'],
    [['run', 'job.ts', '--from', ''], '--from must not be empty'],
    [['run', 'job.ts', '--allow-non-restored-state'], '--allow-non-restored-state needs --from'],
    [['run', 'job.ts', '--allow-duplicate-output'], '--allow-duplicate-output needs --from'],
    [['run', 'job.ts', '--savepoint-on-stop'], "option '--savepoint-on-stop' needs a value"],
    [['savepoint'], 'missing the job id'],
    [['savepoint', '5f0c'], 'missing --to DIR'],
    [['savepoint', '5f0c', 'extra', '--to', 'sp'], "unexpected argument 'extra'"],
    [['savepoint', '5f0c', '--to', 'sp', '--url', 'ftp://host'], '--url must be an http://'],
    [['savepoint', '5f0c', '--to', 'sp', '--url', '99999'], '--url must be an address like'],
    [['jobs', 'all'], "unexpected argument 'all'"],
    [['run', 'job.ts', '--ui', '--ui-host', '0.0.0.0'], '--ui-host 0.0.0.0 is beyond loopback'],
    [['run', 'job.ts', '--ui', '--tls-cert', 'c.pem'], '--tls-cert and --tls-key go together'],
    [['demo', '--tls-cert', 'c.pem', '--tls-key', 'k.pem'], 'need --ui or --ui-port'],
    [['run', 'job.ts', '--savepoint-dir', ''], '--savepoint-dir must not be empty'],
    [['jobs', '--url', 'http://h:1/?x=1'], '--url must not have a query'],
  ])('rejects %j', (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(UsageError);
    expect(() => parseCommandLine(argv)).toThrow(message);
  });

  it.each([
    [['run', 'job.ts', '--log-format', 'xml'], "--log-format must be text or json, got 'xml'"],
    [
      ['run', 'job.ts', '--ui-port', '70000'],
      "--ui-port must be a port number (0 to 65535), got '70000'",
    ],
    [['demo', '--metrics-port', 'x'], '--metrics-port must be a port number'],
    [['demo', '--metrics-host', '::1'], '--metrics-host needs --metrics-port'],
    [
      ['run', 'job.ts', '--checkpoint-interval', '1'],
      '--checkpoint-interval needs --checkpoint-dir',
    ],
    [[], 'missing command'],
    [['launch'], "unknown command 'launch'"],
    [['run'], 'missing the job module'],
    [['run', 'job.ts', 'extra'], 'pass arguments for the job after --'],
    [['run', 'job.ts', '--parallelism', '0'], '--parallelism must be a positive whole number'],
    [['run', 'job.ts', '--nope'], "unknown option '--nope'"],
    [['demo', '--duration'], "option '--duration' needs a value"],
    [['demo', '--window', '0'], '--window must be a positive number of seconds'],
  ])('rejects %j', (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(UsageError);
    expect(() => parseCommandLine(argv)).toThrow(message);
  });
});

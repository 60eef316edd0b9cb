/**
 * The `filesystem` SQL connector, with Flink's option names: `path` is a file or a directory
 * of JSON Lines or CSV files (read once, or watched with `source.monitor-interval`); a sink
 * writes part files committed on checkpoints, one directory per partition of a
 * `PARTITIONED BY` table (`dt=.../hm=...`), with `sink.partition-commit.*` writing
 * `_SUCCESS` files.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { optional } from 'valibot';
import type { StreamEnvironment } from '../../../api/stream-environment.js';
import type { DataStream } from '../../../api/streams.js';
import { FileFormat } from '../../../connectors/files/formats/format.js';
import type { RecordPosition } from '../../../connectors/files/formats/format-types.js';
import { DirectorySource } from '../../../connectors/files/source/directory-source.js';
import { FileSource } from '../../../connectors/files/source/file-source.js';
import type { Sink } from '../../../core/sink.js';
import type { CatalogTable, TableColumn } from '../../catalog/catalog.js';
import { parsePattern } from '../../expressions/functions/time-runtime.js';
import { sqlError } from '../../sql-error.js';
import type { Row, SqlConnector, SqlLookupSource } from '../connector.js';
import { FieldError, fromJson, parseText, toText } from '../formats/field-values.js';
import {
  csvFieldsToRow,
  csvLine,
  csvRowFormat,
  type FormatColumn,
  jsonRowFormat,
  rowFormatOptions,
} from '../formats/row-formats.js';
import { notNullCheck } from '../not-null-columns.js';
import { choice, duration, flag, parseSqlOptions, text } from '../sql-options.js';
import { fileLookupTable } from './file-lookup-table.js';
import { checkFileMetadata, fileMetadataFiller } from './file-metadata.js';
import { DEFAULT_PARTITION, PartitionedFileSink } from './partitioned-file-sink.js';

const filesystemOptions = {
  connector: 'filesystem',
  entries: {
    path: text('a file or directory path'),
    format: choice(['json', 'csv']),
    'source.monitor-interval': optional(duration()),
    'json.fail-on-missing-field': optional(flag()),
    'json.ignore-parse-errors': optional(flag()),
    'csv.ignore-parse-errors': optional(flag()),
    'csv.field-delimiter': optional(text('one character')),
    // Flink's format options, read by rowFormatOptions.
    'json.timestamp-format.standard': optional(choice(['SQL', 'ISO-8601'])),
    'json.map-null-key.mode': optional(choice(['FAIL', 'DROP', 'LITERAL'])),
    'json.map-null-key.literal': optional(text('a string')),
    'json.encode.decimal-as-plain-number': optional(flag()),
    'csv.null-literal': optional(text('a string')),
    'csv.array-element-delimiter': optional(text('a string')),
    'csv.quote-character': optional(text('one character')),
    'partition.default-name': optional(text('a directory name')),
    'partition.time-extractor.timestamp-pattern': optional(text("a pattern such as '$dt $hm:00'")),
    // Flink's 'custom' extractor is a Java class: only the default one here.
    'partition.time-extractor.kind': optional(choice(['default'])),
    'partition.time-extractor.timestamp-formatter': optional(
      text("a Java date pattern such as 'yyyyMMdd'"),
    ),
    'sink.partition-commit.trigger': optional(choice(['process-time', 'partition-time'])),
    'sink.partition-commit.delay': optional(duration()),
    // 'metastore' is accepted here only to be refused with Flink's message (see the rules).
    'sink.partition-commit.policy.kind': optional(choice(['success-file', 'metastore'])),
    'sink.partition-commit.success-file.name': optional(text('a file name')),
    'sink.rolling-policy.rollover-interval': optional(duration()),
    'sink.rolling-policy.check-interval': optional(duration()),
    'sink.rolling-policy.file-size': optional(text('a size such as 128MB')),
  },
  rules: [
    {
      check: (o: {
        'sink.partition-commit.trigger'?: string;
        'partition.time-extractor.timestamp-pattern'?: string;
      }) =>
        o['sink.partition-commit.trigger'] !== 'partition-time' ||
        o['partition.time-extractor.timestamp-pattern'] !== undefined,
      message:
        "'sink.partition-commit.trigger' = 'partition-time' needs 'partition.time-extractor.timestamp-pattern'",
    },
    {
      check: (o: { 'sink.partition-commit.policy.kind'?: string }) =>
        o['sink.partition-commit.policy.kind'] !== 'metastore',
      message:
        "Can not configure a 'metastore' partition commit policy for a file system table. You can only configure 'metastore' partition commit policy for a hive table.",
    },
  ],
} as const;

type FilesystemOptions = ReturnType<typeof parseFilesystemOptions>;

function parseFilesystemOptions(table: CatalogTable) {
  return parseSqlOptions(filesystemOptions, table);
}

function localPath(path: string): string {
  return path.startsWith('file://') ? path.slice('file://'.length) : path;
}

/**
 * The stored columns (a sink's: without the VIRTUAL METADATA ones, which INSERT INTO leaves
 * out), and which of them are partition columns and METADATA columns (not in the files).
 */
function layout(table: CatalogTable, written = false) {
  const columns = table.columns.filter(
    (c) => c.computed === undefined && !(written && c.metadata?.virtual === true),
  );
  const keys = table.partitionKeys ?? [];
  for (const k of keys) {
    if (!columns.some((c) => c.name === k))
      sqlError(`PARTITIONED BY '${k}': no such column in table '${table.name}'`, table.at);
  }
  const partitionPositions = keys.map((k) => columns.findIndex((c) => c.name === k));
  const dataPositions = columns.flatMap((c, i) =>
    partitionPositions.includes(i) || c.metadata !== undefined ? [] : [i],
  );
  const data: FormatColumn[] = dataPositions.map((i) => columns[i] as TableColumn);
  return { columns, keys, partitionPositions, dataPositions, data };
}

/** Every file under `dir` (partition directories included), but hidden and `_` files. */
function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name.startsWith('_')) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(full));
    else if (entry.isFile()) out.push(full);
  }
  return out.sort();
}

/** Partition values from a file's directories below the table's path (`dt=2026-01-01`). */
function partitionValues(root: string, file: string, keys: readonly string[]): Map<string, string> {
  const values = new Map<string, string>();
  for (const part of relative(root, file).split(sep).slice(0, -1)) {
    const eq = part.indexOf('=');
    if (eq > 0 && keys.includes(part.slice(0, eq)))
      values.set(part.slice(0, eq), decodeURIComponent(part.slice(eq + 1)));
  }
  return values;
}

function source(table: CatalogTable, env: StreamEnvironment): DataStream<Row> {
  const o = parseFilesystemOptions(table);
  const root = localPath(o.path);
  const { columns, keys, partitionPositions, dataPositions, data } = layout(table);
  const defaultName = o['partition.default-name'] ?? DEFAULT_PARTITION;
  const where = (at: RecordPosition) => `table '${table.name}': file '${at.file}' line ${at.line}`;
  const checkNotNull = notNullCheck(columns);
  const fillMetadata = fileMetadataFiller(columns);
  const toRow = (values: Row, at: RecordPosition): Row => {
    const row = withPartitions(values, at);
    checkNotNull?.(row);
    return row;
  };
  const withPartitions = (values: Row, at: RecordPosition): Row => {
    if (keys.length === 0 && fillMetadata === undefined) return values;
    const row: Row = new Array(columns.length);
    for (let i = 0; i < dataPositions.length; i++) row[dataPositions[i] as number] = values[i];
    fillMetadata?.(at.file, row);
    const found = partitionValues(root, at.file, keys);
    for (let k = 0; k < keys.length; k++) {
      const at2 = partitionPositions[k] as number;
      const c = columns[at2] as TableColumn;
      const text = found.get(keys[k] as string);
      row[at2] =
        text === undefined || text === defaultName ? null : parseText(text, c.type, c.name);
    }
    return row;
  };
  const fail = (at: RecordPosition, error: unknown): never => {
    throw new Error(`${where(at)}: ${error instanceof Error ? error.message : String(error)}`);
  };
  const strict = o['json.fail-on-missing-field'] === 'true';
  const formatOptions = rowFormatOptions(o);
  const format =
    o.format === 'json'
      ? FileFormat.jsonLines<Row>({
          parse: (value, at) => {
            try {
              if (value === null || typeof value !== 'object' || Array.isArray(value))
                throw new Error('a json record must be an object');
              const object = value as Record<string, unknown>;
              return toRow(
                data.map((c) => {
                  if (strict && !(c.name in object)) throw new FieldError(c.name, 'is missing');
                  return fromJson(object[c.name], c.type, c.name, formatOptions);
                }),
                at,
              );
            } catch (error) {
              return fail(at, error);
            }
          },
        })
      : FileFormat.csv<Row>({
          relaxColumnCount: true,
          ...(o['csv.field-delimiter'] === undefined
            ? {}
            : { delimiter: o['csv.field-delimiter'] }),
          ...(o['csv.quote-character'] === undefined ? {} : { quote: o['csv.quote-character'] }),
          parse: (fields, at) => {
            try {
              return toRow(csvFieldsToRow(fields, data, formatOptions), at);
            } catch (error) {
              return fail(at, error);
            }
          },
        });
  const skip = o['json.ignore-parse-errors'] === 'true' || o['csv.ignore-parse-errors'] === 'true';
  const sourceOptions = {
    onError: skip ? ('skip' as const) : ('fail' as const),
    name: `filesystem ${table.name}`,
  };
  const monitor = o['source.monitor-interval'];
  let isDirectory: boolean;
  try {
    isDirectory = statSync(root).isDirectory();
  } catch {
    return sqlError(
      `table '${table.name}': path '${o.path}' does not exist`,
      table.options.get('path')?.at,
    );
  }
  if (monitor !== undefined) {
    if (!isDirectory)
      sqlError(`'source.monitor-interval' needs 'path' to be a directory`, table.at);
    if (keys.length > 0) sqlError('a watched directory cannot be PARTITIONED BY yet', table.at);
    return env.fromSource(
      new DirectorySource<Row>(root, format, { ...sourceOptions, pollIntervalMs: monitor }),
    );
  }
  const files = isDirectory ? listFiles(root) : [root];
  if (files.length === 0) return env.fromArray<Row>([], `filesystem ${table.name} (no files)`);
  return env.fromSource(new FileSource<Row>(files, format, sourceOptions));
}

/**
 * `$dt $hm:00` with a partition's values, as epoch ms; undefined when it is not a timestamp.
 * With a `formatter` (Flink's 'partition.time-extractor.timestamp-formatter', a Java date
 * pattern such as `yyyyMMdd`) the text is read with it, else as a SQL timestamp.
 */
function partitionTime(
  pattern: string,
  keys: readonly string[],
  formatter: string | undefined,
): (values: readonly string[]) => number | undefined {
  return (values) => {
    let text = pattern;
    keys.forEach((k, i) => {
      text = text.replaceAll(`$${k}`, values[i] ?? '');
    });
    if (formatter !== undefined) return parsePattern(text, formatter);
    const parsed = (() => {
      try {
        return parseText(
          text,
          { kind: 'TIMESTAMP', nullable: true, precision: 3 },
          'partition time',
        );
      } catch {
        return undefined;
      }
    })();
    return typeof parsed === 'number' ? parsed : undefined;
  };
}

function sink(table: CatalogTable): Sink<Row> {
  const o: FilesystemOptions = parseFilesystemOptions(table);
  const written = table.columns.find((c) => c.metadata !== undefined && !c.metadata.virtual);
  if (written !== undefined)
    sqlError(
      `table '${table.name}': metadata column '${written.name}' cannot be written; declare it METADATA VIRTUAL`,
      table.at,
    );
  const { columns, keys, partitionPositions, dataPositions, data } = layout(table, true);
  const delimiter = o['csv.field-delimiter'] ?? ',';
  const dataOf = (row: Row): Row =>
    dataPositions.length === row.length ? row : dataPositions.map((i) => row[i]);
  const formatOptions = rowFormatOptions(o);
  const json = jsonRowFormat(data, formatOptions);
  const line =
    o.format === 'json'
      ? (row: Row) => json.encode(dataOf(row)).toString('utf8')
      : (row: Row) => csvLine(dataOf(row), data, delimiter, formatOptions);
  const defaultName = o['partition.default-name'] ?? DEFAULT_PARTITION;
  return new PartitionedFileSink({
    directory: localPath(o.path),
    name: `filesystem ${table.name}`,
    partitionPositions,
    partitionNames: keys,
    partitionText: (row, at) => {
      const v = row[at];
      return v === null || v === undefined
        ? defaultName
        : toText(v, (columns[at] as TableColumn).type);
    },
    line,
    commit: {
      trigger: o['sink.partition-commit.trigger'] ?? 'process-time',
      delayMs: o['sink.partition-commit.delay'] ?? 0,
      successFile: o['sink.partition-commit.policy.kind'] === 'success-file',
      successFileName: o['sink.partition-commit.success-file.name'] ?? '_SUCCESS',
      timeOf: partitionTime(
        o['partition.time-extractor.timestamp-pattern'] ?? '',
        keys,
        o['partition.time-extractor.timestamp-formatter'],
      ),
    },
  });
}

/** The table's rows by `keyColumn`, read into memory when the join opens. */
function lookup(table: CatalogTable, keyColumn: string): SqlLookupSource {
  const o = parseFilesystemOptions(table);
  const { columns, keys } = layout(table);
  if (keys.length > 0)
    sqlError(`a PARTITIONED BY table cannot be looked up yet ('${table.name}')`, table.at);
  if (columns.some((c) => c.metadata !== undefined))
    sqlError(`a table with METADATA columns cannot be looked up yet ('${table.name}')`, table.at);
  if (o['source.monitor-interval'] !== undefined)
    sqlError(`a watched directory cannot be looked up yet ('${table.name}')`, table.at);
  const root = localPath(o.path);
  const checkNotNull = notNullCheck(columns);
  const format =
    o.format === 'json'
      ? jsonRowFormat(columns, rowFormatOptions(o))
      : csvRowFormat(columns, rowFormatOptions(o));
  const files = (): string[] => {
    try {
      return statSync(root).isDirectory() ? listFiles(root) : [root];
    } catch {
      throw new Error(`table '${table.name}': path '${o.path}' does not exist`);
    }
  };
  return {
    table: fileLookupTable({
      name: table.name,
      files,
      format,
      keyIndex: columns.findIndex((c) => c.name === keyColumn),
      ...(checkNotNull === undefined ? {} : { checkNotNull }),
    }),
  };
}

export const filesystemConnector: SqlConnector = {
  name: 'filesystem',
  options: [],
  partitioned: true,
  validate(table) {
    parseFilesystemOptions(table);
    checkFileMetadata(table);
    layout(table);
  },
  source,
  sink,
  lookup,
  checksNotNull: true,
};

/**
 * The one module that imports the AWS SDK. `s3-store.ts` loads it on first
 * use, so jobs that keep their checkpoints elsewhere never load the SDK.
 *
 * Credentials, region and endpoint come from the SDK's usual sources
 * (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, AWS_PROFILE
 * and ~/.aws/config, AWS_REGION, AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL,
 * instance and container roles). Errors name the operation, the object and
 * the server's answer, never a credential.
 */
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { WeirError } from '../../../core/errors.js';

/** A write made only if the object is absent (`*`) or still has this ETag. */
export type PutCondition = { readonly ifNoneMatch: '*' } | { readonly ifMatch: string };

/** What a conditional write found: done (with the new ETag), or the condition did not hold. */
export type PutOutcome =
  | { readonly kind: 'written'; readonly etag: string }
  | { readonly kind: 'refused' };

/** The few S3 operations checkpoints need, on one bucket. */
export interface S3Objects {
  /** The object's bytes and ETag; undefined when there is no such key. */
  get(key: string): Promise<{ readonly body: Buffer; readonly etag: string } | undefined>;
  put(key: string, body: string, condition?: PutCondition): Promise<PutOutcome>;
  /** Keys below `prefix` (which ends with `/`), and with `delimited` the common prefixes one level down. */
  list(prefix: string, delimited: boolean): Promise<{ keys: string[]; prefixes: string[] }>;
  /** Deletes `keys`; missing ones are no error. */
  deleteMany(keys: readonly string[]): Promise<void>;
  /**
   * Deletes one key if it still has ETag `ifMatch`. Servers that ignore the
   * condition delete it anyway; one that answers 501 gets a plain delete.
   */
  deleteIfMatch(key: string, ifMatch: string): Promise<void>;
}

let shared: S3Client | undefined;

/** One client per process: it keeps its connections and credentials. */
function client(): S3Client {
  if (shared !== undefined) return shared;
  const endpoint = process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL;
  const pathStyle = process.env.WEIR_S3_FORCE_PATH_STYLE;
  const config: S3ClientConfig = {
    // S3-compatible servers behind an endpoint URL rarely serve bucket host names.
    forcePathStyle: pathStyle === undefined ? endpoint !== undefined : pathStyle === 'true',
    maxAttempts: 5,
  };
  if (endpoint !== undefined) {
    // Many S3-compatible servers reject the SDK's default CRC checksums; every
    // checkpoint file is checked by its own SHA-256 anyway.
    config.requestChecksumCalculation = 'WHEN_REQUIRED';
    config.responseChecksumValidation = 'WHEN_REQUIRED';
    if (process.env.AWS_REGION === undefined && process.env.AWS_DEFAULT_REGION === undefined) {
      config.region = 'us-east-1';
    }
  }
  if (process.env.AWS_REGION === undefined && process.env.AWS_DEFAULT_REGION !== undefined) {
    config.region = process.env.AWS_DEFAULT_REGION;
  }
  shared = new S3Client(config);
  return shared;
}

/** The operations on `bucket`. */
export function s3Objects(bucket: string): S3Objects {
  const s3 = client();
  const where = (key: string) => `s3://${bucket}/${key}`;
  return {
    async get(key) {
      try {
        const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        const bytes = await out.Body?.transformToByteArray();
        return { body: Buffer.from(bytes ?? new Uint8Array()), etag: out.ETag ?? '' };
      } catch (error) {
        if (statusOf(error) === 404 && nameOf(error) !== 'NoSuchBucket') return undefined;
        throw failure('read', where(key), error);
      }
    },
    async put(key, body, condition) {
      try {
        const out = await s3.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: key,
            Body: body,
            ContentType: 'application/json',
            ...(condition === undefined
              ? {}
              : 'ifNoneMatch' in condition
                ? { IfNoneMatch: condition.ifNoneMatch }
                : { IfMatch: condition.ifMatch }),
          }),
        );
        return { kind: 'written', etag: out.ETag ?? '' };
      } catch (error) {
        // 412: the condition does not hold; 409: a concurrent conditional write won.
        const status = statusOf(error);
        if (condition !== undefined && (status === 412 || status === 409))
          return { kind: 'refused' };
        throw failure('write', where(key), error);
      }
    },
    async list(prefix, delimited) {
      const keys: string[] = [];
      const prefixes: string[] = [];
      let token: string | undefined;
      try {
        do {
          const out = await s3.send(
            new ListObjectsV2Command({
              Bucket: bucket,
              Prefix: prefix,
              ...(delimited ? { Delimiter: '/' } : {}),
              ...(token === undefined ? {} : { ContinuationToken: token }),
            }),
          );
          for (const o of out.Contents ?? []) if (o.Key !== undefined) keys.push(o.Key);
          for (const p of out.CommonPrefixes ?? [])
            if (p.Prefix !== undefined) prefixes.push(p.Prefix);
          token = out.IsTruncated === true ? out.NextContinuationToken : undefined;
        } while (token !== undefined);
      } catch (error) {
        throw failure('list', where(prefix), error);
      }
      return { keys, prefixes };
    },
    async deleteMany(keys) {
      // DeleteObjects takes at most 1000 keys per request.
      for (let i = 0; i < keys.length; i += 1000) {
        const batch = keys.slice(i, i + 1000);
        try {
          const out = await s3.send(
            new DeleteObjectsCommand({
              Bucket: bucket,
              Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
            }),
          );
          const failed = out.Errors?.[0];
          if (failed !== undefined) {
            throw new Error(`${failed.Code ?? 'error'}: ${failed.Message ?? ''} (${failed.Key})`);
          }
        } catch (error) {
          throw failure('delete', where(batch[0]!), error);
        }
      }
    },
    async deleteIfMatch(key, ifMatch) {
      try {
        await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key, IfMatch: ifMatch }));
        return;
      } catch (error) {
        const status = statusOf(error);
        if (status === 412 || status === 404) return;
        if (status !== 501 && nameOf(error) !== 'NotImplemented') {
          throw failure('delete', where(key), error);
        }
      }
      // A server without conditional deletes: the lease was read as ours just before.
      try {
        await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      } catch (error) {
        throw failure('delete', where(key), error);
      }
    },
  };
}

function statusOf(error: unknown): number | undefined {
  const meta: unknown =
    typeof error === 'object' && error !== null ? Reflect.get(error, '$metadata') : undefined;
  const status =
    typeof meta === 'object' && meta !== null ? Reflect.get(meta, 'httpStatusCode') : undefined;
  return typeof status === 'number' ? status : undefined;
}

function nameOf(error: unknown): string {
  return error instanceof Error ? error.name : 'Error';
}

/** An S3 failure as a WeirError: the operation, the object, the server's code and status. */
function failure(operation: string, location: string, error: unknown): WeirError {
  const status = statusOf(error);
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new WeirError(
    'CHECKPOINT_STORAGE_FAILED',
    `cannot ${operation} '${location}' in the checkpoint storage: ${detail}${status === undefined ? '' : ` (HTTP ${status})`}`,
    { domain: 'external', retriable: true, cause: error },
  );
}

/**
 * The S3-compatible test server (scripts/s3.sh, started by test/setup/services.ts):
 * the environment the AWS SDK reads to reach it, a fresh location per test,
 * and direct access to its objects for tests that inspect or damage them.
 */
import { randomUUID } from 'node:crypto';
import { type S3Objects, s3Objects } from '../../src/runtime/checkpoint/store/s3-client.js';

export const S3_BUCKET = process.env.WEIR_S3_BUCKET ?? 'weir-test';
const S3_PORT = process.env.WEIR_S3_PORT ?? '58333';

/** What a job (or a `weir` child process) needs in its environment to use the test server. */
export const S3_ENV: Readonly<Record<string, string>> = {
  AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${S3_PORT}`,
  AWS_ACCESS_KEY_ID: 'weir-test',
  AWS_SECRET_ACCESS_KEY: 'weir-test-secret',
  AWS_REGION: 'us-east-1',
  // The SDK warns on Node 20 that later versions will need Node 22.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

/** Points this process's AWS SDK at the test server; call before the first S3 use. */
export function useTestS3(): void {
  Object.assign(process.env, S3_ENV);
}

/** A location no other test uses: `s3://weir-test/<name>-<uuid>`. */
export function freshS3Location(name: string): string {
  return `s3://${S3_BUCKET}/${name}-${randomUUID()}`;
}

/** The test bucket's objects. */
export function testBucket(): S3Objects {
  return s3Objects(S3_BUCKET);
}

/** The key of a location in the test bucket: `s3://weir-test/a/b` is `a/b`. */
export function keyOf(location: string): string {
  return location.slice(`s3://${S3_BUCKET}/`.length);
}

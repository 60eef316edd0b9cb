/**
 * Savepoints requested through the REST API into object storage: an
 * `s3://` target is allowed only below an allowed `s3://` location, and
 * `.`/`..` parts cannot step out of it.
 */
import { describe, expect, it } from 'vitest';
import { confineSavepointTarget } from '../../src/ui/savepoint-targets.js';

const allowed = ['/var/lib/weir/sp', 's3://acme/prod/orders/savepoints/'];

describe('savepoint targets in S3', () => {
  it('are allowed in or below an allowed s3:// location', async () => {
    await expect(confineSavepointTarget('s3://acme/prod/orders/savepoints', allowed)).resolves.toBe(
      's3://acme/prod/orders/savepoints',
    );
    await expect(
      confineSavepointTarget('s3://acme/prod/orders/savepoints/manual/', allowed),
    ).resolves.toBe('s3://acme/prod/orders/savepoints/manual');
  });

  it('are refused elsewhere, and with a part that could step out', async () => {
    for (const [target, status] of [
      ['s3://acme/prod/orders/savepoints-other', 403],
      ['s3://other/prod/orders/savepoints', 403],
      ['s3://acme/prod/orders/savepoints/../../billing', 400],
      ['s3://acme/prod/orders/savepoints/./x', 400],
      ['s3://acme/prod/orders//savepoints', 400],
    ] as const) {
      const error = await confineSavepointTarget(target, allowed).catch((e: unknown) => e);
      expect(Reflect.get(error as object, 'status'), target).toBe(status);
    }
    const onlyLocal = await confineSavepointTarget('s3://acme/x', ['/var/lib/weir/sp']).catch(
      (e: unknown) => e,
    );
    expect(Reflect.get(onlyLocal as object, 'status')).toBe(403);
  });
});

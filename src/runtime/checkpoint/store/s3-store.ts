import { invalidArgument } from '../../../core/errors.js';
import type { DirectoryOwner } from '../lease-owner.js';
import { parseOwner } from '../lease-owner.js';
import type { CheckpointStore, LeaseFile, LeaseVersion } from './checkpoint-store.js';
import type { S3Objects } from './s3-client.js';

const S3_SCHEME = 's3://';

/** Whether a checkpoint location names an S3 prefix. */
export function isS3Location(location: string): boolean {
  return location.startsWith(S3_SCHEME);
}

/** Files written at once per checkpoint: enough to hide request latency, few enough for one client. */
const PARALLEL_PUTS = 16;

/**
 * A checkpoint directory as a prefix of an S3 bucket (or of an
 * S3-compatible server's): `s3://bucket/prefix` holds the objects
 * `prefix/chk-0000000042/_metadata.json` and so on. S3 has no rename, so a
 * checkpoint's files are put first and its metadata last; until the
 * metadata is there the checkpoint does not count. S3 reads its writes
 * (strong consistency) and a PUT is atomic, which is all the checkpoint
 * layout needs. The SDK is loaded on the first operation.
 */
export class S3Store implements CheckpointStore {
  readonly atomicDirectories = false;
  readonly location: string;
  private readonly bucket: string;
  /** Key prefix of the directory, ending with `/` (empty for a whole bucket). */
  private readonly prefix: string;
  private objects: Promise<S3Objects> | undefined;

  constructor(location: string) {
    const rest = location.slice(S3_SCHEME.length).replace(/\/+$/, '');
    const slash = rest.indexOf('/');
    const bucket = slash < 0 ? rest : rest.slice(0, slash);
    const prefix = slash < 0 ? '' : rest.slice(slash + 1);
    // Bucket naming rules of S3 (3-63 lower-case letters, digits, dots, hyphens).
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
      throw invalidArgument(
        `checkpoint location '${location}' does not name an S3 bucket: expected s3://<bucket>/<prefix> with a bucket name of 3-63 lower-case letters, digits, dots and hyphens`,
      );
    }
    if (prefix.split('/').some((part) => part === '' || part === '.' || part === '..')) {
      throw invalidArgument(
        `checkpoint location '${location}' has an empty, '.' or '..' part in its prefix`,
      );
    }
    this.bucket = bucket;
    this.prefix = prefix === '' ? '' : `${prefix}/`;
    this.location = `${S3_SCHEME}${bucket}${prefix === '' ? '' : `/${prefix}`}`;
  }

  private s3(): Promise<S3Objects> {
    this.objects ??= import('./s3-client.js').then((m) => m.s3Objects(this.bucket));
    return this.objects;
  }

  private key(name: string): string {
    return `${this.prefix}${name}`;
  }

  locate(name: string): string {
    return `${S3_SCHEME}${this.bucket}/${this.key(name)}`;
  }

  async read(name: string): Promise<Buffer | undefined> {
    return (await (await this.s3()).get(this.key(name)))?.body;
  }

  async list(): Promise<string[]> {
    const { keys, prefixes } = await (await this.s3()).list(this.prefix, true);
    const strip = (k: string) => k.slice(this.prefix.length).replace(/\/$/, '');
    return [...prefixes.map(strip), ...keys.map(strip)];
  }

  async writeDirectory(
    name: string,
    files: ReadonlyArray<readonly [string, string]>,
    last: readonly [string, string],
  ): Promise<void> {
    const s3 = await this.s3();
    // A directory being replaced stops counting before its files change.
    await s3.deleteMany([this.key(`${name}/${last[0]}`)]);
    let next = 0;
    const worker = async () => {
      while (next < files.length) {
        const [file, text] = files[next++]!;
        await s3.put(this.key(`${name}/${file}`), text);
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_PUTS, files.length) }, worker));
    await s3.put(this.key(`${name}/${last[0]}`), last[1]);
  }

  async replace(name: string, text: string): Promise<void> {
    await (await this.s3()).put(this.key(name), text);
  }

  async createExclusive(name: string, text: string): Promise<boolean> {
    const out = await (await this.s3()).put(this.key(name), text, { ifNoneMatch: '*' });
    return out.kind === 'written';
  }

  async removeDirectory(name: string): Promise<void> {
    const s3 = await this.s3();
    const { keys } = await s3.list(this.key(`${name}/`), false);
    // Metadata first: a removal cut short leaves an incomplete checkpoint, never a damaged one.
    const metadata = keys.filter((k) => k.endsWith('/_metadata.json'));
    await s3.deleteMany(metadata);
    await s3.deleteMany(keys.filter((k) => !metadata.includes(k)));
  }

  async removeLeftovers(): Promise<void> {
    // Nothing is written under temporary names; incomplete checkpoints are pruned by id.
  }

  leaseFile(name: string): LeaseFile {
    return new S3LeaseFile(this.locate(name), this.key(name), () => this.s3());
  }
}

/**
 * The lease file as an S3 object, changed only by conditional writes: it is
 * created with `If-None-Match: *` and renewed or taken over with
 * `If-Match: <ETag of the version read>`, so of two jobs only one wins,
 * as with the local file's hard link. A version's tag is its ETag.
 */
class S3LeaseFile implements LeaseFile {
  constructor(
    readonly where: string,
    private readonly key: string,
    private readonly s3: () => Promise<S3Objects>,
  ) {}

  async create(owner: DirectoryOwner): Promise<boolean> {
    const out = await (await this.s3()).put(this.key, JSON.stringify(owner), { ifNoneMatch: '*' });
    return out.kind === 'written';
  }

  async read(): Promise<LeaseVersion | undefined> {
    const object = await (await this.s3()).get(this.key);
    if (object === undefined) return undefined;
    return { owner: parseOwner(object.body.toString('utf8')), tag: object.etag };
  }

  async replace(current: LeaseVersion, owner: DirectoryOwner): Promise<boolean> {
    const out = await (await this.s3()).put(this.key, JSON.stringify(owner), {
      ifMatch: current.tag,
    });
    return out.kind === 'written';
  }

  takeOver(current: LeaseVersion, owner: DirectoryOwner): Promise<boolean> {
    return this.replace(current, owner);
  }

  async remove(current: LeaseVersion): Promise<void> {
    await (await this.s3()).deleteIfMatch(this.key, current.tag);
  }
}

/** Messages between the transactional sink and its worker thread. */
import type { PostgresConnection } from '../connection.js';
import type { ReconnectSettings } from '../reconnect.js';
import type { Rejection, SinkMutation, SinkTable } from './sink-table.js';

export type TransactionRequest =
  | {
      readonly id: number;
      readonly op: 'open';
      readonly connection: PostgresConnection;
      readonly applicationName: string;
      readonly table: SinkTable;
      readonly reconnect: ReconnectSettings;
      /** Names the sink in the worker's retry messages. */
      readonly what: string;
    }
  /** Applies mutations in the open transaction (beginning one if needed). */
  | { readonly id: number; readonly op: 'apply'; readonly mutations: readonly SinkMutation[] }
  /** Seals the open transaction as prepared transaction `gid`. */
  | { readonly id: number; readonly op: 'prepare'; readonly gid: string }
  | { readonly id: number; readonly op: 'close' };

/** What the worker went through while serving a request: retries after lost connections. */
interface Retried {
  /** One message per retry (and one when the session was back), to log. */
  readonly warnings?: readonly string[];
  /** Retries to count. */
  readonly retries?: number;
}

export type TransactionResponse = Retried &
  (
    | {
        readonly id: number;
        readonly ok: true;
        readonly rejections?: readonly Rejection[];
        /** For `prepare`: whether a transaction was open and is now prepared. */
        readonly prepared?: boolean;
      }
    | {
        readonly id: number;
        readonly ok: false;
        readonly message: string;
        readonly code: string | undefined;
      }
  );

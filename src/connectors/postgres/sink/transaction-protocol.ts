/** Messages between the transactional sink and its worker thread. */
import type { PostgresConnection } from '../connection.js';
import type { Rejection, SinkMutation, SinkTable } from './sink-table.js';

export type TransactionRequest =
  | {
      readonly id: number;
      readonly op: 'open';
      readonly connection: PostgresConnection;
      readonly applicationName: string;
      readonly table: SinkTable;
    }
  /** Applies mutations in the open transaction (beginning one if needed). */
  | { readonly id: number; readonly op: 'apply'; readonly mutations: readonly SinkMutation[] }
  /** Seals the open transaction as prepared transaction `gid`. */
  | { readonly id: number; readonly op: 'prepare'; readonly gid: string }
  | { readonly id: number; readonly op: 'close' };

export type TransactionResponse =
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
    };

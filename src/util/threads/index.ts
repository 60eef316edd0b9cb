/** Worker threads: starting one from a module URL, and waiting for one synchronously. */
export {
  isTypeScriptModule,
  type StartWorkerOptions,
  siblingModule,
  startWorker,
} from './start-worker.js';
export { SyncChannel, type SyncChannelEnd, syncReplier } from './sync-channel.js';

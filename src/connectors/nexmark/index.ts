/// <reference types="node" preserve="true" />
// The declarations use Node's types; a project whose tsconfig lists no `types` (TypeScript >= 6 by default) gets them through this reference.
/** Nexmark benchmark source: data model, configuration and deterministic event generator. */

export {
  DEFAULT_BASE_TIME,
  DEFAULT_NEXMARK_CONFIG,
  type NexmarkConfig,
  nexmarkConfig,
  totalProportion,
  validateNexmarkConfig,
} from './config.js';
export {
  type Auction,
  type AuctionEvent,
  type Bid,
  type BidEvent,
  FIRST_AUCTION_ID,
  FIRST_CATEGORY_ID,
  FIRST_PERSON_ID,
  type NexmarkEvent,
  type NexmarkEventType,
  NUM_CATEGORIES,
  nexmarkEventTime,
  type Person,
  type PersonEvent,
} from './model.js';
export {
  AUCTION_ID_LEAD,
  EXTRA_POOL_LENGTH,
  HOT_AUCTION_BATCH,
  HOT_BIDDER_BATCH,
  HOT_CHANNELS,
  HOT_SELLER_BATCH,
  lastBase0AuctionId,
  lastBase0PersonId,
  NexmarkGenerator,
  type NexmarkGeneratorOptions,
  nexmarkEvent,
  nexmarkEventByteSize,
  nexmarkEventTimestamp,
  nexmarkEventType,
  PERSON_ID_LEAD,
  TEXT_POOL_LENGTH,
} from './source/generator.js';
export { NexmarkSource, type NexmarkSourceOptions } from './source/nexmark-source.js';
export { mix32 } from './source/prng.js';

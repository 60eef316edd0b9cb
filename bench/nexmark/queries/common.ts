/**
 * Building blocks shared by the Nexmark queries: the event-time setup of the reference DDL, the
 * `bid` view, SQL-compatible formatting of times and decimals, and price ranks.
 */

import type { Auction, Bid, NexmarkEvent, Person } from '../../../src/connectors/nexmark/index.js';
import {
  type AggregateFunction,
  type Change,
  type ChangelogStream,
  type Collector,
  type DataStream,
  WatermarkStrategy,
} from '../../../src/index.js';

/** The reference DDL's watermark: `dateTime - INTERVAL '4' SECOND`. */
export const WATERMARK_DELAY_MS = 4000;

/** One day in ms; days are UTC calendar days (the SQL timestamps carry no time zone). */
export const DAY_MS = 86_400_000;

/**
 * Watermarks as Flink SQL computes `WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND`:
 * the largest event time seen minus exactly 4 s (records at or below it are late). Weir's
 * bounded out-of-orderness subtracts one more ms, hence the bound of 4 s - 1 ms. Timestamps
 * come from the source ({@link NexmarkSource} attaches `dateTime`).
 */
export function nexmarkWatermarks(): WatermarkStrategy<NexmarkEvent> {
  return WatermarkStrategy.forBoundedOutOfOrderness<NexmarkEvent>(WATERMARK_DELAY_MS - 1);
}

function pushBid(event: NexmarkEvent, out: Collector<Bid>): void {
  if (event.type === 'bid') out.collect(event.bid);
}

/** The reference's `bid` view: the bids among the events (one pass, no copy). */
export function bids(events: DataStream<NexmarkEvent>): DataStream<Bid> {
  return events.flatMap(pushBid).name('bids');
}

function insertedRow<T>(change: Change<T>): T {
  if (change.kind !== '+I') {
    throw new Error(`expected only inserts, got ${change.kind} ${JSON.stringify(change.value)}`);
  }
  return change.value;
}

/**
 * The rows of an insert-only changelog (such as an inner regular join of append streams) as
 * plain records; refuses any other changelog when the job is built.
 */
export function insertedRows<T>(stream: ChangelogStream<T>): DataStream<T> {
  if (stream.mode !== 'insert-only') {
    throw new Error(`expected an insert-only changelog, got a ${stream.mode} one`);
  }
  return stream.map(insertedRow<T>).name('rows');
}

/** An auction's columns in the order of the `auction` view (`A.*`). */
export function auctionColumns(a: Auction): (number | string)[] {
  return [
    a.id,
    a.itemName,
    a.description,
    a.initialBid,
    a.reserve,
    a.dateTime,
    a.expires,
    a.seller,
    a.category,
    a.extra,
  ];
}

function pushAuction(event: NexmarkEvent, out: Collector<Auction>): void {
  if (event.type === 'auction') out.collect(event.auction);
}

/** The reference's `auction` view. */
export function auctions(events: DataStream<NexmarkEvent>): DataStream<Auction> {
  return events.flatMap(pushAuction).name('auctions');
}

function pushPerson(event: NexmarkEvent, out: Collector<Person>): void {
  if (event.type === 'person') out.collect(event.person);
}

/** The reference's `person` view. */
export function people(events: DataStream<NexmarkEvent>): DataStream<Person> {
  return events.flatMap(pushPerson).name('people');
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** `DATE_FORMAT(t, 'yyyy-MM-dd')` of a UTC timestamp. */
export function formatDay(time: number): string {
  const d = new Date(time);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
}

/** `DATE_FORMAT(t, 'HH:mm')` of a UTC timestamp. */
export function formatMinute(time: number): string {
  const d = new Date(time);
  return `${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}`;
}

/** `HOUR(t)` of a UTC timestamp. */
export function hourOfDay(time: number): number {
  return Math.floor((((time % DAY_MS) + DAY_MS) % DAY_MS) / 3_600_000);
}

/**
 * `0.908 * price` as Flink's exact DECIMAL(24, 3) prints it, from the double `price * 0.908`
 * (its error is far below 0.0005 for any price, so rounding recovers the exact decimal).
 */
export function euroDecimal(euros: number): string {
  const thousandths = Math.round(euros * 1000);
  const whole = Math.trunc(thousandths / 1000);
  return `${whole}.${pad(thousandths - whole * 1000, 3)}`;
}

/** The queries' price ranks: 0 below $100, 1 below $10,000, 2 from $10,000 (prices in cents). */
export function priceRank(price: number): 0 | 1 | 2 {
  return price < 10_000 ? 0 : price < 1_000_000 ? 1 : 2;
}

/** `COUNT(*)` as an aggregate function (with `merge`, for sliding and session windows). */
export function countRecords<T>(): AggregateFunction<T, number, number> {
  return {
    createAccumulator: () => 0,
    add: (_value, n) => n + 1,
    getResult: (n) => n,
    merge: (a, b) => a + b,
  };
}

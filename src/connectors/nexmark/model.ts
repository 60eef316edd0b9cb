/**
 * Nexmark data model: the three record types of the online-auction benchmark and the
 * event union the generator emits. All times are epoch milliseconds; all ids and prices are
 * integral numbers (safe integers).
 */

/** A new person registering with the auction site. */
export interface Person {
  /** Person id; ids start at {@link FIRST_PERSON_ID} and increase by one per person event. */
  readonly id: number;
  /** `"<first> <last>"` drawn from small fixed name lists. */
  readonly name: string;
  /** Random `"<local>@<domain>.com"` address. */
  readonly emailAddress: string;
  /** Four space-separated groups of four digits. */
  readonly creditCard: string;
  /** One of a small set of US cities. */
  readonly city: string;
  /** One of a small set of US state codes. */
  readonly state: string;
  /** Event time of the registration (epoch ms). */
  readonly dateTime: number;
  /** Padding so that the record reaches the configured average byte size. */
  readonly extra: string;
}

/** A new auction being opened. */
export interface Auction {
  /** Auction id; ids start at {@link FIRST_AUCTION_ID} and increase by one per auction event. */
  readonly id: number;
  /** Random item name. */
  readonly itemName: string;
  /** Random item description. */
  readonly description: string;
  /** Opening price in cents (log-uniform). */
  readonly initialBid: number;
  /** Reserve price in cents; always greater than `initialBid`. */
  readonly reserve: number;
  /** Event time at which the auction opened (epoch ms). */
  readonly dateTime: number;
  /** Time at which the auction closes (epoch ms); always after `dateTime`. */
  readonly expires: number;
  /** Person id of the seller. */
  readonly seller: number;
  /** Category id, in `[FIRST_CATEGORY_ID, FIRST_CATEGORY_ID + NUM_CATEGORIES)`. */
  readonly category: number;
  /** Padding so that the record reaches the configured average byte size. */
  readonly extra: string;
}

/** A bid on an auction. */
export interface Bid {
  /** Auction id the bid is for. */
  readonly auction: number;
  /** Person id of the bidder. */
  readonly bidder: number;
  /** Bid price in cents (log-uniform). */
  readonly price: number;
  /** Channel through which the bid was placed (e.g. `"Google"` or `"channel-1234"`). */
  readonly channel: string;
  /** URL the bid was placed from; fixed per channel. */
  readonly url: string;
  /** Event time of the bid (epoch ms). */
  readonly dateTime: number;
  /** Padding so that the record reaches the configured average byte size. */
  readonly extra: string;
}

/** The kind of a Nexmark event; the discriminant of {@link NexmarkEvent}. */
export type NexmarkEventType = 'person' | 'auction' | 'bid';

/** A person-registration event. */
export interface PersonEvent {
  /** Discriminant. */
  readonly type: 'person';
  /** The new person. */
  readonly person: Person;
}

/** An auction-opening event. */
export interface AuctionEvent {
  /** Discriminant. */
  readonly type: 'auction';
  /** The new auction. */
  readonly auction: Auction;
}

/** A bid event. */
export interface BidEvent {
  /** Discriminant. */
  readonly type: 'bid';
  /** The bid. */
  readonly bid: Bid;
}

/** One generated Nexmark event, discriminated by `type`. */
export type NexmarkEvent = PersonEvent | AuctionEvent | BidEvent;

/** Person ids start here (base-0 person number + this offset). */
export const FIRST_PERSON_ID = 1000;

/** Auction ids start here (base-0 auction number + this offset). */
export const FIRST_AUCTION_ID = 1000;

/** Category ids start here. */
export const FIRST_CATEGORY_ID = 10;

/** Number of distinct auction categories (kept small so queries find matches quickly). */
export const NUM_CATEGORIES = 5;

/** Event time of any Nexmark event (the `dateTime` of its record), in epoch milliseconds. */
export function nexmarkEventTime(event: NexmarkEvent): number {
  switch (event.type) {
    case 'person':
      return event.person.dateTime;
    case 'auction':
      return event.auction.dateTime;
    case 'bid':
      return event.bid.dateTime;
  }
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  euroDecimal,
  formatDay,
  formatMinute,
  hourOfDay,
  priceRank,
} from '../../bench/nexmark/queries/common.js';
import { bidTimeType, countChar } from '../../bench/nexmark/queries/q14.js';
import { extractChannelId, hotChannelId } from '../../bench/nexmark/queries/q21.js';
import { threeTokens } from '../../bench/nexmark/queries/q22.js';

describe('Nexmark query helpers (SQL semantics)', () => {
  it('formats UTC days, minutes and hours like DATE_FORMAT and HOUR on TIMESTAMP(3)', () => {
    const t = Date.UTC(2015, 6, 15, 23, 59, 59, 999);
    expect(formatDay(t)).toBe('2015-07-15');
    expect(formatDay(t + 1)).toBe('2015-07-16');
    expect(formatMinute(t)).toBe('23:59');
    expect(hourOfDay(t)).toBe(23);
    expect(hourOfDay(t + 1)).toBe(0);
    expect([7, 8, 18, 19, 20, 6].map((h) => bidTimeType(Date.UTC(2015, 6, 15, h)))).toEqual([
      'otherTime',
      'dayTime',
      'dayTime',
      'otherTime',
      'nightTime',
      'nightTime',
    ]);
  });

  it('prints 0.908 * price exactly, as DECIMAL(24, 3)', () => {
    for (const price of [1, 100, 12_345, 99_999_999, 1_101_322, 55_066_079]) {
      const exact = price * 908;
      const expected = `${Math.floor(exact / 1000)}.${String(exact % 1000).padStart(3, '0')}`;
      expect(euroDecimal(price * 0.908)).toBe(expected);
    }
  });

  it('ranks prices, counts characters, and extracts channel ids', () => {
    expect([9_999, 10_000, 999_999, 1_000_000].map(priceRank)).toEqual([0, 1, 1, 2]);
    expect(countChar('abcabcc', 'c')).toBe(3);
    expect(
      ['Apple', 'GOOGLE', 'facebook', 'Baidu', 'channel-1', 'Apples'].map(hotChannelId),
    ).toEqual(['0', '1', '2', '3', undefined, undefined]);
    expect(extractChannelId('https://x/a/b/c/item.htm?query=1&channel_id=123')).toBe('123');
    expect(extractChannelId('channel_id=7&x=1')).toBe('7');
    expect(extractChannelId('https://x/item.htm?query=1&xchannel_id=1')).toBeNull();
    expect(extractChannelId('https://x/item.htm?query=1')).toBeNull();
  });

  it('cuts SPLIT_INDEX tokens as split does, null past the last', () => {
    expect(threeTokens('https://www.nexmark.com/abc/de_f/ghi/item.htm?query=1', 3)).toEqual([
      'abc',
      'de_f',
      'ghi',
    ]);
    expect(threeTokens('a/b/c/d', 3)).toEqual(['d', null, null]);
    expect(threeTokens('a/b', 3)).toEqual([null, null, null]);
    expect(threeTokens('a/b/c///', 3)).toEqual(['', '', '']);
    const split = (s: string, first: number) => {
      const parts = s.split('/');
      return [parts[first] ?? null, parts[first + 1] ?? null, parts[first + 2] ?? null];
    };
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('/', 'a', 'b', '_', '?', '&'), { maxLength: 24 }),
        fc.integer({ min: 0, max: 6 }),
        (chars, first) => {
          const s = chars.join('');
          expect(threeTokens(s, first)).toEqual(split(s, first));
        },
      ),
      { numRuns: 500 },
    );
  });
});

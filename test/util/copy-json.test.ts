/** copyJson: the data JSON.stringify would write, sharing no object with the original. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copyJson } from '../../src/util/copy-json.js';

describe('copyJson', () => {
  it('writes as the original does, and shares no object with it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = copyJson(value);
        expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
        const objects = (v: unknown, out: unknown[] = []): unknown[] => {
          if (typeof v === 'object' && v !== null) {
            out.push(v);
            for (const x of Object.values(v)) objects(x, out);
          }
          return out;
        };
        const originals = new Set(objects(value));
        for (const o of objects(copy)) expect(originals.has(o)).toBe(false);
      }),
    );
  });

  it('takes toJSON as JSON.stringify does, and keeps a __proto__ key a property', () => {
    const parsed = JSON.parse('{"__proto__": {"x": 1}, "at": null}') as Record<string, unknown>;
    parsed.at = new Date(0);
    const copy = copyJson(parsed);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(parsed));
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'at']);
  });
});

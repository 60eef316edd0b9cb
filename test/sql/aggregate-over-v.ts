/** The row aggregate of SQL aggregate calls over one INT column `v` (rows `[v, ...]`), for tests of accumulators. */
import type { AggregateFunction, Row } from '../../src/index.js';
import { Scope } from '../../src/sql/expressions/scope.js';
import { parseExpression } from '../../src/sql/parser/parser.js';
import { type Retracting, rowAggregate } from '../../src/sql/planner/aggregates.js';
import { T } from '../../src/sql/types/logical-type.js';

export function aggregateOverV(
  texts: readonly string[],
  retracting: Retracting,
): AggregateFunction<Row, unknown, Row> & { retract?: (row: Row, acc: unknown) => unknown } {
  const calls = texts.map((text) => {
    const e = parseExpression(text);
    if (e.kind !== 'call') throw new Error(`not a call: ${text}`);
    return {
      name: e.name,
      args: e.args,
      star: e.star,
      distinct: e.distinct,
      filter: undefined,
      at: e.at,
    };
  });
  const scope = new Scope([{ name: 'v', type: T.int(), qualifier: undefined, rowtime: false }]);
  return rowAggregate([], [], calls, scope, retracting).fn as AggregateFunction<
    Row,
    unknown,
    Row
  > & {
    retract?: (row: Row, acc: unknown) => unknown;
  };
}

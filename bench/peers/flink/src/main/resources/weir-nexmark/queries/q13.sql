-- q13 bounded side input join: every bid joined by processing time with a static table of
-- 10,000 rows (key -> value) on auction % 10000. The harness replaces ${SIDE_INPUT} with the
-- path of the table's CSV file (bench/nexmark/side-input.ts writes it).
CREATE TEMPORARY TABLE side_input (
  key BIGINT,
  `value` VARCHAR
) WITH (
  'connector' = 'weir-side-input',
  'path' = '${SIDE_INPUT}'
);

SELECT B.auction, B.bidder, B.price, B.`dateTime`, S.`value`
FROM (SELECT *, PROCTIME() AS p_time FROM bid) B
JOIN side_input FOR SYSTEM_TIME AS OF B.p_time AS S
ON MOD(B.auction, 10000) = S.key

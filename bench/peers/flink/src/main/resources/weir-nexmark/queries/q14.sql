-- q14 calculation: converted prices in a range, a time-of-day class and a UDF (count of 'c').
CREATE TEMPORARY FUNCTION count_char AS 'weir.nexmark.CountChar';

SELECT auction, bidder, 0.908 * price AS price,
  CASE
    WHEN HOUR(`dateTime`) >= 8 AND HOUR(`dateTime`) <= 18 THEN 'dayTime'
    WHEN HOUR(`dateTime`) <= 6 OR HOUR(`dateTime`) >= 20 THEN 'nightTime'
    ELSE 'otherTime'
  END AS bidTimeType,
  `dateTime`, extra, count_char(extra, 'c') AS c_counts
FROM bid
WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000

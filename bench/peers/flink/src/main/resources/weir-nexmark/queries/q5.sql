-- q5 hot items: per 10 s window sliding by 2 s, the auctions with the most bids.
WITH counts AS (
  SELECT auction, COUNT(*) AS num, window_start, window_end
  FROM TABLE(HOP(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
  GROUP BY auction, window_start, window_end
),
maxima AS (
  SELECT window_start, window_end, MAX(num) AS maxn
  FROM counts
  GROUP BY window_start, window_end
)
SELECT c.auction, c.num
FROM counts AS c
JOIN maxima AS m
  ON c.window_start = m.window_start AND c.window_end = m.window_end AND c.num >= m.maxn

-- q18 last bid: per bidder and auction, the bid with the latest time (deduplication keeping
-- the last row; on equal times the one that arrived last).
SELECT auction, bidder, price, channel, url, `dateTime`, extra
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY `dateTime` DESC) AS rank_number
  FROM bid
)
WHERE rank_number <= 1

-- q7 highest bid: the bids whose price is the maximum of a 10 s tumbling window, for bids
-- timed in [window end - 10 s, window end] (both ends included). Columns in the order the
-- reference selects them: auction, price, bidder.
SELECT b.auction, b.price, b.bidder, b.`dateTime`, b.extra
FROM bid AS b
JOIN (
  SELECT MAX(price) AS maxprice, window_end AS `dateTime`
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))
  GROUP BY window_start, window_end
) AS w
  ON b.price = w.maxprice
WHERE b.`dateTime` BETWEEN w.`dateTime` - INTERVAL '10' SECOND AND w.`dateTime`

-- q9 winning bids: per auction, the highest bid timed between its opening and its expiry (both
-- included), the earliest on a tie (a regular join, then top-1 per auction).
SELECT id, itemName, description, initialBid, reserve, `dateTime`, expires, seller, category,
  extra, auction, bidder, price, bid_dateTime, bid_extra
FROM (
  SELECT A.*, B.auction, B.bidder, B.price, B.`dateTime` AS bid_dateTime, B.extra AS bid_extra,
    ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.`dateTime` ASC) AS rownum
  FROM auction A, bid B
  WHERE A.id = B.auction AND B.`dateTime` BETWEEN A.`dateTime` AND A.expires
)
WHERE rownum <= 1

-- q20 expand bid with auction: every bid on an auction in category 10, with the auction's
-- columns (a regular inner join).
SELECT auction, bidder, price, channel, url, B.`dateTime`, B.extra,
  itemName, description, initialBid, reserve, A.`dateTime`, expires, seller, category, A.extra
FROM bid AS B
INNER JOIN auction AS A ON B.auction = A.id
WHERE A.category = 10

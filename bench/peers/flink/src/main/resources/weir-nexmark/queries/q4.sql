-- q4 average price per category: the winning (maximum) price of every auction among its bids
-- timed between its opening and its expiry (both included), averaged per category. Two
-- updating aggregations; AVG of a BIGINT is a BIGINT (the quotient truncated).
SELECT Q.category, AVG(Q.final)
FROM (
  SELECT MAX(B.price) AS final, A.category
  FROM auction A, bid B
  WHERE A.id = B.auction AND B.`dateTime` BETWEEN A.`dateTime` AND A.expires
  GROUP BY A.id, A.category
) Q
GROUP BY Q.category

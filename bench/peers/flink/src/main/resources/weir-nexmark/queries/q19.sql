-- q19 auction top-10 price: per auction, the 10 highest bids with their rank (equal prices
-- ranked in arrival order).
SELECT * FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rank_number
  FROM bid
)
WHERE rank_number <= 10

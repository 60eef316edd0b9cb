-- q2 selection: bids on every 123rd auction id.
SELECT auction, price FROM bid WHERE MOD(auction, 123) = 0

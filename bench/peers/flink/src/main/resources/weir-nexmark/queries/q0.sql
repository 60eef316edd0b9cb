-- q0 pass-through: every bid, projected.
SELECT auction, bidder, price, `dateTime`, extra FROM bid

-- q1 currency conversion: bid prices in euro (exact decimal, 3 places).
SELECT auction, bidder, 0.908 * price AS price, `dateTime`, extra FROM bid

-- q3 local item suggestion: sellers in Oregon, Idaho or California of auctions in category 10
-- (a regular inner join of the append-only auction and person streams).
SELECT P.name, P.city, P.state, A.id
FROM auction AS A
INNER JOIN person AS P ON A.seller = P.id
WHERE A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA')

-- q11 user sessions: bids per bidder per session (10 s gap).
SELECT bidder, COUNT(*) AS bid_count,
  SESSION_START(`dateTime`, INTERVAL '10' SECOND) AS starttime,
  SESSION_END(`dateTime`, INTERVAL '10' SECOND) AS endtime
FROM bid
GROUP BY bidder, SESSION(`dateTime`, INTERVAL '10' SECOND)

-- q12 processing-time windows: bids per bidder per 10 s of wall-clock time (nondeterministic).
CREATE TEMPORARY VIEW bid_proctime AS SELECT *, PROCTIME() AS p_time FROM bid;

SELECT bidder, COUNT(*) AS bid_count, window_start AS starttime, window_end AS endtime
FROM TABLE(TUMBLE(TABLE bid_proctime, DESCRIPTOR(p_time), INTERVAL '10' SECOND))
GROUP BY bidder, window_start, window_end

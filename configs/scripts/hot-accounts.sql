-- A pgbench script file (pgbench -f): a hot set of accounts, read and
-- then updated in one transaction, with the change logged. The variables
-- are shared by the statements, so the UPDATE finds the row the SELECT
-- just read. Run it with
--   simulate -config configs/quickstart.yaml -f configs/scripts/hot-accounts.sql -D scale=10
-- (-D scale=N is pgbench -s: a script file's :scale is 1 otherwise).
\set aid random_gaussian(1, 100000 * :scale, 5)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, 1, :aid, :delta, CURRENT_TIMESTAMP);
END;

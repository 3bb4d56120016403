-- A pgbench script file (pgbench -f): a read-only browsing session over
-- pgbench_accounts: a multi-get of five accounts by an IN list, the
-- accounts with the highest keys a page at a time (ORDER BY ... DESC with
-- LIMIT and OFFSET: the scan reads the skipped rows too), and keyset
-- pagination from a random account. Run it with
--   simulate -config configs/quickstart.yaml -f configs/scripts/browse.sql -D scale=10 -r
-- and compare each command's latency (-r) and the buffers: up to 16 the
-- IN list makes a descent from the root per key, from 17 one per leaf
-- (docs/model.md "Ranges").
\set aid random(1, 100000 * :scale - 100)
\set page random(0, 20)
SELECT abalance FROM pgbench_accounts WHERE aid IN (:aid, :aid + 7, :aid + 13, :aid + 40, :aid + 99);
SELECT aid, abalance FROM pgbench_accounts ORDER BY aid DESC LIMIT 20 OFFSET :page * 20;
SELECT aid FROM pgbench_accounts WHERE aid > :aid ORDER BY aid LIMIT 20;

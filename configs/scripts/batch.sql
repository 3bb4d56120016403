-- A pgbench script file (pgbench -f): batch changes beside the OLTP
-- traffic: a block of 50 accounts updated by a range of the key, and
-- three accounts credited by an IN list, in one transaction. Mix it with
-- tpcb-like, one batch in ten transactions:
--   simulate -config configs/quickstart.yaml -b tpcb-like@9 -f configs/scripts/batch.sql@1 -D scale=10 -r
-- Each row is changed as an UPDATE by its key changes it (its row lock,
-- heap_update and the new version's index entry), through the index scan
-- a SELECT of the same rows gets (docs/model.md "Ranges"); -r shows what a
-- batch costs against tpcb-like's statements, and the row-lock waits
-- (summary.json) what it costs them.
\set aid random(1, 100000 * :scale - 50)
\set other random(1, 100000 * :scale)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid BETWEEN :aid AND :aid + 49;
UPDATE pgbench_accounts SET abalance = abalance - 1 WHERE aid IN (:other, :aid + 1000, :aid + 2000);
END;

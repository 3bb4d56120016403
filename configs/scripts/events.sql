-- A pgbench script file over the reference scenario's events table
-- (declared with index: true, key: id).
\set id random(1, 20000)
BEGIN;
SELECT * FROM events WHERE id = :id;
UPDATE events SET payload = 'seen' WHERE id = :id;
END;

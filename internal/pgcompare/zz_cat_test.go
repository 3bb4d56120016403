package pgcompare

import (
	"testing"
	"time"
)

func TestZZCatalogShapes(t *testing.T) {
	c := startOrSkip(t, Settings{"shared_buffers": "128MB", "autovacuum": "off"})
	ctx := t.Context()
	setup := connect(t, c)
	for _, q := range []string{
		"CREATE TABLE a (id int, pad text)", "INSERT INTO a SELECT g, 'x' FROM generate_series(1,1000) g",
		"CREATE TABLE b (id int PRIMARY KEY, pad text)", "INSERT INTO b SELECT g, 'x' FROM generate_series(1,1000) g",
		"CREATE TABLE c (id int PRIMARY KEY, pad text)", "INSERT INTO c SELECT g, 'x' FROM generate_series(1,100000) g", "VACUUM ANALYZE c",
		"CREATE TABLE d (id int PRIMARY KEY, pad text)", "INSERT INTO d SELECT g, 'x' FROM generate_series(1,100000) g",
		"CHECKPOINT"} {
		if _, err := setup.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	setup.Close(ctx)
	mon, err := NewMonitor(ctx, connect(t, c))
	if err != nil {
		t.Fatal(err)
	}
	mon.Prime(ctx)
	run := func(what string, qs ...string) {
		time.Sleep(300 * time.Millisecond)
		s0, _ := mon.Snapshot(ctx)
		o, err := c.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pid := o.PgConn().PID()
		o.Exec(ctx, "SET max_parallel_workers_per_gather = 0")
		for _, q := range qs {
			if _, err := o.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		o.Close(ctx)
		mon.waitGone(ctx, pid)
		s1, _ := mon.Snapshot(ctx)
		dd := s1.Minus(s0)
		d := dd.Database
		var rh, rr int64
		for _, m := range dd.Tables {
			rh += m["heap_blks_hit"] + m["heap_blks_read"]
		}
		for _, m := range dd.Indexes {
			rh += m["idx_blks_hit"] + m["idx_blks_read"]
		}
		t.Logf("%-40s catalogs(db) %5d  shared %4d  rel %d", what, d["blks_hit"]+d["blks_read"]-rh-rr, d["shared_blks_hit"]+d["shared_blks_read"], rh)
	}
	for i := 0; i < 2; i++ {
		run("connect+SET")
		run("count(*) a (no index)", "SELECT count(*) FROM a")
		run("count(*) b (pk)", "SELECT count(*) FROM b")
		run("point b", "SELECT pad FROM b WHERE id = 5")
		run("point c analyzed", "SELECT pad FROM c WHERE id = 5")
		run("point d not analyzed", "SELECT pad FROM d WHERE id = 5")
		run("range c analyzed", "SELECT sum(length(pad)) FROM c WHERE id BETWEEN 20001 AND 20500")
		run("range d not analyzed", "SELECT sum(length(pad)) FROM d WHERE id BETWEEN 20001 AND 20500")
		run("point b + update b", "SELECT pad FROM b WHERE id = 5", "UPDATE b SET pad = 'y' WHERE id = 6")
		run("count a, count b", "SELECT count(*) FROM a", "SELECT count(*) FROM b")
	}
}

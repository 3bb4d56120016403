package pgcompare

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// ResetStats zeroes the cumulative statistics that a Snapshot reads: those
// of the current database and its relations (pg_stat_reset), the background
// writer and checkpointer (and on 16+ pg_stat_io, on 17+ the separate
// checkpointer view), and pg_stat_statements.
func ResetStats(ctx context.Context, conn *pgx.Conn) error {
	major, err := serverMajor(conn)
	if err != nil {
		return err
	}
	stmts := []string{
		"SELECT pg_stat_reset()",
		"SELECT pg_stat_reset_shared('bgwriter')",
		"SELECT pg_stat_statements_reset()",
	}
	if major >= 16 {
		stmts = append(stmts, "SELECT pg_stat_reset_shared('io')")
	}
	if major >= 17 {
		stmts = append(stmts, "SELECT pg_stat_reset_shared('checkpointer')")
	}
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("reset stats: %s: %w", s, err)
		}
	}
	return nil
}

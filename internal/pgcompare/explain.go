package pgcompare

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/jackc/pgx/v5"
)

// ExplainBuffers are the buffer totals of a statement's top plan node, which
// include all of its children, as reported by EXPLAIN (ANALYZE, BUFFERS).
// Work done by triggers (for example foreign-key checks) is not included.
type ExplainBuffers struct {
	SharedHit, SharedRead, SharedDirtied, SharedWritten int64
	LocalHit                                            int64
	TempRead, TempWritten                               int64
	// PlanningHit and PlanningRead are buffers touched while planning.
	PlanningHit, PlanningRead int64
	// WALRecords, WALFPI and WALBytes are the statement's pgWalUsage
	// (EXPLAIN's WAL option, 13+; HasWAL is false before 13).
	WALRecords, WALFPI, WALBytes int64
	HasWAL                       bool
	// Plan is the top node type and its children's types, for example
	// "ModifyTable/Index Scan" or "Hash Join/Seq Scan+Hash".
	Plan        string
	ExecutionMS float64
	// NodeCalls is how many times the executor entered an instrumented
	// plan node (NodeCalls): what EXPLAIN ANALYZE's own cost, its probe
	// effect, is proportional to.
	NodeCalls int64
	// IOReadMS and IOWriteMS are its I/O timings with track_io_timing on
	// ("I/O Read Time" up to 16, "Shared I/O Read Time" from 17; the
	// writes likewise).
	IOReadMS, IOWriteMS float64
}

// explainNode is the subset of a FORMAT JSON plan node that we use.
type explainNode struct {
	NodeType      string        `json:"Node Type"`
	SharedHit     int64         `json:"Shared Hit Blocks"`
	SharedRead    int64         `json:"Shared Read Blocks"`
	SharedDirtied int64         `json:"Shared Dirtied Blocks"`
	SharedWritten int64         `json:"Shared Written Blocks"`
	LocalHit      int64         `json:"Local Hit Blocks"`
	TempRead      int64         `json:"Temp Read Blocks"`
	TempWritten   int64         `json:"Temp Written Blocks"`
	WALRecords    *int64        `json:"WAL Records"`
	WALFPI        int64         `json:"WAL FPI"`
	WALBytes      int64         `json:"WAL Bytes"`
	IOReadTime    float64       `json:"I/O Read Time"`
	IOWriteTime   float64       `json:"I/O Write Time"`
	SharedIORead  float64       `json:"Shared I/O Read Time"`
	SharedIOWrite float64       `json:"Shared I/O Write Time"`
	ActualRows    float64       `json:"Actual Rows"`
	ActualLoops   float64       `json:"Actual Loops"`
	Plans         []explainNode `json:"Plans"`
}

type explainOutput struct {
	Plan     explainNode `json:"Plan"`
	Planning struct {
		SharedHit  int64 `json:"Shared Hit Blocks"`
		SharedRead int64 `json:"Shared Read Blocks"`
	} `json:"Planning"`
	ExecutionTime float64 `json:"Execution Time"`
}

// Explain runs EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON) of stmt in
// conn and returns the top node's totals. The statement really executes (a
// DML statement changes data and, outside a transaction block, commits).
// stmt must be a single statement without a trailing semicolon.
func Explain(ctx context.Context, conn *pgx.Conn, stmt string) (ExplainBuffers, error) {
	var out string
	// Simple protocol: no separate parse/prepare round that would touch
	// catalogs outside the measured statement, as with psql. The WAL
	// option exists from 13.
	opts := "ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON"
	if major, err := serverMajor(conn); err == nil && major >= 13 {
		opts = "ANALYZE, BUFFERS, WAL, TIMING OFF, FORMAT JSON"
	}
	err := conn.QueryRow(ctx, "EXPLAIN ("+opts+") "+stmt,
		pgx.QueryExecModeSimpleProtocol).Scan(&out)
	if err != nil {
		return ExplainBuffers{}, fmt.Errorf("explain %q: %w", abbreviate(stmt), err)
	}
	eb, err := parseExplain(out)
	if err != nil {
		return ExplainBuffers{}, fmt.Errorf("explain %q: %w", abbreviate(stmt), err)
	}
	return eb, nil
}

// parseExplain extracts the totals from EXPLAIN ... FORMAT JSON output.
func parseExplain(js string) (ExplainBuffers, error) {
	var outs []explainOutput
	if err := json.Unmarshal([]byte(js), &outs); err != nil {
		return ExplainBuffers{}, fmt.Errorf("parse EXPLAIN JSON: %w", err)
	}
	if len(outs) != 1 {
		return ExplainBuffers{}, fmt.Errorf("EXPLAIN returned %d plans, want 1", len(outs))
	}
	o := outs[0]
	p := o.Plan
	return ExplainBuffers{
		SharedHit: p.SharedHit, SharedRead: p.SharedRead,
		SharedDirtied: p.SharedDirtied, SharedWritten: p.SharedWritten,
		LocalHit: p.LocalHit, TempRead: p.TempRead, TempWritten: p.TempWritten,
		PlanningHit: o.Planning.SharedHit, PlanningRead: o.Planning.SharedRead,
		Plan:        planShape(p),
		ExecutionMS: o.ExecutionTime,
		NodeCalls:   int64(math.Round(nodeCalls(p))),
		HasWAL:      p.WALRecords != nil,
		WALRecords:  deref(p.WALRecords), WALFPI: p.WALFPI, WALBytes: p.WALBytes,
		IOReadMS: p.IOReadTime + p.SharedIORead, IOWriteMS: p.IOWriteTime + p.SharedIOWrite,
	}, nil
}

// NodeCalls counts, in the JSON of an EXPLAIN ANALYZE (FORMAT JSON), the
// calls of the executor's instrumented node procedure: ExecProcNodeInstr
// (execProcnode.c) wraps each node's ExecProcNode in InstrStartNode and
// InstrStopNode, which with BUFFERS copy and subtract the backend's
// buffer usage counters (instrument.c BufferUsageAccumDiff), with WAL its
// WAL usage, with TIMING read the clock twice: a price per call, paid
// per loop once for each row the node returns and once for the end of
// its rows. A node that hands its parent its whole result at once
// (MultiExecProcNode: Hash, Bitmap Index Scan, BitmapAnd, BitmapOr) is
// entered once a loop. The count is EXPLAIN ANALYZE's probe effect: its
// Execution Time is the statement's plus the calls times the price
// (docs/calibration.md "EXPLAIN ANALYZE's own cost").
func NodeCalls(js string) (int64, error) {
	var outs []explainOutput
	if err := json.Unmarshal([]byte(js), &outs); err != nil {
		return 0, fmt.Errorf("parse EXPLAIN JSON: %w", err)
	}
	if len(outs) != 1 {
		return 0, fmt.Errorf("EXPLAIN returned %d plans, want 1", len(outs))
	}
	if outs[0].Plan.ActualLoops == 0 {
		return 0, fmt.Errorf("EXPLAIN's JSON has no Actual Loops (not EXPLAIN ANALYZE?)")
	}
	return int64(math.Round(nodeCalls(outs[0].Plan))), nil
}

// nodeCalls is NodeCalls of the plan under p. EXPLAIN gives a node's rows
// per loop (ntuples / nloops), so rows times loops is its rows.
func nodeCalls(p explainNode) float64 {
	var n float64
	switch p.NodeType {
	case "Hash", "Bitmap Index Scan", "BitmapAnd", "BitmapOr":
		n = p.ActualLoops
	default:
		n = (p.ActualRows + 1) * p.ActualLoops
	}
	for _, c := range p.Plans {
		n += nodeCalls(c)
	}
	return n
}

// planShape renders "Top/Child1+Child2".
func planShape(p explainNode) string {
	if len(p.Plans) == 0 {
		return p.NodeType
	}
	kids := make([]string, len(p.Plans))
	for i, c := range p.Plans {
		kids[i] = c.NodeType
	}
	return p.NodeType + "/" + strings.Join(kids, "+")
}

// abbreviate shortens a statement for error messages.
func abbreviate(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

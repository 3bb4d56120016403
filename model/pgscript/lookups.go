package pgscript

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Lookups names the catalog objects a statement's planning looks up beyond
// what a point SELECT by key does (parse_func.c, parse_oper.c, the
// planner's sort and aggregate paths; each a catalog cache miss the first
// time a backend meets it): "op:<" and the other ordering comparisons
// (BETWEEN is >= and <=), "op:in" for an IN list or = ANY (the array's
// type and its operator), "op:arith" for + - * /, "fn:NAME" for a
// function, "agg:NAME" for an aggregate, and "sort" for an ORDER BY.
// count(*) and = are not named: the model's statement kinds include them
// (docs/model.md "System catalogs"). Sorted, without duplicates.
func Lookups(n *pg_query.Node) []string {
	var out []string
	add := func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	visit(n.ProtoReflect(), func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *pg_query.FuncCall:
			name := funcName(x)
			switch {
			case x.AggStar && name == "count", name == "pg_prewarm":
			case aggregates[name]:
				add("agg:" + name)
			default:
				add("fn:" + name)
			}
		case *pg_query.A_Expr:
			switch x.Kind {
			case pg_query.A_Expr_Kind_AEXPR_OP:
				if len(x.Name) == 1 {
					switch op := x.Name[0].GetString_().GetSval(); op {
					case "<", "<=", ">", ">=", "<>", "!=":
						if op == "!=" {
							op = "<>"
						}
						add("op:" + op)
					case "+", "-", "*", "/":
						add("op:arith")
					}
				}
			case pg_query.A_Expr_Kind_AEXPR_BETWEEN, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN:
				add("op:>=")
				add("op:<=")
			case pg_query.A_Expr_Kind_AEXPR_IN, pg_query.A_Expr_Kind_AEXPR_OP_ANY:
				add("op:in")
			}
		case *pg_query.SelectStmt:
			if len(x.SortClause) > 0 {
				add("sort")
			}
		}
	})
	slices.Sort(out)
	return out
}

// aggregates are the built-in aggregate functions a script may name
// (pg_aggregate); any other function is taken as a plain one.
var aggregates = map[string]bool{
	"count": true, "sum": true, "min": true, "max": true, "avg": true,
	"stddev": true, "stddev_pop": true, "stddev_samp": true, "variance": true, "var_pop": true, "var_samp": true,
	"array_agg": true, "string_agg": true, "bool_and": true, "bool_or": true, "every": true,
	"bit_and": true, "bit_or": true, "bit_xor": true, "json_agg": true, "jsonb_agg": true,
}

// Package pgscript reads pgbench script files: it splits a script into its
// commands as pgbench does (src/bin/pgbench/pgbench.c ParseScript, with
// psqlscan.l's rules for where an SQL command ends) and parses each SQL
// command with PostgreSQL's own parser (libpg_query, through
// github.com/pganalyze/pg_query_go) to find its shape: a point lookup by a
// column, a scan, an INSERT of n rows, VACUUM and so on (Shape). Package
// model maps the shapes to its operations; pgscript knows nothing of the
// model.
//
// Meta commands are recognised by name as pgbench's process_backslash_command
// does; their arguments are returned as text (\set's expression is parsed by
// model/pgexpr).
package pgscript

import (
	"fmt"
	"strings"
)

// Command is one command of a script: an SQL statement or a meta command.
type Command struct {
	Line int // 1-based line of the script where the command starts
	// Meta is a meta command's name without the backslash ("set",
	// "sleep", "if", ...); empty for SQL.
	Meta string
	// Args are a meta command's arguments: for set, the variable's name
	// and the expression's text; for if and elif, the expression; for
	// the others, the words of the line.
	Args []string
	// SQL is an SQL command's text, as written (without its semicolon).
	SQL string
	// GSet is set when the SQL command is followed by \gset or \aset
	// (GSetPrefix then holds \gset's optional prefix).
	GSet       string // "", "gset" or "aset"
	GSetPrefix string
	// FirstLine is what pgbench -r prints for the command (pgbench.c
	// first_line): an SQL command's first line as written, its
	// semicolon included, at most 127 bytes; a meta command's line from
	// its backslash.
	FirstLine string
}

// firstLine is pgbench's postprocess_sql_command extract.
func firstLine(s string) string {
	if i := strings.IndexAny(s, "\n\r"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 127 {
		s = s[:127]
	}
	return s
}

// Error is a problem at a line of the script.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// metaCommands are pgbench 15's meta commands (pgbench.c getMetaCommand).
var metaCommands = map[string]bool{
	"set": true, "setshell": true, "shell": true, "sleep": true,
	"if": true, "elif": true, "else": true, "endif": true,
	"gset": true, "aset": true, "startpipeline": true, "endpipeline": true,
}

// Parse splits a script into commands. An SQL command ends at a semicolon
// outside quotes, comments and parentheses, at a backslash command, or at
// the end of the script; a meta command ends at the end of its line, or
// continues on the next after a backslash at the line's end.
func Parse(src string) ([]Command, error) {
	var cmds []Command
	var sql strings.Builder
	sqlLine := 0
	line := 1
	flush := func(semicolon bool) {
		text := strings.TrimSpace(sql.String())
		sql.Reset()
		if text != "" && !onlyComments(text) {
			raw := text
			if semicolon {
				raw += ";"
			}
			cmds = append(cmds, Command{Line: sqlLine, SQL: text, FirstLine: firstLine(raw)})
		}
		sqlLine = 0
	}
	parens := 0
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			line++
			sql.WriteByte(c)
			i++
		case c == '-' && i+1 < len(src) && src[i+1] == '-':
			// A comment to the end of the line.
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			sql.WriteString(src[i : i+j])
			i += j
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			// Block comments nest in PostgreSQL.
			start, depth := i, 0
			for i < len(src) {
				if strings.HasPrefix(src[i:], "/*") {
					depth++
					i += 2
					continue
				}
				if strings.HasPrefix(src[i:], "*/") {
					depth--
					i += 2
					if depth == 0 {
						break
					}
					continue
				}
				if src[i] == '\n' {
					line++
				}
				i++
			}
			if depth > 0 {
				return nil, &Error{Line: line, Msg: "unterminated /* comment"}
			}
			if sqlLine == 0 {
				sqlLine = line
			}
			sql.WriteString(src[start:i])
		case c == '\'' || c == '"':
			// A string literal or a quoted identifier; a doubled quote
			// stays inside it.
			start, startLine := i, line
			i++
			for {
				if i >= len(src) {
					return nil, &Error{Line: startLine, Msg: fmt.Sprintf("unterminated quoted %s", map[byte]string{'\'': "string", '"': "identifier"}[c])}
				}
				if src[i] == '\n' {
					line++
				}
				if src[i] == c {
					if i+1 < len(src) && src[i+1] == c {
						i += 2
						continue
					}
					i++
					break
				}
				i++
			}
			if sqlLine == 0 {
				sqlLine = startLine
			}
			sql.WriteString(src[start:i])
		case c == '$' && dollarTag(src[i:]) != "":
			tag := dollarTag(src[i:])
			end := strings.Index(src[i+len(tag):], tag)
			if end < 0 {
				return nil, &Error{Line: line, Msg: "unterminated dollar-quoted string"}
			}
			body := src[i : i+len(tag)+end+len(tag)]
			if sqlLine == 0 {
				sqlLine = line
			}
			line += strings.Count(body, "\n")
			sql.WriteString(body)
			i += len(body)
		case c == '(':
			parens++
			sql.WriteByte(c)
			i++
		case c == ')':
			if parens > 0 {
				parens--
			}
			sql.WriteByte(c)
			i++
		case c == ';' && parens == 0:
			flush(true)
			i++
		case c == '\\' && i+1 < len(src) && src[i+1] == ';':
			return nil, &Error{Line: line, Msg: `compound statements (\;) are not modelled: end each statement with ";"`}
		case c == '\\':
			// A meta command: it ends the SQL command before it (pgbench
			// sends that text as a command of its own).
			pending := strings.TrimSpace(sql.String()) != "" && !onlyComments(sql.String())
			pendLine := sqlLine
			pendText := strings.TrimSpace(sql.String())
			sql.Reset()
			sqlLine = 0
			parens = 0
			metaLine := line
			// The rest of the line, with backslash-newline continuations.
			j := i + 1
			var text strings.Builder
			for j < len(src) && src[j] != '\n' {
				if src[j] == '\\' && j+1 < len(src) && src[j+1] == '\n' {
					text.WriteByte(' ')
					j += 2
					line++
					continue
				}
				if src[j] == '\\' && j+2 < len(src) && src[j+1] == '\r' && src[j+2] == '\n' {
					text.WriteByte(' ')
					j += 3
					line++
					continue
				}
				text.WriteByte(src[j])
				j++
			}
			i = j
			cmd, err := metaCommand(metaLine, text.String())
			if err != nil {
				return nil, err
			}
			if cmd.Meta == "gset" || cmd.Meta == "aset" {
				// \gset and \aset end the SQL command before them on
				// the same or an earlier line.
				if !pending {
					if len(cmds) == 0 || cmds[len(cmds)-1].SQL == "" || cmds[len(cmds)-1].GSet != "" {
						return nil, &Error{Line: metaLine, Msg: fmt.Sprintf(`\%s must follow an SQL command`, cmd.Meta)}
					}
					// pgbench needs the SQL command without its
					// semicolon: "SELECT ... \gset".
					return nil, &Error{Line: metaLine, Msg: fmt.Sprintf(`\%s must follow an SQL command (write it after the query, before any semicolon)`, cmd.Meta)}
				}
				prefix := ""
				if len(cmd.Args) > 0 {
					prefix = cmd.Args[0]
				}
				cmds = append(cmds, Command{Line: pendLine, SQL: pendText, GSet: cmd.Meta, GSetPrefix: prefix, FirstLine: firstLine(pendText)})
				continue
			}
			if pending {
				cmds = append(cmds, Command{Line: pendLine, SQL: pendText, FirstLine: firstLine(pendText)})
			}
			cmds = append(cmds, cmd)
		default:
			if sqlLine == 0 && c != ' ' && c != '\t' && c != '\r' {
				sqlLine = line
			}
			sql.WriteByte(c)
			i++
		}
	}
	flush(false)
	return cmds, nil
}

// onlyComments reports whether SQL text holds nothing but comments and
// space.
func onlyComments(s string) bool {
	for len(s) > 0 {
		s = strings.TrimLeft(s, " \t\r\n")
		switch {
		case s == "":
			return true
		case strings.HasPrefix(s, "--"):
			j := strings.IndexByte(s, '\n')
			if j < 0 {
				return true
			}
			s = s[j:]
		case strings.HasPrefix(s, "/*"):
			j := strings.Index(s, "*/")
			if j < 0 {
				return true
			}
			s = s[j+2:]
		default:
			return false
		}
	}
	return true
}

// dollarTag returns the opening tag of a dollar-quoted string at s ("$$",
// "$body$"), or "" when s does not start one ($1 is a parameter).
func dollarTag(s string) string {
	for j := 1; j < len(s); j++ {
		c := s[j]
		if c == '$' {
			return s[:j+1]
		}
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > 1 && c >= '0' && c <= '9' || c >= 0x80) {
			return ""
		}
	}
	return ""
}

// metaCommand parses the text after a backslash up to the end of its line.
func metaCommand(line int, text string) (Command, error) {
	name, rest, _ := strings.Cut(strings.TrimLeft(text, " \t"), " ")
	name = strings.TrimRight(name, "\r\t")
	if j := strings.IndexByte(name, '\t'); j >= 0 {
		rest = name[j+1:] + " " + rest
		name = name[:j]
	}
	if !metaCommands[name] {
		return Command{}, &Error{Line: line, Msg: fmt.Sprintf(`invalid command \%s`, name)}
	}
	cmd := Command{Line: line, Meta: name, FirstLine: "\\" + strings.TrimRight(strings.TrimLeft(text, " \t"), " \t\r")}
	rest = strings.TrimSpace(strings.TrimRight(rest, "\r"))
	switch name {
	case "set":
		v, expr, _ := strings.Cut(rest, " ")
		if k := strings.IndexByte(v, '\t'); k >= 0 {
			v, expr = v[:k], v[k+1:]+" "+expr
		}
		expr = strings.TrimSpace(expr)
		if v == "" {
			return Command{}, &Error{Line: line, Msg: `missing argument in command "set"`}
		}
		if !validVarName(v) {
			return Command{}, &Error{Line: line, Msg: fmt.Sprintf(`invalid variable name: %q`, v)}
		}
		if expr == "" {
			return Command{}, &Error{Line: line, Msg: `missing argument in command "set"`}
		}
		cmd.Args = []string{v, expr}
	case "if", "elif":
		if rest == "" {
			return Command{}, &Error{Line: line, Msg: fmt.Sprintf(`missing argument in command "%s"`, name)}
		}
		cmd.Args = []string{rest}
	default:
		cmd.Args = strings.Fields(rest)
	}
	return cmd, nil
}

// validVarName is pgbench's valid_variable_name: ASCII letters, digits and
// underscores (and non-ASCII bytes).
func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80) {
			return false
		}
	}
	return true
}

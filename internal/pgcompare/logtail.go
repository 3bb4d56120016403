package pgcompare

import (
	"fmt"
	"os"
)

// LogTail returns the last n lines of the server log, for error messages. It
// never fails: if the log cannot be read, the reason is returned instead.
func (c *Cluster) LogTail(n int) string {
	data, err := os.ReadFile(c.logFile)
	if err != nil {
		return fmt.Sprintf("(server log unavailable: %v)", err)
	}
	return lastLines(string(data), n)
}

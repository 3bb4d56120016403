package strictyaml

import (
	"strings"
	"unicode"
)

// suggest returns the candidate the user most likely meant by input, or ""
// when nothing is close. The rules, in order of confidence:
//  1. the same word ignoring case, '-' and '_' (sharedBuffers, shared-buffers);
//  2. a candidate that extends what was typed (tpcb -> tpcb-like), when the
//     typed text is at least three characters and only one candidate fits;
//  3. the smallest edit distance (insertions, deletions, substitutions and
//     adjacent transpositions), within a third of the word's length.
//
// Ties go to the earlier candidate, so the answer is deterministic.
func suggest(input string, candidates []string) string {
	if input == "" || len(candidates) == 0 || len(input) > 64 {
		return ""
	}
	norm := normalizeWord(input)
	for _, c := range candidates {
		if normalizeWord(c) == norm {
			return c
		}
	}
	if len(norm) >= 3 {
		found := ""
		for _, c := range candidates {
			if strings.HasPrefix(normalizeWord(c), norm) {
				if found != "" {
					found = ""
					break
				}
				found = c
			}
		}
		if found != "" {
			return found
		}
	}
	limit := len(input) / 3
	if limit < 1 {
		limit = 1
	}
	if limit > 3 {
		limit = 3
	}
	best, bestDist := "", limit+1
	lower := strings.ToLower(input)
	for _, c := range candidates {
		if d := editDistance(lower, strings.ToLower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

func normalizeWord(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}

// editDistance is the optimal-string-alignment distance: Levenshtein plus
// transposition of two adjacent characters, the commonest typing slip.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	n, m := len(ra), len(rb)
	// Three rolling rows: the transposition rule looks two rows back.
	prev2 := make([]int, m+1)
	prev := make([]int, m+1)
	cur := make([]int, m+1)
	for j := 0; j <= m; j++ {
		prev[j] = j
	}
	for i := 1; i <= n; i++ {
		cur[0] = i
		for j := 1; j <= m; j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[m]
}

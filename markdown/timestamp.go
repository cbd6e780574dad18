package markdown

import (
	"regexp"
	"strconv"
	"sync"
	"time"
)

// timestampRe matches the timestamps people and tools write: RFC 3339 (with
// or without fractional seconds and zone), "YYYY-MM-DD HH:MM[:SS][Z]" and a
// bare date. Groups: year, month, day, hour, minute, second, fraction, zone.
var timestampRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?)?`)
})

// timestampAt parses a timestamp at the start of s and returns it in UTC with
// the number of bytes it took.
func timestampAt(s string) (time.Time, int, bool) {
	m := timestampRe().FindStringSubmatchIndex(s)
	if m == nil || m[0] != 0 {
		return time.Time{}, 0, false
	}
	t, ok := timestampFromMatch(s, m)
	if !ok {
		return time.Time{}, 0, false
	}
	return t, m[1], true
}

// findTimestamp returns the first valid timestamp anywhere in s, with the
// byte range it spans.
func findTimestamp(s string) (t time.Time, start, end int, ok bool) {
	for _, m := range timestampRe().FindAllStringSubmatchIndex(s, -1) {
		// "12026-01-01" is not a date: the year must not be part of a longer number.
		if m[0] > 0 && isDigit(s[m[0]-1]) {
			continue
		}
		if t, ok := timestampFromMatch(s, m); ok {
			return t, m[0], m[1], true
		}
	}
	return time.Time{}, 0, 0, false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// timestampFromMatch builds the time a timestampRe match names, rejecting
// impossible dates and times instead of letting time.Date normalise them.
func timestampFromMatch(s string, m []int) (time.Time, bool) {
	num := func(g int) int {
		if m[2*g] < 0 {
			return 0
		}
		n, _ := strconv.Atoi(s[m[2*g]:m[2*g+1]])
		return n
	}
	year, month, day := num(1), num(2), num(3)
	hour, minute, sec := num(4), num(5), num(6)
	if month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	if m[14] >= 0 {
		frac := s[m[14]:m[15]]
		nsec, _ = strconv.Atoi(frac)
		for i := len(frac); i < 9; i++ {
			nsec *= 10
		}
	}
	offset := 0
	if m[16] >= 0 {
		zone := s[m[16]:m[17]]
		if zone != "Z" && zone != "z" {
			digits := zone[1:]
			if len(digits) > 2 && digits[2] == ':' {
				digits = digits[:2] + digits[3:]
			}
			h, _ := strconv.Atoi(digits[:2])
			mins := 0
			if len(digits) == 4 {
				mins, _ = strconv.Atoi(digits[2:])
			}
			if h > 23 || mins > 59 || len(digits) == 3 {
				return time.Time{}, false
			}
			offset = (h*60 + mins) * 60
			if zone[0] == '-' {
				offset = -offset
			}
		}
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.FixedZone("", offset))
	if t.Day() != day {
		return time.Time{}, false // February 30th and the like
	}
	return t.UTC(), true
}

// formatTime renders t as the files store it: RFC 3339 in UTC, to the second.
func formatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05Z")
}

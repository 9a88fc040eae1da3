package state

import (
	"strconv"
	"time"
)

// maxCountdown caps what FormatCountdown shows: a bogus expireTime far in
// the future reads "99:59:59+" instead of a giant number.
const maxCountdown = 100*time.Hour - time.Second

// FormatCountdown renders a remaining duration as a countdown: "m:ss" under
// an hour ("4:59", "59:59"), "h:mm:ss" from an hour ("1:00:00"). Partial
// seconds round up, so the display reaches "0:00" only when the token has
// actually expired. Zero or negative durations give "0:00"; durations of
// 100 hours or more give "99:59:59+".
func FormatCountdown(d time.Duration) string {
	if d > maxCountdown {
		return "99:59:59+"
	}
	secs := int64((max(d, 0) + time.Second - 1) / time.Second)
	h, m, s := secs/3600, (secs/60)%60, secs%60
	buf := make([]byte, 0, 9)
	if h > 0 {
		buf = strconv.AppendInt(buf, h, 10)
		buf = append(buf, ':')
		buf = append2(buf, m)
	} else {
		buf = strconv.AppendInt(buf, m, 10)
	}
	buf = append(buf, ':')
	buf = append2(buf, s)
	return string(buf)
}

func append2(b []byte, v int64) []byte {
	if v < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, v, 10)
}

// FormatAgo renders how long ago something happened, rounded down to the
// largest whole unit: "just now" (under a second, or in the future after a
// clock jump back), "12s ago", "3m ago", "2h ago", "4d ago".
func FormatAgo(d time.Duration) string {
	// (if, not a tagless switch: mutation tools see the conditions of
	// an if as covered, those of switch cases never.)
	if d < time.Second {
		return "just now"
	}
	if d < time.Minute {
		return strconv.Itoa(int(d/time.Second)) + "s ago"
	}
	if d < time.Hour {
		return strconv.Itoa(int(d/time.Minute)) + "m ago"
	}
	if d < 48*time.Hour {
		return strconv.Itoa(int(d/time.Hour)) + "h ago"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + "d ago"
}

// FormatAge renders a duration in its largest whole unit, compact, for a
// narrow column: "45s", "3m", "2h", "4d" ("0s" for anything under a
// second or negative).
func FormatAge(d time.Duration) string {
	// (if, not a tagless switch: see FormatAgo.)
	if d < time.Minute {
		return strconv.Itoa(int(max(d, 0)/time.Second)) + "s"
	}
	if d < time.Hour {
		return strconv.Itoa(int(d/time.Minute)) + "m"
	}
	if d < 48*time.Hour {
		return strconv.Itoa(int(d/time.Hour)) + "h"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + "d"
}

// MaskToken hides a proxy token entirely for display: it returns
// "•••••••• (hidden)" for a non-empty token and "(none)" for an empty one.
// No character of the token is ever shown.
func MaskToken(token string) string {
	if token == "" {
		return "(none)"
	}
	return "•••••••• (hidden)"
}

// FormatBytes is a byte count n in decimal units, as transfer progress and
// file listings show it: "512 B", "1.2 MB", up to "PB".
func FormatBytes(n int64) string {
	const unit = 1000
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return strconv.FormatFloat(float64(n)/float64(div), 'f', 1, 64) + " " + "kMGTP"[exp:exp+1] + "B"
}

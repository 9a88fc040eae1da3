package state

import (
	"strconv"
	"time"
)

// Duration units FormatDuration writes, largest first.
var durationUnits = [...]struct {
	size time.Duration
	sign byte
}{
	{365 * 24 * time.Hour, 'y'},
	{24 * time.Hour, 'd'},
	{time.Hour, 'h'},
	{time.Minute, 'm'},
	{time.Second, 's'},
}

// FormatDuration is the one way a duration is written for a person, as
// k9s writes it: its two largest units, each figure with its unit beside
// it, whole seconds (rounded down): "46s", "4m12s", "4m" (no zero second
// unit), "59m46s", "1h12m", "2d3h", "1y35d". Under a second it is "0s";
// a negative duration (overdue, a clock that jumped back) is written with
// a leading "-" ("-4m12s"). Every duration, to its 292-year limit, keeps
// its own figures: nothing saturates to a cap.
func FormatDuration(d time.Duration) string {
	var buf [24]byte
	return string(AppendDuration(buf[:0], d))
}

// AppendDuration appends d, as FormatDuration writes it, to dst.
func AppendDuration(dst []byte, d time.Duration) []byte {
	// The magnitude as unsigned: -d of the most negative duration would
	// overflow.
	mag := uint64(d)
	if d < 0 {
		dst = append(dst, '-')
		mag = -mag
	}
	written := 0
	for _, u := range durationUnits {
		n := mag / uint64(u.size)
		mag %= uint64(u.size)
		if written == 0 && n == 0 {
			continue
		}
		if n > 0 {
			dst = strconv.AppendUint(dst, n, 10)
			dst = append(dst, u.sign)
		}
		if written++; written == 2 {
			return dst
		}
	}
	if written == 0 {
		if d < 0 {
			dst = dst[:len(dst)-1] // "-0s" says nothing more than "0s"
		}
		dst = append(dst, '0', 's')
	}
	return dst
}

// FormatCountdown is a remaining duration written by FormatDuration,
// partial seconds rounded up so that a countdown reaches "0s" only when
// the token has actually expired: "59m46s", "4m59s", "1h". Zero or
// negative durations give "0s".
func FormatCountdown(d time.Duration) string {
	if d <= 0 {
		return "0s"
	}
	if r := d % time.Second; r != 0 && d < maxDuration-time.Second {
		d += time.Second - r
	}
	return FormatDuration(d)
}

// maxDuration is the longest time.Duration.
const maxDuration = time.Duration(1<<63 - 1)

// FormatMinutes is d written by FormatDuration to the minute, for a figure
// that need not tick every second (a kernel's idle or busy time): "4m",
// "1h12m"; under a minute it is whole seconds, "12s", so a kernel's
// first minute does not read as zero; negative (a clock that jumped
// back) is "0s".
func FormatMinutes(d time.Duration) string {
	if d < 0 {
		return "0s"
	}
	if d < time.Minute {
		return FormatDuration(d.Truncate(time.Second))
	}
	return FormatDuration(d.Truncate(time.Minute))
}

// FormatAgo renders how long ago something happened with FormatDuration:
// "just now" (under a second, or in the future after a clock jump back),
// "12s ago", "3m5s ago", "2h ago", "4d2h ago".
func FormatAgo(d time.Duration) string {
	if d < time.Second {
		return "just now"
	}
	return FormatDuration(d) + " ago"
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

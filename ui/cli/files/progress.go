package files

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/charmbracelet/bubbles/progress"
	"github.com/muesli/termenv"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/termtext"
)

// transferView draws the progress of a transfer on stderr when it is a
// terminal: one line, redrawn at most ten times a second, with a bar
// (bubbles/progress), bytes, rate, ETA and the file's name. It draws
// nothing when stderr is not a terminal (the per-file result lines on
// stdout are the record then) and never writes to stdout.
type transferView struct {
	w     io.Writer
	tty   bool
	width int
	bar   progress.Model
	now   func() time.Time

	mu    sync.Mutex
	file  string
	start time.Time
	last  time.Time
	drawn bool

	// A recursive copy (plan): the line counts its files and bytes,
	// several files moving at once.
	planned   bool
	files     int              // planned files
	bytes     int64            // their bytes
	filesDone int              // files copied
	bytesDone int64            // their bytes
	inFlight  map[string]int64 // bytes done of each file moving
	flightSum int64            // the sum of inFlight
	planStart time.Time
}

// plan switches the line to a recursive copy's totals: files files of
// bytes bytes in all (cp -r, once its plan is made).
func (v *transferView) plan(files int, bytes int64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.planned, v.files, v.bytes = true, files, bytes
	v.inFlight = map[string]int64{}
	v.planStart = v.now()
}

// fileDone counts a file of the plan as copied (its bytes, from the
// result).
func (v *transferView) fileDone(file string, bytes int64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.planned {
		return
	}
	v.flightSum -= v.inFlight[file]
	delete(v.inFlight, file)
	v.filesDone++
	v.bytesDone += max(bytes, 0)
}

func newTransferView(w io.Writer, tty, noColor bool, width int) *transferView {
	profile := termenv.ANSI256
	if noColor {
		profile = termenv.Ascii
	}
	if width <= 0 {
		width = 80
	}
	return &transferView{w: w, tty: tty, width: width, now: time.Now,
		bar: progress.New(progress.WithDefaultGradient(), progress.WithoutPercentage(), progress.WithWidth(24), progress.WithColorProfile(profile))}
}

// update records done of total bytes (total -1: unknown) of file.
func (v *transferView) update(file string, done, total int64) {
	if !v.tty {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	now := v.now()
	if v.planned {
		v.flightSum += done - v.inFlight[file]
		v.inFlight[file] = done
		if now.Sub(v.last) < 100*time.Millisecond {
			return
		}
		v.last = now
		all := v.bytesDone + v.flightSum
		pct := 1.0
		if v.bytes > 0 {
			pct = min(float64(all)/float64(v.bytes), 1)
		}
		v.draw(v.bar.ViewAs(pct)+" "+fmt.Sprintf("%d/%d files  ", v.filesDone, v.files)+transferStats(all, v.bytes, now.Sub(v.planStart)), file)
		return
	}
	if file != v.file {
		v.file, v.start = file, now
	} else if now.Sub(v.last) < 100*time.Millisecond && done != total {
		return
	}
	v.last = now
	pct := 0.0
	if total > 0 {
		pct = float64(done) / float64(total)
	}
	v.draw(v.bar.ViewAs(pct)+" "+transferStats(done, total, now.Sub(v.start)), file)
}

// draw writes line, then as much of file's name as fits, in place.
func (v *transferView) draw(line, file string) {
	name := termtext.Line(jupyter.DisplayName(file))
	if room := v.width - 1 - visibleLen(line) - 2; room > 8 {
		if r := []rune(name); len(r) > room {
			name = "…" + string(r[len(r)-room+1:])
		}
		line += "  " + name
	}
	fmt.Fprint(v.w, "\r\x1b[2K"+line)
	v.drawn = true
}

// clear erases the progress line (before a result line is printed).
func (v *transferView) clear() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.drawn {
		fmt.Fprint(v.w, "\r\x1b[2K")
		v.drawn = false
	}
}

// visibleLen counts the runes of s outside ANSI escape sequences.
func visibleLen(s string) int {
	n, esc := 0, false
	for _, r := range s {
		switch {
		case esc:
			if (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
				esc = false
			}
		case r == 0x1b:
			esc = true
		default:
			n++
		}
	}
	return n
}

// transferStats is "54.0 MB / 120.0 MB  38.2 MB/s  ETA 0:02".
func transferStats(done, total int64, elapsed time.Duration) string {
	s := state.FormatBytes(done)
	if total >= 0 {
		s += " / " + state.FormatBytes(total)
	}
	if elapsed > 0 {
		rate := float64(done) / elapsed.Seconds()
		s += "  " + state.FormatBytes(int64(rate)) + "/s"
		if total > done && rate > 0 {
			eta := time.Duration(float64(total-done)/rate) * time.Second
			s += "  ETA " + state.FormatCountdown(eta)
		}
	}
	return s
}

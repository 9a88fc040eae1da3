package transfer

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// A part file kept for a later run ends with a stamp saying which remote
// file, of which size and last_modified, its bytes are the start of:
//
//	[bytes 0..have) [stamp JSON] [8 decimal digits: the JSON's length] [partStampMagic]
//
// The next run resumes it only when the stamp names the same path, size
// and last_modified as the remote file has now, and cuts the stamp off
// first. A part of another version (rewritten with the same modification
// time, or another remote file downloaded to the same target) is started
// afresh instead of being completed with the new version's tail.
const partStampMagic = "colabdash-part-1"

// partStampMax bounds the stamp's JSON (a remote path is far shorter).
const partStampMax = 64 << 10

type partStamp struct {
	Path         string `json:"path"`
	Size         int64  `json:"size"`
	LastModified string `json:"last_modified"`
	Have         int64  `json:"have"`
}

func stampTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// stampPart cuts f to have bytes and appends the stamp of remote's
// version m. Nothing is written for a file whose size or last_modified
// the runtime did not report (it could not be matched later) or when
// there is nothing to resume.
func stampPart(f partFile, have int64, remote string, m proxy.Model) {
	if have <= 0 || m.Size <= have || m.LastModified.IsZero() {
		return
	}
	b, err := json.Marshal(partStamp{Path: remote, Size: m.Size, LastModified: stampTime(m.LastModified), Have: have})
	if err != nil || len(b) > partStampMax {
		return
	}
	b = append(b, fmt.Sprintf("%08d", len(b))+partStampMagic...)
	if f.Truncate(have) != nil {
		return
	}
	_, _ = f.WriteAt(b, have)
}

// stampedLength returns how many bytes of the part file f (of size
// size) to resume from: the length its stamp records when the stamp names
// remote's version m, else false.
func stampedLength(f io.ReaderAt, size int64, remote string, m proxy.Model) (int64, bool) {
	foot := int64(8 + len(partStampMagic))
	if size <= foot || m.LastModified.IsZero() {
		return 0, false
	}
	tail := make([]byte, foot)
	if _, err := f.ReadAt(tail, size-foot); err != nil || string(tail[8:]) != partStampMagic {
		return 0, false
	}
	n, err := strconv.Atoi(string(tail[:8]))
	if err != nil || n <= 0 || n > partStampMax || int64(n) > size-foot {
		return 0, false
	}
	b := make([]byte, n)
	if _, err := f.ReadAt(b, size-foot-int64(n)); err != nil {
		return 0, false
	}
	var st partStamp
	if json.Unmarshal(b, &st) != nil {
		return 0, false
	}
	have := size - foot - int64(n)
	if st.Have != have || have <= 0 || st.Path != remote || st.Size != m.Size || have >= m.Size ||
		st.LastModified != stampTime(m.LastModified) {
		return 0, false
	}
	return have, true
}

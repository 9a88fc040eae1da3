//go:build !unix

package theme

import "time"

// queryBackground asks nothing where the terminal cannot be put in raw
// mode portably: the background counts as unknown (dark).
func queryBackground(time.Duration) (dark, ok bool) { return false, false }

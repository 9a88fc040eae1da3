//go:build !unix

package paint

// Supported reports whether the Painter runs on this system: not here,
// where a console's size changes come with its input events, which Bubble
// Tea's own renderer reads; programs keep that renderer (a nil Painter).
const Supported = false

// watchSignals does nothing here (see Supported).
func watchSignals(*Painter) (stop func()) { return func() {} }

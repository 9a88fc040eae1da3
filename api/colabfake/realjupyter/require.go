package realjupyter

import (
	"errors"
	"os"
	"testing"
)

// Require starts a server for the test t as o asks, stopped when the test
// ends. When it cannot run here the test is skipped, saying why, except
// where the run promises it: a missing module fails under
// COLABDASH_REQUIRE_JUPYTER=1, and AsNobody without root fails when CI is
// set (CI runs as root). Any other start error fails the test.
func Require(t testing.TB, o Options) *Server {
	t.Helper()
	s, err := Start(o)
	switch {
	case err == nil:
		t.Cleanup(s.Stop)
		return s
	case errors.Is(err, ErrNotRoot) && os.Getenv("CI") != "":
		t.Fatalf("CI is set, and CI runs as root, but %v", err)
	case errors.Is(err, ErrNotRoot):
		t.Skip("SKIP: " + err.Error())
	case errors.Is(err, ErrUnavailable) && os.Getenv("COLABDASH_REQUIRE_JUPYTER") == "1":
		t.Fatalf("COLABDASH_REQUIRE_JUPYTER=1 but %v", err)
	case errors.Is(err, ErrUnavailable):
		t.Skip("SKIP real-Jupyter backend: " + err.Error())
	default:
		t.Fatal(err)
	}
	return nil
}

package realjupyter

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Two servers started at once each answer on the port of the socket they
// were handed, and serve their own root: the contents API lists a file
// put in one's content directory and not in the other's.
func TestServersAnswerOnTheSocketTheyWereHanded(t *testing.T) {
	var wg sync.WaitGroup
	srv := make([]*Server, 2)
	errs := make([]error, 2)
	for i := range srv {
		wg.Add(1)
		go func() {
			defer wg.Done()
			srv[i], errs[i] = Start(Options{})
		}()
	}
	wg.Wait()
	for i, s := range srv {
		if s != nil {
			t.Cleanup(s.Stop)
		}
		if errors.Is(errs[i], ErrUnavailable) && os.Getenv("COLABDASH_REQUIRE_JUPYTER") != "1" {
			t.Skip("SKIP: " + errs[i].Error())
		}
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
	}
	if srv[0].URL == srv[1].URL {
		t.Fatalf("both servers at %s", srv[0].URL)
	}
	if err := os.WriteFile(filepath.Join(srv[0].Root, "content", "only-here.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, s := range srv {
		resp, err := http.Get(s.URL + "api/contents/content/only-here.txt?content=0")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if want := map[int]int{0: 200, 1: 404}[i]; resp.StatusCode != want {
			t.Errorf("server %d at %s: HTTP %d for the file, want %d", i, s.URL, resp.StatusCode, want)
		}
	}
}

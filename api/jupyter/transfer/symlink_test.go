package transfer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
)

// Guards what a symbolic link inside a directory sent by cp -r uploads:
// a link to a file inside the directory is followed (its bytes go under
// the link's name); a link that leads out of it (a cloned repository's
// link to ~/.ssh/id_rsa) is skipped and named in a warning, the rest
// still copied; with FollowLinks (cp -L) it is followed too.
func TestUploadTreeFollowsLinksOnlyInside(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client()
	home := t.TempDir()
	secret := filepath.Join(home, "id_rsa")
	must(t, os.WriteFile(secret, []byte("PRIVATE KEY BYTES"), 0o600))
	src := filepath.Join(t.TempDir(), "repo")
	must(t, os.MkdirAll(filepath.Join(src, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(src, "data.csv"), []byte("a,b\n"), 0o644))
	must(t, os.Symlink("../data.csv", filepath.Join(src, "sub", "same.csv")))
	must(t, os.Symlink(secret, filepath.Join(src, "key")))
	rel, err := filepath.Rel(filepath.Join(src, "sub"), secret)
	must(t, err)
	must(t, os.Symlink(rel, filepath.Join(src, "sub", "relkey"))) // ../../../…/id_rsa
	for _, follow := range []bool{false, true} {
		dst := e.P("repo-" + map[bool]string{false: "inside", true: "all"}[follow])
		var warnings []string
		err := c.UploadPath(context.Background(), src, dst, false, CopyOptions{Recursive: true, FollowLinks: follow,
			Warn: func(s string) { warnings = append(warnings, s) }})
		if err != nil {
			t.Fatalf("FollowLinks %v: %v", follow, err)
		}
		top, sub := strings.Join(remoteNames(t, c, dst), ","), strings.Join(remoteNames(t, c, dst+"/sub"), ",")
		switch {
		case !follow && (top != "data.csv,sub" || sub != "same.csv"):
			t.Errorf("without FollowLinks the runtime has %s and sub/%s, want data.csv,sub and sub/same.csv", top, sub)
		case follow && (top != "data.csv,key,sub" || sub != "relkey,same.csv"):
			t.Errorf("with FollowLinks the runtime has %s and sub/%s, want every link followed", top, sub)
		}
		all := strings.Join(warnings, "\n")
		if got := strings.Count(all, "outside "+src); (follow && got != 0) || (!follow && got != 2) {
			t.Errorf("FollowLinks %v: warnings %q", follow, warnings)
		}
	}
}

package kit

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/safefile"
	"github.com/colabdash/colabdash/ui/termtext"
)

// Shell completion must never hold up the shell: each
// lookup has completionTimeout, then completionDrain to stop (1.5 s in
// all), writes nothing to the terminal, and its
// outcome is cached in the cache directory (CacheDir), a success for
// completionFresh and a failure for completionFailedFor, so the next
// tab press costs no network call.
const (
	completionTimeout   = time.Second
	completionFresh     = time.Minute
	completionFailedFor = 3 * time.Minute
	completionCacheFile = "completion-runtimes.json"
	// completionDrain is how long an abandoned lookup is given to stop
	// after its context is cancelled.
	completionDrain = 500 * time.Millisecond
)

// Completing runs fn against the profile's connection for shell
// completion: the config is read quietly, and whatever fn has not
// returned within completionTimeout is abandoned (ok false).
func Completing[T any](v *Verb, cmd *cobra.Command, fn func(ctx context.Context, conn *Connection) (T, error)) (res T, ok bool) {
	g := v.G
	if g.Settings == nil { // completion skips PersistentPreRunE
		if err := LoadConfig(cmd, g, os.Getenv); err != nil {
			return res, false
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), completionTimeout)
	defer cancel()
	type answer struct {
		v   T
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		conn, err := Connect(ctx, *g)
		if err != nil {
			ch <- answer{err: err}
			return
		}
		defer conn.Close()
		r, err := fn(ctx, conn)
		ch <- answer{r, err}
	}()
	select {
	case a := <-ch:
		return a.v, a.err == nil
	case <-ctx.Done():
		// The lookup sees the cancelled context and stops; let it finish
		// (it may be writing the protocol memory) for a moment, so the
		// process does not exit, or a test end, under its writes.
		select {
		case <-ch:
		case <-time.After(completionDrain):
		}
		return res, false
	}
}

// completionCache is the last runtime lookup for completion.
type completionCache struct {
	Key      string    `json:"key"` // profile and endpoint
	At       time.Time `json:"at"`
	OK       bool      `json:"ok"`
	Runtimes []struct {
		ID   string `json:"id"`
		Spec string `json:"spec"`
	} `json:"runtimes,omitempty"`
}

// CompleteRuntimes completes runtime arguments with the live runtime ids
// ("rt-abc<TAB>GPU/T4/STANDARD"), from the cache while it is fresh.
func (v *Verb) CompleteRuntimes(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	g := v.G
	if g.Settings == nil {
		if err := LoadConfig(cmd, g, os.Getenv); err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
	}
	key := g.Profile.Name + "\n" + g.Profile.Endpoint
	dir, path := CacheDir(), ""
	if dir != "" {
		path = filepath.Join(dir, completionCacheFile)
	}
	var c completionCache
	if b, err := readCache(path); err == nil && json.Unmarshal(b, &c) == nil && c.Key == key {
		age := time.Since(c.At)
		if age < 0 || c.OK && age >= completionFresh || !c.OK && age >= completionFailedFor {
			c = completionCache{}
		}
	} else {
		c = completionCache{}
	}
	if c.At.IsZero() {
		rts, ok := Completing(v, cmd, func(ctx context.Context, conn *Connection) ([]api.Runtime, error) {
			return conn.Svc.ListRuntimes(ctx)
		})
		c = completionCache{Key: key, At: time.Now(), OK: ok}
		for _, rt := range rts {
			c.Runtimes = append(c.Runtimes, struct {
				ID   string `json:"id"`
				Spec string `json:"spec"`
			}{rt.ID(), rt.RuntimeSpec.String()})
		}
		if b, err := json.Marshal(c); err == nil && dir != "" {
			_ = WriteStateFile(dir, completionCacheFile, b) // a cache: failing to keep it only costs the next lookup
			if old := StateDir(); old != "" {
				_ = os.Remove(filepath.Join(old, completionCacheFile)) // where versions before the cache directory kept it
			}
		}
	}
	var out []string
	for _, rt := range c.Runtimes {
		id := termtext.Line(rt.ID)
		if strings.HasPrefix(id, strings.TrimPrefix(toComplete, "runtimes/")) && !contains(args, id) {
			out = append(out, id+"\t"+termtext.Cut(rt.Spec, 60))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.TrimPrefix(x, "runtimes/") == s {
			return true
		}
	}
	return false
}

// readCache reads the completion cache (at most 1 MiB, a regular file).
func readCache(path string) ([]byte, error) {
	if path == "" {
		return nil, os.ErrNotExist
	}
	return safefile.Read(path, 1<<20, completionTimeout)
}

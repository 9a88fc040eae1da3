package client

import (
	"context"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
)

// BenchmarkGetRuntimeParallel measures one get_runtime round trip through
// the client (argument building, CallTool, decode) against the emulator on
// loopback, with calls from many goroutines sharing one session.
func BenchmarkGetRuntimeParallel(b *testing.B) {
	for _, m := range modes {
		b.Run(m.name, func(b *testing.B) {
			emu, ep, err := colabfake.Start(context.Background(), "127.0.0.1:0",
				colabfake.Options{Seed: colabfake.SeedDemo, Stateless: m.stateless, JSONResponse: m.json})
			if err != nil {
				b.Fatal(err)
			}
			defer emu.Close()
			c, err := New(context.Background(), Options{Endpoint: ep, HTTPClient: bearerClient()})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			ctx := context.Background()
			rts, err := c.ListRuntimes(ctx)
			if err != nil {
				b.Fatal(err)
			}
			name := rts[0].Name
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := c.GetRuntime(ctx, name); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

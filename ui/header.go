package ui

import (
	"time"

	"github.com/colabdash/colabdash/ui/pane/header"
)

// headerView is the header pane (ui/pane/header): exactly two lines of
// at most w cells: who and where (profile, tier, account or endpoint,
// badges), then the connection and its freshness.
func (m *app) headerView(_ time.Time, w int) []string {
	return header.View(m.cx, w, header.State{Switching: m.ops.prof.switching, Account: m.opts.Account,
		Endpoint: m.opts.Endpoint, Demo: m.opts.Demo, NextRefresh: m.calls.nextRefresh})
}

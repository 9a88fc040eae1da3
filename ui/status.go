package ui

import "github.com/colabdash/colabdash/ui/report"

// The `colabdash status` report moved to ui/report; these names remain
// for the CLI until it imports ui/report itself.
type (
	// StatusReport is report.StatusReport.
	StatusReport = report.StatusReport
	// StatusSubscription is report.StatusSubscription.
	StatusSubscription = report.StatusSubscription
	// StatusRuntime is report.StatusRuntime.
	StatusRuntime = report.StatusRuntime
	// StatusConnection is report.StatusConnection.
	StatusConnection = report.StatusConnection
)

// Report functions (ui/report).
var (
	NewStatusReport     = report.NewStatusReport
	NewStatusRuntime    = report.NewStatusRuntime
	WriteStatusJSON     = report.WriteStatusJSON
	WriteStatusTable    = report.WriteStatusTable
	WriteStatusTableFor = report.WriteStatusTableFor
)

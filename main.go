// Command colabdash is a terminal dashboard for Google Colab runtimes: the
// subscription tier, every runtime and its Jupyter sessions, and a live
// countdown to each runtime's proxy-token expiry. All of it lives in
// package ui/cli; main only hands over the arguments.
package main

import (
	"os"

	"github.com/colabdash/colabdash/ui/cli"
)

func main() { os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr)) }

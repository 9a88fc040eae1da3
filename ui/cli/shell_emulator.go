package cli

// ttyShellWarning is what `colabdash emulator --tty-shell` says at start,
// on stderr: the emulator accepts any bearer token, so its loopback and
// Host checks are all that guard a real shell.
const ttyShellWarning = "WARNING: --tty-shell: each runtime's /colab/tty is a REAL shell on this machine, as this user.\n" +
	"The emulator accepts any bearer token: anything on this machine that can reach its loopback port can get\n" +
	"a proxy token and run commands here. Use it only for trying the shell by hand; tests use the emulated shell."

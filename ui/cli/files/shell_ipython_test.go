package files

import "testing"

// The command the shell's refusal prints runs as written once IPython's
// "!" has expanded it: each escaped form below, put through IPython 8's
// var_expand (the expansion of a "!" line), gave its input back.
func TestIPythonLiteralRunsAsWritten(t *testing.T) {
	for in, want := range map[string]string{
		`echo 'price: $HOME {1+1}'`:          `echo 'price: $$HOME {{1+1}}'`,
		`echo '{__import__("os").getuid()}'`: `echo '{{__import__("os").getuid()}}'`,
		`a$b`:                                `a$$b`,
		`$x$x`:                               `$$x$$x`,
		`${x}`:                               `${{x}}`,
		`echo $$ cost$ $.x`:                  `echo $$ cost$ $$.x`,
		`ls -la`:                             `ls -la`,
	} {
		if got := ipythonLiteral(in); got != want {
			t.Errorf("ipythonLiteral(%q) = %q, want %q", in, got, want)
		}
	}
}

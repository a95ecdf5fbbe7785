package policy

import "testing"

// TestOptionRunners: a command that runs another through its options or
// script (sed's e, vim -c, tar --checkpoint-action, ssh's remote command)
// cannot be known before it runs, so a deny rule for rm refuses it
// (testdata/rmforms.json holds the forms); the same programs' ordinary
// uses, 'e' in a pattern included, are not.
func TestOptionRunners(t *testing.T) {
	e := New(Options{Mode: ModeYolo, Rules: rules(t, TierUser, denyRm)})
	for _, cmd := range []string{
		"sed -n 1p notes.txt", "sed -i 's/hello/there/g' main.go", "sed 's/e/f/;s/x/y/' a", "sed -n '/^func /p' a.go",
		"sed -E 's/(e+)/[\\1]/w out.txt' a", "sed '$a\\\\nend' a", "sed -ne '/x/{p;q}' a", "sed 'y/abc/xyz/' a",
		"sed '1d;$d' a", "sed -n -e '2,5p' -e '/e/=' a", "sed 's/a/b/2g' a", "sed ':a;N;$!ba;s/\\n/ /g' a",
		"tar -czf out.tgz src", "tar xzf a.tgz", "tar -C /tmp -xf a.tar", "tar --exclude=.git -cf a.tar .",
		"vim notes.txt", "vi -R a", "ssh -T git@github.com", "ssh -p 2222 -i key host", "scp a host:b", "scp -P 22 a host:b",
		"rsync -av src/ dst/", "rsync -avz --delete --exclude=.git a b", "zip -r out.zip src",
	} {
		if d, msg := e.Decide(shellCall(cmd)); d != Allow {
			t.Errorf("%q is %v (%s), want allow", cmd, d, msg)
		}
	}
	for _, cmd := range []string{
		"sed -n \"$X\"p a", "tar $OPTS a.tar", "ssh host \"$CMD\"", "sed -ne '1e date' a", "gsed 's/x/date/e' a",
		"nvim --cmd 'lua os.remove(\"victim\")'", "ex -s a <<< '!rm victim'", "scp -S ./evil a host:b", "scp -o 'ProxyCommand sh' a h:b",
		"ssh -F ./cfg host", "rsync --rsh='sh -c x' a b", "rsync --rsync-path='rm victim' a h:b", "tar xIf 'sh x' a.tar",
		"sed -f s.sed a", "sed 'k' a",
	} {
		if d, msg := e.Decide(shellCall(cmd)); d != Deny {
			t.Errorf("%q is %v (%s), want deny (cannot be known)", cmd, d, msg)
		}
	}
}

// FuzzSedScript: any script (the model writes them) is read without a
// panic, and one holding the e command after a separator is found.
func FuzzSedScript(f *testing.F) {
	for _, s := range []string{"s/a/b/e", "1e date", "/x/{p;q}", `\,a,d`, "s/a/b/w f\np", "y/a/b/", ":a;N;$!ba", "$a\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		sedScriptRuns(script)
		if !sedScriptRuns(script + "\n1e date") {
			// The e command after a newline runs, unless the script
			// left a part open (then the whole is unknown, also true).
			t.Errorf("%q then 1e date: not found", script)
		}
	})
}

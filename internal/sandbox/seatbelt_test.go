package sandbox

import (
	"fmt"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/golden"
)

// seatbeltFixture is a profile over paths that exist on no test machine,
// so that its text is the same everywhere.
func seatbeltFixture(t *testing.T, name string, allowGit bool) Profile {
	t.Helper()
	p, err := Build(Options{Name: name, Method: SandboxExec, Workspace: []string{"/Users/me/proj", "/Users/me/lib"},
		Extra: []string{"/Users/me/shared"}, Home: "/Users/me", Temp: "/private/var/folders/xy/T", AllowGitWrites: allowGit})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSeatbeltProfiles: the sandbox-exec profile of each of Gemini CLI's
// profile names (golden files under testdata/seatbelt/), and what each
// must say whatever its wording: everything denied first; reads of
// everything (permissive) or of the system and the writable roots only;
// writes to the writable roots; the network as the name says; the
// credentials, .git and .gemini denied after the rules allowing them;
// parentheses balanced.
func TestSeatbeltProfiles(t *testing.T) {
	for _, name := range Profiles {
		t.Run(name, func(t *testing.T) {
			text := seatbeltProfile(seatbeltFixture(t, name, false))
			golden.Check(t, "seatbelt/"+name+".sb", text)
			if err := sbplBalanced(text); err != nil {
				t.Errorf("unbalanced profile: %v", err)
			}
			must := []string{"(version 1)\n", "(deny default)\n", "(allow process-exec)\n",
				"(allow file-write*\n    (subpath \"/Users/me/proj\")\n    (subpath \"/Users/me/lib\")\n    (subpath \"/Users/me/shared\")\n    (subpath \"/private/var/folders/xy/T\")\n",
				"(deny file-read* file-write*\n    (subpath \"/Users/me/.ssh\")\n",
				"(subpath \"/Users/me/.gemini/oauth_creds.json\")\n",
				"(deny file-write*\n    (subpath \"/Users/me/proj/.git\")\n    (subpath \"/Users/me/proj/.gemini\")\n    (subpath \"/Users/me/lib/.git\")\n",
				`(regex #"^(/private)?/var/run/docker(\.sock(\.raw)?|/)")`,
			}
			mustNot := []string{}
			switch {
			case strings.HasPrefix(name, "permissive-"):
				must = append(must, "(allow file-read*)\n", `(subpath "/Users/me/.cache")`)
			default:
				must = append(must, "(allow file-read-metadata)\n", "(allow file-read*\n    (literal \"/\")\n    (subpath \"/usr\")\n")
				mustNot = append(mustNot, "(allow file-read*)\n", `(subpath "/Users/me/.cache")`+"\n    (subpath \"/Users/me/.npm\")\n)\n(allow file-write*")
			}
			if strings.HasPrefix(name, "strict-") {
				must = append(must, `(subpath "/Users/me/.gitconfig")`, `(subpath "/Users/me/.config")`)
			} else {
				mustNot = append(mustNot, `(subpath "/Users/me/.gitconfig")`)
			}
			switch {
			case strings.HasSuffix(name, "-open"):
				must = append(must, "(allow network-outbound)\n", `(global-name "com.apple.mDNSResponder")`)
			case strings.HasSuffix(name, "-proxied"):
				must = append(must, `(allow network-outbound (remote tcp "localhost:8877"))`)
				mustNot = append(mustNot, "(allow network-outbound)\n", "mDNSResponder")
			default:
				must = append(must, "(allow network-outbound (remote unix-socket))\n")
				mustNot = append(mustNot, "(allow network-outbound)\n", "remote tcp", "mDNSResponder")
			}
			for _, s := range must {
				if !strings.Contains(text, s) {
					t.Errorf("profile lacks %q", s)
				}
			}
			for _, s := range mustNot {
				if strings.Contains(text, s) {
					t.Errorf("profile has %q", s)
				}
			}
			// Later rules win: the denials come after every allow of files.
			lastAllow := strings.LastIndex(text, "(allow file-")
			if i := strings.Index(text, "(deny file-"); i < lastAllow {
				t.Errorf("a file denial (at %d) comes before an allow (at %d)", i, lastAllow)
			}
		})
	}
	if text := seatbeltProfile(seatbeltFixture(t, PermissiveOpen, true)); strings.Contains(text, `"/Users/me/proj/.git"`) ||
		!strings.Contains(text, `(subpath "/Users/me/proj/.gemini")`) {
		t.Errorf("tools.sandboxAllowGitWrites: .git still denied, or .gemini not:\n%s", text)
	}
	if _, err := Build(Options{Name: PermissiveProxied, Method: Landlock}); err == nil || !strings.Contains(err.Error(), "needs sandbox-exec") {
		t.Errorf("a proxied profile under Landlock: %v", err)
	}
}

// TestSBPLString: a path with quotes and backslashes stays one string.
func TestSBPLString(t *testing.T) {
	if got := sbString(`/Users/a "b"\c`); got != `"/Users/a \"b\"\\c"` {
		t.Errorf("sbString = %s", got)
	}
	p := Profile{Name: PermissiveOpen, Read: []string{"/"}, Write: []string{`/tmp/x") (allow default) ("`}}
	text := seatbeltProfile(p)
	if err := sbplBalanced(text); err != nil || strings.Contains(text, "\n(allow default)") {
		t.Errorf("a path broke out of its string: %v\n%s", err, text)
	}
}

// sbplBalanced checks that the profile's parentheses pair up outside
// its strings ("…", #"…").
func sbplBalanced(text string) error {
	depth, inString := 0, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == ';':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == '(':
			depth++
		case c == ')':
			if depth--; depth < 0 {
				return fmt.Errorf("a ) without its ( at %d", i)
			}
		}
	}
	if depth != 0 || inString {
		return fmt.Errorf("%d unclosed, in a string %v", depth, inString)
	}
	return nil
}

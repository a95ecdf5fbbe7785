package oauth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/fsutil"
)

// CredsFileName is Castor's own credentials file in the Gemini home
// directory. It is deliberately not Gemini CLI's file: tokens issued to
// Gemini CLI's client must not be used by another program, and tokens of
// the user's client mean nothing to Gemini CLI.
const CredsFileName = "castor_oauth_creds.json"

// Credentials are cached OAuth user credentials: the content of
// castor_oauth_creds.json, which is Google's token response with
// expires_in turned into expiry_date (milliseconds since the epoch), plus
// the client the tokens were issued to and the account's email.
type Credentials struct {
	AccessToken  string
	RefreshToken string
	Scope        string
	TokenType    string
	IDToken      string
	// Expiry is when AccessToken stops working; zero when unknown, in
	// which case the token is used until the server rejects it.
	Expiry time.Time

	// Account is the signed-in account's email, for display only.
	Account string

	// ClientID is the OAuth client the tokens belong to: a refresh token
	// only works with the client that obtained it, so a sign-in made with
	// another client is reported instead of failing obscurely.
	ClientID string
	// Type is set when the file holds Application Default Credentials
	// rather than a Castor sign-in (a service account key, or gcloud's
	// authorized_user file). Such a file is handed to
	// golang.org/x/oauth2/google and never rewritten.
	Type string
	// Raw is the file as read.
	Raw []byte
}

// IsADC reports whether c holds Application Default Credentials (a
// service account key, gcloud's authorized_user file, ...) rather than a
// Castor sign-in: such files carry a "type", Castor's own file does not.
func (c *Credentials) IsADC() bool {
	return c.Type != ""
}

// Token returns c as an oauth2 token.
func (c *Credentials) Token() *oauth2.Token {
	return &oauth2.Token{
		AccessToken:  c.AccessToken,
		TokenType:    c.TokenType,
		RefreshToken: c.RefreshToken,
		Expiry:       c.Expiry,
	}
}

// maxExpiresIn bounds a believable token lifetime; beyond it the
// server's expires_in is ignored rather than overflowing the clock.
const maxExpiresIn = 10 * 365 * 24 * 3600

// updated returns c after a token response tok received at now: the new
// access token and expiry, and every other field the response carried.
// Google leaves the refresh token out of refresh responses, so the old one
// is kept. The expiry is computed from expires_in on the caller's clock
// (oauth2 uses the wall clock), so an injected clock stays consistent.
func (c *Credentials) updated(tok *oauth2.Token, now time.Time) *Credentials {
	n := &Credentials{
		AccessToken:  tok.AccessToken,
		RefreshToken: c.RefreshToken,
		Scope:        c.Scope,
		TokenType:    tok.TokenType,
		IDToken:      c.IDToken,
		Expiry:       tok.Expiry,
		Account:      c.Account,
		ClientID:     c.ClientID,
	}
	if tok.ExpiresIn > 0 && tok.ExpiresIn <= maxExpiresIn {
		n.Expiry = now.Add(time.Duration(tok.ExpiresIn) * time.Second)
	}
	if tok.RefreshToken != "" {
		n.RefreshToken = tok.RefreshToken
	}
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		n.Scope = s
	}
	if s, ok := tok.Extra("id_token").(string); ok && s != "" {
		n.IDToken = s
	}
	return n
}

// credentialsFromToken converts a fresh token response.
func credentialsFromToken(tok *oauth2.Token) *Credentials {
	return (&Credentials{}).updated(tok, time.Now())
}

// ParseCredentials reads a credentials file: Castor's own, or an
// Application Default Credentials file. null stands for an absent field,
// and expiry_date may be written as a float or a numeric string; both are
// accepted. Anything but a JSON object is an error.
func ParseCredentials(data []byte) (*Credentials, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("credentials file: %w", err)
	}
	if raw == nil {
		return nil, errors.New("credentials file: not a JSON object")
	}
	c := &Credentials{Raw: append([]byte(nil), data...)}
	for _, f := range []struct {
		key string
		dst *string
	}{
		{"access_token", &c.AccessToken},
		{"refresh_token", &c.RefreshToken},
		{"scope", &c.Scope},
		{"token_type", &c.TokenType},
		{"id_token", &c.IDToken},
		{"type", &c.Type},
		{"client_id", &c.ClientID},
		{"account", &c.Account},
	} {
		v, ok := raw[f.key]
		if !ok || string(v) == "null" {
			continue
		}
		if err := json.Unmarshal(v, f.dst); err != nil {
			return nil, fmt.Errorf("credentials file: %s is not a string", f.key)
		}
	}
	if v, ok := raw["expiry_date"]; ok && string(v) != "null" {
		ms, err := parseMillis(v)
		if err != nil {
			return nil, fmt.Errorf("credentials file: expiry_date: %w", err)
		}
		c.Expiry = time.UnixMilli(ms)
	}
	if !c.IsADC() && c.AccessToken == "" && c.RefreshToken == "" {
		return nil, errors.New("credentials file: no access_token or refresh_token")
	}
	return c, nil
}

// parseMillis accepts a JSON number (possibly written with a fraction or
// exponent by JavaScript) or a numeric string.
func parseMillis(v json.RawMessage) (int64, error) {
	s := string(bytes.TrimSpace(v))
	if unq, err := strconv.Unquote(s); err == nil {
		s = unq
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	// Bounded so time.UnixMilli cannot overflow: ±100000 years.
	if err != nil || math.IsNaN(f) || math.Abs(f) > 3e15 {
		return 0, fmt.Errorf("not a time in milliseconds: %.40s", s)
	}
	return int64(f), nil
}

// MarshalCredentials encodes c as Castor's credentials file: the token
// response's fields in the order Google sends them, then expiry_date, the
// client id and the account; two-space indentation, no trailing newline,
// empty fields left out.
func MarshalCredentials(c *Credentials) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{")
	first := true
	add := func(key string, v any) {
		if !first {
			b.WriteString(",")
		}
		first = false
		var vb bytes.Buffer
		enc := json.NewEncoder(&vb)
		// JSON.stringify does not escape <, > and &.
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v)
		fmt.Fprintf(&b, "\n  %q: %s", key, bytes.TrimSpace(vb.Bytes()))
	}
	for _, f := range []struct{ key, val string }{
		{"access_token", c.AccessToken},
		{"refresh_token", c.RefreshToken},
		{"scope", c.Scope},
		{"token_type", c.TokenType},
		{"id_token", c.IDToken},
	} {
		if f.val != "" {
			add(f.key, f.val)
		}
	}
	if !c.Expiry.IsZero() {
		add("expiry_date", c.Expiry.UnixMilli())
	}
	if c.ClientID != "" {
		add("client_id", c.ClientID)
	}
	if c.Account != "" {
		add("account", c.Account)
	}
	if first {
		return []byte("{}"), nil
	}
	b.WriteString("\n}")
	return b.Bytes(), nil
}

// Store is Castor's credentials file in a Gemini home directory
// (~/.gemini/castor_oauth_creds.json).
type Store struct {
	// Dir is the .gemini directory.
	Dir string
}

// NewStore returns the store of home.
func NewStore(home config.Home) *Store { return &Store{Dir: home.Dir} }

// CredsPath returns the path of castor_oauth_creds.json.
func (s *Store) CredsPath() string { return filepath.Join(s.Dir, CredsFileName) }

// Load reads the cached credentials. A missing file gives an error
// satisfying errors.Is(err, fs.ErrNotExist).
func (s *Store) Load() (*Credentials, error) {
	data, err := os.ReadFile(s.CredsPath())
	if err != nil {
		return nil, err
	}
	c, err := ParseCredentials(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.CredsPath(), err)
	}
	return c, nil
}

// Save writes c with mode 0600, atomically, so that a concurrent Castor
// run never reads half a file.
func (s *Store) Save(c *Credentials) error {
	if c.IsADC() {
		return errors.New("oauth: refusing to overwrite application default credentials")
	}
	data, err := MarshalCredentials(c)
	if err != nil {
		return err
	}
	return writePrivateFile(s.CredsPath(), data)
}

// Remove deletes the credentials file; it reports whether there was one.
func (s *Store) Remove() (bool, error) {
	err := os.Remove(s.CredsPath())
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// writePrivateFile atomically replaces path with data, mode 0600, creating
// the directory owner-only if missing. Unlike settings files (see
// fsutil.WriteFileAtomic), credentials are made owner-only whatever mode
// an old file had.
func writePrivateFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return fsutil.ReplaceFile(path, data, 0o600)
}

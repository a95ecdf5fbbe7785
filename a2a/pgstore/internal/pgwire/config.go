// Package pgwire is the task store's PostgreSQL client: the frontend side
// of the protocol (version 3.0) for what the store does, and nothing more.
// It connects (TCP or a unix socket, TLS by sslmode, trust, password, MD5
// or SCRAM-SHA-256 authentication), runs SQL without parameters as a
// simple query, runs parameterized statements with the extended protocol
// (each SQL prepared once a connection, several pipelined up to one Sync),
// and waits for notifications. Values cross the wire as text; the caller
// encodes and decodes them.
//
// It replaces pgx's pgconn, whose dependencies (pgtype, database/sql,
// encoding/xml, x/text's precis) every castor binary paid for at start.
// Connection strings, the PG* variables and ~/.pgpass mean what they meant
// to pgconn (libpq's rules) for the keys Castor supports; a key Castor
// does not follow where it would change whom or how the store connects
// (service, target_session_attrs, require_auth, ...) is an error, not
// ignored.
package pgwire

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Config is where and how to connect: the targets tried in order (hosts,
// and for sslmode prefer or allow the same host with and without TLS),
// who to log in as, and the run-time parameters sent at startup.
type Config struct {
	Targets        []Target
	Database       string
	User           string
	Password       string
	ConnectTimeout time.Duration
	// ChannelBinding is channel_binding: "prefer" (the default: SCRAM
	// over TLS is bound to the server's certificate when the server
	// offers it), "require" (a login that is not so bound fails) or
	// "disable".
	ChannelBinding string
	// RuntimeParams are the connection string's other keys, server
	// settings sent in the startup message (application_name, options,
	// search_path, ...).
	RuntimeParams map[string]string
}

// Target is one address to try: a host name or address, or a unix
// socket's directory (an absolute path); TLS nil is a plain connection.
type Target struct {
	Host string
	Port uint16
	TLS  *tls.Config
}

// Network returns the net.Dial network and address of t.
func (t Target) Network() (network, address string) {
	if strings.HasPrefix(t.Host, "/") {
		return "unix", filepath.Join(t.Host, ".s.PGSQL.") + strconv.Itoa(int(t.Port))
	}
	return "tcp", net.JoinHostPort(t.Host, strconv.Itoa(int(t.Port)))
}

// envKeys maps the PG* environment variables to the keys they stand for.
// The variables for keys Castor refuses are read too, so that setting one
// fails as the key would rather than being ignored.
var envKeys = [...][2]string{
	{"PGHOST", "host"},
	{"PGPORT", "port"},
	{"PGDATABASE", "database"},
	{"PGUSER", "user"},
	{"PGPASSWORD", "password"},
	{"PGPASSFILE", "passfile"},
	{"PGAPPNAME", "application_name"},
	{"PGCONNECT_TIMEOUT", "connect_timeout"},
	{"PGSSLMODE", "sslmode"},
	{"PGSSLKEY", "sslkey"},
	{"PGSSLCERT", "sslcert"},
	{"PGSSLROOTCERT", "sslrootcert"},
	{"PGSSLSNI", "sslsni"},
	{"PGSSLCERTMODE", "sslcertmode"},
	{"PGSSLPASSWORD", "sslpassword"},
	{"PGSSLNEGOTIATION", "sslnegotiation"},
	{"PGTARGETSESSIONATTRS", "target_session_attrs"},
	{"PGSERVICE", "service"},
	{"PGSERVICEFILE", "servicefile"},
	{"PGTZ", "timezone"},
	{"PGOPTIONS", "options"},
	{"PGMINPROTOCOLVERSION", "min_protocol_version"},
	{"PGMAXPROTOCOLVERSION", "max_protocol_version"},
	{"PGCHANNELBINDING", "channel_binding"},
	{"PGREQUIREAUTH", "require_auth"},
}

// clientKey reports whether the client reads key itself; all others are
// run-time parameters for the server. (Switches, not maps: a map is work
// at every castor start.)
func clientKey(key string) bool {
	switch key {
	case "host", "port", "database", "user", "password", "passfile",
		"connect_timeout", "sslmode", "sslkey", "sslcert", "sslcertmode",
		"sslrootcert", "sslnegotiation", "sslpassword", "sslsni", "krbspn",
		"krbsrvname", "target_session_attrs", "service", "servicefile",
		"min_protocol_version", "max_protocol_version", "channel_binding", "require_auth":
		return true
	}
	return false
}

// refusedKeys are the keys Castor does not follow; refused reports
// whether a value of one changes something (is not a default), which is
// an error.
var refusedKeys = [...]string{
	"service", "servicefile", "target_session_attrs", "sslnegotiation", "sslcertmode", "sslpassword",
	"min_protocol_version", "max_protocol_version", "channel_binding", "require_auth",
}

func refused(key, v string) bool {
	switch key {
	case "target_session_attrs":
		return v != "" && v != "any"
	case "sslnegotiation":
		return v != "" && v != "postgres"
	case "sslcertmode":
		return v != "allow" && v != "disable"
	case "min_protocol_version", "max_protocol_version":
		return v != "" && v != "3.0"
	case "channel_binding":
		return v != "" && v != "prefer" && v != "disable" && v != "require"
	}
	return v != ""
}

// ParseConfig reads a connection string, a postgres:// (or postgresql://)
// URL or key=value pairs, over the PG* environment variables and the
// defaults (a local socket directory or localhost, port 5432, the OS
// user, sslmode prefer, ~/.pgpass, ~/.postgresql's certificates), as
// libpq and pgconn do. Errors do not quote the connection string.
func ParseConfig(connString string) (*Config, error) {
	var given map[string]string
	var err error
	if strings.IndexByte(connString, 0) >= 0 {
		return nil, errors.New("cannot parse the connection string: a NUL byte")
	}
	if strings.HasPrefix(connString, "postgres://") || strings.HasPrefix(connString, "postgresql://") {
		given, err = parseURL(connString)
	} else {
		given, err = parseKeywordValue(connString)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot parse the connection string: %v", err)
	}
	settings := map[string]string{"port": "5432"}
	// libpq's files: ~/.pgpass and ~/.postgresql, or on Windows
	// %APPDATA%\postgresql\pgpass.conf and %APPDATA%\postgresql.
	dir, passfile := "", ""
	if runtime.GOOS == "windows" {
		if appData := os.Getenv("APPDATA"); appData != "" {
			dir = filepath.Join(appData, "postgresql")
			passfile = filepath.Join(dir, "pgpass.conf")
		}
	} else if home, err := os.UserHomeDir(); err == nil {
		dir = filepath.Join(home, ".postgresql")
		passfile = filepath.Join(home, ".pgpass")
	}
	if dir != "" {
		settings["passfile"] = passfile
		crt, key := filepath.Join(dir, "postgresql.crt"), filepath.Join(dir, "postgresql.key")
		if exists(crt) && exists(key) {
			settings["sslcert"], settings["sslkey"] = crt, key
		}
		if root := filepath.Join(dir, "root.crt"); exists(root) {
			settings["sslrootcert"] = root
		}
	}
	for _, e := range envKeys {
		if v := os.Getenv(e[0]); v != "" {
			settings[e[1]] = v
		}
	}
	for k, v := range given {
		settings[k] = v
	}
	for _, k := range refusedKeys {
		if v, set := settings[k]; set && refused(k, v) {
			if k == "sslpassword" {
				v = "…"
			}
			return nil, fmt.Errorf("%s=%s: Castor's PostgreSQL client does not support it", k, v)
		}
	}
	if settings["user"] == "" {
		if u, err := user.Current(); err == nil {
			// A Windows account is DOMAIN\name; the role is the name.
			name := u.Username
			if runtime.GOOS == "windows" {
				name = name[strings.LastIndexByte(name, '\\')+1:]
			}
			settings["user"] = name
		}
	}
	cfg := &Config{Database: settings["database"], User: settings["user"], Password: settings["password"], ChannelBinding: settings["channel_binding"], RuntimeParams: map[string]string{}}
	if cfg.ChannelBinding == "" {
		cfg.ChannelBinding = "prefer"
	}
	for k, v := range settings {
		if !clientKey(k) {
			cfg.RuntimeParams[k] = v
		}
	}
	if v, ok := settings["connect_timeout"]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("connect_timeout=%q: want a number of seconds", v)
		}
		cfg.ConnectTimeout = time.Duration(n) * time.Second
	}
	if settings["sslcertmode"] == "disable" {
		delete(settings, "sslcert")
		delete(settings, "sslkey")
	}
	hosts := strings.Split(settings["host"], ",")
	ports := strings.Split(settings["port"], ",")
	if len(ports) > 1 && len(ports) != len(hosts) {
		return nil, fmt.Errorf("could not match %d port numbers to %d hosts", len(ports), len(hosts))
	}
	defHost := ""
	for i, host := range hosts {
		if host == "" {
			if defHost == "" {
				defHost = defaultHost()
			}
			host = defHost
		}
		p := ports[0]
		if len(ports) > 1 {
			p = ports[i]
		}
		if p == "" {
			p = "5432"
		}
		port, err := strconv.ParseUint(p, 10, 16)
		if err != nil || port == 0 {
			return nil, errors.New("invalid port")
		}
		t := Target{Host: host, Port: uint16(port)}
		if network, _ := t.Network(); network == "unix" {
			// libpq: TLS settings do not apply to a socket.
			cfg.Targets = append(cfg.Targets, t)
			continue
		}
		tlsConfigs, err := tlsFor(settings, host)
		if err != nil {
			return nil, err
		}
		for _, c := range tlsConfigs {
			t.TLS = c
			cfg.Targets = append(cfg.Targets, t)
		}
	}
	if cfg.Password == "" {
		t := cfg.Targets[0]
		host := t.Host
		if network, _ := t.Network(); network == "unix" {
			host = "localhost"
		}
		cfg.Password = passfilePassword(settings["passfile"], host, strconv.Itoa(int(t.Port)), cfg.Database, cfg.User)
	}
	return cfg, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// defaultHost is libpq's compiled-in socket directory where one of the
// usual ones exists, else (and always on Windows) localhost, pgconn's
// guess.
func defaultHost() string {
	if runtime.GOOS == "windows" {
		return "localhost"
	}
	for _, dir := range []string{"/var/run/postgresql", "/private/tmp", "/tmp"} {
		if exists(dir) {
			return dir
		}
	}
	return "localhost"
}

// tlsFor returns the TLS configurations to try for host, in order (nil:
// plain), by sslmode: prefer tries TLS and then plain, allow the reverse.
func tlsFor(settings map[string]string, host string) ([]*tls.Config, error) {
	mode := settings["sslmode"]
	if mode == "" {
		mode = "prefer"
	}
	rootcert, cert, key := settings["sslrootcert"], settings["sslcert"], settings["sslkey"]
	c := &tls.Config{}
	if rootcert != "" {
		var pool *x509.CertPool
		if rootcert == "system" {
			var err error
			if pool, err = x509.SystemCertPool(); err != nil {
				return nil, fmt.Errorf("unable to load system certificate pool: %w", err)
			}
			mode = "verify-full"
		} else {
			pem, err := os.ReadFile(rootcert)
			if err != nil {
				return nil, fmt.Errorf("unable to read CA file: %w", err)
			}
			pool = x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, errors.New("unable to add CA to cert pool")
			}
		}
		c.RootCAs = pool
	}
	switch mode {
	case "disable":
		return []*tls.Config{nil}, nil
	case "allow", "prefer":
		c.InsecureSkipVerify = true
	case "require", "verify-ca":
		// require with a root certificate is verify-ca (libpq). verify-ca
		// checks the chain but not the name: Go's own verification, which
		// checks both, is off and the chain is checked here.
		c.InsecureSkipVerify = true
		if mode == "verify-ca" || rootcert != "" {
			roots := c.RootCAs
			c.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error {
				if len(raw) == 0 {
					return errors.New("the server sent no certificate")
				}
				certs := make([]*x509.Certificate, len(raw))
				for i, der := range raw {
					var err error
					if certs[i], err = x509.ParseCertificate(der); err != nil {
						return errors.New("failed to parse certificate from server: " + err.Error())
					}
				}
				opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool()}
				for _, ic := range certs[1:] {
					opts.Intermediates.AddCert(ic)
				}
				_, err := certs[0].Verify(opts)
				return err
			}
		}
	case "verify-full":
		c.ServerName = host
	default:
		return nil, errors.New("sslmode is invalid")
	}
	if (cert == "") != (key == "") {
		return nil, errors.New(`both "sslcert" and "sslkey" are required`)
	}
	if cert != "" {
		cert, _ = filepath.Abs(cert)
		key, _ = filepath.Abs(key)
		// Read now, for the error; and again at each handshake, so that a
		// renewed certificate is used without a restart.
		if _, err := tls.LoadX509KeyPair(cert, key); err != nil {
			return nil, fmt.Errorf("unable to load client certificate: %w", err)
		}
		c.GetClientCertificate = func(cri *tls.CertificateRequestInfo) (*tls.Certificate, error) {
			pair, err := tls.LoadX509KeyPair(cert, key)
			if err != nil {
				return nil, err
			}
			if cri.SupportsCertificate(&pair) != nil {
				return &tls.Certificate{}, nil
			}
			return &pair, nil
		}
	}
	// Server Name Indication, but never for an address (RFC 6066).
	if sni := settings["sslsni"]; (sni == "" || sni == "1") && net.ParseIP(host) == nil {
		c.ServerName = host
	}
	switch mode {
	case "allow":
		return []*tls.Config{nil, c}, nil
	case "prefer":
		return []*tls.Config{c, nil}, nil
	}
	return []*tls.Config{c}, nil
}

// passfilePassword looks the password up in a .pgpass file: the first
// line host:port:database:user:password whose fields match (* matches
// anything; \: and \\ escape). No file, no password.
func passfilePassword(path, host, port, database, user string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	want := [4]string{host, port, database, user}
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") {
			continue
		}
		fields := splitPassfileLine(line)
		if len(fields) != 5 {
			continue
		}
		match := true
		for i, w := range want {
			if fields[i] != "*" && fields[i] != w {
				match = false
				break
			}
		}
		if match {
			return fields[4]
		}
	}
	return ""
}

// splitPassfileLine splits a .pgpass line at its unescaped colons and
// unescapes \: and \\.
func splitPassfileLine(line string) []string {
	var fields []string
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line) && (line[i+1] == ':' || line[i+1] == '\\'):
			b.WriteByte(line[i+1])
			i++
		case c == ':':
			fields = append(fields, b.String())
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(fields, b.String())
}

// parseURL reads a postgres:// URL as libpq does: user and password
// before an @, hosts and ports separated by commas, the database as the
// path, and keys in the query; each part percent-decoded.
func parseURL(s string) (map[string]string, error) {
	settings := map[string]string{}
	p, ok := strings.CutPrefix(s, "postgresql://")
	if !ok {
		p, _ = strings.CutPrefix(s, "postgres://")
	}
	// libpq: only a '/' ends the search for the user's '@'.
	if i := strings.IndexAny(p, "@/"); i >= 0 && p[i] == '@' {
		u, pw, hasPW := strings.Cut(p[:i], ":")
		p = p[i+1:]
		if u != "" {
			v, err := uriDecode(u, "")
			if err != nil {
				return nil, err
			}
			settings["user"] = v
		}
		if hasPW && pw != "" {
			v, err := uriDecode(pw, "password")
			if err != nil {
				return nil, err
			}
			settings["password"] = v
		}
	}
	var hosts, ports strings.Builder
	for {
		if strings.HasPrefix(p, "[") {
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return nil, errors.New(`no "]" after an IPv6 host address`)
			}
			if end == 1 {
				return nil, errors.New("an empty IPv6 host address")
			}
			hosts.WriteString(p[1:end])
			p = p[end+1:]
			if p != "" && !strings.ContainsRune(":/?,", rune(p[0])) {
				return nil, fmt.Errorf("unexpected %q after an IPv6 host address", p[0])
			}
		} else {
			i := strings.IndexAny(p, ":/?,")
			if i < 0 {
				i = len(p)
			}
			hosts.WriteString(p[:i])
			p = p[i:]
		}
		if strings.HasPrefix(p, ":") {
			p = p[1:]
			i := strings.IndexAny(p, "/?,")
			if i < 0 {
				i = len(p)
			}
			ports.WriteString(p[:i])
			p = p[i:]
		}
		if !strings.HasPrefix(p, ",") {
			break
		}
		p = p[1:]
		hosts.WriteByte(',')
		ports.WriteByte(',')
	}
	if hosts.Len() > 0 {
		v, err := uriDecode(hosts.String(), "")
		if err != nil {
			return nil, err
		}
		settings["host"] = v
	}
	if ports.Len() > 0 {
		v, err := uriDecode(ports.String(), "")
		if err != nil {
			return nil, err
		}
		settings["port"] = v
	}
	if strings.HasPrefix(p, "/") {
		db := p[1:]
		p = ""
		if i := strings.IndexByte(db, '?'); i >= 0 {
			db, p = db[:i], db[i:]
		}
		if db != "" {
			v, err := uriDecode(db, "")
			if err != nil {
				return nil, err
			}
			settings["database"] = v
		}
	}
	if q, ok := strings.CutPrefix(p, "?"); ok {
		// The JDBC alias ssl=true is sslmode=require when it comes after
		// the last sslmode.
		sslLast := false
		for q != "" {
			var pair string
			pair, q, _ = strings.Cut(q, "&")
			rk, rv, found := strings.Cut(pair, "=")
			if !found {
				return nil, fmt.Errorf(`no "=" in the URL query parameter %q`, rk)
			}
			if strings.IndexByte(rv, '=') >= 0 {
				return nil, fmt.Errorf(`a second "=" in the URL query parameter %q`, rk)
			}
			k, err := uriDecode(rk, "")
			if err != nil {
				return nil, err
			}
			if k == "dbname" {
				k = "database"
			}
			secret := ""
			if k == "password" || k == "sslpassword" {
				secret = k
			}
			v, err := uriDecode(rv, secret)
			if err != nil {
				return nil, err
			}
			switch k {
			case "ssl":
				sslLast = true
			case "sslmode":
				sslLast = false
			}
			settings[k] = v
		}
		if settings["ssl"] == "true" {
			delete(settings, "ssl")
			if sslLast {
				settings["sslmode"] = "require"
			}
		}
	}
	return settings, nil
}

// uriDecode percent-decodes a part of a URL as libpq does: %XX, never
// %00, spaces allowed only around it. A secret's errors do not quote it.
func uriDecode(raw, secret string) (string, error) {
	fail := func(what string) (string, error) {
		if secret != "" {
			return "", fmt.Errorf("%s in %s", what, secret)
		}
		return "", fmt.Errorf("%s in %q", what, raw)
	}
	s := strings.TrimLeft(raw, " ")
	var b strings.Builder
	for len(s) > 0 && s[0] != ' ' {
		if s[0] != '%' {
			b.WriteByte(s[0])
			s = s[1:]
			continue
		}
		if len(s) < 3 {
			return fail("an invalid percent-encoded token")
		}
		var c [1]byte
		if _, err := hex.Decode(c[:], []byte(s[1:3])); err != nil {
			return fail("an invalid percent-encoded token")
		}
		if c[0] == 0 {
			return fail("%00")
		}
		b.WriteByte(c[0])
		s = s[3:]
	}
	if strings.TrimLeft(s, " ") != "" {
		return fail("spaces (write %20)")
	}
	return b.String(), nil
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// parseKeywordValue reads key=value pairs separated by spaces, a value
// quoted in single quotes when it holds spaces, a backslash taking the
// next character as it is (libpq's rules).
func parseKeywordValue(s string) (map[string]string, error) {
	settings := map[string]string{}
	trim := func(s string) string { return strings.TrimLeft(s, " \t\n\r\v\f") }
	s = trim(s)
	for s != "" {
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			return nil, errors.New("a key without a value")
		}
		key := strings.Trim(s[:eq], " \t\n\r\v\f")
		if i := strings.IndexAny(key, " \t\n\r\v\f"); i >= 0 {
			return nil, fmt.Errorf(`missing "=" after %q`, key[:i])
		}
		if key == "" {
			return nil, errors.New("a value without a key")
		}
		s = trim(s[eq+1:])
		var val strings.Builder
		if strings.HasPrefix(s, "'") {
			s = s[1:]
			closed := false
			for len(s) > 0 {
				c := s[0]
				s = s[1:]
				if c == '\'' {
					closed = true
					break
				}
				if c == '\\' {
					if s == "" {
						break
					}
					c, s = s[0], s[1:]
				}
				val.WriteByte(c)
			}
			if !closed {
				return nil, errors.New("an unterminated quoted string")
			}
		} else {
			for len(s) > 0 && !isSpace(s[0]) {
				c := s[0]
				s = s[1:]
				if c == '\\' {
					if s == "" {
						break
					}
					c, s = s[0], s[1:]
				}
				val.WriteByte(c)
			}
		}
		s = trim(s)
		if key == "dbname" {
			key = "database"
		}
		if key == "user" && val.Len() == 0 {
			continue
		}
		settings[key] = val.String()
	}
	return settings, nil
}

package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/kriguard/kriguard/internal/kumaapi"
)

// kumaAPITarget is one --kuma-api value: a control plane's URL and, after it, what reaches that
// control plane when it differs from the other control planes (docs/cli.md):
// URL[,token-file=F][,ca-file=F][,client-cert=F,client-key=F].
type kumaAPITarget struct {
	raw, url                             string
	tokenFile, caFile, certFile, keyFile string // "": the flag's (--kuma-token-file, …)
}

// kumaAPIOptions are the options a --kuma-api value takes after its URL, each replacing, for that
// control plane only, the flag named.
var kumaAPIOptions = []struct{ key, flag string }{
	{"token-file", "--kuma-token-file"},
	{"ca-file", "--kuma-ca-file"},
	{"client-cert", "--kuma-client-cert"},
	{"client-key", "--kuma-client-key"},
}

// parseKumaAPI parses one --kuma-api value. A URL holding a comma cannot be given this way (a
// control plane's base URL has none).
func parseKumaAPI(v string) (kumaAPITarget, error) {
	t := kumaAPITarget{raw: v}
	parts := strings.Split(v, ",")
	t.url = strings.TrimSpace(parts[0])
	if t.url == "" {
		return t, fmt.Errorf("--kuma-api %q: no URL before the options", v)
	}
	seen := map[string]bool{}
	for _, p := range parts[1:] {
		key, val, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok {
			return t, fmt.Errorf("--kuma-api %q: %q is not key=value (%s)", v, p, kumaAPIKeys())
		}
		var dst *string
		switch key {
		case "token-file":
			dst = &t.tokenFile
		case "ca-file":
			dst = &t.caFile
		case "client-cert":
			dst = &t.certFile
		case "client-key":
			dst = &t.keyFile
		default:
			return t, fmt.Errorf("--kuma-api %q: unknown option %q (%s)", v, key, kumaAPIKeys())
		}
		if seen[key] {
			return t, fmt.Errorf("--kuma-api %q: %s given twice", v, key)
		}
		seen[key] = true
		if val == "" {
			return t, fmt.Errorf("--kuma-api %q: %s is empty", v, key)
		}
		*dst = val
	}
	if (t.certFile == "") != (t.keyFile == "") {
		given, missing := "client-cert", "client-key"
		if t.certFile == "" {
			given, missing = missing, given
		}
		return t, fmt.Errorf("--kuma-api %q: %s needs %s beside it (the pair replaces --kuma-client-cert and --kuma-client-key)", v, given, missing)
	}
	return t, nil
}

func kumaAPIKeys() string {
	keys := make([]string, len(kumaAPIOptions))
	for i, o := range kumaAPIOptions {
		keys[i] = o.key
	}
	return "options: " + strings.Join(keys, ", ")
}

// kumaClient returns the client of the control plane of target t: its own token, CA and client
// certificate where it gives them, else the flags'. An error names the option or flag at fault.
func (a *app) kumaClient(t kumaAPITarget, token string) (*kumaapi.Client, error) {
	o := kumaapi.Options{URL: t.url, Token: token, CAFile: a.kumaAPI.caFile, CertFile: a.kumaAPI.certFile,
		KeyFile: a.kumaAPI.keyFile, PageSize: int(a.chunkSize)}
	// field names where each option came from: the value's own key, or the flag.
	field := map[string]string{"URL": "--kuma-api", "CAFile": "--kuma-ca-file", "CertFile": "--kuma-client-cert",
		"KeyFile": "--kuma-client-key", "PageSize": "--chunk-size"}
	if t.tokenFile != "" {
		tok, err := readToken(t.tokenFile)
		if err != nil {
			return nil, usagef("--kuma-api %s: token-file: %v", t.url, err)
		}
		o.Token = tok
	}
	if t.caFile != "" {
		o.CAFile, field["CAFile"] = t.caFile, "ca-file"
	}
	if t.certFile != "" {
		o.CertFile, o.KeyFile = t.certFile, t.keyFile
		field["CertFile"], field["KeyFile"] = "client-cert", "client-key"
	}
	c, err := kumaapi.New(o)
	if err == nil {
		return c, nil
	}
	var oe *kumaapi.OptionError
	if !errors.As(err, &oe) {
		return nil, usagef("--kuma-api %s: %v", t.url, err)
	}
	switch f := field[oe.Field]; {
	case f == "--kuma-api":
		return nil, usagef("--kuma-api %q: %v", t.raw, err)
	case strings.HasPrefix(f, "--"):
		return nil, usagef("%s (for %s): %v", f, t.url, err)
	default:
		return nil, usagef("--kuma-api %s: %s: %v", t.url, f, err)
	}
}

// readToken reads a user token from file: whitespace trimmed, not empty.
func readToken(file string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("%s is empty", file)
	}
	return tok, nil
}

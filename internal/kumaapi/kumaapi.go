package kumaapi

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/kriguard/kriguard/internal/jsonpage"
)

// MaxPageSize is the largest page Kuma's REST API serves (pkg/api-server/pagination.go).
const MaxPageSize = 1000

// requestTimeout bounds one request: a control plane that accepts connections and never answers
// is an error, not a hang.
const requestTimeout = 2 * time.Minute

// maxBody bounds one answer: a page of MaxPageSize resources of a few KiB each.
const maxBody = 256 << 20

// Options say how to reach a control plane.
type Options struct {
	// URL is the API server's address, "http://127.0.0.1:5681" or "https://cp.example:5682", with
	// a path prefix when a proxy serves it under one.
	URL string
	// Token is a Kuma user token, sent as a Bearer token; "" sends none (a control plane lets
	// direct loopback callers in as admin).
	Token string
	// CAFile is a PEM bundle of the CAs that sign the API server's certificate; "" uses the
	// system's. CertFile and KeyFile are a client certificate and its key, both or neither.
	CAFile, CertFile, KeyFile string
	// PageSize is the number of resources asked per page: 1 to MaxPageSize; 0 means 500.
	PageSize int
	// Transport, when set, carries the requests instead of one built from the TLS options.
	Transport http.RoundTripper
}

// OptionError is an Options field New cannot use: its name (URL, CAFile, CertFile, KeyFile,
// PageSize) and why, so that a caller can name the flag or setting it came from.
type OptionError struct {
	Field string
	Err   error
}

func (e *OptionError) Error() string { return e.Err.Error() }

func (e *OptionError) Unwrap() error { return e.Err }

func optionError(field string, err error) error { return &OptionError{Field: field, Err: err} }

// Client reads a Kuma control plane's REST API.
type Client struct {
	base  *url.URL
	token string
	size  int
	hc    *http.Client
}

// New returns a client for the control plane of o. It reads the certificate files now, so that a
// wrong path is an error before any request; an option it cannot use is an *OptionError.
func New(o Options) (*Client, error) {
	u, err := url.Parse(o.URL)
	if err != nil {
		return nil, optionError("URL", fmt.Errorf("control plane URL: %w", err))
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, optionError("URL", fmt.Errorf("control plane URL %q: want http:// or https:// and a host", o.URL))
	}
	if u.User != nil {
		return nil, optionError("URL", errors.New("control plane URL: credentials belong in a token, not in the URL"))
	}
	u.RawQuery, u.Fragment = "", ""
	u.Path = strings.TrimSuffix(u.Path, "/")
	size := o.PageSize
	switch {
	case size == 0:
		size = 500
	case size < 0 || size > MaxPageSize:
		return nil, optionError("PageSize", fmt.Errorf("page size %d: want 1 to %d", size, MaxPageSize))
	}
	rt := o.Transport
	if rt == nil {
		tc, err := tlsConfig(o)
		if err != nil {
			return nil, err
		}
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.TLSClientConfig = tc
		rt = t
	}
	// Never follow a redirect: it could carry the token elsewhere.
	hc := &http.Client{Transport: rt, Timeout: requestTimeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &Client{base: u, token: strings.TrimSpace(o.Token), size: size, hc: hc}, nil
}

func tlsConfig(o Options) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, optionError("CAFile", fmt.Errorf("reading the CA file: %w", err))
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, optionError("CAFile", fmt.Errorf("CA file %s holds no PEM certificate", o.CAFile))
		}
		tc.RootCAs = pool
	}
	if o.CertFile != "" && o.KeyFile == "" {
		return nil, optionError("KeyFile", errors.New("a client certificate needs its key file too"))
	}
	if o.CertFile == "" && o.KeyFile != "" {
		return nil, optionError("CertFile", errors.New("a client key needs its certificate file too"))
	}
	if o.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
		if err != nil {
			return nil, optionError("CertFile", fmt.Errorf("loading the client certificate: %w", err))
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// URL returns the control plane's address as given.
func (c *Client) URL() string { return c.base.String() }

// StatusError is an answer other than 200: the control plane refused the request.
type StatusError struct {
	// URL is the request's, without its query.
	URL string
	// Status is the HTTP status code; Title and Detail what Kuma's error body says, if anything.
	Status        int
	Title, Detail string
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s: %d %s", e.URL, e.Status, http.StatusText(e.Status))
	switch {
	case e.Title != "" && e.Detail != "" && e.Detail != e.Title:
		msg += ": " + e.Title + ": " + e.Detail
	case e.Title != "":
		msg += ": " + e.Title
	}
	if e.Status == http.StatusUnauthorized {
		msg += " (give a user token with --kuma-token-file or KUMA_API_TOKEN)"
	}
	return msg
}

// get fetches path (with query) under the base URL and decodes its JSON answer into v.
func (c *Client) get(ctx context.Context, path string, query url.Values, v any) error {
	body, where, err := c.do(ctx, path, query)
	if err != nil {
		return err
	}
	defer body.Close()
	// Decoded as it arrives: one pass over the answer, no copy of it.
	lr := &io.LimitedReader{R: body, N: maxBody + 1}
	if err := json.NewDecoder(lr).Decode(v); err != nil {
		if lr.N <= 0 {
			return fmt.Errorf("%s: the answer is larger than %d bytes", where, maxBody)
		}
		return fmt.Errorf("%s: not an answer of Kuma's API: %w", where, err)
	}
	return nil
}

// getPage fetches path (with query) under the base URL into buf, emptied first, and returns the
// address it asked, for errors.
func (c *Client) getPage(ctx context.Context, path string, query url.Values, buf *bytes.Buffer) (string, error) {
	body, where, err := c.do(ctx, path, query)
	if err != nil {
		return where, err
	}
	defer body.Close()
	buf.Reset()
	if _, err := buf.ReadFrom(io.LimitReader(body, maxBody+1)); err != nil {
		if ctx.Err() != nil {
			return where, ctx.Err()
		}
		return where, fmt.Errorf("%s: reading the answer: %w", where, err)
	}
	if buf.Len() > maxBody {
		return where, fmt.Errorf("%s: the answer is larger than %d bytes", where, maxBody)
	}
	return where, nil
}

// do sends a GET of path (with query) under the base URL and returns the body of a 200 answer
// and the address asked, without its query; any other answer is a StatusError.
func (c *Client) do(ctx context.Context, path string, query url.Values) (io.ReadCloser, string, error) {
	u := *c.base
	u.Path = c.base.Path + path
	u.RawQuery = query.Encode()
	where := u.Scheme + "://" + u.Host + u.Path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, where, fmt.Errorf("%s: %w", where, err)
	}
	req.Header.Set("Accept", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, where, ctx.Err()
		}
		return nil, where, fmt.Errorf("%s: control plane unreachable: %w", where, err)
	}
	if resp.StatusCode == http.StatusOK {
		return resp.Body, where, nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return nil, where, fmt.Errorf("%s: reading the answer: %w", where, err)
	}
	se := &StatusError{URL: where, Status: resp.StatusCode}
	var kerr struct {
		Title  string `json:"title"`
		Detail string `json:"detail"`
	}
	if json.Unmarshal(body, &kerr) == nil {
		se.Title, se.Detail = kerr.Title, kerr.Detail
	}
	return nil, where, se
}

// Index is what a control plane says of itself at "/".
type Index struct {
	Product string `json:"product"`
	// Version is Kuma's version: "2.14.3", or "0.0.0-<commit>" for a development build.
	Version  string `json:"version"`
	Hostname string `json:"hostname"`
	// BasedOnKuma is, for a distribution of Kuma (Kong Mesh), the Kuma version it is built on
	// (api/openapi/types: IndexResponse.basedOnKuma).
	BasedOnKuma string `json:"basedOnKuma"`
}

// KumaVersion returns the Kuma version the control plane runs: BasedOnKuma when set, else Version.
func (ix Index) KumaVersion() string {
	if ix.BasedOnKuma != "" {
		return ix.BasedOnKuma
	}
	return ix.Version
}

// Index reads the control plane's index.
func (c *Client) Index(ctx context.Context) (Index, error) {
	var ix Index
	if err := c.get(ctx, "/", nil, &ix); err != nil {
		return Index{}, err
	}
	if ix.Version == "" {
		return Index{}, fmt.Errorf("%s/: the index has no version: is this a Kuma control plane?", c.base)
	}
	return ix, nil
}

// ResourceType is one type the control plane serves, as its /_resources lists it.
type ResourceType struct {
	// Name is the type, "MeshTimeout"; Path the plural in its URLs, "meshtimeouts".
	Name string `json:"name"`
	Path string `json:"path"`
	// Scope is "Mesh" or "Global".
	Scope     string `json:"scope"`
	ShortName string `json:"shortName"`
	ReadOnly  bool   `json:"readOnly"`
}

// Types reads the types the control plane serves (/_resources).
func (c *Client) Types(ctx context.Context) ([]ResourceType, error) {
	var r struct {
		Resources []ResourceType `json:"resources"`
	}
	if err := c.get(ctx, "/_resources", nil, &r); err != nil {
		return nil, err
	}
	for _, t := range r.Resources {
		if t.Name == "" || t.Path == "" || strings.ContainsAny(t.Path, "/?#") {
			return nil, fmt.Errorf("%s/_resources: a type without a usable name and path: %+v", c.base, t)
		}
	}
	return r.Resources, nil
}

// List calls fn with each resource of type t, every mesh at once (/{path}), page by page, as
// ListPages lists them; it returns the number of resources fn took without an error.
func (c *Client) List(ctx context.Context, t ResourceType, fn func(json.RawMessage) error) (int, error) {
	n := 0
	_, err := c.ListPages(ctx, t, func(items [][]byte) error {
		for _, it := range items {
			if err := fn(it); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

// ListPages calls fn with the resources of each page of type t, every mesh at once (/{path}):
// size and offset, following each page's next. It fails rather than end early: on an error answer,
// a next it cannot follow, or a list whose count differs from the total the control plane gave
// (the resources changed while they were read), so that a listing it returns from without an error
// is complete. It returns the number of resources of the pages fn took.
//
// fn gets each resource as the bytes of its page, valid JSON, which are reused once fn returns:
// two buffers serve every page, and no resource is copied or decoded here. The next page is fetched
// while fn reads one, so that the control plane's answer and the caller's work overlap; at most two
// pages are held.
func (c *Client) ListPages(ctx context.Context, t ResourceType, fn func(items [][]byte) error) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	pages := make(chan *listPage, 1)
	free := make(chan *listPage, 2)
	free <- &listPage{}
	free <- &listPage{}
	go func() {
		defer close(pages)
		c.fetchPages(ctx, t, free, pages)
	}()
	defer func() {
		cancel()
		for range pages { // the fetch ends, with the request it may be making
		}
	}()
	seen := 0
	for p := range pages {
		if p.err != nil {
			return seen, p.err
		}
		if err := fn(p.items); err != nil {
			return seen, err
		}
		seen += len(p.items)
		free <- p
	}
	return seen, nil
}

// listPage is one page of a listing: its answer, the items in it, or the error that ends the
// listing.
type listPage struct {
	buf   bytes.Buffer
	items [][]byte
	err   error
}

// fetchPages reads the pages of t in turn, each into a listPage taken from free, and sends each to
// pages, then the error that ends the listing, if any. It returns when the listing ends or ctx is
// done.
func (c *Client) fetchPages(ctx context.Context, t ResourceType, free <-chan *listPage, pages chan<- *listPage) {
	send := func(p *listPage) bool {
		select {
		case pages <- p:
			return true
		case <-ctx.Done():
			return false
		}
	}
	fail := func(err error) { send(&listPage{err: err}) }
	q := url.Values{"size": {strconv.Itoa(c.size)}}
	path := "/" + t.Path
	listed, total := 0, -1
	for n := 0; ; n++ {
		var pg *listPage
		select {
		case pg = <-free:
		case <-ctx.Done():
			return
		}
		where, err := c.getPage(ctx, path, q, &pg.buf)
		if err != nil {
			fail(err)
			return
		}
		var p struct {
			Total *int
			Next  *string
		}
		pg.items, err = jsonpage.Split(pg.items, pg.buf.Bytes(), "items", func(key string, value []byte) error {
			switch {
			case jsonpage.Is(key, "total"):
				return jsonpage.Member(key, value, &p.Total)
			case jsonpage.Is(key, "next"):
				return jsonpage.Member(key, value, &p.Next)
			}
			return nil
		})
		if err != nil {
			fail(fmt.Errorf("%s: not an answer of Kuma's API: %w", where, err))
			return
		}
		if p.Total == nil {
			fail(fmt.Errorf("%s%s: a list answer without total", c.base, path))
			return
		}
		if total < 0 {
			total = *p.Total
		}
		listed += len(pg.items)
		items := len(pg.items)
		if !send(pg) {
			return
		}
		if p.Next == nil || *p.Next == "" {
			break
		}
		// The control plane builds next from the URL it was asked, which a proxy may have
		// rewritten: only its offset and size are taken, on this client's own URL.
		nu, err := url.Parse(*p.Next)
		if err != nil {
			fail(fmt.Errorf("%s%s: next %q: %w", c.base, path, *p.Next, err))
			return
		}
		nq := nu.Query()
		if nq.Get("offset") == "" || nq.Get("offset") == q.Get("offset") || items == 0 {
			fail(fmt.Errorf("%s%s: next %q does not move past offset %q", c.base, path, *p.Next, q.Get("offset")))
			return
		}
		q = nq
		if n > total {
			fail(fmt.Errorf("%s%s: more pages than the %d resources need", c.base, path, total))
			return
		}
	}
	if listed != total {
		fail(fmt.Errorf("%s%s: listed %d resources, the control plane counted %d: they changed while they were read; run again", c.base, path, listed, total))
	}
}

package manifest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	yamlv3 "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// Stdin is the path that stands for standard input.
const Stdin = "-"

// DefaultMaxDocumentBytes is the size limit of one document when Options leaves it at zero.
const DefaultMaxDocumentBytes = 32 << 20

// Document is one object of a manifest, or one that could not be read.
type Document struct {
	// Source is the file the document comes from, or "-" for standard input.
	Source string
	// Line is the 1-based line where the object starts; 0 when the error concerns the whole
	// source (an unreadable path).
	Line int
	// Object is the object as JSON; nil when Err is set.
	Object []byte
	// APIVersion and Kind are the object's. For a Kuma Universal resource, APIVersion is empty
	// and Kind is its type.
	APIVersion, Kind string
	// Universal says that the document is a Kuma Universal resource, as kumactl writes one: type
	// and name, no apiVersion or kind (docs/universal.md).
	Universal bool
	// Err says why the document could not be read. It wraps ErrNotObject when the document is
	// not a Kubernetes object.
	Err error
	// InFolder says that Source was found by walking a folder rather than named itself.
	InFolder bool

	loc positioner
}

// Position returns the line and column in Source of the field at path, a field path as the
// rules print it (spec.to[0].targetRef.sectionName, metadata.labels[kuma.io/mesh]): where its
// key is written, or its item for a list index. A field the source does not hold (a name the
// mutating webhook gives; a path cut for its length) is placed at the closest field above it;
// "" is the object itself. The column is 0 when it is not known. The source is parsed again
// for this, the first time a document is asked, so that documents without findings do not pay
// for it; Position may be called only while the function given to Walk or Read runs.
func (d *Document) Position(path string) (line, column int) {
	if d.loc == nil {
		return d.Line, 0
	}
	return d.loc.locate(path)
}

// ErrNotObject is wrapped by the error of a document that was read but is not a Kubernetes
// object: not a mapping, or without apiVersion or kind (Helm values, kustomize and tool
// configurations).
var ErrNotObject = errors.New("not a Kubernetes object")

// GroupVersionKind returns the document's group, version and kind.
func (d *Document) GroupVersionKind() schema.GroupVersionKind {
	return schema.FromAPIVersionAndKind(d.APIVersion, d.Kind)
}

// Options tune a Reader.
type Options struct {
	// MaxDocumentBytes bounds one document (a YAML document, or a JSON value); 0 means
	// DefaultMaxDocumentBytes.
	MaxDocumentBytes int
	// Stdin is read for the path "-"; nil means os.Stdin.
	Stdin io.Reader
}

func (o Options) max() int {
	if o.MaxDocumentBytes <= 0 {
		return DefaultMaxDocumentBytes
	}
	return o.MaxDocumentBytes
}

// Walk reads every path in order — a file, a folder (recursively, its .yaml, .yml and .json files
// in lexical order, hidden folders skipped) or "-" — and calls fn with each document. It stops
// only when fn returns an error, and returns that error.
func Walk(paths []string, o Options, fn func(Document) error) error {
	for _, p := range paths {
		if err := walkPath(p, o, fn); err != nil {
			return err
		}
	}
	return nil
}

func walkPath(p string, o Options, fn func(Document) error) error {
	if p == Stdin {
		in := o.Stdin
		if in == nil {
			in = os.Stdin
		}
		return Read(Stdin, in, o, fn)
	}
	info, err := os.Stat(p)
	if err != nil {
		return fn(Document{Source: p, Err: readError(err)})
	}
	if !info.IsDir() {
		return readFile(p, o, fn)
	}
	return filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fn(Document{Source: path, Err: readError(err)})
		}
		if d.IsDir() {
			if path != p && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !isManifest(path) || !d.Type().IsRegular() {
			return nil
		}
		return readFile(path, o, func(d Document) error {
			d.InFolder = true
			return fn(d)
		})
	})
}

func isManifest(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// readError drops the operation from a path error: the source is named already.
func readError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("reading: %w", pe.Err)
	}
	return fmt.Errorf("reading: %w", err)
}

func readFile(path string, o Options, fn func(Document) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fn(Document{Source: path, Err: readError(err)})
	}
	defer f.Close()
	return Read(path, f, o, fn)
}

// Read reads the manifest r, named source, and calls fn with each document. A source whose first
// byte that is not white space is '{' or '[' is read as a stream of JSON values, any other as
// YAML.
func Read(source string, r io.Reader, o Options, fn func(Document) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	first, err := firstByte(br)
	if first < 0 {
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fn(Document{Source: source, Err: readError(err)})
		}
	}
	if first == '{' || first == '[' {
		return readJSON(source, br, o, fn)
	}
	return readYAML(source, br, o, fn)
}

// firstByte returns the first byte of br that is not white space, without reading it, or -1 with
// the error that ended the input first. It reads no further than that byte: a source that is a
// pipe may not have written more yet. Past a buffer of white space it gives up, with no error:
// the source is read as YAML then.
func firstByte(br *bufio.Reader) (int, error) {
	for n := 1; n <= br.Size(); n++ {
		b, err := br.Peek(n)
		if len(b) < n {
			return -1, err
		}
		switch c := b[n-1]; c {
		case ' ', '\t', '\r', '\n':
		default:
			return int(c), nil
		}
	}
	return -1, nil
}

// yamlChunk is one document of a YAML stream, as split by lines.
type yamlChunk struct {
	start int // line of the chunk's first line
	body  []byte
}

// readYAML splits a YAML stream into documents at "---" lines and converts each.
func readYAML(source string, br *bufio.Reader, o Options, fn func(Document) error) error {
	max := o.max()
	var buf bytes.Buffer
	line, start := 0, 1 // lines read; first line of the current document
	tooLarge := false
	flush := func() error {
		defer func() { buf.Reset(); tooLarge = false }()
		if tooLarge {
			return fn(Document{Source: source, Line: start, Err: fmt.Errorf("document is larger than %d bytes", max)})
		}
		return convertYAML(source, yamlChunk{start: start, body: buf.Bytes()}, max, fn)
	}
	for {
		sep, n, err := nextLine(br, &buf, max, &tooLarge)
		if n > 0 {
			line++
		}
		if sep {
			if err := flush(); err != nil {
				return err
			}
			start = line + 1
		}
		if err == io.EOF {
			return flush()
		}
		if err != nil {
			if ferr := flush(); ferr != nil {
				return ferr
			}
			return fn(Document{Source: source, Line: line, Err: readError(err)})
		}
	}
}

// nextLine reads one line of br into buf, unless the document it belongs to is already larger
// than max (then *tooLarge is set and buf keeps only what came before). It returns whether the
// line is a separator, which is not kept, and how many bytes the line has. At the end of the
// input it returns io.EOF.
func nextLine(br *bufio.Reader, buf *bytes.Buffer, max int, tooLarge *bool) (sep bool, n int, err error) {
	startLen, wasTooLarge := buf.Len(), *tooLarge
	sep = true
	for {
		frag, e := br.ReadSlice('\n')
		for _, c := range frag {
			switch {
			case n < 3:
				sep = sep && c == '-'
			default:
				sep = sep && (c == ' ' || c == '\t' || c == '\r' || c == '\n')
			}
			n++
		}
		if !*tooLarge {
			if buf.Len()+len(frag) > max {
				*tooLarge = true
				buf.Truncate(startLen)
			} else {
				buf.Write(frag)
			}
		}
		if e != bufio.ErrBufferFull {
			err = e
			break
		}
	}
	sep = sep && n >= 3
	if sep {
		buf.Truncate(startLen)
		*tooLarge = wasTooLarge
	}
	return sep, n, err
}

// firstContentLine returns the line of the first line of body that is neither blank nor a comment,
// body's first line being start.
func firstContentLine(body []byte, start int) int {
	line := start
	for len(body) > 0 {
		l := body
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			l, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		t := bytes.TrimSpace(l)
		if len(t) > 0 && t[0] != '#' {
			return line
		}
		line++
	}
	return start
}

// crlfToLF turns the CR LF line breaks of a document written on Windows into LF, in place, when every
// CR of it ends a line, so that the streaming reader reads it. YAML reads a CR LF break as one line
// break wherever it is, in scalars too (go-yaml normalises it to LF), so the document means the
// same; lines and columns do not move. A lone CR, also a line break to YAML, is left to go-yaml.
func crlfToLF(b []byte) []byte {
	n := bytes.Count(b, []byte("\r"))
	if n == 0 || bytes.Count(b, []byte("\r\n")) != n {
		return b
	}
	w := 0
	for i := 0; i < len(b); i++ {
		if b[i] == '\r' {
			continue // always followed by '\n'
		}
		b[w] = b[i]
		w++
	}
	return b[:w]
}

// yamlLine finds the line sigs.k8s.io/yaml (go-yaml) names in its errors.
var yamlLine = regexp.MustCompile(`\bline (\d+)\b`)

func convertYAML(source string, c yamlChunk, max int, fn func(Document) error) error {
	line := firstContentLine(c.body, c.start)
	if len(bytes.TrimSpace(c.body)) == 0 {
		return nil
	}
	if i := bytes.IndexByte(c.body, 0); i >= 0 {
		return fn(Document{Source: source, Line: c.start + bytes.Count(c.body[:i], []byte("\n")),
			Err: errors.New("binary data: the file is not a text manifest")})
	}
	if !utf8.Valid(c.body) {
		return fn(Document{Source: source, Line: c.start + invalidUTF8Line(c.body),
			Err: errors.New("invalid UTF-8: the file is not a text manifest")})
	}
	c.body = crlfToLF(c.body)
	j, items, err := yamlToJSON(c.body)
	streamed := true
	if errors.Is(err, errUnsupported) {
		if len(c.body) > maxGoYAMLBytes {
			err := fmt.Errorf("YAML read only in documents of at most %d bytes (this one has %d): %v", maxGoYAMLBytes, len(c.body), absoluteLine(err.Error(), c))
			if !hasTopLevelKind(c.body) {
				// Helm values and tool configurations are skipped in folders, however large.
				err = fmt.Errorf("%w (no kind at the top level), and %w", ErrNotObject, err)
			}
			return fn(Document{Source: source, Line: line, Err: err})
		}
		streamed = false
		j, err = yaml.YAMLToJSONStrict(c.body)
	}
	if err != nil {
		errLine := line
		msg := err.Error()
		if m := yamlLine.FindStringSubmatchIndex(msg); m != nil {
			if n, convErr := strconv.Atoi(msg[m[2]:m[3]]); convErr == nil && n >= 1 {
				// go-yaml names the line after the last at the end of the input.
				errLine = min(c.start+n-1, lastLine(c))
				// The position is now absolute; keep the message from naming another line.
				msg = msg[:m[0]] + "line " + strconv.Itoa(errLine) + msg[m[1]:]
			}
		}
		return fn(Document{Source: source, Line: errLine, Err: fmt.Errorf("invalid YAML: %s", trimYAMLPrefix(msg))})
	}
	if bytes.Equal(bytes.TrimSpace(j), []byte("null")) {
		return nil // a document of comments only
	}
	if !streamed {
		return emit(source, line, j, &tree{text: c.body, line: c.start, col: 1}, max, fn)
	}
	return emitStreamed(source, line, c, j, items, max, fn)
}

// maxGoYAMLBytes bounds the documents read with go-yaml (sigs.k8s.io/yaml) when the streaming
// reader does not read them: it costs up to 150 bytes per byte (docs/limits.md).
const maxGoYAMLBytes = 1 << 20

// hasTopLevelKind reports whether a line of the YAML document b starts with "kind:", as the kind
// of an object written in block style does: a document without one is no Kubernetes object.
func hasTopLevelKind(b []byte) bool {
	return bytes.HasPrefix(b, []byte("kind:")) || bytes.Contains(b, []byte("\nkind:")) ||
		bytes.HasPrefix(bytes.TrimLeft(b, " \t\r\n"), []byte("{")) // a flow mapping may hold one anywhere
}

// absoluteLine makes the "line N" of a message about a chunk a line of its source.
func absoluteLine(msg string, c yamlChunk) string {
	if m := yamlLine.FindStringSubmatchIndex(msg); m != nil {
		if n, err := strconv.Atoi(msg[m[2]:m[3]]); err == nil && n >= 1 {
			return msg[:m[0]] + "line " + strconv.Itoa(c.start+n-1) + msg[m[1]:]
		}
	}
	return msg
}

// emitStreamed hands fn the object j read by the streaming reader, or each of its items when it
// is a List; items are the List's items when the object has an items sequence.
func emitStreamed(source string, line int, c yamlChunk, j []byte, items []listItem, max int, fn func(Document) error) error {
	h, err := readHeader(j)
	if err != nil || !h.listKind() || items == nil {
		d := object(source, line, j, h, err)
		d.loc = &streamPositioner{src: c.body, startLine: c.start, fallbackLine: line}
		return fn(d)
	}
	for _, it := range items {
		itemLine := c.start + it.line - 1
		if it.end-it.start > max {
			if err := fn(Document{Source: source, Line: itemLine, Err: fmt.Errorf("document is larger than %d bytes", max)}); err != nil {
				return err
			}
			continue
		}
		item := j[it.start:it.end:it.end]
		h, herr := readHeader(item)
		d := object(source, itemLine, item, h, herr)
		d.loc = &streamPositioner{src: c.body, startLine: c.start, item: it.dash >= 0, dash: it.dash, line: it.dashLine, ls: it.dashLS,
			fallbackLine: itemLine, fallbackCol: it.col}
		if err := fn(d); err != nil {
			return err
		}
	}
	return nil
}

// lastLine is the line of the chunk's last line.
func lastLine(c yamlChunk) int {
	n := bytes.Count(c.body, []byte("\n"))
	if len(c.body) > 0 && c.body[len(c.body)-1] != '\n' {
		n++
	}
	return c.start + max(n-1, 0)
}

func trimYAMLPrefix(msg string) string {
	msg = strings.TrimPrefix(msg, "error converting YAML to JSON: ")
	return strings.TrimPrefix(msg, "yaml: ")
}

func invalidUTF8Line(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			return n
		}
		if r == '\n' {
			n++
		}
		b = b[size:]
	}
	return n
}

// header is what the reader reads of a document besides passing it on.
type header struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Type and Name make a Kuma Universal resource of a document without apiVersion and kind.
	// They stay raw: in other documents (Helm values) they may be anything.
	Type json.RawMessage `json:"type"`
	Name json.RawMessage `json:"name"`
	// Total, beside items, makes a Kuma listing (kumactl get -o yaml) of a document.
	Total json.RawMessage `json:"total"`
}

// universalType returns the type of a Kuma Universal resource: a document with neither apiVersion
// nor kind, whose type and name are non-empty strings.
func (h *header) universalType() (string, bool) {
	if h.APIVersion != "" || h.Kind != "" {
		return "", false
	}
	var typ, name string
	if json.Unmarshal(h.Type, &typ) != nil || json.Unmarshal(h.Name, &name) != nil || typ == "" || name == "" {
		return "", false
	}
	return typ, true
}

// listKind reports whether h is that of a List: kind List, or a kind ending in "List"; or of a Kuma
// listing as kumactl get -o yaml|json prints one (total beside items, no apiVersion or kind),
// whose items are Universal resources.
func (h *header) listKind() bool {
	return strings.HasSuffix(h.Kind, "List") || h.Kind == "" && h.APIVersion == "" && len(h.Total) > 0
}

// readHeader decodes the header of the JSON object j, which is not checked otherwise.
func readHeader(j []byte) (header, error) {
	var h header
	t := bytes.TrimLeft(j, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return h, fmt.Errorf("%w: want a mapping with apiVersion and kind", ErrNotObject)
	}
	if err := json.Unmarshal(j, &h); err != nil {
		return h, fmt.Errorf("apiVersion or kind: %w", err)
	}
	return h, nil
}

// object checks that j, with header h, is a Kubernetes object and makes it a Document.
func object(source string, line int, j []byte, h header, err error) Document {
	d := Document{Source: source, Line: line}
	switch {
	case err != nil:
		d.Err = err
	case h.Kind == "" && h.APIVersion == "" && len(h.Type) > 0:
		typ, ok := h.universalType()
		if !ok {
			d.Err = fmt.Errorf("%w: kind is missing, and type and name are not those of a Kuma Universal resource", ErrNotObject)
			return d
		}
		d.Kind, d.Universal, d.Object = typ, true, j
	case h.Kind == "":
		d.Err = fmt.Errorf("%w: kind is missing", ErrNotObject)
	case h.APIVersion == "":
		d.Err = fmt.Errorf("%w: apiVersion is missing", ErrNotObject)
	default:
		if _, err := schema.ParseGroupVersion(h.APIVersion); err != nil {
			d.Err = fmt.Errorf("apiVersion: %w", err)
			return d
		}
		d.APIVersion, d.Kind, d.Object = h.APIVersion, h.Kind, j
	}
	return d
}

// listSpans returns where the items of j are when j is a List: kind List, or a kind ending in
// "List", with an items array.
func listSpans(j []byte, h header, err error) ([][2]int, bool) {
	if err != nil || !h.listKind() {
		return nil, false
	}
	return jsonItems(j)
}

// emit hands fn the object j that go-yaml converted from the YAML in t, or each item when it is a
// List.
func emit(source string, line int, j []byte, t *tree, max int, fn func(Document) error) error {
	h, err := readHeader(j)
	spans, list := listSpans(j, h, err)
	if !list {
		d := object(source, line, j, h, err)
		d.loc = &locator{t: t, item: -1, line: line}
		return fn(d)
	}
	lines := yamlItemLines(t)
	for i, sp := range spans {
		itemLine := line
		if i < len(lines) {
			itemLine = lines[i]
		}
		if err := emitItem(source, itemLine, j[sp[0]:sp[1]:sp[1]], max, &locator{t: t, item: i, line: itemLine}, fn); err != nil {
			return err
		}
	}
	return nil
}

func emitItem(source string, line int, item []byte, max int, loc positioner, fn func(Document) error) error {
	if len(item) > max {
		return fn(Document{Source: source, Line: line, Err: fmt.Errorf("document is larger than %d bytes", max)})
	}
	h, err := readHeader(item)
	d := object(source, line, item, h, err)
	d.loc = loc
	return fn(d)
}

// emitJSON hands fn the JSON value v, which starts at line and col, or each item when it is a
// List.
func emitJSON(source string, line, col int, v []byte, max int, fn func(Document) error) error {
	h, err := readHeader(v)
	spans, list := listSpans(v, h, err)
	if !list {
		d := object(source, line, v, h, err)
		d.loc = &jsonPositioner{text: v, line: line, col: col}
		return fn(d)
	}
	at, atLine, atCol := 0, line, col // a place in v and where it is
	for _, sp := range spans {
		for _, c := range v[at:sp[0]] {
			switch {
			case c == '\n':
				atLine, atCol = atLine+1, 1
			case c < 0x80 || c >= 0xC0: // a character's first byte
				atCol++
			}
		}
		at = sp[0]
		item := v[sp[0]:sp[1]:sp[1]]
		if err := emitItem(source, atLine, item, max, &jsonPositioner{text: item, line: atLine, col: atCol}, fn); err != nil {
			return err
		}
	}
	return nil
}

// yamlItemLines returns the line of each item of the List in t, or nil when they cannot be
// found.
func yamlItemLines(t *tree) []int {
	root := t.node()
	if root == nil {
		return nil
	}
	items := mapValue(root, "items")
	if items == nil || items.Kind != yamlv3.SequenceNode {
		return nil
	}
	lines := make([]int, len(items.Content))
	for k, it := range items.Content {
		lines[k], _ = t.at(it)
	}
	return lines
}

// readJSON reads a stream of JSON values. Memory stays bounded by the largest value: each is read
// into a buffer of its own, which is refused as soon as it would pass the limit.
func readJSON(source string, br *bufio.Reader, o Options, fn func(Document) error) error {
	max := o.max()
	line, col := 1, 1 // of the next byte
	for {
		c, err := br.ReadByte()
		for err == nil && (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			if col++; c == '\n' {
				line, col = line+1, 1
			}
			c, err = br.ReadByte()
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fn(Document{Source: source, Line: line, Err: readError(err)})
		}
		_ = br.UnreadByte()
		v, err := readJSONValue(br, max)
		if errors.Is(err, errTooLarge) {
			return fn(Document{Source: source, Line: line, Err: fmt.Errorf("document is larger than %d bytes", max)})
		}
		if err == nil && !json.Valid(v) {
			var x struct{}
			err = json.Unmarshal(v, &x)
			var se *json.SyntaxError
			if errors.As(err, &se) {
				// The decoder cannot find the next value after a syntax error: this source ends here.
				return fn(Document{Source: source, Line: line + bytes.Count(v[:min(int(se.Offset), len(v))], []byte("\n")),
					Err: fmt.Errorf("invalid JSON: %s", se.Error())})
			}
		}
		if err != nil {
			if err == io.ErrUnexpectedEOF {
				err = errors.New("unexpected EOF")
			}
			return fn(Document{Source: source, Line: line + bytes.Count(v, []byte("\n")), Err: fmt.Errorf("invalid JSON: %w", err)})
		}
		if err := emitJSON(source, line, col, v, max, fn); err != nil {
			return err
		}
		for _, c := range v {
			switch {
			case c == '\n':
				line, col = line+1, 1
			case c < 0x80 || c >= 0xC0:
				col++
			}
		}
	}
}

var errTooLarge = errors.New("value too large")

// readJSONValue reads one JSON value of at most max bytes from br: up to the end of its outermost
// object, array or string, or of its number or name. It is refused (errTooLarge) before its
// buffer grows past max. At the end of the input it returns what it read and
// io.ErrUnexpectedEOF.
func readJSONValue(br *bufio.Reader, max int) ([]byte, error) {
	var v []byte
	depth, inString, escaped, scalar := 0, false, false, false
	for first := true; ; first = false {
		if _, err := br.Peek(1); err != nil {
			if scalar && err == io.EOF {
				return v, nil
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return v, err
		}
		b, _ := br.Peek(br.Buffered())
		end := -1
		for i, c := range b {
			switch {
			case first && i == 0:
				switch c {
				case '{', '[':
					depth = 1
				case '"':
					inString = true
				default:
					scalar = true
				}
				continue
			case scalar:
				if c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ']' || c == '}' || c == '{' || c == '[' || c == '"' {
					end = i
				}
			case inString:
				switch {
				case escaped:
					escaped = false
				case c == '\\':
					escaped = true
				case c == '"':
					inString = false
					if depth == 0 {
						end = i + 1
					}
				}
			case c == '"':
				inString = true
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				if depth--; depth == 0 {
					end = i + 1
				}
			}
			if end >= 0 {
				break
			}
		}
		take := len(b)
		if end >= 0 {
			take = end
		}
		if len(v)+take > max {
			return nil, errTooLarge
		}
		if len(v)+take > cap(v) {
			// Grow as append does, never past the limit.
			grown := make([]byte, len(v), min(max, 2*cap(v)+take))
			copy(grown, v)
			v = grown
		}
		v = append(v, b[:take]...)
		_, _ = br.Discard(take)
		if end >= 0 {
			return v, nil
		}
	}
}

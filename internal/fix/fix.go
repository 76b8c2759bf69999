package fix

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kriguard/kriguard/naming"
)

// Releases are the Kuma releases Rewrite knows how to rewrite for.
func Releases() []naming.Release { return []naming.Release{kuma30} }

// Options say what Rewrite rewrites for.
type Options struct {
	// Release is the Kuma release the manifests are made ready for: one of Releases.
	Release naming.Release
}

// Object names the object an edit or a finding belongs to.
type Object struct {
	APIVersion, Kind, Namespace, Name string
	// Mesh is the mesh of a Kuma Universal resource (Kind is its type); "" for Kubernetes objects.
	Mesh string
}

func (o Object) String() string {
	if o.Mesh != "" {
		return o.Kind + " " + o.Name + " (mesh " + o.Mesh + ")"
	}
	name := o.Name
	if o.Namespace != "" {
		name = o.Namespace + "/" + name
	}
	if name == "" {
		name = "(no name)"
	}
	return o.Kind + " " + name
}

// Change is an edit Rewrite made.
type Change struct {
	// Line is the 1-based line, in the input, of the edited field.
	Line   int
	Object Object
	// Field is the path of the edited field, "spec.to[0].targetRef".
	Field   string
	Message string
}

// Finding is something Rewrite cannot do: a human must change the object before the upgrade.
type Finding struct {
	// Line is the 1-based line, in the input, of the field at fault.
	Line   int
	Object Object
	// Field is the path of the field at fault, "metadata.name".
	Field   string
	Message string
}

// Result is what Rewrite returns.
type Result struct {
	// Output is the rewritten stream; it is the input, byte for byte, when Changes is empty.
	Output   []byte
	Changes  []Change
	Findings []Finding
}

// DocumentError is a document Rewrite cannot read. Nothing of its input is rewritten.
type DocumentError struct {
	// Line is the 1-based line, in the input, where the document starts.
	Line int
	Err  error
}

func (e *DocumentError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func (e *DocumentError) Unwrap() error { return e.Err }

// Rewrite rewrites one YAML stream for o.Release. Documents that are not Kubernetes objects, and
// objects it has nothing to do for, come out untouched. It returns a *DocumentError, and no
// output, when a document is not valid YAML.
func Rewrite(src []byte, o Options) (Result, error) {
	if o.Release != kuma30 {
		return Result{}, fmt.Errorf("no rewrite for Kuma release %q (known: %s)", o.Release, kuma30)
	}
	var res Result
	var out bytes.Buffer
	out.Grow(len(src))
	for _, c := range splitDocuments(src) {
		d, err := rewriteDocument(c)
		if err != nil {
			return Result{}, &DocumentError{Line: c.line, Err: err}
		}
		out.Write(d.output)
		res.Changes = append(res.Changes, d.changes...)
		res.Findings = append(res.Findings, d.findings...)
	}
	res.Output = out.Bytes()
	if len(res.Changes) == 0 {
		res.Output = src
	}
	return res, nil
}

// chunk is one document of a stream: its bytes, the "---" line that opens it included, and the
// line of the stream it starts on.
type chunk struct {
	text []byte
	line int
}

// splitDocuments cuts src before every "---" line (a line that is "---" and white space only, the
// rule kubectl and internal/manifest follow). Joining the chunks gives src back.
func splitDocuments(src []byte) []chunk {
	var chunks []chunk
	start, startLine, line := 0, 1, 1
	for off := 0; off < len(src); line++ {
		end := bytes.IndexByte(src[off:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += off + 1
		}
		if off > start && isSeparator(src[off:end]) {
			chunks = append(chunks, chunk{text: src[start:off], line: startLine})
			start, startLine = off, line
		}
		off = end
	}
	if start < len(src) || len(chunks) == 0 {
		chunks = append(chunks, chunk{text: src[start:], line: startLine})
	}
	return chunks
}

func isSeparator(l []byte) bool {
	return bytes.HasPrefix(l, []byte("---")) && len(bytes.TrimSpace(l[3:])) == 0
}

// document is the outcome for one chunk.
type document struct {
	output   []byte
	changes  []Change
	findings []Finding
}

func rewriteDocument(c chunk) (document, error) {
	root, err := parseDocument(c.text)
	if err != nil {
		return document{}, err
	}
	if root == nil {
		return document{output: c.text}, nil
	}
	var before any
	if err := root.Decode(&before); err != nil {
		return document{}, err
	}
	r := &rewriter{offset: c.line - 1, src: c.text, text: newLineEdits()}
	r.document(root)
	d := document{output: c.text, changes: r.changes, findings: r.findings}
	if len(r.changes) == 0 {
		return d, nil
	}
	if d.output, err = r.output(c.text, root); err != nil {
		return document{}, err
	}
	return d, nil
}

// parseDocument returns the document node of text, or nil when text holds no document (only
// comments or white space).
func parseDocument(text []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(text))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, trimYAMLError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, trimYAMLError(err)
		}
		return nil, errors.New(`more than one document without a "---" line between them`)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, nil
	}
	return &doc, nil
}

func trimYAMLError(err error) error {
	return errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
}

// output is the edited chunk: the original text with r's line edits spliced in when that gives
// exactly the edited tree, else the tree written anew.
func (r *rewriter) output(text []byte, root *yaml.Node) ([]byte, error) {
	var want any
	if err := root.Decode(&want); err == nil && r.text.ok {
		spliced := r.text.apply(text)
		if got, err := parseDocument(spliced); err == nil && got != nil {
			var have any
			if got.Decode(&have) == nil && reflect.DeepEqual(have, want) {
				return spliced, nil
			}
		}
	}
	return encode(text, root)
}

// encode writes root anew, after the "---" line that opened text if there was one, keeping the
// document's sequence indentation style.
func encode(text []byte, root *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	if i := bytes.IndexByte(text, '\n'); i >= 0 && isSeparator(text[:i+1]) {
		b.Write(text[:i+1])
	}
	enc := yaml.NewEncoderWithOptions(&b, &yaml.EncoderOptions{
		SeqIndent: yaml.SequenceIndentStyle(yaml.DeriveSeqIndentStyle(string(text))),
	})
	if err := enc.Encode(root); err != nil {
		return nil, fmt.Errorf("writing the edited document: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("writing the edited document: %w", err)
	}
	return b.Bytes(), nil
}

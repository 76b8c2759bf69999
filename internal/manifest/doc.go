// Package manifest reads Kubernetes manifests as kubectl does: files, folders (recursively, the
// .yaml, .yml and .json files in them) and standard input; multi-document YAML separated by "---"
// lines; streams of JSON objects; and Lists (kind List or any kind ending in "List" with an items
// array), whose items come out one by one.
//
// Every object comes out as a Document: its JSON bytes, apiVersion and kind, and where it was
// read (file and 1-based line of its first line, or of the List item). A document that cannot be
// read — invalid YAML or JSON, binary data, not an object, no kind, larger than the size limit —
// comes out as a Document with Err set, naming the line; reading goes on with the next one. An
// unreadable path is a Document with Err and no line.
//
// YAML is converted to JSON by a streaming reader of this package that gives what
// sigs.k8s.io/yaml's YAMLToJSONStrict gives (go-yaml v2's YAML 1.1 scalars; a repeated key is an
// error, as the API server's strict field validation makes it) at a few bytes of memory per byte
// of document; documents it does not read (anchors, aliases, tags, tabs, explicit keys…) are
// converted with sigs.k8s.io/yaml itself, up to 1 MiB (docs/limits.md, "The command's memory").
// JSON is checked with encoding/json. Documents are
// split by a line reader of our own rather than apimachinery's YAMLReader because that one does not
// say where a document starts; the separator rule is the same (a line that is "---" and white
// space only). Memory is bounded by the largest document, never by the size of a file: a
// document over Options.MaxDocumentBytes is skipped, with an error, without being held.
package manifest

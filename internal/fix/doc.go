// Package fix rewrites Kubernetes manifests for a Kuma upgrade: what the new release needs that a
// program can do without changing what the objects mean, and a list of what it cannot do.
//
// Rewrite takes the bytes of one YAML stream (several documents separated by "---" lines) and
// returns them with the mechanical edits made, the edits it made (Changes) and the objects a
// human must change (Findings). For Kuma 3.0 the edits are:
//
//   - a targetRef or backendRef that selects by name and namespace selects by labels instead
//     (kuma.io/display-name and k8s.kuma.io/namespace), keeping its kind, sectionName, port and
//     weight;
//   - a kuma.io/mesh annotation without the label, on the objects whose mesh Kuma 2.14 read from
//     that annotation (Pods and the pod templates of workloads, Services, Namespaces, Gateway API
//     Gateways and HTTPRoutes), becomes the label.
//
// It never renames anything: a rename changes KRIs, SNIs and metric names, so a name that the
// release refuses is a Finding, and so are removed kinds and every reference it cannot translate
// without guessing. docs/upgrade-3.0.md says what each finding means, with the Kuma source behind
// every rule.
//
// Edits are made on the document tree (sigs.k8s.io/kustomize/kyaml) and then spliced into the
// original text line by line, so that comments, key order, blank lines, quoting and every
// document without an edit come out byte for byte. The splice is checked against the edited tree;
// where the two would differ (flow style, multi-line scalars and other rare layouts) the document
// is written from the tree instead, which still keeps its comments and order. Rewriting its own
// output changes nothing.
package fix

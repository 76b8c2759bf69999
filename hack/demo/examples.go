package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// example is one file of examples/: one object and the outcome it expects.
type example struct {
	path         string
	file         string // base name, for messages
	namespace    string
	name         string
	generateName string
	expect       expectation
}

// expectation is what an example's "# expect:" line says.
type expectation struct {
	created bool
	// as is the name a created object must get ("created as <name>"), empty when not stated.
	as string
}

func (e expectation) String() string {
	switch {
	case !e.created:
		return "rejected"
	case e.as != "":
		return "created as " + e.as
	}
	return "created"
}

// matches reports whether r is the expected outcome.
func (e expectation) matches(r result) bool {
	if r.err != "" {
		return false
	}
	if !e.created {
		return r.rejected != ""
	}
	return r.rejected == "" && r.name != "" && (e.as == "" || e.as == r.name)
}

// readExamples reads every .yaml file of dir, sorted by name.
func readExamples(dir string) ([]example, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no examples (*.yaml) in %s", dir)
	}
	slices.Sort(paths)
	exs := make([]example, 0, len(paths))
	for _, p := range paths {
		ex, err := readExample(p)
		if err != nil {
			return nil, fmt.Errorf("example %s: %w", p, err)
		}
		exs = append(exs, ex)
	}
	return exs, nil
}

var expectLine = regexp.MustCompile(`^#\s*expect:\s*(created|rejected)(?:\s+as\s+(\S+))?\s*$`)

func readExample(path string) (example, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return example{}, err
	}
	ex, err := parseExample(data)
	ex.path, ex.file = path, filepath.Base(path)
	return ex, err
}

// parseExample reads an example's expectation and the object's name, generateName and namespace.
func parseExample(data []byte) (example, error) {
	var ex example
	found := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		m := expectLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		if found {
			return example{}, fmt.Errorf("more than one expect line")
		}
		found = true
		ex.expect = expectation{created: m[1] == "created", as: m[2]}
	}
	if !found {
		return example{}, fmt.Errorf(`no "# expect: created" or "# expect: rejected" line`)
	}
	if bytes.Contains(data, []byte("\n---")) {
		return example{}, fmt.Errorf("one object per example, please")
	}
	var obj struct {
		Metadata struct {
			Name         string `json:"name"`
			GenerateName string `json:"generateName"`
			Namespace    string `json:"namespace"`
		} `json:"metadata"`
	}
	if err := yaml.Unmarshal(data, &obj); err != nil {
		return example{}, fmt.Errorf("decoding: %w", err)
	}
	ex.name, ex.generateName, ex.namespace = obj.Metadata.Name, obj.Metadata.GenerateName, obj.Metadata.Namespace
	if ex.name == "" && ex.generateName == "" {
		return example{}, fmt.Errorf("metadata.name or metadata.generateName is required")
	}
	return ex, nil
}

// namespacesOf lists the namespaces the examples live in, sorted.
func namespacesOf(exs []example) []string {
	var out []string
	for _, ex := range exs {
		if ex.namespace != "" && !slices.Contains(out, ex.namespace) {
			out = append(out, ex.namespace)
		}
	}
	slices.Sort(out)
	return out
}

// kubectl runs the harness's kubectl against the demo's control plane.
type kubectl struct {
	path, kubeconfig string
}

// result is what the API server answered for one example.
type result struct {
	// resource and name of the created object, and its KRI annotation.
	resource, name, kri string
	// rejected is the API server's message when it refused the object.
	rejected string
	// warnings the API server returned.
	warnings []string
	// err is set when kubectl failed for another reason than a rejection.
	err string
}

// outputTemplate prints what a created object got: its resource, name and KRI.
const outputTemplate = `jsonpath={.kind}{"\t"}{.metadata.name}{"\t"}{.metadata.annotations.kriguard\.io/kri}`

// kubectlError is how kubectl reports an API error: "Error from server (Reason): …", or for 422
// Invalid its own rendering of the causes, "The Kind "name" is invalid: …".
var kubectlError = regexp.MustCompile(`^(?:Error from server(?: \(\w+\))?: (?:error when \w+ "[^"]*": )?|The \w+ "[^"]*" is invalid: )`)

// apply creates the example: `kubectl create` for objects with generateName (apply needs a name),
// `kubectl apply` otherwise.
func (k kubectl) apply(ctx context.Context, ex example) result {
	verb := "apply"
	if ex.name == "" {
		verb = "create"
	}
	cmd := exec.CommandContext(ctx, k.path, "--kubeconfig", k.kubeconfig, verb, "-f", ex.path, "-o", outputTemplate)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var r result
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		switch {
		case line == "":
		case strings.HasPrefix(line, "Warning: "):
			r.warnings = append(r.warnings, strings.TrimPrefix(line, "Warning: "))
		case kubectlError.MatchString(line):
			r.rejected = line
		default:
			if r.err != "" {
				r.err += "; "
			}
			r.err += line
		}
	}
	if runErr == nil {
		kind, rest, _ := strings.Cut(strings.TrimSpace(stdout.String()), "\t")
		r.resource = strings.ToLower(kind)
		r.name, r.kri, _ = strings.Cut(rest, "\t")
		r.err = ""
	} else if r.rejected == "" && r.err == "" {
		r.err = fmt.Sprintf("kubectl %s: %v", verb, runErr)
	}
	return r
}

// line renders one example's outcome.
func (r result) line(ex example, ok bool) string {
	var b strings.Builder
	if ok {
		b.WriteString("[ok] ")
	} else {
		fmt.Fprintf(&b, "[UNEXPECTED, expected %s] ", ex.expect)
	}
	b.WriteString(ex.file + ": ")
	switch {
	case r.err != "":
		b.WriteString("error: " + r.err)
	case r.rejected != "":
		b.WriteString("rejected: " + r.rejected)
	default:
		fmt.Fprintf(&b, "created %s/%s", r.resource, r.name)
		if ex.namespace != "" {
			b.WriteString(" in " + ex.namespace)
		}
		var notes []string
		if ex.generateName != "" {
			notes = append(notes, fmt.Sprintf("name: %s from generateName %q", r.name, ex.generateName))
		} else {
			notes = append(notes, "name: "+r.name)
		}
		if r.kri != "" {
			notes = append(notes, "kri: "+r.kri)
		}
		b.WriteString(" (" + strings.Join(notes, ", ") + ")")
	}
	for _, w := range r.warnings {
		b.WriteString("\n     warning: " + w)
	}
	return b.String()
}

// apiMessage returns the API server's own message for the example's rejection: kubectl rewrites
// 422 answers into its own words, so the demo asks again, as a server-side dry run (which the
// webhook answers exactly like the real request, and which creates nothing). It returns "" when the
// dry run is not rejected.
func apiMessage(ctx context.Context, c client.Client, ex example) (string, error) {
	data, err := os.ReadFile(ex.path)
	if err != nil {
		return "", err
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(data, &obj.Object); err != nil {
		return "", fmt.Errorf("decoding %s: %w", ex.file, err)
	}
	err = c.Create(ctx, obj, client.DryRunAll)
	if se, ok := err.(*apierrors.StatusError); ok {
		return se.ErrStatus.Message, nil
	}
	return "", err
}

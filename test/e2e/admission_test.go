package e2e

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kriguard/kriguard/naming/hashsuffix"
)

// TestCertificate checks what cert-controller did: the Secret holds a CA and a serving certificate
// for localhost, the CA bundle it injected into both webhook configurations is that CA, and the
// webhook serves that certificate.
func TestCertificate(t *testing.T) {
	ctx := testContext(t)
	secret := &corev1.Secret{}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: hook.Namespace, Name: hook.SecretName}, secret); err != nil {
		t.Fatalf("reading the certificate secret: %v", err)
	}
	ca := secret.Data["ca.crt"]
	if len(ca) == 0 {
		t.Fatalf("secret %s/%s has no ca.crt; keys: %v", hook.Namespace, hook.SecretName, keysOf(secret.Data))
	}
	bundles, err := hook.CABundles(ctx, env.Client)
	if err != nil {
		t.Fatal(err)
	}
	if len(bundles) != 2 {
		t.Fatalf("got %d webhooks in the configurations, want 2", len(bundles))
	}
	for i, b := range bundles {
		if !bytes.Equal(b, ca) {
			t.Errorf("webhook %d: caBundle is not the secret's ca.crt:\n%s\nwant:\n%s", i, b, ca)
		}
	}

	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		t.Fatalf("ca.crt holds no PEM certificate")
	}
	conn, err := tls.Dial("tcp", net.JoinHostPort(hook.Host, strconv.Itoa(hook.Port)), &tls.Config{RootCAs: pool, ServerName: "localhost"})
	if err != nil {
		t.Fatalf("TLS handshake with the webhook, trusting only the injected CA, for localhost: %v", err)
	}
	defer conn.Close()
	state := conn.ConnectionState()
	leaf := state.PeerCertificates[0]
	if !slices.Contains(leaf.DNSNames, "localhost") {
		t.Errorf("serving certificate DNS names = %v, want localhost among them", leaf.DNSNames)
	}
	if state.Version != tls.VersionTLS13 {
		t.Errorf("negotiated TLS version %x, want TLS 1.3 (the default minimum)", state.Version)
	}
	if block, _ := pem.Decode(secret.Data["tls.crt"]); block == nil || !bytes.Equal(block.Bytes, leaf.Raw) {
		t.Errorf("the webhook serves a certificate other than the secret's tls.crt")
	}

	// TLS 1.2 is refused: the minimum defaults to 1.3.
	if c, err := tls.Dial("tcp", net.JoinHostPort(hook.Host, strconv.Itoa(hook.Port)), &tls.Config{
		RootCAs: pool, ServerName: "localhost", MaxVersion: tls.VersionTLS12,
	}); err == nil {
		c.Close()
		t.Errorf("a TLS 1.2 handshake succeeded; want it refused with the default --tls-min-version=1.3")
	}
}

func keysOf(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestDenied creates objects with naming problems and checks the API server's exact answer: 422,
// Reason Invalid, one cause per problem at the offending field, and the Kubernetes-style message.
func TestDenied(t *testing.T) {
	ns := newNamespace(t)
	ctx := testContext(t)
	mesh := func(v string) map[string]string { return map[string]string{"kuma.io/mesh": v} }
	for _, tc := range []struct {
		name   string
		obj    *unstructured.Unstructured
		causes []cause
		// message is the webhook's message, after the API server's "admission webhook … denied the request: ".
		message string
	}{
		{
			name: "mesh label",
			obj:  meshTimeout(ns, "t1", mesh("Mesh_1"), "http"),
			causes: []cause{{
				Field: "metadata.labels[kuma.io/mesh]", Type: "FieldValueInvalid",
				Message: `Invalid value: "Mesh_1": must start with a lowercase letter; must contain only lowercase letters, digits or '-' (found 'M', '_')`,
			}},
			message: `MeshTimeout.kuma.io "t1" is invalid: metadata.labels[kuma.io/mesh]: Invalid value: "Mesh_1": must start with a lowercase letter; must contain only lowercase letters, digits or '-' (found 'M', '_')`,
		},
		{
			name: "section name of a target reference",
			obj:  meshTimeout(ns, "t2", mesh("default"), "HTTP_8080"),
			causes: []cause{{
				Field: "spec.to[0].targetRef.sectionName", Type: "FieldValueInvalid",
				Message: `Invalid value: "HTTP_8080": must start with a lowercase letter or digit; must contain only lowercase letters, digits or '-' (found 'H', 'T', 'P', '_')`,
			}},
			message: `MeshTimeout.kuma.io "t2" is invalid: spec.to[0].targetRef.sectionName: Invalid value: "HTTP_8080": must start with a lowercase letter or digit; must contain only lowercase letters, digits or '-' (found 'H', 'T', 'P', '_')`,
		},
		{
			name: "every problem at once",
			obj: meshTimeout(ns, "t3", map[string]string{
				"kuma.io/mesh": "1mesh", "kuma.io/zone": "Zone1", "kuma.io/display-name": "Backend",
			}, "port-"),
			causes: []cause{
				{Field: "metadata.labels[kuma.io/mesh]", Type: "FieldValueInvalid", Message: `Invalid value: "1mesh": must start with a lowercase letter`},
				{Field: "metadata.labels[kuma.io/zone]", Type: "FieldValueInvalid", Message: `Invalid value: "Zone1": must start with a lowercase letter; must contain only lowercase letters, digits or '-' (found 'Z')`},
				{Field: "metadata.labels[kuma.io/display-name]", Type: "FieldValueInvalid", Message: `Invalid value: "Backend": must start with a lowercase letter or digit; must contain only lowercase letters, digits, '-' or '.' (found 'B')`},
				{Field: "spec.to[0].targetRef.sectionName", Type: "FieldValueInvalid", Message: `Invalid value: "port-": must end with a lowercase letter or digit`},
			},
			message: `MeshTimeout.kuma.io "t3" is invalid: [` +
				`metadata.labels[kuma.io/mesh]: Invalid value: "1mesh": must start with a lowercase letter, ` +
				`metadata.labels[kuma.io/zone]: Invalid value: "Zone1": must start with a lowercase letter; must contain only lowercase letters, digits or '-' (found 'Z'), ` +
				`metadata.labels[kuma.io/display-name]: Invalid value: "Backend": must start with a lowercase letter or digit; must contain only lowercase letters, digits, '-' or '.' (found 'B'), ` +
				`spec.to[0].targetRef.sectionName: Invalid value: "port-": must end with a lowercase letter or digit]`,
		},
		{
			name: "global-scoped legacy kind with a top-level mesh",
			obj:  withMeshField(object(kumaAPIVersion, "Mesh", "", "demo", nil, map[string]any{}), "default"),
			causes: []cause{{
				Field: "mesh", Type: "FieldValueForbidden",
				Message: `Forbidden: must be empty: Mesh ("m") is global-scoped`,
			}},
			message: `Mesh.kuma.io "demo" is invalid: mesh: Forbidden: must be empty: Mesh ("m") is global-scoped`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := env.Client.Create(ctx, tc.obj)
			if err == nil {
				t.Fatalf("created %s %q; want it denied", tc.obj.GetKind(), tc.obj.GetName())
			}
			checkInvalid(t, err, tc.obj, tc.causes, tc.message)

			// A server-side dry run is answered exactly like the real request.
			dry := env.Client.Create(ctx, tc.obj.DeepCopy(), client.DryRunAll)
			if dry == nil {
				t.Fatalf("dry-run create succeeded; want the same denial as the real one")
			}
			if got, want := statusError(t, dry).ErrStatus, statusError(t, err).ErrStatus; !reflect.DeepEqual(got, want) {
				t.Errorf("dry-run status differs from the real one:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// checkInvalid asserts that err is the webhook's 422 for obj with exactly these causes and message.
func checkInvalid(t *testing.T, err error, obj *unstructured.Unstructured, causes []cause, message string) {
	t.Helper()
	se := statusError(t, err)
	st := se.ErrStatus
	if st.Code != 422 || st.Reason != metav1.StatusReasonInvalid || !apierrors.IsInvalid(err) {
		t.Errorf("code %d, reason %q; want 422 Invalid (%v)", st.Code, st.Reason, err)
	}
	if st.Details == nil {
		t.Fatalf("status has no details: %+v", st)
	}
	gvk := obj.GroupVersionKind()
	if st.Details.Group != gvk.Group || st.Details.Kind != gvk.Kind || st.Details.Name != obj.GetName() {
		t.Errorf("details name %s.%s %q, want %s.%s %q", st.Details.Kind, st.Details.Group, st.Details.Name, gvk.Kind, gvk.Group, obj.GetName())
	}
	if got := causesOf(se); !reflect.DeepEqual(got, causes) {
		t.Errorf("causes:\n got %+v\nwant %+v", got, causes)
	}
	if want := deniedPrefix + message; st.Message != want {
		t.Errorf("message:\n got %s\nwant %s", st.Message, want)
	}
}

// TestCreated checks that valid objects pass and that the mutating webhook records their KRI.
func TestCreated(t *testing.T) {
	ns := newNamespace(t)
	ctx := testContext(t)
	for _, tc := range []struct {
		name string
		obj  *unstructured.Unstructured
		kri  string
	}{
		{"mesh-scoped, mesh label", meshTimeout(ns, "timeouts", map[string]string{"kuma.io/mesh": "mesh-1"}, "http"), "kri_mt_mesh-1___timeouts_"},
		{"mesh-scoped, default mesh", meshService(ns, "backend", nil, "http"), "kri_msvc_default___backend_"},
		{"zone, namespace label and display-name annotation", withAnnotations(meshService(ns, "backend-x7k2", map[string]string{
			"kuma.io/mesh": "default", "kuma.io/zone": "east", "k8s.kuma.io/namespace": ns,
		}, "http"), map[string]string{"kuma.io/display-name": "backend"}), "kri_msvc_default_east_" + ns + "_backend_"},
		{"global-scoped", object(kumaAPIVersion, "Mesh", "", "mesh-1", nil, map[string]any{}), "kri_m____mesh-1_"},
		{"stale KRI annotation", withAnnotations(meshService(ns, "frontend", nil, "http"), map[string]string{
			"kriguard.io/kri": "kri_msvc_default__elsewhere_frontend_", "team": "web",
		}), "kri_msvc_default___frontend_"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := tc.obj.DeepCopy()
			if err := env.Client.Create(ctx, obj); err != nil {
				t.Fatalf("create: %v", err)
			}
			t.Cleanup(func() { _ = env.Client.Delete(ctx, obj) })
			if got := obj.GetAnnotations()["kriguard.io/kri"]; got != tc.kri {
				t.Errorf("annotation kriguard.io/kri = %q, want %q", got, tc.kri)
			}
			// The patch touches nothing else.
			if obj.GetName() != tc.obj.GetName() {
				t.Errorf("name changed from %q to %q", tc.obj.GetName(), obj.GetName())
			}
			if !reflect.DeepEqual(obj.GetLabels(), tc.obj.GetLabels()) {
				t.Errorf("labels changed from %v to %v", tc.obj.GetLabels(), obj.GetLabels())
			}
			sent := tc.obj.GetAnnotations()
			for k, v := range obj.GetAnnotations() {
				if k != "kriguard.io/kri" && sent[k] != v {
					t.Errorf("annotation %s = %q, sent %q", k, v, sent[k])
				}
			}
			if !reflect.DeepEqual(obj.Object["spec"], tc.obj.Object["spec"]) {
				t.Errorf("spec changed:\n got %v\nsent %v", obj.Object["spec"], tc.obj.Object["spec"])
			}
		})
	}
}

// withMeshField sets the top-level mesh field of Kuma's legacy kinds.
func withMeshField(u *unstructured.Unstructured, mesh string) *unstructured.Unstructured {
	u.Object["mesh"] = mesh
	return u
}

func withAnnotations(u *unstructured.Unstructured, a map[string]string) *unstructured.Unstructured {
	u.SetAnnotations(a)
	return u
}

// TestGenerateName checks that generateName yields Kuma's hash-suffix name, computed here with
// naming/hashsuffix from the object's mesh and name and its zone and namespace labels (KDS's
// inputs), that the original name is kept in the kuma.io/display-name annotation, and that a second
// identical create collides.
func TestGenerateName(t *testing.T) {
	ns := newNamespace(t)
	ctx := testContext(t)
	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   string
	}{
		{"default mesh, no labels: metadata.namespace is not hashed", nil, hashsuffix.Name("default", "timeouts")},
		{"mesh, zone and namespace labels", map[string]string{"kuma.io/mesh": "mesh-1", "kuma.io/zone": "east", "k8s.kuma.io/namespace": ns},
			hashsuffix.Name("mesh-1", "timeouts", "east", ns)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			newObj := func() *unstructured.Unstructured {
				o := meshTimeout(ns, "", tc.labels, "http")
				o.SetGenerateName("timeouts-")
				return o
			}
			// A dry run returns the name the object would get and creates nothing.
			dry := newObj()
			if err := env.Client.Create(ctx, dry, client.DryRunAll); err != nil {
				t.Fatalf("dry-run create: %v", err)
			}
			if dry.GetName() != tc.want {
				t.Errorf("dry run: name = %q, want %q", dry.GetName(), tc.want)
			}
			var list unstructured.UnstructuredList
			list.SetAPIVersion(kumaAPIVersion)
			list.SetKind("MeshTimeoutList")
			if err := env.Client.List(ctx, &list, client.InNamespace(ns)); err != nil {
				t.Fatal(err)
			}
			for _, it := range list.Items {
				if it.GetName() == tc.want {
					t.Fatalf("the dry run created %s", tc.want)
				}
			}

			obj := newObj()
			if err := env.Client.Create(ctx, obj); err != nil {
				t.Fatalf("create: %v", err)
			}
			t.Cleanup(func() { _ = env.Client.Delete(ctx, obj) })
			if obj.GetName() != tc.want {
				t.Errorf("name = %q, want %q", obj.GetName(), tc.want)
			}
			if got := obj.GetAnnotations()["kuma.io/display-name"]; got != "timeouts" {
				t.Errorf("annotation kuma.io/display-name = %q, want %q", got, "timeouts")
			}
			if _, ok := obj.GetLabels()["kuma.io/display-name"]; ok {
				t.Errorf("the webhook set a kuma.io/display-name label: %v", obj.GetLabels())
			}
			mesh := tc.labels["kuma.io/mesh"]
			if mesh == "" {
				mesh = "default"
			}
			wantKRI := "kri_mt_" + mesh + "_" + tc.labels["kuma.io/zone"] + "_" + tc.labels["k8s.kuma.io/namespace"] + "_timeouts_"
			if got := obj.GetAnnotations()["kriguard.io/kri"]; got != wantKRI {
				t.Errorf("annotation kriguard.io/kri = %q, want %q", got, wantKRI)
			}

			err := env.Client.Create(ctx, newObj())
			if !apierrors.IsAlreadyExists(err) {
				t.Fatalf("second create with the same inputs: got %v, want AlreadyExists", err)
			}
			if se := statusError(t, err); se.ErrStatus.Code != http.StatusConflict || se.ErrStatus.Details.Name != tc.want {
				t.Errorf("second create: code %d, name %q; want 409 for %q", se.ErrStatus.Code, se.ErrStatus.Details.Name, tc.want)
			}
		})
	}
}

// TestWarn checks the warn enforcement (MeshRetry in this package's configuration): the object is
// created and the problems come back as warnings.
func TestWarn(t *testing.T) {
	ns := newNamespace(t)
	ctx := testContext(t)
	c, warnings := warningClient(t)
	obj := meshRetry(ns, "retries", map[string]string{"kuma.io/mesh": "Mesh_1"}, "http")
	before := decisions(t, "MeshRetry", "CREATE", "warned", "warn")
	if err := c.Create(ctx, obj); err != nil {
		t.Fatalf("create under warn: %v", err)
	}
	want := []string{`MeshRetry.kuma.io "retries": metadata.labels[kuma.io/mesh]: Invalid value: "Mesh_1": must start with a lowercase letter; must contain only lowercase letters, digits or '-' (found 'M', '_')`}
	if got := warnings.take(); !reflect.DeepEqual(got, want) {
		t.Errorf("warnings:\n got %q\nwant %q", got, want)
	}
	if after := decisions(t, "MeshRetry", "CREATE", "warned", "warn"); after != before+1 {
		t.Errorf("decision counter {MeshRetry CREATE warned warn} went from %v to %v, want +1", before, after)
	}
	if _, ok := obj.GetAnnotations()["kriguard.io/kri"]; ok {
		t.Errorf("an object without a valid KRI got the kriguard.io/kri annotation %q", obj.GetAnnotations()["kriguard.io/kri"])
	}

	// A server-side dry run gets the same warnings and creates nothing.
	dry := meshRetry(ns, "retries-dry", map[string]string{"kuma.io/mesh": "Mesh_1"}, "http")
	if err := c.Create(ctx, dry, client.DryRunAll); err != nil {
		t.Fatalf("dry-run create under warn: %v", err)
	}
	wantDry := []string{strings.Replace(want[0], `"retries"`, `"retries-dry"`, 1)}
	if got := warnings.take(); !reflect.DeepEqual(got, wantDry) {
		t.Errorf("dry-run warnings:\n got %q\nwant %q", got, wantDry)
	}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(dry), dry.DeepCopy()); !apierrors.IsNotFound(err) {
		t.Errorf("after a dry run, get: %v; want NotFound", err)
	}

	// A valid object under warn gets no warning.
	good := meshRetry(ns, "retries-ok", nil, "http")
	if err := c.Create(ctx, good); err != nil {
		t.Fatalf("create: %v", err)
	}
	if got := warnings.take(); len(got) != 0 {
		t.Errorf("warnings for a valid object: %q", got)
	}
}

// TestDryRunEnforcement checks the dryrun enforcement (MeshRateLimit in this package's
// configuration): the object is created untouched, without warnings, and the decision is counted.
func TestDryRunEnforcement(t *testing.T) {
	ns := newNamespace(t)
	ctx := testContext(t)
	c, warnings := warningClient(t)
	before := decisions(t, "MeshRateLimit", "CREATE", "dryrun", "dryrun")
	obj := meshRateLimit(ns, "limits", map[string]string{"kuma.io/mesh": "Mesh_1"}, "http")
	if err := c.Create(ctx, obj); err != nil {
		t.Fatalf("create under dryrun: %v", err)
	}
	if got := warnings.take(); len(got) != 0 {
		t.Errorf("warnings under dryrun: %q", got)
	}
	if after := decisions(t, "MeshRateLimit", "CREATE", "dryrun", "dryrun"); after != before+1 {
		t.Errorf("decision counter {MeshRateLimit CREATE dryrun dryrun} went from %v to %v, want +1", before, after)
	}
}

// TestUpdate checks that an update is denied only for the problems it introduces, and that the KRI
// annotation follows the object. The object starts out invalid, created past the webhook (the bypass
// label), as if it had been admitted before the webhook was installed.
func TestUpdate(t *testing.T) {
	ns := newNamespace(t)
	ctx := testContext(t)
	c, warnings := warningClient(t)
	obj := meshTimeout(ns, "legacy", map[string]string{"kuma.io/mesh": "default", bypassLabel: "true"}, "Port_80")
	if err := c.Create(ctx, obj); err != nil {
		t.Fatalf("creating past the webhook: %v", err)
	}
	if _, ok := obj.GetAnnotations()["kriguard.io/kri"]; ok {
		t.Fatalf("the webhook saw an object labelled %s", bypassLabel)
	}

	// The first update the webhook sees: drop the bypass label, change the timeouts. The old
	// problem is let through with a warning; the KRI annotation is added.
	labels := obj.GetLabels()
	delete(labels, bypassLabel)
	obj.SetLabels(labels)
	obj.Object["spec"].(map[string]any)["to"].([]any)[0].(map[string]any)["default"].(map[string]any)["idleTimeout"] = "30s"
	if err := c.Update(ctx, obj); err != nil {
		t.Fatalf("update keeping an old problem: %v", err)
	}
	wantWarn := []string{`MeshTimeout.kuma.io "legacy": pre-existing problem, allowed on update: spec.to[0].targetRef.sectionName: Invalid value: "Port_80": must start with a lowercase letter or digit; must contain only lowercase letters, digits or '-' (found 'P', '_')`}
	if got := warnings.take(); !reflect.DeepEqual(got, wantWarn) {
		t.Errorf("warnings:\n got %q\nwant %q", got, wantWarn)
	}
	if got, want := obj.GetAnnotations()["kriguard.io/kri"], "kri_mt_default___legacy_"; got != want {
		t.Errorf("annotation after update = %q, want %q", got, want)
	}

	// An update that adds a problem is denied, naming only the new one.
	bad := obj.DeepCopy()
	bad.SetLabels(map[string]string{"kuma.io/mesh": "default", "kuma.io/zone": "Zone_1"})
	err := c.Update(ctx, bad)
	if err == nil {
		t.Fatalf("update introducing a bad zone succeeded")
	}
	checkInvalid(t, err, bad, []cause{{
		Field: "metadata.labels[kuma.io/zone]", Type: "FieldValueInvalid",
		Message: `Invalid value: "Zone_1": must start with a lowercase letter; must contain only lowercase letters, digits or '-' (found 'Z', '_')`,
	}}, `MeshTimeout.kuma.io "legacy" is invalid: metadata.labels[kuma.io/zone]: Invalid value: "Zone_1": must start with a lowercase letter; must contain only lowercase letters, digits or '-' (found 'Z', '_')`)
	warnings.take()

	// The annotation follows the object: moving it to another mesh rewrites it.
	moved := obj.DeepCopy()
	moved.SetLabels(map[string]string{"kuma.io/mesh": "mesh-2"})
	if err := c.Update(ctx, moved); err != nil {
		t.Fatalf("update moving to mesh-2: %v", err)
	}
	if got, want := moved.GetAnnotations()["kriguard.io/kri"], "kri_mt_mesh-2___legacy_"; got != want {
		t.Errorf("annotation after moving = %q, want %q", got, want)
	}

	// DELETE is never blocked, not even for an object with problems, and the webhook sees it.
	before := decisions(t, "MeshTimeout", "DELETE", "allowed", "deny")
	if err := c.Delete(ctx, moved); err != nil {
		t.Fatalf("delete: %v", err)
	}
	// The counter is per process and per kind, not per object, and the API server may call a
	// webhook again for a DELETE it retries, so only "at least one more" is this delete's.
	if after := decisions(t, "MeshTimeout", "DELETE", "allowed", "deny"); after < before+1 {
		t.Errorf("decision counter {MeshTimeout DELETE allowed deny} went from %v to %v, want at least +1", before, after)
	}
}

// TestUnguardedNamespaces checks the defaults that keep a cluster alive: the webhook's own
// namespace and kube-system are not guarded.
func TestUnguardedNamespaces(t *testing.T) {
	ctx := testContext(t)
	for _, ns := range []string{hook.Namespace, metav1.NamespaceSystem} {
		obj := meshTimeout(ns, "unguarded", map[string]string{"kuma.io/mesh": "Mesh_1"}, "http")
		if err := env.Client.Create(ctx, obj); err != nil {
			t.Errorf("create in %s: %v", ns, err)
			continue
		}
		_ = env.Client.Delete(ctx, obj)
	}
}

// TestProxyPatchStatUnsafe: a MeshProxyPatch whose value names a cluster Envoy's stats split is
// created, under deny, with one warning naming the value's field; the same cluster with Kuma's
// sanitized alt_stat_name gets none.
func TestProxyPatchStatUnsafe(t *testing.T) {
	ns := newNamespace(t)
	ctx := testContext(t)
	c, warnings := warningClient(t)
	patch := func(name, value string) *unstructured.Unstructured {
		return object(kumaAPIVersion, "MeshProxyPatch", ns, name, map[string]string{"kuma.io/mesh": "default"}, map[string]any{
			"targetRef": map[string]any{"kind": "Mesh"},
			"default": map[string]any{"appendModifications": []any{
				map[string]any{"cluster": map[string]any{"operation": "Add", "value": value}},
			}},
		})
	}
	if err := c.Create(ctx, patch("dotted", "name: httpbin.org_443\ntype: STRICT_DNS\n")); err != nil {
		t.Fatalf("create: %v", err)
	}
	want := []string{`MeshProxyPatch.kuma.io "dotted": spec.default.appendModifications[0].cluster.value: Invalid value: "httpbin.org_443": name (a cluster's name, with no alt_stat_name) holds '.', outside Envoy's stat-safe set [a-zA-Z0-9_-]: '.' splits the name in Envoy's stats, and the tag extractors keep only its first segment; alt_stat_name: "httpbin_org_443" keeps the stats whole, as Kuma writes it`}
	if got := warnings.take(); !reflect.DeepEqual(got, want) {
		t.Errorf("warnings:\n got %q\nwant %q", got, want)
	}
	if err := c.Create(ctx, patch("sanitized", "name: kri_extsvc_default__kuma-system_httpbin.org_443\nalt_stat_name: kri_extsvc_default__kuma-system_httpbin_org_443\n")); err != nil {
		t.Fatalf("create: %v", err)
	}
	if got := warnings.take(); len(got) != 0 {
		t.Errorf("warnings for Kuma's sanitized alt_stat_name: %q", got)
	}
}

package chart

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/yaml"

	"github.com/kriguard/kriguard/rules"
)

// valueSets are the configurations every chart test renders: the defaults and the options a user is
// most likely to change.
var valueSets = []struct {
	name   string
	values string
}{
	{name: "defaults"},
	{name: "requester overrides changed", values: `
config:
  kuma: {version: "3.0", mode: global}
  requesters:
    kuma-control-plane: {enforcement: deny}
    kong-operator: {enabled: false}
    ci: {enforcement: dryrun, groups: [ci-bots], serviceAccountNamespaces: [argocd]}
  rules:
    disabled: [kuma/proxy-patch-stat-unsafe, envoy/stat-unsafe]
`},
	{name: "cert-manager", values: `
certManager:
  enabled: true
`},
	{name: "cert-manager with an existing issuer", values: `
certManager:
  enabled: true
  issuerRef: {name: corp-ca, kind: ClusterIssuer, group: cert-manager.io}
config:
  kuma: {version: "2.14", mode: zone}
`},
	{name: "one replica, permissive", values: `
replicaCount: 1
admission:
  failurePolicy: Ignore
  reinvocationPolicy: Never
  timeoutSeconds: 10
config:
  defaultEnforcement: warn
`},
	{name: "customised kinds", values: `
admission:
  excludeNamespaces: [monitoring, istio-system]
  optOutLabel: example.com/no-kriguard
config:
  types:
    - {kind: MeshWidget, shortName: mw, scope: Mesh}
  kinds:
    MeshTimeout: {enforcement: dryrun}
    Dataplane: {enabled: false}
    MeshWidget: {group: kuma.io, version: v1alpha1, resource: meshwidgets}
    MeshGadget: {group: kuma.io, version: v1alpha1, resource: meshgadgets, shortName: mg, scope: Global, enforcement: warn}
`},
	{name: "renamed, pinned, no metrics", values: `
fullnameOverride: guard
image:
  digest: sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
webhook:
  metricsPort: 0
  port: 10250
  shutdownDelaySeconds: 20
  extraArgs: [--enable-http2=false]
terminationGracePeriodSeconds: 60
`},
	{name: "who may call", values: `
webhook:
  clientCA: |
    -----BEGIN CERTIFICATE-----
    MIIBszCCAVmgAwIBAgIBATAKBggqhkjOPQQDAjAWMRQwEgYDVQQDEwtleGFtcGxlLWNhMB4XDTI2MDEwMTAwMDAwMFo=
    -----END CERTIFICATE-----
networkPolicy:
  enabled: true
  webhookFrom: [{ipBlock: {cidr: 10.0.0.0/24}}]
  metricsFrom: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}}]
resources:
  limits: {memory: 320Mi}
`},
	{name: "KRI not recorded", values: `
webhook:
  recordKRI: off # unquoted: YAML 1.1 reads false
config:
  kinds:
    Dataplane: {enabled: false}
`},
	{name: "KRI recorded at admission", values: `
webhook:
  recordKRI: admission
`},
	{name: "peer cache", values: `
webhook:
  peerCache: {maxObjects: 50000}
resources:
  limits: {memory: 448Mi}
`},
	{name: "peer cache with cert-manager, pinned", values: `
certManager:
  enabled: true
config:
  kuma: {version: "3.0", mode: global}
webhook:
  peerCache: {maxObjects: 10000}
`},
}

func TestLintStrict(t *testing.T) {
	for _, vs := range valueSets {
		t.Run(vs.name, func(t *testing.T) {
			args := []string{"lint", "--strict", chartDir(t), "--namespace", releaseNamespace}
			out, err := helm(t, "", append(args, valuesFile(t, vs.values)...)...)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, "0 chart(s) failed") {
				t.Errorf("helm lint did not report success:\n%s", out)
			}
		})
	}
}

// chartValues reads the chart's own values.yaml merged with a values document, the way the templates see
// them (one level of map merging is all these tests need).
func chartValues(t testing.TB, overlay string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(chartDir(t), "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var base, over map[string]any
	if err := yaml.Unmarshal(data, &base); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(overlay), &over); err != nil {
		t.Fatal(err)
	}
	return merge(base, over)
}

func merge(base, over map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		bm, ok1 := out[k].(map[string]any)
		om, ok2 := v.(map[string]any)
		if ok1 && ok2 {
			out[k] = merge(bm, om)
			continue
		}
		out[k] = v
	}
	return out
}

// guardedKind is one enabled entry of config.kinds.
type guardedKind struct {
	group, version, kind, resource, enforcement string
}

// guardedKinds lists the enabled kinds of a values map, sorted by kind.
func guardedKinds(values map[string]any) []guardedKind {
	var out []guardedKind
	kinds, _ := values["config"].(map[string]any)["kinds"].(map[string]any)
	for key, raw := range kinds {
		m, _ := raw.(map[string]any)
		if m == nil || m["enabled"] == false {
			continue
		}
		k := guardedKind{group: str(m["group"]), version: str(m["version"]), kind: key, resource: str(m["resource"]), enforcement: str(m["enforcement"])}
		if s := str(m["kind"]); s != "" {
			k.kind = s
		}
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b guardedKind) int { return strings.Compare(a.kind, b.kind) })
	return out
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// contractFlags reads the webhook's flags from docs/contracts.md, the file the chart and the binary
// both follow.
func contractFlags(t testing.TB) sets.Set[string] {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root(t), "docs", "contracts.md"))
	if err != nil {
		t.Fatal(err)
	}
	flags := sets.New[string]()
	for _, m := range regexp.MustCompile("(?m)^\\| `(--[a-z0-9-]+)`").FindAllStringSubmatch(string(data), -1) {
		flags.Insert(m[1])
	}
	if flags.Len() < 10 {
		t.Fatalf("found only %d flags in docs/contracts.md: %v", flags.Len(), sets.List(flags))
	}
	return flags
}

// recordKRI is webhook.recordKRI as the webhook is told it: an unquoted off reaches the chart as false.
func recordKRI(values map[string]any) rules.RecordKRI {
	switch v := values["webhook"].(map[string]any)["recordKRI"]; v {
	case false, "off":
		return rules.RecordKRIOff
	case "admission":
		return rules.RecordKRIAdmission
	default:
		panic(fmt.Sprintf("webhook.recordKRI %v is neither admission nor off", v))
	}
}

// names the objects of a release are expected to have.
type names struct {
	full, service, secret, validating, mutating, configMap, serviceAccount string
}

func namesFor(full string) names {
	return names{
		full: full, service: full + "-webhook", secret: full + "-webhook-tls",
		validating: full + "-validating", mutating: full + "-mutating", configMap: full + "-config",
		serviceAccount: full,
	}
}

func TestRender(t *testing.T) {
	flags := contractFlags(t)
	for _, vs := range valueSets {
		t.Run(vs.name, func(t *testing.T) {
			values := chartValues(t, vs.values)
			objs := render(t, "kriguard", releaseNamespace, vs.values)
			n := namesFor("kriguard")
			if s := str(values["fullnameOverride"]); s != "" {
				n = namesFor(s)
			}
			certManager := values["certManager"].(map[string]any)["enabled"] == true

			checkObjectSet(t, objs, n, values, certManager)
			checkMetadata(t, objs)
			checkWebhookConfigurations(t, objs, n, values, certManager)
			checkDeployment(t, objs, n, values, certManager, flags)
			checkConfigMap(t, objs, n, values)
			checkLimits(t, objs, n, values)
			checkPeerCacheRBAC(t, objs, n, values)
			if certManager {
				checkCertManager(t, objs, n, values)
			} else {
				checkRBAC(t, objs, n)
			}
		})
	}
}

func checkObjectSet(t *testing.T, objs manifest, n names, values map[string]any, certManager bool) {
	t.Helper()
	want := []string{
		"ConfigMap/" + n.configMap, "ServiceAccount/" + n.serviceAccount, "Service/" + n.service,
		"Deployment/" + n.full, "ValidatingWebhookConfiguration/" + n.validating,
		"MutatingWebhookConfiguration/" + n.mutating,
	}
	if values["replicaCount"].(float64) >= 2 {
		want = append(want, "PodDisruptionBudget/"+n.full)
	}
	webhook := values["webhook"].(map[string]any)
	if str(webhook["clientCA"]) != "" {
		want = append(want, "ConfigMap/"+n.full+"-client-ca")
	}
	if values["networkPolicy"].(map[string]any)["enabled"] == true {
		want = append(want, "NetworkPolicy/"+n.full)
	}
	if certManager {
		want = append(want, "Certificate/"+n.full+"-serving-cert")
		if len(values["certManager"].(map[string]any)["issuerRef"].(map[string]any)) == 0 {
			want = append(want, "Issuer/"+n.full+"-selfsigned")
		}
	} else {
		want = append(want, "Secret/"+n.secret, "Role/"+n.full+"-cert-controller",
			"RoleBinding/"+n.full+"-cert-controller", "ClusterRole/"+n.full+"-cert-controller",
			"ClusterRoleBinding/"+n.full+"-cert-controller")
	}
	if kumaDetects(values) {
		// kuma.version or kuma.mode auto reads the Kuma control plane's Deployment.
		want = append(want, "ClusterRole/"+n.full+"-kuma-release", "ClusterRoleBinding/"+n.full+"-kuma-release")
	}
	if peerCache(values) > 0 {
		want = append(want, "ClusterRole/"+n.full+"-peer-cache", "ClusterRoleBinding/"+n.full+"-peer-cache")
	}
	got := objs.names()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("rendered objects:\n got %v\nwant %v", got, want)
	}
}

func checkMetadata(t *testing.T, objs manifest) {
	t.Helper()
	clusterScoped := sets.New("ClusterRole", "ClusterRoleBinding", "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration")
	for _, o := range objs {
		id := o.GetKind() + "/" + o.GetName()
		l := o.GetLabels()
		for _, k := range []string{"helm.sh/chart", "app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/version", "app.kubernetes.io/managed-by"} {
			if l[k] == "" {
				t.Errorf("%s: label %s is missing", id, k)
			}
		}
		if l["app.kubernetes.io/managed-by"] != "Helm" {
			t.Errorf("%s: app.kubernetes.io/managed-by = %q, want Helm", id, l["app.kubernetes.io/managed-by"])
		}
		if clusterScoped.Has(o.GetKind()) {
			if o.GetNamespace() != "" {
				t.Errorf("%s: cluster-scoped object has namespace %q", id, o.GetNamespace())
			}
		} else if o.GetNamespace() != releaseNamespace {
			t.Errorf("%s: namespace = %q, want the release namespace %q", id, o.GetNamespace(), releaseNamespace)
		}
		// Helm deletes hook objects only by their delete policy, not on uninstall; the chart has none.
		for k := range o.GetAnnotations() {
			if strings.HasPrefix(k, "helm.sh/hook") {
				t.Errorf("%s: annotation %s: the chart must not use hooks", id, k)
			}
		}
	}
}

func checkWebhookConfigurations(t *testing.T, objs manifest, n names, values map[string]any, certManager bool) {
	t.Helper()
	admission := values["admission"].(map[string]any)
	record := recordKRI(values)
	// A rule is group/version/resource and one operation: the validating webhook is sent CREATE and
	// UPDATE of every guarded kind, the mutating one only what it may patch (rules.MutatedOperations).
	wantRules, wantMutating := sets.New[string](), sets.New[string]()
	for _, k := range guardedKinds(values) {
		gvr := k.group + "/" + k.version + "/" + k.resource
		wantRules.Insert(gvr+" CREATE", gvr+" UPDATE")
		for _, op := range rules.MutatedOperations(schema.GroupKind{Group: k.group, Kind: k.kind}, record) {
			wantMutating.Insert(gvr + " " + string(op))
		}
	}
	excluded := []string{"kube-system", releaseNamespace}
	for _, ns := range admission["excludeNamespaces"].([]any) {
		excluded = append(excluded, ns.(string))
	}

	for _, tc := range []struct {
		kind, name, path string
	}{
		{"ValidatingWebhookConfiguration", n.validating, "/validate"},
		{"MutatingWebhookConfiguration", n.mutating, "/mutate"},
	} {
		o := objs.get(t, tc.kind, tc.name)
		id := tc.kind + "/" + tc.name
		// The injector owns caBundle; a template value would be put back on every upgrade.
		if data, _ := yaml.Marshal(o.Object); strings.Contains(string(data), "caBundle") {
			t.Errorf("%s: has a caBundle in the template", id)
		}
		inject := o.GetAnnotations()["cert-manager.io/inject-ca-from"]
		if certManager && inject != releaseNamespace+"/"+n.full+"-serving-cert" {
			t.Errorf("%s: cert-manager.io/inject-ca-from = %q", id, inject)
		}
		if !certManager && inject != "" {
			t.Errorf("%s: cert-manager annotation without cert-manager", id)
		}
		hooks := slice(t, o, "webhooks")
		if len(hooks) != 1 {
			t.Fatalf("%s: %d webhooks, want 1", id, len(hooks))
		}
		h := &unstructured.Unstructured{Object: hooks[0]}
		for _, c := range []struct {
			path []string
			want any
		}{
			{[]string{"sideEffects"}, "None"},
			{[]string{"admissionReviewVersions"}, []any{"v1"}},
			{[]string{"failurePolicy"}, admission["failurePolicy"]},
			{[]string{"timeoutSeconds"}, admission["timeoutSeconds"]},
			{[]string{"matchPolicy"}, "Equivalent"},
			{[]string{"clientConfig", "service", "name"}, n.service},
			{[]string{"clientConfig", "service", "namespace"}, releaseNamespace},
			{[]string{"clientConfig", "service", "path"}, tc.path},
			{[]string{"clientConfig", "service", "port"}, float64(443)},
		} {
			if got := field(t, h, c.path...); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("%s: %s = %v, want %v", id, strings.Join(c.path, "."), got, c.want)
			}
		}
		// The mutating webhook is called only when its patch is possible (rules.MutateCondition); the
		// validating one for every object.
		var wantConditions []any
		if cond := rules.MutateCondition(record); cond != "" && tc.kind == "MutatingWebhookConfiguration" {
			wantConditions = []any{map[string]any{"name": "generated-name", "expression": cond}}
		}
		if got, _ := hooks[0]["matchConditions"].([]any); !reflect.DeepEqual(got, wantConditions) {
			t.Errorf("%s: matchConditions = %v, want %v", id, got, wantConditions)
		}
		if tc.kind == "MutatingWebhookConfiguration" && hooks[0]["reinvocationPolicy"] != admission["reinvocationPolicy"] {
			t.Errorf("%s: reinvocationPolicy = %v, want %v", id, hooks[0]["reinvocationPolicy"], admission["reinvocationPolicy"])
		}
		if _, ok := hooks[0]["clientConfig"].(map[string]any)["url"]; ok {
			t.Errorf("%s: clientConfig.url set; the webhook is reached through its Service", id)
		}

		want := wantMutating
		if tc.kind == "ValidatingWebhookConfiguration" {
			want = wantRules
			if routesRemovedKinds(values) {
				for r := range removedRules(t) {
					want = want.Union(sets.New(r+" CREATE", r+" UPDATE"))
				}
			}
		}
		gotRules := sets.New[string]()
		for _, r := range slice(t, h, "rules") {
			ops, _ := r["operations"].([]any)
			if len(ops) == 0 {
				t.Errorf("%s: rule %v has no operations", id, r)
			}
			for _, g := range r["apiGroups"].([]any) {
				for _, v := range r["apiVersions"].([]any) {
					for _, res := range r["resources"].([]any) {
						rule := fmt.Sprintf("%s/%s/%s", g, v, res)
						if strings.Contains(rule, "*") || g == "" || strings.HasSuffix(g.(string), "k8s.io") || strings.Count(rule, "/") != 2 {
							t.Errorf("%s: rule %s is a wildcard, a Kubernetes group or a subresource", id, rule)
						}
						for _, op := range ops {
							if op != "CREATE" && op != "UPDATE" {
								t.Errorf("%s: rule %s on %v: only CREATE and UPDATE are sent (DELETE is never blocked)", id, rule, op)
							}
							gotRules.Insert(fmt.Sprintf("%s %s", rule, op))
						}
					}
				}
			}
		}
		if !gotRules.Equal(want) {
			t.Errorf("%s: rules differ from config.kinds (the mutating webhook's: what it may patch; the validating one's: and the removed kinds):\n missing %v\n extra %v", id,
				sets.List(want.Difference(gotRules)), sets.List(gotRules.Difference(want)))
		}

		sel := field(t, h, "namespaceSelector").(map[string]any)
		if _, ok := sel["matchLabels"]; ok {
			t.Errorf("%s: namespaceSelector.matchLabels would select only labelled namespaces", id)
		}
		exprs := fmt.Sprint(sel["matchExpressions"])
		for _, want := range []string{
			fmt.Sprint(map[string]any{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": toAny(excluded)}),
			fmt.Sprint(map[string]any{"key": admission["optOutLabel"], "operator": "NotIn", "values": []any{"true"}}),
		} {
			if !strings.Contains(exprs, want) {
				t.Errorf("%s: namespaceSelector.matchExpressions = %s, want it to contain %s", id, exprs, want)
			}
		}
	}
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// args turns a container's args into a flag → value map; a repeated flag fails the test.
func args(t *testing.T, c map[string]any) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, a := range c["args"].([]any) {
		name, value, _ := strings.Cut(a.(string), "=")
		if _, dup := out[name]; dup {
			t.Errorf("flag %s given twice", name)
		}
		out[name] = value
	}
	return out
}

func checkDeployment(t *testing.T, objs manifest, n names, values map[string]any, certManager bool, flags sets.Set[string]) {
	t.Helper()
	d := objs.get(t, "Deployment", n.full)
	webhook := values["webhook"].(map[string]any)
	if got := field(t, d, "spec", "replicas"); got != values["replicaCount"] {
		t.Errorf("replicas = %v, want %v", got, values["replicaCount"])
	}
	if got := field(t, d, "spec", "strategy", "rollingUpdate", "maxUnavailable"); got != float64(0) {
		t.Errorf("maxUnavailable = %v, want 0", got)
	}
	pod := &unstructured.Unstructured{Object: field(t, d, "spec", "template").(map[string]any)}
	podLabels := pod.GetLabels()
	for k, v := range field(t, d, "spec", "selector", "matchLabels").(map[string]any) {
		if podLabels[k] != v {
			t.Errorf("pod label %s = %q, the selector wants %q", k, podLabels[k], v)
		}
	}
	if got := field(t, pod, "spec", "automountServiceAccountToken"); got != (!certManager || kumaDetects(values) || peerCache(values) > 0) {
		t.Errorf("automountServiceAccountToken = %v: the token is needed by cert-controller, kuma.version or kuma.mode auto and the peer cache only", got)
	}
	if got := field(t, pod, "spec", "serviceAccountName"); got != n.serviceAccount {
		t.Errorf("serviceAccountName = %v", got)
	}
	sa := objs.get(t, "ServiceAccount", n.serviceAccount)
	if got := field(t, sa, "automountServiceAccountToken"); got != false {
		t.Errorf("ServiceAccount automountServiceAccountToken = %v, want false (the pod opts in)", got)
	}
	anti := slice(t, pod, "spec", "affinity", "podAntiAffinity", "preferredDuringSchedulingIgnoredDuringExecution")
	if len(anti) != 1 || anti[0]["podAffinityTerm"].(map[string]any)["topologyKey"] != "kubernetes.io/hostname" {
		t.Errorf("preferred anti-affinity on kubernetes.io/hostname is missing: %v", anti)
	}
	for k, want := range map[string]any{"runAsNonRoot": true, "runAsUser": float64(65532)} {
		if got := field(t, pod, "spec", "securityContext", k); got != want {
			t.Errorf("pod securityContext.%s = %v, want %v", k, got, want)
		}
	}
	if got := field(t, pod, "spec", "securityContext", "seccompProfile", "type"); got != "RuntimeDefault" {
		t.Errorf("pod seccompProfile = %v", got)
	}
	grace := field(t, pod, "spec", "terminationGracePeriodSeconds").(float64)
	delay := webhook["shutdownDelaySeconds"].(float64)
	if grace <= delay+values["admission"].(map[string]any)["timeoutSeconds"].(float64) {
		t.Errorf("terminationGracePeriodSeconds %v does not exceed the shutdown delay %v plus the admission timeout", grace, delay)
	}

	containers := slice(t, pod, "spec", "containers")
	if len(containers) != 1 {
		t.Fatalf("%d containers, want 1", len(containers))
	}
	c := &unstructured.Unstructured{Object: containers[0]}
	for _, p := range [][]string{{"readOnlyRootFilesystem"}, {"runAsNonRoot"}} {
		if got := field(t, c, append([]string{"securityContext"}, p...)...); got != true {
			t.Errorf("container securityContext.%s = %v, want true", p[0], got)
		}
	}
	if got := field(t, c, "securityContext", "allowPrivilegeEscalation"); got != false {
		t.Errorf("allowPrivilegeEscalation = %v", got)
	}
	if got := fmt.Sprint(field(t, c, "securityContext", "capabilities", "drop")); got != "[ALL]" {
		t.Errorf("capabilities.drop = %v, want [ALL]", got)
	}
	for _, k := range []string{"requests", "limits"} {
		if m, _ := field(t, c, "resources", k).(map[string]any); len(m) == 0 {
			t.Errorf("resources.%s is empty", k)
		}
	}

	a := args(t, containers[0])
	for name := range a {
		if !flags.Has(name) && !strings.HasPrefix(name, "--zap-") {
			t.Errorf("flag %s is not in docs/contracts.md", name)
		}
	}
	mgmt := "cert-controller"
	if certManager {
		mgmt = "external"
	}
	wantArgs := map[string]string{
		"--cert-management":                  mgmt,
		"--cert-secret-name":                 n.secret,
		"--cert-secret-namespace":            "$(POD_NAMESPACE)",
		"--service-name":                     n.service,
		"--validating-webhook-configuration": n.validating,
		"--mutating-webhook-configuration":   n.mutating,
		"--webhook-port":                     fmt.Sprint(webhook["port"]),
		"--health-probe-bind-address":        fmt.Sprintf(":%v", webhook["healthPort"]),
		"--shutdown-delay":                   fmt.Sprintf("%vs", webhook["shutdownDelaySeconds"]),
		"--tls-min-version":                  fmt.Sprint(webhook["tlsMinVersion"]),
		"--record-kri":                       string(recordKRI(values)),
	}
	if webhook["metricsPort"] == float64(0) {
		wantArgs["--metrics-bind-address"] = "0"
	} else {
		wantArgs["--metrics-bind-address"] = fmt.Sprintf(":%v", webhook["metricsPort"])
	}
	for k, want := range wantArgs {
		if a[k] != want {
			t.Errorf("%s=%q, want %q", k, a[k], want)
		}
	}
	// The flag's default, 0, is the cache off: the chart passes it only when it is on.
	if n, got, ok := peerCache(values), a["--peer-cache-max-objects"], hasKey(a, "--peer-cache-max-objects"); n > 0 && got != fmt.Sprint(n) || n == 0 && ok {
		t.Errorf("--peer-cache-max-objects=%q (given: %v), want %d", got, ok, n)
	}
	env := fmt.Sprint(field(t, c, "env"))
	if !strings.Contains(env, "name:POD_NAMESPACE") || !strings.Contains(env, "fieldPath:metadata.namespace") {
		t.Errorf("POD_NAMESPACE does not come from the downward API: %s", env)
	}

	// The files the flags name are where the volumes put them.
	mounts := map[string]map[string]any{} // mountPath → volume
	volumes := map[string]map[string]any{}
	for _, v := range slice(t, pod, "spec", "volumes") {
		volumes[v["name"].(string)] = v
	}
	for _, m := range slice(t, c, "volumeMounts") {
		mounts[m["mountPath"].(string)] = volumes[m["name"].(string)]
	}
	if v := mounts[filepath.Dir(a["--config"])]; v == nil || fmt.Sprint(v["configMap"]) != fmt.Sprint(map[string]any{"name": n.configMap}) {
		t.Errorf("--config=%s is not in a volume of ConfigMap %s: %v", a["--config"], n.configMap, v)
	}
	// With cert-controller the webhook writes the certificate it reads from the Secret; with cert-manager
	// the kubelet projects cert-manager's Secret.
	v := mounts[a["--cert-dir"]]
	secret, _ := v["secret"].(map[string]any)
	switch {
	case v == nil:
		t.Errorf("--cert-dir=%s is not a volume", a["--cert-dir"])
	case certManager && (secret == nil || secret["secretName"] != n.secret):
		t.Errorf("--cert-dir=%s is not a volume of Secret %s: %v", a["--cert-dir"], n.secret, v)
	case !certManager && v["emptyDir"] == nil:
		t.Errorf("--cert-dir=%s is not a writable emptyDir: %v", a["--cert-dir"], v)
	}
	if v := mounts["/tmp"]; v == nil || v["emptyDir"] == nil {
		t.Errorf("/tmp is not a writable emptyDir: %v", v)
	}

	ports := map[string]any{}
	for _, p := range slice(t, c, "ports") {
		ports[p["name"].(string)] = p["containerPort"]
	}
	if ports["https-webhook"] != webhook["port"] || ports["healthz"] != webhook["healthPort"] {
		t.Errorf("container ports %v do not match the webhook's flags", ports)
	}
	for probe, path := range map[string]string{"livenessProbe": "/healthz", "readinessProbe": "/readyz"} {
		if got := field(t, c, probe, "httpGet", "path"); got != path {
			t.Errorf("%s path = %v, want %s", probe, got, path)
		}
		if got := field(t, c, probe, "httpGet", "port"); got != "healthz" {
			t.Errorf("%s port = %v, want the health port", probe, got)
		}
	}

	svc := objs.get(t, "Service", n.service)
	svcPorts := slice(t, svc, "spec", "ports")
	if svcPorts[0]["port"] != float64(443) || svcPorts[0]["targetPort"] != "https-webhook" {
		t.Errorf("Service does not forward 443 to the webhook port: %v", svcPorts[0])
	}
	if got, want := len(svcPorts), 2; webhook["metricsPort"] == float64(0) && got != 1 || webhook["metricsPort"] != float64(0) && got != want {
		t.Errorf("Service ports = %v", svcPorts)
	}
	if pdbs := objs.ofKind("PodDisruptionBudget"); len(pdbs) == 1 {
		if got := field(t, pdbs[0], "spec", "minAvailable"); got != float64(1) {
			t.Errorf("PodDisruptionBudget minAvailable = %v", got)
		}
	}
}

// kumaDetects says whether the webhook reads the Kuma control plane's Deployment: kuma.version or
// kuma.mode is auto.
func kumaDetects(values map[string]any) bool {
	kuma := values["config"].(map[string]any)["kuma"].(map[string]any)
	return str(kuma["version"]) == "auto" || cmp.Or(str(kuma["mode"]), "auto") == "auto"
}

// peerCache is webhook.peerCache.maxObjects: the webhook caches KongSNIs and KongCertificates when it
// is above 0.
func peerCache(values map[string]any) int {
	pc, _ := values["webhook"].(map[string]any)["peerCache"].(map[string]any)
	n, _ := pc["maxObjects"].(float64)
	return int(n)
}

func hasKey[M ~map[K]V, K comparable, V any](m M, k K) bool {
	_, ok := m[k]
	return ok
}

func checkConfigMap(t *testing.T, objs manifest, n names, values map[string]any) {
	t.Helper()
	cm := objs.get(t, "ConfigMap", n.configMap)
	var cfg struct {
		APIVersion         string `json:"apiVersion"`
		Kind               string `json:"kind"`
		DefaultEnforcement string `json:"defaultEnforcement"`
		Kuma               struct {
			Version      string `json:"version"`
			Mode         string `json:"mode"`
			ControlPlane struct {
				Namespace  string `json:"namespace"`
				Deployment string `json:"deployment"`
			} `json:"controlPlane"`
		} `json:"kuma"`
		Types      []map[string]any `json:"types"`
		Kinds      []map[string]any `json:"kinds"`
		Requesters []map[string]any `json:"requesters"`
		Rules      struct {
			Disabled []string `json:"disabled"`
		} `json:"rules"`
	}
	data := []byte(field(t, cm, "data", "config.yaml").(string))
	if err := yaml.UnmarshalStrict(data, &cfg); err != nil {
		t.Fatalf("config.yaml: %v", err)
	}
	// The webhook reads it, and enforces each enabled requester override as the values say.
	parsed, err := rules.ParseConfig(data)
	if err != nil {
		t.Fatalf("the webhook refuses config.yaml: %v", err)
	}
	requesters, _ := values["config"].(map[string]any)["requesters"].(map[string]any)
	enabled := 0
	for name, r := range requesters {
		rm, _ := r.(map[string]any)
		if rm == nil || rm["enabled"] == false {
			continue
		}
		enabled++
		users, _ := rm["users"].([]any)
		for _, u := range users {
			e, override, _ := parsed.RequesterEnforcement(schema.GroupKind{Group: "kuma.io", Kind: "MeshTimeout"}, u.(string), nil)
			if string(e) != rm["enforcement"] || override != name {
				t.Errorf("user %s: enforcement %q under override %q, want %v under %q", u, e, override, rm["enforcement"], name)
			}
		}
	}
	if len(cfg.Requesters) != enabled {
		t.Errorf("config.yaml has %d requester overrides, want %d: %v", len(cfg.Requesters), enabled, cfg.Requesters)
	}
	cfgValues := values["config"].(map[string]any)
	// The rules turned off, and no other.
	disabled, _ := cfgValues["rules"].(map[string]any)["disabled"].([]any)
	off := 0
	for _, r := range rules.Rules() {
		if !parsed.Enabled(r) {
			off++
			if !slices.Contains(disabled, any(string(r))) {
				t.Errorf("config.yaml turns off %s, which the values do not", r)
			}
		}
	}
	if off != len(disabled) {
		t.Errorf("config.yaml turns off %d rules, the values %d: %v", off, len(disabled), disabled)
	}
	if cfg.APIVersion != "kriguard.io/v1alpha1" || cfg.Kind != "Configuration" || cfg.DefaultEnforcement != cfgValues["defaultEnforcement"] {
		t.Errorf("config.yaml header: %+v", cfg)
	}
	kuma, _ := cfgValues["kuma"].(map[string]any)
	if v := str(kuma["version"]); cfg.Kuma.Version != v || v != "auto" && parsed.Release().String() != v {
		t.Errorf("config.yaml kuma.version %q (release %s), want %q", cfg.Kuma.Version, parsed.Release(), v)
	}
	if m := cmp.Or(str(kuma["mode"]), "auto"); cfg.Kuma.Mode != m || string(parsed.Kuma.Mode) != m {
		t.Errorf("config.yaml kuma.mode %q (parsed %q), want %q", cfg.Kuma.Mode, parsed.Kuma.Mode, m)
	}
	cp, _ := kuma["controlPlane"].(map[string]any)
	if got := parsed.Kuma.ControlPlane; got.Namespace != str(cp["namespace"]) || got.Deployment != str(cp["deployment"]) {
		t.Errorf("config.yaml kuma.controlPlane %+v, want %v", got, cp)
	}
	want := guardedKinds(values)
	if len(cfg.Kinds) != len(want) {
		t.Fatalf("config.yaml has %d kinds, want %d", len(cfg.Kinds), len(want))
	}
	for i, k := range cfg.Kinds {
		w := want[i]
		if k["group"] != w.group || k["version"] != w.version || k["kind"] != w.kind || str(k["enforcement"]) != w.enforcement {
			t.Errorf("config.yaml kinds[%d] = %v, want %+v", i, k, w)
		}
		if _, ok := k["resource"]; ok {
			t.Errorf("config.yaml kinds[%d] has the chart-only field resource", i)
		}
	}
	if got, want := len(cfg.Types), len(cfgValues["types"].([]any)); got != want {
		t.Errorf("config.yaml has %d types, want %d", got, want)
	}
}

// checkPeerCacheRBAC checks that list and watch on KongSNIs and KongCertificates, which the peer cache
// needs, are granted to the webhook exactly when the cache is on, and nothing more.
func checkPeerCacheRBAC(t *testing.T, objs manifest, n names, values map[string]any) {
	t.Helper()
	var roles []*unstructured.Unstructured
	for _, cr := range objs.ofKind("ClusterRole") {
		for _, r := range slice(t, cr, "rules") {
			if strings.Contains(fmt.Sprint(r["apiGroups"]), "konghq.com") {
				roles = append(roles, cr)
			}
		}
	}
	if peerCache(values) == 0 {
		for _, cr := range roles {
			t.Errorf("ClusterRole %s grants Kong's kinds with the peer cache off", cr.GetName())
		}
		return
	}
	cr := objs.get(t, "ClusterRole", n.full+"-peer-cache")
	if len(roles) != 1 || roles[0].GetName() != cr.GetName() {
		t.Errorf("ClusterRoles granting Kong's kinds: %d, want only %s", len(roles), cr.GetName())
	}
	if got := fmt.Sprint(slice(t, cr, "rules")); got != "[map[apiGroups:[configuration.konghq.com] resources:[kongcertificates kongsnis] verbs:[list watch]]]" {
		t.Errorf("ClusterRole %s rules %s, want list and watch on kongcertificates and kongsnis only", cr.GetName(), got)
	}
	b := objs.get(t, "ClusterRoleBinding", n.full+"-peer-cache")
	if ref := field(t, b, "roleRef", "name"); ref != cr.GetName() {
		t.Errorf("ClusterRoleBinding %s binds %v", b.GetName(), ref)
	}
	if subjects := slice(t, b, "subjects"); len(subjects) != 1 || subjects[0]["kind"] != "ServiceAccount" || subjects[0]["name"] != n.serviceAccount || subjects[0]["namespace"] != releaseNamespace {
		t.Errorf("ClusterRoleBinding %s subjects = %v, want only the chart's ServiceAccount", b.GetName(), subjects)
	}
}

func checkRBAC(t *testing.T, objs manifest, n names) {
	t.Helper()
	for _, o := range append(objs.ofKind("Role"), objs.ofKind("ClusterRole")...) {
		for _, r := range slice(t, o, "rules") {
			if o.GetKind() == "Role" && fmt.Sprint(r["resources"]) == "[secrets]" && fmt.Sprint(r["verbs"]) == "[create]" {
				// The one exception: the webhook creates its certificate Secret again when it was
				// deleted, and RBAC cannot limit create to one name.
				continue
			}
			if s := fmt.Sprint(r); strings.Contains(s, "*") || strings.Contains(s, "create") || strings.Contains(s, "delete") {
				t.Errorf("%s/%s: rule %s grants a wildcard, create or delete", o.GetKind(), o.GetName(), s)
			}
			verbs := fmt.Sprint(r["verbs"])
			if _, named := r["resourceNames"]; !named && verbs != "[list watch]" && verbs != "[get list watch]" {
				t.Errorf("%s/%s: rule %v writes without resourceNames", o.GetKind(), o.GetName(), r)
			}
		}
	}
	role := objs.get(t, "Role", n.full+"-cert-controller")
	if got := fmt.Sprint(slice(t, role, "rules")[1]["resourceNames"]); got != "["+n.secret+"]" {
		t.Errorf("Role writes Secrets %s, want only [%s]", got, n.secret)
	}
	for _, kind := range []string{"RoleBinding", "ClusterRoleBinding"} {
		b := objs.get(t, kind, n.full+"-cert-controller")
		subjects := slice(t, b, "subjects")
		if len(subjects) != 1 || subjects[0]["name"] != n.serviceAccount || subjects[0]["namespace"] != releaseNamespace {
			t.Errorf("%s subjects = %v, want only the chart's ServiceAccount", kind, subjects)
		}
	}
	for _, cr := range objs.ofKind("ClusterRole") {
		if cr.GetName() != n.full+"-kuma-release" {
			continue
		}
		if got := fmt.Sprint(slice(t, cr, "rules")); got != "[map[apiGroups:[apps] resourceNames:[kuma-control-plane] resources:[deployments] verbs:[get]]]" {
			t.Errorf("ClusterRole %s-kuma-release rules %s, want get on the Deployment kuma-control-plane only", n.full, got)
		}
	}
	s := objs.get(t, "Secret", n.secret)
	if s.Object["data"] != nil || s.Object["stringData"] != nil {
		t.Errorf("Secret %s carries data in the template; helm upgrade would overwrite cert-controller's certificate", n.secret)
	}
}

func checkCertManager(t *testing.T, objs manifest, n names, values map[string]any) {
	t.Helper()
	cert := objs.get(t, "Certificate", n.full+"-serving-cert")
	if got := field(t, cert, "spec", "secretName"); got != n.secret {
		t.Errorf("Certificate secretName = %v, want %s", got, n.secret)
	}
	dns := fmt.Sprint(field(t, cert, "spec", "dnsNames"))
	if !strings.Contains(dns, n.service+"."+releaseNamespace+".svc ") {
		t.Errorf("Certificate dnsNames %s lack the Service's name", dns)
	}
	ref := values["certManager"].(map[string]any)["issuerRef"].(map[string]any)
	wantIssuer := n.full + "-selfsigned"
	if len(ref) > 0 {
		wantIssuer = ref["name"].(string)
	}
	if got := field(t, cert, "spec", "issuerRef", "name"); got != wantIssuer {
		t.Errorf("Certificate issuerRef.name = %v, want %s", got, wantIssuer)
	}
	for _, kind := range []string{"Secret", "Role", "ClusterRole"} {
		for _, o := range objs.ofKind(kind) {
			if o.GetName() == n.full+"-kuma-release" || o.GetName() == n.full+"-peer-cache" {
				continue // kuma.version or kuma.mode auto reads the Kuma control plane's Deployment; the peer cache Kong's kinds
			}
			t.Errorf("cert-manager mode renders %s %s; the webhook needs no API access then but to read the Kuma release and the peer cache's kinds", kind, o.GetName())
		}
	}
}

// TestSchemaRejects checks that bad values stop `helm template` with a message that names the problem.
func TestSchemaRejects(t *testing.T) {
	allDisabled := "config:\n  kinds:\n"
	for _, k := range guardedKinds(chartValues(t, "")) {
		allDisabled += "    " + k.kind + ": {enabled: false}\n"
	}
	for _, tc := range []struct {
		name, values string
		want         []string
	}{
		{"unknown reinvocation policy", "admission: {reinvocationPolicy: Always}", []string{"reinvocationPolicy", "IfNeeded"}},
		{"unknown failure policy", "admission: {failurePolicy: Sometimes}", []string{"failurePolicy", "Fail", "Ignore"}},
		{"timeout above 30", "admission: {timeoutSeconds: 31}", []string{"timeoutSeconds", "30"}},
		{"timeout zero", "admission: {timeoutSeconds: 0}", []string{"timeoutSeconds", "1"}},
		{"no replicas", "replicaCount: 0", []string{"replicaCount"}},
		{"unknown default enforcement", "config: {defaultEnforcement: block}", []string{"defaultEnforcement", "deny"}},
		{"unknown kind enforcement", "config: {kinds: {MeshTimeout: {enforcement: block}}}", []string{"MeshTimeout", "enforcement"}},
		{"wildcard resource", "config: {kinds: {Everything: {group: kuma.io, version: v1alpha1, resource: '*'}}}", []string{"resource"}},
		{"subresource", "config: {kinds: {MeshTimeout: {resource: meshtimeouts/status}}}", []string{"resource"}},
		{"core group", "config: {kinds: {ConfigMap: {group: '', version: v1, resource: configmaps}}}", []string{"group"}},
		{"leases", "config: {kinds: {Lease: {group: coordination.k8s.io, version: v1, resource: leases}}}", []string{"group"}},
		{"kind without resource", "config: {kinds: {MeshWidget: {group: kuma.io, version: v1alpha1}}}", []string{"resource"}},
		{"lowercase kind key", "config: {kinds: {meshwidget: {group: kuma.io, version: v1alpha1, resource: meshwidgets}}}", []string{"meshwidget"}},
		{"bad scope", "config: {types: [{kind: MeshWidget, shortName: mw, scope: Cluster}]}", []string{"scope", "Mesh", "Global"}},
		{"misspelt top-level key", "replicas: 3", []string{"replicas"}},
		{"requester override named none", "config: {requesters: {none: {enforcement: warn, users: [u]}}}", []string{"requesters"}},
		{"requester override without enforcement", "config: {requesters: {ci: {users: [u]}}}", []string{"requesters", "enforcement"}},
		{"requester override with a bad namespace", "config: {requesters: {ci: {enforcement: warn, serviceAccountNamespaces: [Bad_NS]}}}", []string{"serviceAccountNamespaces"}},
		{"a rule turned off twice", "config: {rules: {disabled: [envoy/stat-unsafe, envoy/stat-unsafe]}}", []string{"disabled"}},
		{"not a rule id", "config: {rules: {disabled: ['Stat Unsafe']}}", []string{"disabled"}},
		{"TLS 1.1", "webhook: {tlsMinVersion: '1.1'}", []string{"tlsMinVersion"}},
		{"KRI recorded by a controller", "webhook: {recordKRI: controller}", []string{"recordKRI", "admission", "off"}},
		{"KRI recorded: true", "webhook: {recordKRI: true}", []string{"recordKRI", "admission", "off"}},
		{"privileged port", "webhook: {port: 443}", []string{"/webhook/port", "minimum"}},
		{"extra arg without dashes", "webhook: {extraArgs: [zap-devel]}", []string{"extraArgs"}},
		{"bad digest", "image: {digest: latest}", []string{"digest"}},
		{"grace below shutdown delay", "terminationGracePeriodSeconds: 8", []string{"terminationGracePeriodSeconds (8) must exceed", "(10)"}},
		{"port clash", "webhook: {healthPort: 9443}", []string{"healthPort must differ"}},
		{"negative peer cache", "webhook: {peerCache: {maxObjects: -1}}", []string{"maxObjects", "minimum"}},
		{"peer cache as a string", "webhook: {peerCache: {maxObjects: '50000'}}", []string{"maxObjects"}},
		{"peer cache misspelt", "webhook: {peerCache: {enabled: true}}", []string{"peerCache", "enabled"}},
		{"nothing guarded", allDisabled, []string{"at least one kind must be enabled"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := helm(t, "", templateArgs(t, "kriguard", releaseNamespace, tc.values)...)
			if err == nil {
				t.Fatalf("helm template accepted %s", tc.values)
			}
			t.Log(err)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestDefaultRequesters checks that the chart, like the webhook's built-in configuration, warns the
// guarded control planes instead of denying them.
func TestDefaultRequesters(t *testing.T) {
	objs := render(t, "kriguard", releaseNamespace, "")
	cm := objs.get(t, "ConfigMap", namesFor("kriguard").configMap)
	c, err := rules.ParseConfig([]byte(field(t, cm, "data", "config.yaml").(string)))
	if err != nil {
		t.Fatal(err)
	}
	for user, want := range map[string]string{
		rules.KumaControlPlaneUser:      "kuma-control-plane",
		rules.KongOperatorUser:          "kong-operator",
		rules.KongOperatorKustomizeUser: "kong-operator",
	} {
		e, override, _ := c.RequesterEnforcement(schema.GroupKind{Group: "kuma.io", Kind: "MeshService"}, user, nil)
		if e != rules.EnforcementWarn || override != want {
			t.Errorf("%s: %q under %q, want warn under %q", user, e, override, want)
		}
	}
	if e, override, _ := c.RequesterEnforcement(schema.GroupKind{Group: "kuma.io", Kind: "MeshService"}, "alice", nil); e != rules.EnforcementDeny || override != "" {
		t.Errorf("an ordinary user: %q under %q, want deny and no override", e, override)
	}
	// Kuma's mutating webhook adds the labels a KRI is built from: kriguard's mutator must run again
	// after it, or the KRI annotation is computed from labels the stored object does not have.
	mwc := objs.get(t, "MutatingWebhookConfiguration", namesFor("kriguard").mutating)
	if got := slice(t, mwc, "webhooks")[0]["reinvocationPolicy"]; got != "IfNeeded" {
		t.Errorf("mutating webhook reinvocationPolicy = %v, want IfNeeded by default", got)
	}
}

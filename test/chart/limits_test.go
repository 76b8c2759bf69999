package chart

import (
	"fmt"
	"strings"
	"testing"
)

// checkLimits checks what docs/limits.md says the chart does: the memory limit reaches the webhook
// as --memory-limit (the one memory value), the client CA as a file the flag names, and the
// NetworkPolicy opens only the webhook, probe and (for the named peers) metrics ports.
func checkLimits(t *testing.T, objs manifest, n names, values map[string]any) {
	t.Helper()
	d := objs.get(t, "Deployment", n.full)
	c := slice(t, d, "spec", "template", "spec", "containers")[0]
	a := args(t, c)
	webhook := values["webhook"].(map[string]any)

	limits, _ := values["resources"].(map[string]any)["limits"].(map[string]any)
	env := fmt.Sprint(c["env"])
	if limits["memory"] != nil {
		if a["--memory-limit"] != "$(MEMORY_LIMIT)" || !strings.Contains(env, "name:MEMORY_LIMIT") || !strings.Contains(env, "resource:limits.memory") {
			t.Errorf("--memory-limit=%q with env %s, want $(MEMORY_LIMIT) from the container's limits.memory", a["--memory-limit"], env)
		}
	}
	if strings.Contains(env, "GOMEMLIMIT") {
		t.Errorf("env sets GOMEMLIMIT; the webhook derives it from --memory-limit: %s", env)
	}

	if ca := str(webhook["clientCA"]); ca != "" {
		cm := objs.get(t, "ConfigMap", n.full+"-client-ca")
		if got := str(field(t, cm, "data", "ca.crt")); strings.TrimSpace(got) != strings.TrimSpace(ca) {
			t.Errorf("client CA ConfigMap holds %q, want %q", got, ca)
		}
		if a["--client-ca-file"] != "/etc/kriguard/client-ca/ca.crt" {
			t.Errorf("--client-ca-file=%q", a["--client-ca-file"])
		}
		pod := field(t, d, "spec", "template").(map[string]any)
		if !strings.Contains(fmt.Sprint(pod["spec"].(map[string]any)["volumes"]), "name:"+n.full+"-client-ca") ||
			!strings.Contains(fmt.Sprint(c["volumeMounts"]), "mountPath:/etc/kriguard/client-ca") {
			t.Errorf("the client CA ConfigMap is not mounted where --client-ca-file points")
		}
		if fmt.Sprint(pod["metadata"].(map[string]any)["annotations"].(map[string]any)["checksum/client-ca"]) == "" {
			t.Errorf("no checksum/client-ca annotation: the pods would not roll when the CA changes")
		}
	} else if _, ok := a["--client-ca-file"]; ok {
		t.Errorf("--client-ca-file set without webhook.clientCA")
	}

	np := values["networkPolicy"].(map[string]any)
	if np["enabled"] != true {
		return
	}
	p := objs.get(t, "NetworkPolicy", n.full)
	rules := slice(t, p, "spec", "ingress")
	got := map[string]string{} // port → from
	for _, r := range rules {
		for _, port := range r["ports"].([]any) {
			got[fmt.Sprint(port.(map[string]any)["port"])] = fmt.Sprint(r["from"])
		}
	}
	want := map[string]string{
		fmt.Sprint(webhook["port"]):        fmt.Sprint(np["webhookFrom"]),
		fmt.Sprint(webhook["healthPort"]):  "<nil>",
		fmt.Sprint(webhook["metricsPort"]): fmt.Sprint(np["metricsFrom"]),
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("NetworkPolicy ports and peers = %v, want %v", got, want)
	}
	if sel := fmt.Sprint(field(t, p, "spec", "podSelector", "matchLabels")); !strings.Contains(sel, "app.kubernetes.io/component:webhook") {
		t.Errorf("NetworkPolicy selects %s, not the webhook pods", sel)
	}
}

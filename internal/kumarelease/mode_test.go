package kumarelease

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

func deploymentWithEnv(container string, env ...corev1.EnvVar) *appsv1.Deployment {
	d := &appsv1.Deployment{}
	d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "sidecar", Env: []corev1.EnvVar{{Name: envMode, Value: "global"}}}, {Name: container, Env: env}}
	return d
}

func TestModeOf(t *testing.T) {
	v := func(name, value string) corev1.EnvVar { return corev1.EnvVar{Name: name, Value: value} }
	fromSecret := func(name string) corev1.EnvVar {
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{Key: "k"}}}
	}
	for _, tt := range []struct {
		name      string
		container string
		env       []corev1.EnvVar
		want      string
		err       string
	}{
		{"global", containerName, []corev1.EnvVar{v(envMode, "global")}, ModeGlobal, ""},
		// The chart sets the global address on every zone, empty unless kdsGlobalAddress is set.
		{"federated zone", containerName, []corev1.EnvVar{v(envMode, "zone"), v(envGlobalAddress, "grpcs://global:5685"), v(envZoneName, "zone-1")}, ModeZone, ""},
		{"zone without a global address", containerName, []corev1.EnvVar{v(envMode, "zone"), v(envGlobalAddress, ""), v(envZoneName, "zone-1")}, ModeStandalone, ""},
		{"zone without a name", containerName, []corev1.EnvVar{v(envMode, "zone"), v(envGlobalAddress, "grpcs://global:5685")}, ModeStandalone, ""},
		{"standalone, deprecated", containerName, []corev1.EnvVar{v(envMode, "standalone")}, ModeStandalone, ""},
		{"no KUMA_MODE", containerName, []corev1.EnvVar{v(envZoneName, "zone-1")}, "", "has no KUMA_MODE"},
		{"KUMA_MODE from a Secret", containerName, []corev1.EnvVar{fromSecret(envMode)}, "", "KUMA_MODE is read from elsewhere"},
		{"global address from a Secret", containerName, []corev1.EnvVar{v(envMode, "zone"), fromSecret(envGlobalAddress), v(envZoneName, "z")}, "", "KUMA_MULTIZONE_ZONE_GLOBAL_ADDRESS is read from elsewhere"},
		{"no mode of Kuma's", containerName, []corev1.EnvVar{v(envMode, "Global")}, "", `is "Global", none of`},
		{"no control-plane container", "kuma", []corev1.EnvVar{v(envMode, "global")}, "", "has no control-plane container"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ModeOf(deploymentWithEnv(tt.container, tt.env...))
			if got != tt.want {
				t.Errorf("mode %q, want %q", got, tt.want)
			}
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("error %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("error %v, want one saying %q", err, tt.err)
			}
		})
	}
}

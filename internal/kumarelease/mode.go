package kumarelease

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// The modes ModeOf finds, as kuma.mode names them.
const (
	ModeGlobal     = "global"
	ModeZone       = "zone"
	ModeStandalone = "standalone"
)

// The control plane's environment that Kuma's chart sets to its mode (docs/kds.md, "Which mode a
// control plane runs in").
const (
	envMode          = "KUMA_MODE"
	envGlobalAddress = "KUMA_MULTIZONE_ZONE_GLOBAL_ADDRESS"
	envZoneName      = "KUMA_MULTIZONE_ZONE_NAME"
)

// ModeOf returns the mode of the control plane dep runs: ModeGlobal, ModeZone (a zone federated
// with a global control plane) or ModeStandalone (a zone on its own), read from the environment
// of its control-plane container as Kuma reads its own configuration: KUMA_MODE "zone" is
// federated only with both a global address and a zone name. It fails when the mode is not stated
// there as a value (no such container, no KUMA_MODE, a value from a ConfigMap or Secret) or is
// none of Kuma's.
func ModeOf(dep *appsv1.Deployment) (string, error) {
	for _, c := range dep.Spec.Template.Spec.Containers {
		if c.Name != containerName {
			continue
		}
		env := map[string]string{}
		for _, e := range c.Env {
			if e.ValueFrom != nil {
				env[e.Name] = "\x00" // stated elsewhere: not read
				continue
			}
			env[e.Name] = e.Value
		}
		mode, ok := env[envMode]
		switch {
		case !ok:
			return "", fmt.Errorf("its %s container has no %s", containerName, envMode)
		case mode == "\x00":
			return "", fmt.Errorf("its %s container's %s is read from elsewhere", containerName, envMode)
		case mode == ModeGlobal, mode == ModeStandalone:
			return mode, nil
		case mode == ModeZone:
			for _, n := range []string{envGlobalAddress, envZoneName} {
				if env[n] == "\x00" {
					return "", fmt.Errorf("its %s container's %s is read from elsewhere", containerName, n)
				}
			}
			if env[envGlobalAddress] != "" && env[envZoneName] != "" {
				return ModeZone, nil
			}
			return ModeStandalone, nil
		default:
			return "", fmt.Errorf("its %s container's %s is %q, none of global, zone, standalone", containerName, envMode, mode)
		}
	}
	return "", fmt.Errorf("it has no %s container", containerName)
}

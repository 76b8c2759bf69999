package kumarelease

import (
	"context"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/json"

	"github.com/kriguard/kriguard/naming"
)

// The defaults of Options: where the Kuma chart (and kumactl install control-plane, which renders
// it) puts the control plane (docs/releases.md, "Which release a cluster runs").
const (
	DefaultNamespace  = "kuma-system"
	DefaultDeployment = "kuma-control-plane"
	// containerName is the control plane's container in the chart's Deployment.
	containerName = "control-plane"
	// versionLabel is the label the chart sets to its appVersion, the Kuma version it installs.
	versionLabel     = "app.kubernetes.io/version"
	kumaGroupVersion = "kuma.io/v1alpha1"
)

// Options say where the control plane is.
type Options struct {
	// Namespace and Deployment name the control plane's Deployment; empty means DefaultNamespace
	// and DefaultDeployment.
	Namespace, Deployment string
}

func (o Options) key() types.NamespacedName {
	key := types.NamespacedName{Namespace: o.Namespace, Name: o.Deployment}
	if key.Namespace == "" {
		key.Namespace = DefaultNamespace
	}
	if key.Name == "" {
		key.Name = DefaultDeployment
	}
	return key
}

// Sources of a Detection's version.
const (
	SourceImage = "image"
	SourceLabel = "label"
)

// Detection is what Detect found.
type Detection struct {
	// Release is the release to judge against: the control plane's when Known, else
	// naming.DefaultRelease, the most permissive (it refuses no kind a known release ships and
	// has no name rule beyond the KRI's).
	Release naming.Release
	// Known says that Release is the control plane's own.
	Known bool
	// Version is the control plane's version as its Deployment states it ("2.14.3"), "" when none
	// was read; Source says where: SourceImage or SourceLabel.
	Version, Source string
	// Problem says why the release is not Known; "" when it is.
	Problem string
	// CrossCheck says how the Kuma kinds the API server serves disagree with Release: kinds it
	// lacks, kinds it removed that are still served (CRDs an upgrade leaves behind). "" when they
	// agree or were not read. It never changes Release.
	CrossCheck string
	// Served is the release whose kinds the API server serves, exactly, when one is; a hint for
	// an unknown control plane, never a replacement for its version.
	Served naming.Release
	// Mode is the control plane's mode (ModeOf): ModeGlobal, ModeZone, ModeStandalone, or ""
	// when unknown; ModeProblem then says why.
	Mode, ModeProblem string
}

// ResourceLister is what Detect asks the API server's discovery; client-go's discovery clients
// are ResourceListers.
type ResourceLister interface {
	ServerResourcesForGroupVersion(groupVersion string) (*metav1.APIResourceList, error)
}

// GetDeployment reads a Deployment: FromClient and FromConfig make one; the webhook makes one of
// its manager's reader.
type GetDeployment func(ctx context.Context, key types.NamespacedName) (*appsv1.Deployment, error)

// FromClient reads with c, a REST client of the cluster whose serializer decodes the API server's
// Status (as client-go's dynamic.ConfigFor sets up): one GET of the Deployment by name, which RBAC
// can limit to that name, its JSON decoded as client-go's typed client decodes it. It links no
// client-go scheme or typed client, which cost the kriguard command's start
// (docs/performance.md, "Change 15").
func FromClient(c rest.Interface) GetDeployment {
	return func(ctx context.Context, key types.NamespacedName) (*appsv1.Deployment, error) {
		res := c.Get().AbsPath("/apis/apps/v1/namespaces", key.Namespace, "deployments", key.Name).Do(ctx)
		// Error, unlike Raw, reads the API server's Status: NotFound, "… is forbidden: User …".
		if err := res.Error(); err != nil {
			return nil, err
		}
		raw, err := res.Raw()
		if err != nil {
			return nil, err
		}
		var d appsv1.Deployment
		if err := json.UnmarshalCaseSensitivePreserveInts(raw, &d); err != nil {
			return nil, fmt.Errorf("decoding Deployment %s: %w", key, err)
		}
		return &d, nil
	}
}

// FromConfig reads with a REST client for cfg (FromClient).
func FromConfig(cfg *rest.Config) (GetDeployment, error) {
	c, err := rest.UnversionedRESTClientFor(dynamic.ConfigFor(cfg))
	if err != nil {
		return nil, fmt.Errorf("building the API client: %w", err)
	}
	return FromClient(c), nil
}

// Detect reads the Kuma release and mode of the control plane: the version of the control plane's
// Deployment (the tag of its control-plane container's image, else its app.kubernetes.io/version
// label), cross-checked with the Kuma kinds the API server serves, and its mode (ModeOf). A version it cannot read, or
// of no supported release, gives naming.DefaultRelease with Known false and the Problem; Detect
// never fails. d may be nil: then there is no cross-check.
func Detect(ctx context.Context, get GetDeployment, d ResourceLister, o Options) Detection {
	det := Detection{Release: naming.DefaultRelease}
	key := o.key()
	dep, err := get(ctx, key)
	switch {
	case apierrors.IsNotFound(err):
		det.Problem = fmt.Sprintf("no Deployment %s: set kuma.controlPlane to the control plane's, or kuma.version", key)
		det.ModeProblem = fmt.Sprintf("no Deployment %s: set kuma.controlPlane to the control plane's, or kuma.mode", key)
	case err != nil:
		det.Problem = fmt.Sprintf("reading Deployment %s: %v", key, err)
		det.ModeProblem = det.Problem
	default:
		if det.Mode, err = ModeOf(dep); err != nil {
			det.ModeProblem = fmt.Sprintf("Deployment %s states no mode: %v", key, err)
		}
		det.Version, det.Source = VersionOf(dep)
		if det.Version == "" {
			det.Problem = fmt.Sprintf("Deployment %s states no version: no tag on the image of its %s container, no %s label", key, containerName, versionLabel)
			break
		}
		rel, err := naming.ParseRelease(det.Version)
		if err != nil {
			det.Problem = fmt.Sprintf("Deployment %s runs Kuma %q (%s): %v", key, det.Version, det.Source, err)
			break
		}
		det.Release, det.Known = rel, true
	}
	if d != nil {
		served, err := servedKinds(d)
		if err != nil {
			det.CrossCheck = fmt.Sprintf("reading the served Kuma kinds: %v", err)
		} else {
			det.Served = matching(served)
			if det.Known {
				det.CrossCheck = crossCheck(det.Release, served)
			}
		}
	}
	return det
}

// VersionOf returns the Kuma version dep states, and where it states it: the tag of the image of
// its control-plane container (what runs), else its app.kubernetes.io/version label (the chart's
// appVersion); "" when neither holds one. A leading "v" is kept: naming.ParseRelease takes it.
func VersionOf(dep *appsv1.Deployment) (version, source string) {
	for _, c := range dep.Spec.Template.Spec.Containers {
		if c.Name == containerName {
			if tag := ImageTag(c.Image); tag != "" && tag != "latest" {
				return tag, SourceImage
			}
		}
	}
	if v := dep.Labels[versionLabel]; v != "" {
		return v, SourceLabel
	}
	return "", ""
}

// ImageTag returns the tag of an image reference ("docker.io/kumahq/kuma-cp:2.14.3" → "2.14.3"),
// "" when it has none (only a digest, or neither). A registry's port is not a tag.
func ImageTag(image string) string {
	if at := strings.IndexByte(image, '@'); at >= 0 {
		image = image[:at]
	}
	colon := strings.LastIndexByte(image, ':')
	if colon < 0 || colon < strings.LastIndexByte(image, '/') {
		return ""
	}
	return image[colon+1:]
}

// servedKinds returns the kinds of kuma.io/v1alpha1 the API server serves (no subresources);
// none when it serves no such group.
func servedKinds(d ResourceLister) ([]string, error) {
	list, err := d.ServerResourcesForGroupVersion(kumaGroupVersion)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var kinds []string
	for _, r := range list.APIResources {
		if !strings.Contains(r.Name, "/") {
			kinds = append(kinds, r.Kind)
		}
	}
	slices.Sort(kinds)
	return slices.Compact(kinds), nil
}

// crossCheck says how served disagrees with rel: kinds with a KRI that rel ships and that are not
// served, kinds rel removed that are.
func crossCheck(rel naming.Release, served []string) string {
	var missing, left []string
	for _, t := range rel.Registry().Types() {
		if !slices.Contains(served, t.Kind) {
			missing = append(missing, t.Kind)
		}
	}
	for _, k := range served {
		if _, removed := rel.Removed(k); removed {
			left = append(left, k)
		}
	}
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, fmt.Sprintf("Kuma %s's kinds %s are not served", rel, strings.Join(missing, ", ")))
	}
	if len(left) > 0 {
		parts = append(parts, fmt.Sprintf("the kinds %s that Kuma %s removed are still served (their CRDs outlive an upgrade: Kuma's UPGRADE.md says to delete them), and refused", strings.Join(left, ", "), rel))
	}
	return strings.Join(parts, "; ")
}

// matching returns the one release whose kinds served are exactly, or the zero Release.
func matching(served []string) naming.Release {
	var found naming.Release
	n := 0
	for _, rel := range naming.Releases() {
		if crossCheck(rel, served) == "" {
			found = rel
			n++
		}
	}
	if n != 1 {
		return naming.Release{}
	}
	return found
}

package chart

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"debug/buildinfo"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// imageArchive is where hack/image.sh (make image) writes the webhook image.
const imageArchive = "dist/kriguard-webhook.oci.tar"

// The parts of the OCI image layout and image spec this test reads.
type (
	ociDescriptor struct {
		MediaType string `json:"mediaType"`
		Digest    string `json:"digest"`
	}
	ociIndex struct {
		Manifests []ociDescriptor `json:"manifests"`
	}
	ociManifest struct {
		Config ociDescriptor   `json:"config"`
		Layers []ociDescriptor `json:"layers"`
	}
	ociConfig struct {
		Architecture string `json:"architecture"`
		OS           string `json:"os"`
		Config       struct {
			User       string            `json:"User"`
			Entrypoint []string          `json:"Entrypoint"`
			Cmd        []string          `json:"Cmd"`
			Labels     map[string]string `json:"Labels"`
		} `json:"config"`
	}
)

// ociArchive is an oci-archive: a tar of an OCI image layout, held in memory by path.
type ociArchive map[string][]byte

func readOCIArchive(file string) (ociArchive, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := ociArchive{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", file, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", h.Name, err)
		}
		out[path.Clean(h.Name)] = data
	}
}

// blob returns a blob by digest ("sha256:…") and decodes it into v when v is not nil.
func (a ociArchive) blob(digest string, v any) ([]byte, error) {
	algo, hex, ok := strings.Cut(digest, ":")
	if !ok {
		return nil, fmt.Errorf("malformed digest %q", digest)
	}
	data, ok := a[path.Join("blobs", algo, hex)]
	if !ok {
		return nil, fmt.Errorf("blob %s is missing", digest)
	}
	if v != nil {
		if err := json.Unmarshal(data, v); err != nil {
			return nil, fmt.Errorf("decoding blob %s: %w", digest, err)
		}
	}
	return data, nil
}

// imageFile is one regular file of the image's filesystem.
type imageFile struct {
	mode int64
	data []byte
}

// layerFiles applies the layers in order and returns the files of the resulting filesystem, and every
// path any layer mentions (directories, links and whiteouts included).
func (a ociArchive) layerFiles(layers []ociDescriptor) (map[string]imageFile, []string, error) {
	files := map[string]imageFile{}
	var paths []string
	for _, l := range layers {
		data, err := a.blob(l.Digest, nil)
		if err != nil {
			return nil, nil, err
		}
		var r io.Reader = bytes.NewReader(data)
		switch l.MediaType {
		case "application/vnd.oci.image.layer.v1.tar+gzip", "application/vnd.docker.image.rootfs.diff.tar.gzip":
			zr, err := gzip.NewReader(r)
			if err != nil {
				return nil, nil, fmt.Errorf("layer %s: %w", l.Digest, err)
			}
			r = zr
		case "application/vnd.oci.image.layer.v1.tar":
		default:
			return nil, nil, fmt.Errorf("layer %s: unexpected media type %s", l.Digest, l.MediaType)
		}
		tr := tar.NewReader(r)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, nil, fmt.Errorf("layer %s: %w", l.Digest, err)
			}
			name := "/" + strings.TrimPrefix(path.Clean("/"+h.Name), "/")
			paths = append(paths, name)
			if h.Typeflag == tar.TypeReg {
				body, err := io.ReadAll(tr)
				if err != nil {
					return nil, nil, fmt.Errorf("layer %s: %s: %w", l.Digest, name, err)
				}
				files[name] = imageFile{mode: h.Mode, data: body}
			}
		}
	}
	return files, paths, nil
}

// TestImage checks the image hack/image.sh built: what runs, as whom, and that nothing else is in it.
// It does not build the image itself (that needs buildah, which `make image` and `make test` install);
// it fails when the archive is missing rather than passing without looking.
func TestImage(t *testing.T) {
	file := filepath.Join(root(t), imageArchive)
	archive, err := readOCIArchive(file)
	if err != nil {
		t.Fatalf("%v: build the image first with ./hack/image.sh (make image; make test does it)", err)
	}
	var index ociIndex
	if err := json.Unmarshal(archive["index.json"], &index); err != nil {
		t.Fatalf("index.json: %v", err)
	}
	if len(index.Manifests) != 1 {
		t.Fatalf("index.json lists %d manifests, want 1", len(index.Manifests))
	}
	var manifest ociManifest
	if _, err := archive.blob(index.Manifests[0].Digest, &manifest); err != nil {
		t.Fatal(err)
	}
	var cfg ociConfig
	if _, err := archive.blob(manifest.Config.Digest, &cfg); err != nil {
		t.Fatal(err)
	}

	t.Run("config", func(t *testing.T) {
		if got := strings.Join(cfg.Config.Entrypoint, " "); got != "/kriguard-webhook" {
			t.Errorf("Entrypoint = %q, want /kriguard-webhook", got)
		}
		if len(cfg.Config.Cmd) != 0 {
			t.Errorf("Cmd = %q, want none (the chart passes every flag)", cfg.Config.Cmd)
		}
		// Kubernetes can enforce runAsNonRoot only for a numeric user.
		user, group, _ := strings.Cut(cfg.Config.User, ":")
		uid, err := strconv.Atoi(user)
		if err != nil || uid == 0 {
			t.Errorf("User = %q, want a numeric user other than 0", cfg.Config.User)
		}
		if gid, err := strconv.Atoi(group); group != "" && (err != nil || gid == 0) {
			t.Errorf("User = %q, want a numeric group other than 0", cfg.Config.User)
		}
		if uid != 65532 {
			t.Errorf("user %d, want 65532: the chart's securityContext runs the pod as 65532", uid)
		}
		if cfg.OS != "linux" {
			t.Errorf("os = %q, want linux", cfg.OS)
		}
		for _, l := range []string{"title", "source", "version", "revision", "created"} {
			if cfg.Config.Labels["org.opencontainers.image."+l] == "" {
				t.Errorf("label org.opencontainers.image.%s is missing", l)
			}
		}
	})

	files, paths, err := archive.layerFiles(manifest.Layers)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("filesystem", func(t *testing.T) {
		if len(files) != 1 {
			t.Errorf("image has files %v, want only /kriguard-webhook", paths)
		}
		for _, p := range paths {
			switch base := path.Base(p); base {
			case "sh", "bash", "ash", "dash", "busybox", "zsh":
				t.Errorf("image contains a shell: %s", p)
			}
		}
		bin, ok := files["/kriguard-webhook"]
		if !ok {
			t.Fatalf("/kriguard-webhook is missing; the image has %v", paths)
		}
		if bin.mode&0o111 == 0 || bin.mode&0o022 != 0 {
			t.Errorf("/kriguard-webhook mode %o, want executable and writable by nobody but its owner", bin.mode)
		}
		checkStaticWebhookBinary(t, bin.data)
	})
}

// checkStaticWebhookBinary checks that data is the webhook built without cgo, as a static ELF, and that
// it knows the flags the chart passes.
func checkStaticWebhookBinary(t *testing.T, data []byte) {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("/kriguard-webhook is not an ELF binary: %v", err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("/kriguard-webhook needs a dynamic loader; an image FROM scratch has none")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("/kriguard-webhook links %v dynamically", libs)
	}
	info, err := buildinfo.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("/kriguard-webhook has no Go build information: %v", err)
	}
	if info.Path != "github.com/kriguard/kriguard/cmd/webhook" {
		t.Errorf("/kriguard-webhook was built from %s, want github.com/kriguard/kriguard/cmd/webhook", info.Path)
	}
	for _, s := range info.Settings {
		if s.Key == "CGO_ENABLED" && s.Value != "0" {
			t.Errorf("/kriguard-webhook was built with CGO_ENABLED=%s", s.Value)
		}
	}

	// Run it where it can run: its usage must list the flags the chart depends on.
	if runtime.GOOS != "linux" || f.Machine != map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[runtime.GOARCH] {
		return
	}
	exe := filepath.Join(t.TempDir(), "kriguard-webhook")
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command(exe, "--help").CombinedOutput() // flag's -help exits non-zero in some set-ups
	var missing []string
	for _, flag := range []string{"cert-management", "cert-secret-namespace", "service-name", "validating-webhook-configuration", "mutating-webhook-configuration", "shutdown-delay", "config"} {
		if !strings.Contains(string(out), "-"+flag+" ") {
			missing = append(missing, "--"+flag)
		}
	}
	if len(missing) > 0 {
		t.Errorf("the image's binary does not know %v; its usage:\n%s", missing, out)
	}
}

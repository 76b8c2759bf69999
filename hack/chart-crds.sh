#!/usr/bin/env bash
# Writes the OpenReports CRDs (Report, ClusterReport) into charts/kriguard/files/openreports/, which the
# chart installs with openreports.installCRDs=true. They are taken unmodified from the Go module
# github.com/openreports/reports-api at the version go.mod requires (its config/crd/), so the chart
# installs the very API the code writes. The folder is not committed: run this before `helm package` or
# before installing the chart from the repository.
set -euo pipefail
cd "$(dirname "$0")/.."

module=github.com/openreports/reports-api
dir=$(go mod download -json "${module}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
if [ -z "${dir}" ] || [ ! -d "${dir}/config/crd" ]; then
  echo "chart-crds: no config/crd in ${module} (go mod download ${module} failed?)" >&2
  exit 1
fi
out=charts/kriguard/files/openreports
mkdir -p "${out}"
rm -f "${out}"/*.yaml
cp "${dir}"/config/crd/openreports.io_*.yaml "${out}/"
chmod 0644 "${out}"/*.yaml
echo "chart-crds: $(ls "${out}" | tr '\n' ' ')from ${module}@$(go list -m -f '{{.Version}}' "${module}")" >&2

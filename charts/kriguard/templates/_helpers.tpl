{{/* Chart name, cut to 63 characters (a label value). */}}
{{- define "kriguard.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Prefix of every object name. Cut to 40 characters so that the longest derived name
("<fullname>-webhook-tls", "<fullname>-validating") stays a valid label value.
*/}}
{{- define "kriguard.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "kriguard.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Names shared by several templates; the webhook receives the same ones as flags. */}}
{{- define "kriguard.serviceName" -}}{{ include "kriguard.fullname" . }}-webhook{{- end -}}
{{- define "kriguard.secretName" -}}{{ include "kriguard.fullname" . }}-webhook-tls{{- end -}}
{{- define "kriguard.validatingName" -}}{{ include "kriguard.fullname" . }}-validating{{- end -}}
{{- define "kriguard.mutatingName" -}}{{ include "kriguard.fullname" . }}-mutating{{- end -}}
{{- define "kriguard.configMapName" -}}{{ include "kriguard.fullname" . }}-config{{- end -}}
{{- define "kriguard.certificateName" -}}{{ include "kriguard.fullname" . }}-serving-cert{{- end -}}
{{- define "kriguard.issuerName" -}}{{ include "kriguard.fullname" . }}-selfsigned{{- end -}}
{{- define "kriguard.serviceAccountName" -}}
{{- default (include "kriguard.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{- define "kriguard.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kriguard.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: webhook
{{- end -}}

{{- define "kriguard.auditSelectorLabels" -}}
app.kubernetes.io/name: {{ include "kriguard.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: audit
{{- end -}}

{{- define "kriguard.auditLabels" -}}
helm.sh/chart: {{ include "kriguard.chart" . }}
{{ include "kriguard.auditSelectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: kriguard
{{- end -}}

{{/* The enabled kinds' resources by group, as a dict of group → list of resources, for RBAC rules. */}}
{{- define "kriguard.resourcesByGroup" -}}
{{- $byGroup := dict -}}
{{- range (include "kriguard.kinds" . | fromYamlArray) -}}
{{- $_ := set $byGroup .group (append (get $byGroup .group | default list) .resource) -}}
{{- end -}}
{{- toYaml $byGroup -}}
{{- end -}}

{{- define "kriguard.labels" -}}
helm.sh/chart: {{ include "kriguard.chart" . }}
{{ include "kriguard.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: kriguard
{{- end -}}

{{- define "kriguard.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* cert-manager's "<namespace>/<certificate>" reference for its CA injector. */}}
{{- define "kriguard.injectCAFrom" -}}
{{ .Release.Namespace }}/{{ include "kriguard.certificateName" . }}
{{- end -}}

{{/*
The enabled kinds, sorted by key (Helm ranges over maps in key order), as a YAML list of
{group, version, kind, resource, enforcement, shortName, scope}.
*/}}
{{- define "kriguard.kinds" -}}
{{- $out := list -}}
{{- range $key, $k := .Values.config.kinds -}}
{{- if and $k (ne (toString (dig "enabled" true $k)) "false") -}}
{{- $out = append $out (dict "group" $k.group "version" $k.version "kind" (default $key $k.kind) "resource" $k.resource "enforcement" ($k.enforcement | default "") "shortName" ($k.shortName | default "") "scope" ($k.scope | default "")) -}}
{{- end -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/*
Admission rules for the enabled kinds: one rule per group and version, the resources sorted. Only the
listed resources (no subresources such as status), never a wildcard.
*/}}
{{- define "kriguard.rules" -}}
{{- $kinds := include "kriguard.kinds" . | fromYamlArray -}}
{{- $byGV := dict -}}
{{- range $kinds -}}
{{- $gv := printf "%s/%s" .group .version -}}
{{- $_ := set $byGV $gv (append (get $byGV $gv | default list) .resource) -}}
{{- end -}}
{{- if not $byGV -}}
{{- fail "config.kinds: at least one kind must be enabled; a webhook with no rules guards nothing" -}}
{{- end -}}
{{- range $gv, $resources := $byGV }}
- apiGroups: [{{ splitList "/" $gv | first | quote }}]
  apiVersions: [{{ splitList "/" $gv | last | quote }}]
  resources: {{ $resources | uniq | sortAlpha | toJson }}
  operations: ["CREATE", "UPDATE"]
  scope: "*"
{{- end }}
{{- end -}}

{{/*
webhook.recordKRI, "admission" or "off": an unquoted off in a values file reaches the chart as false.
*/}}
{{- define "kriguard.recordKRI" -}}
{{- ternary "off" (toString .Values.webhook.recordKRI) (eq (toString .Values.webhook.recordKRI) "false") -}}
{{- end -}}

{{/*
The mutating webhook's matchConditions (rules.MutateCondition, held to it by test/chart): with
webhook.recordKRI off its one patch is the name of a CREATE whose name the API server generates, so it
is called for nothing else (rules.GeneratedNameCondition); none otherwise, every call may patch.
*/}}
{{- define "kriguard.mutatingMatchConditions" -}}
{{- if eq (include "kriguard.recordKRI" .) "off" }}
- name: generated-name
  expression: "request.operation == 'CREATE' && has(object.metadata.generateName) && object.metadata.generateName != '' && (!has(object.metadata.name) || object.metadata.name == '')"
{{- end }}
{{- end -}}

{{/*
The mutating webhook's rules: only what it may patch (rules.MutatedOperations, held to it by test/chart),
so that the API server makes no call that cannot change the object. CREATE and UPDATE of a kind named
with a KRI (its kriguard.io/kri annotation), CREATE alone with webhook.recordKRI off (generateName
names); CREATE of KongPluginBinding and KongService, whose generated names their own fields give; nothing
for the other Kong kinds, which keep their names. One rule per group, version and operations.
*/}}
{{- define "kriguard.mutatingRules" -}}
{{- $kinds := include "kriguard.kinds" . | fromYamlArray -}}
{{- $byKey := dict -}}
{{- range $kinds -}}
{{- $ops := ternary "CREATE,UPDATE" "CREATE" (eq (include "kriguard.recordKRI" $) "admission") -}}
{{- if eq .group "configuration.konghq.com" -}}
{{- $ops = ternary "CREATE" "" (has .kind (list "KongPluginBinding" "KongService")) -}}
{{- end -}}
{{- if $ops -}}
{{- $key := printf "%s/%s|%s" .group .version $ops -}}
{{- $_ := set $byKey $key (append (get $byKey $key | default list) .resource) -}}
{{- end -}}
{{- end -}}
{{- if not $byKey }}
[]
{{- end -}}
{{- range $key, $resources := $byKey }}
{{- $gv := splitList "|" $key | first }}
- apiGroups: [{{ splitList "/" $gv | first | quote }}]
  apiVersions: [{{ splitList "/" $gv | last | quote }}]
  resources: {{ $resources | uniq | sortAlpha | toJson }}
  operations: {{ splitList "," (splitList "|" $key | last) | toJson }}
  scope: "*"
{{- end }}
{{- end -}}

{{/*
The Kuma kinds a release removed that no release names with a KRI, so that config.kinds cannot list them
(MeshGatewayInstance, the legacy policies, …; MeshGateway, ZoneIngress and ZoneEgress are config.kinds):
kind → resource, as v2.14.3's CRDs name them, which a cluster upgraded to 3.0 still serves (Helm never
deletes CRDs). Held equal to naming's list (naming.Release.RemovedKinds) by test/chart's
TestRemovedKindsRule.
*/}}
{{- define "kriguard.removedKuma" -}}
CircuitBreaker: circuitbreakers
ExternalService: externalservices
FaultInjection: faultinjections
HealthCheck: healthchecks
MeshGatewayConfig: meshgatewayconfigs
MeshGatewayInstance: meshgatewayinstances
MeshGatewayRoute: meshgatewayroutes
ProxyTemplate: proxytemplates
RateLimit: ratelimits
Retry: retries
Timeout: timeouts
TrafficLog: trafficlogs
TrafficPermission: trafficpermissions
TrafficRoute: trafficroutes
TrafficTrace: traffictraces
VirtualOutbound: virtualoutbounds
ZoneEgressInsight: zoneegressinsights
ZoneIngressInsight: zoneingressinsights
{{- end -}}

{{/* Their resources, a sorted JSON list. */}}
{{- define "kriguard.removedKumaResources" -}}
{{- values (include "kriguard.removedKuma" . | fromYaml) | sortAlpha | toJson -}}
{{- end -}}

{{/* Their kinds as Kind.kuma.io, sorted, as the continuous audit's --kinds names them. */}}
{{- define "kriguard.removedKumaKinds" -}}
{{- $out := list -}}
{{- range $kind, $_ := include "kriguard.removedKuma" . | fromYaml -}}
{{- $out = append $out (printf "%s.kuma.io" $kind) -}}
{{- end -}}
{{- $out | toJson -}}
{{- end -}}

{{/* "true" unless config.kuma.version pins 2.14, which removes none of the Kuma kinds: then they are routed to
the webhook and watched by the continuous audit. */}}
{{- define "kriguard.judgesRemovedKinds" -}}
{{- ne (toString .Values.config.kuma.version) "2.14" -}}
{{- end -}}

{{/*
The validating webhook's rule for those kinds: CREATE and UPDATE, so that a release that removed them (3.0)
refuses them naming itself, while one that ships them (2.14) admits them untouched (docs/releases.md,
"Removed kinds at admission"). DELETE is never sent: leftovers must stay removable. Not rendered when
config.kuma.version pins 2.14, which removes none of them: they then never reach the webhook.
*/}}
{{- define "kriguard.removedKindsRule" -}}
{{- if eq (include "kriguard.judgesRemovedKinds" .) "true" }}
- apiGroups: ["kuma.io"]
  apiVersions: ["v1alpha1"]
  resources: {{ include "kriguard.removedKumaResources" . }}
  operations: ["CREATE", "UPDATE"]
  scope: "*"
{{- end }}
{{- end -}}

{{/* Namespaces the webhook never sees: kube-system, its own, the configured ones, and opted-out ones. */}}
{{- define "kriguard.namespaceSelector" -}}
matchExpressions:
  - key: kubernetes.io/metadata.name
    operator: NotIn
    values: {{ concat (list "kube-system" .Release.Namespace) .Values.admission.excludeNamespaces | uniq | toJson }}
  - key: {{ .Values.admission.optOutLabel }}
    operator: NotIn
    values: ["true"]
{{- end -}}

{{/* Fails rendering when values contradict each other in ways the JSON schema cannot express. */}}
{{- define "kriguard.validate" -}}
{{- $minGrace := add .Values.webhook.shutdownDelaySeconds .Values.admission.timeoutSeconds -}}
{{- if le (int .Values.terminationGracePeriodSeconds) (int $minGrace) -}}
{{- fail (printf "terminationGracePeriodSeconds (%v) must exceed webhook.shutdownDelaySeconds + admission.timeoutSeconds (%v): a pod killed earlier drops admission requests in flight" .Values.terminationGracePeriodSeconds $minGrace) -}}
{{- end -}}
{{- if and .Values.webhook.metricsPort (or (eq (int .Values.webhook.metricsPort) (int .Values.webhook.port)) (eq (int .Values.webhook.metricsPort) (int .Values.webhook.healthPort))) -}}
{{- fail "webhook.metricsPort must differ from webhook.port and webhook.healthPort" -}}
{{- end -}}
{{- range $key, $k := .Values.config.kinds -}}
{{- if and $k (regexMatch "(^|\\.)k8s\\.io$" (toString $k.group)) -}}
{{- fail (printf "config.kinds.%s.group: %s is a Kubernetes API group; kriguard guards custom resources only (a rule on core or *.k8s.io kinds could block the cluster itself)" $key $k.group) -}}
{{- end -}}
{{- end -}}
{{- if eq (int .Values.webhook.port) (int .Values.webhook.healthPort) -}}
{{- fail "webhook.healthPort must differ from webhook.port" -}}
{{- end -}}
{{- include "kriguard.validatePeerCacheMemory" . -}}
{{- end -}}

{{/* A list of strings as a CEL list literal of single-quoted strings, as admissionpolicy writes them. */}}
{{- define "kriguard.celList" -}}
{{- $q := list -}}
{{- range . -}}
{{- $q = append $q (printf "'%s'" (replace "'" "\\'" (replace "\\" "\\\\" .))) -}}
{{- end -}}
[{{ join ", " $q }}]
{{- end -}}

{{/* "true" when kuma.version or kuma.mode is auto: the webhook then reads the Kuma control plane's Deployment. */}}
{{- define "kriguard.kumaDetects" -}}
{{- or (eq (toString .Values.config.kuma.version) "auto") (eq (toString (.Values.config.kuma.mode | default "auto")) "auto") -}}
{{- end -}}

{{/* The name of the Kuma control plane's Deployment that kuma.version auto reads. */}}
{{- define "kriguard.kumaControlPlane" -}}
{{- (.Values.config.kuma.controlPlane | default dict).deployment | default "kuma-control-plane" -}}
{{- end -}}

{{/* "true" when the webhook caches KongSNIs and KongCertificates (webhook.peerCache.maxObjects > 0). */}}
{{- define "kriguard.peerCache" -}}
{{- gt (int ((.Values.webhook.peerCache | default dict).maxObjects | default 0)) 0 -}}
{{- end -}}

{{/*
Fails when resources.limits.memory cannot hold the peer cache at its bound beside the reviews: the webhook
charges webhook.peerCache.maxObjects × 4096 bytes (webhook.PeerCacheMemory) to its memory budget and would
refuse to start (docs/limits.md). The formula is webhook.MinMemoryLimitFor's, held equal by test/chart's
TestPeerCacheMemoryLimit; a limit written otherwise than an integer and a binary or decimal suffix (0.5Gi) is
left to the webhook, which names --peer-cache-max-objects.
*/}}
{{- define "kriguard.validatePeerCacheMemory" -}}
{{- $peers := int64 ((.Values.webhook.peerCache | default dict).maxObjects | default 0) -}}
{{- $mem := toString (dig "limits" "memory" "" .Values.resources) -}}
{{- if and (gt $peers 0) (regexMatch "^[0-9]+(Ki|Mi|Gi|Ti|k|M|G|T)?$" $mem) -}}
{{- $num := regexReplaceAll "[^0-9].*$" $mem "" | int64 -}}
{{- $units := dict "" 1 "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776 "k" 1000 "M" 1000000 "G" 1000000000 "T" 1000000000000 -}}
{{- $bytes := mul $num (get $units (regexReplaceAll "^[0-9]+" $mem "")) -}}
{{- $need := mul (add (div (add 167772176 (mul $peers 4096)) 9) 1) 10 -}}
{{- if lt $bytes $need -}}
{{- fail (printf "webhook.peerCache.maxObjects: %d objects, up to 4096 bytes each, need resources.limits.memory of at least %dMi beside the reviews, not %s (docs/limits.md)" $peers (add (div (sub $need 1) 1048576) 1) $mem) -}}
{{- end -}}
{{- end -}}
{{- end -}}

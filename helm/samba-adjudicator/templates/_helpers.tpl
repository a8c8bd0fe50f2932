{{/*
Chart name, truncated to 63 characters (the DNS-1123 label limit).
*/}}
{{- define "samba-adjudicator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Fully qualified app name: the release name, with the chart name appended unless the
release name already contains it. Truncated to 63 characters.
*/}}
{{- define "samba-adjudicator.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Chart name and version, as used by the helm.sh/chart label.
*/}}
{{- define "samba-adjudicator.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Selector labels: stable for the life of a release (a Deployment's selector is immutable).
*/}}
{{- define "samba-adjudicator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "samba-adjudicator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
Standard labels, put on every object the chart renders.
*/}}
{{- define "samba-adjudicator.labels" -}}
helm.sh/chart: {{ include "samba-adjudicator.chart" . }}
{{ include "samba-adjudicator.selectorLabels" . }}
app.kubernetes.io/version: {{ include "samba-adjudicator.imageTag" . | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/component: server
app.kubernetes.io/part-of: samba-adjudicator
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/*
Name of the ServiceAccount the pods run as.
*/}}
{{- define "samba-adjudicator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "samba-adjudicator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
Image tag: the tag value, else the chart's appVersion.
*/}}
{{- define "samba-adjudicator.imageTag" -}}
{{- default .Chart.AppVersion .Values.image.tag }}
{{- end }}

{{/*
Image reference: repository@digest when a digest is set, else repository:tag.
*/}}
{{- define "samba-adjudicator.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (include "samba-adjudicator.imageTag" .) }}
{{- end }}
{{- end }}

{{/*
Checks across values that a JSON schema cannot express. Fails the render.
*/}}
{{- define "samba-adjudicator.validate" -}}
{{- $drain := add .Values.lifecycle.preStopSleepSeconds .Values.server.shutdownGraceSeconds }}
{{- if le (int .Values.terminationGracePeriodSeconds) (int $drain) }}
{{- fail (printf "terminationGracePeriodSeconds (%d) must exceed lifecycle.preStopSleepSeconds + server.shutdownGraceSeconds (%d), or Kubernetes kills the pod before in-flight calls drain" (int .Values.terminationGracePeriodSeconds) (int $drain)) }}
{{- end }}
{{- if and .Values.autoscaling.enabled (gt (int .Values.autoscaling.minReplicas) (int .Values.autoscaling.maxReplicas)) }}
{{- fail (printf "autoscaling.minReplicas (%d) must not exceed autoscaling.maxReplicas (%d)" (int .Values.autoscaling.minReplicas) (int .Values.autoscaling.maxReplicas)) }}
{{- end }}
{{- range $section := list "server" "service" }}
{{- $v := index $.Values $section }}
{{- if or (eq (int $v.grpcPort) (int $v.httpPort)) (eq (int $v.grpcPort) (int $v.adminPort)) (eq (int $v.httpPort) (int $v.adminPort)) }}
{{- fail (printf "%s.grpcPort, %s.httpPort and %s.adminPort must differ" $section $section $section) }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The Secret the chart generates for the keys (signing, page tokens) it is asked to make.
*/}}
{{- define "samba-adjudicator.keysSecretName" -}}
{{- printf "%s-keys" (include "samba-adjudicator.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The Secret holding a key: "<values>.existingSecret", else the generated one when
"<values>.generate", else empty (the key is not set). Called with (list . "snapshotKeys").
*/}}
{{- define "samba-adjudicator.keySecret" -}}
{{- $root := index . 0 }}
{{- $values := index $root.Values (index . 1) }}
{{- if $values.existingSecret }}
{{- $values.existingSecret }}
{{- else if $values.generate }}
{{- include "samba-adjudicator.keysSecretName" $root }}
{{- end }}
{{- end }}

{{/*
The port of server.otlpEndpoint: the URL's, else the scheme's (80, 443).
*/}}
{{- define "samba-adjudicator.otlpPort" -}}
{{- $url := urlParse .Values.server.otlpEndpoint -}}
{{- $port := regexFind "[0-9]+$" (regexFind ":[0-9]+$" $url.host) -}}
{{- if $port }}{{ $port }}{{ else if eq $url.scheme "https" }}443{{ else }}80{{ end -}}
{{- end }}

{{/*
The workers' own container ports (server.workerGrpcPort, server.workerHttpPort): worker i
on the first + i, named grpc-w<i> and http-w<i>; none when both are 0.
*/}}
{{- define "samba-adjudicator.workerPorts" -}}
{{- range $kind := list "grpc" "http" }}
{{- $first := int (index $.Values.server (printf "worker%sPort" (title $kind))) }}
{{- if $first }}
{{- range $i := until (int $.Values.server.workers) }}
- name: {{ $kind }}-w{{ $i }}
  containerPort: {{ add $first $i }}
  protocol: TCP
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The ConfigMap's data: every non-secret setting, as the environment variable the server reads.
*/}}
{{- define "samba-adjudicator.settings" -}}
SAMBA_HOST: {{ .Values.server.host | quote }}
SAMBA_GRPC_PORT: {{ .Values.server.grpcPort | quote }}
SAMBA_HTTP_PORT: {{ .Values.server.httpPort | quote }}
SAMBA_ADMIN_PORT: {{ .Values.server.adminPort | quote }}
SAMBA_WORKERS: {{ .Values.server.workers | quote }}
SAMBA_WORKER_GRPC_PORT: {{ .Values.server.workerGrpcPort | quote }}
SAMBA_WORKER_HTTP_PORT: {{ .Values.server.workerHttpPort | quote }}
SAMBA_MAX_MESSAGE_BYTES: {{ .Values.server.maxMessageBytes | int64 | quote }}
SAMBA_LOG_LEVEL: {{ .Values.server.logLevel | quote }}
SAMBA_SHUTDOWN_GRACE_SECONDS: {{ .Values.server.shutdownGraceSeconds | quote }}
SAMBA_SNAPSHOT_CACHE_SIZE: {{ .Values.server.snapshotCacheSize | int64 | quote }}
SAMBA_BUILD: {{ .Values.server.build | quote }}
SAMBA_MAX_CONNECTIONS: {{ .Values.server.maxConnections | int64 | quote }}
SAMBA_READ_TIMEOUT_SECONDS: {{ .Values.server.readTimeoutSeconds | quote }}
SAMBA_IDLE_TIMEOUT_SECONDS: {{ .Values.server.idleTimeoutSeconds | quote }}
SAMBA_MAX_CONNECTION_AGE_SECONDS: {{ .Values.server.maxConnectionAgeSeconds | quote }}
SAMBA_MAX_CONNECTION_AGE_GRACE_SECONDS: {{ .Values.server.maxConnectionAgeGraceSeconds | quote }}
SAMBA_MAX_CALL_SECONDS: {{ .Values.server.maxCallSeconds | quote }}
PROMETHEUS_MULTIPROC_DIR: "/tmp/metrics"
{{- with .Values.server.corsOrigins }}
SAMBA_CORS_ORIGINS: {{ join "," . | quote }}
{{- end }}
{{- with .Values.server.otlpEndpoint }}
SAMBA_OTLP_ENDPOINT: {{ . | quote }}
{{- end }}
{{- end }}

{{/*
The label matchers that pick this release's series in Prometheus (the alerts' selector):
metrics.prometheusRule.selector, or by default the namespace and the Service the
ServiceMonitor scrapes through (its targets carry a `service` label).
*/}}
{{- define "samba-adjudicator.seriesSelector" -}}
{{- default (printf "namespace=%q, service=%q" .Release.Namespace (include "samba-adjudicator.fullname" .)) .Values.metrics.prometheusRule.selector }}
{{- end }}

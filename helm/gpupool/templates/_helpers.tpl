{{/* The chart name, or nameOverride. */}}
{{- define "gpupool.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The prefix of every object name: fullnameOverride, else the release name when it
already holds the chart name (release "gpupool" gives "gpupool", not
"gpupool-gpupool"), else "<release>-<chart>". At most 63 characters (a DNS label).
*/}}
{{- define "gpupool.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := include "gpupool.name" . }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* The controller's objects: Deployment, ServiceAccount, ClusterRole. */}}
{{- define "gpupool.controllerName" -}}
{{- printf "%s-controller" (include "gpupool.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "gpupool.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "gpupool.controllerName" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The namespace of the reservation pods: a namespace of their own. */}}
{{- define "gpupool.reservationNamespace" -}}
{{- default (printf "%s-reservations" .Release.Namespace | trunc 63 | trimSuffix "-") .Values.reservations.namespace }}
{{- end }}

{{- define "gpupool.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* What selects the controller's pods; never changes across upgrades. */}}
{{- define "gpupool.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gpupool.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: controller
{{- end }}

{{/* The standard labels of every object of the release. */}}
{{- define "gpupool.labels" -}}
helm.sh/chart: {{ include "gpupool.chart" . }}
app.kubernetes.io/name: {{ include "gpupool.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: gpupool
{{- end }}

{{/*
The webhook's Service, its Secret (kept by the controller, or by cert-manager)
and its MutatingWebhookConfiguration.
*/}}
{{- define "gpupool.webhookName" -}}
{{- printf "%s-webhook" (include "gpupool.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "gpupool.webhookSecret" -}}
{{- printf "%s-webhook-tls" (include "gpupool.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "gpupool.webhookConfiguration" -}}
{{- printf "%s-pods" (include "gpupool.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "gpupool.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/*
Checks across values that values.schema.json cannot express. Two controllers
without leader election would both write: admissions and preemptions twice.
*/}}
{{- define "gpupool.validate" -}}
{{- if and (not .Values.leaderElection.enabled) (gt (int .Values.replicas) 1) }}
{{- fail (printf "replicas: %v controllers need leaderElection.enabled: true (without it every replica writes)" .Values.replicas) }}
{{- end }}
{{- if and .Values.webhook.enabled (has (int .Values.webhook.port) (list (int .Values.metrics.port) (int .Values.healthProbe.port))) }}
{{- fail (printf "webhook.port: %v is metrics.port or healthProbe.port too; the webhook needs a port of its own" .Values.webhook.port) }}
{{- end }}
{{- if eq (int .Values.metrics.port) (int .Values.healthProbe.port) }}
{{- fail (printf "healthProbe.port: %v is metrics.port too; the probes need a port of their own" .Values.healthProbe.port) }}
{{- end }}
{{- end }}

{{/* Names, labels and value checks shared by the templates. */}}

{{/* The objects' base name: the release name if it contains "evictd", else "<release>-evictd". */}}
{{- define "evictd.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "evictd.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "evictd.labels" -}}
{{ include "evictd.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* The ServiceAccount's user name, as the API server authenticates its tokens. */}}
{{- define "evictd.serviceAccountUser" -}}
{{- printf "system:serviceaccount:%s:%s" .Release.Namespace (include "evictd.fullname" .) -}}
{{- end -}}

{{/* Refuse value combinations evictd would reject or that would grant the wrong permissions. */}}
{{- define "evictd.validate" -}}
{{- if not (has .Values.source (list "kubelet" "proxy")) -}}
{{- fail (printf "source must be \"kubelet\" or \"proxy\", not %q" .Values.source) -}}
{{- end -}}
{{- if and .Values.useEvictionApi (not .Values.enforce) -}}
{{- fail "useEvictionApi: true needs enforce: true (shadow mode never evicts)" -}}
{{- end -}}
{{- end -}}

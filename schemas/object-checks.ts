// Checks of a parsed object that need more than one field or the address parser, as the API
// server's validation makes them after decoding: addresses, a workload's selector against its
// template, the proposal's namespace isolation annotation.
import { formatPath, type ValidationIssue } from './issues.js';
import { parseIp } from './k8s/ip.js';
import { LEGACY_ISOLATION_ANNOTATION } from './k8s/core.js';
import { LegacyIsolationAnnotationSchema } from './k8s/network-policy.js';
import { compileSelector } from './k8s/label-selector.js';
import { isWorkload, podTemplateOf, templatePath } from './k8s/workload.js';
import type { SnapshotObject } from './snapshot.js';

/** Checks that need more than one field or the address parser. */
export function semanticIssues(obj: SnapshotObject, path: string, object: ValidationIssue['object']): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  if (obj.kind === 'Pod') {
    if (obj.status.podIP !== undefined && !parseIp(obj.status.podIP)) out.push({ path: `${path}.status.podIP`, message: `invalid IP address "${obj.status.podIP}"`, object });
    obj.status.podIPs.forEach((p, i) => {
      if (!parseIp(p.ip)) out.push({ path: `${path}.status.podIPs[${i}].ip`, message: `invalid IP address "${p.ip}"`, object });
    });
  }
  if (obj.kind === 'Node') {
    obj.status.addresses.forEach((a, i) => {
      if ((a.type === 'InternalIP' || a.type === 'ExternalIP') && !parseIp(a.address)) out.push({ path: `${path}.status.addresses[${i}].address`, message: `invalid IP address "${a.address}"`, object });
    });
  }
  if (isWorkload(obj)) out.push(...selectorIssues(obj, path, object));
  if (obj.kind === 'Namespace') {
    const raw = obj.metadata.annotations[LEGACY_ISOLATION_ANNOTATION];
    if (raw !== undefined) {
      const at = `${path}.metadata.annotations[${JSON.stringify(LEGACY_ISOLATION_ANNOTATION)}]`;
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        out.push({ path: at, message: 'must be JSON such as {"ingress": {"isolation": "DefaultDeny"}}', object });
        return out;
      }
      const parsed = LegacyIsolationAnnotationSchema.safeParse(json);
      if (!parsed.success) for (const i of parsed.error.issues) out.push({ path: formatPath(at, i.path), message: i.message, object });
    }
  }
  return out;
}

/**
 * apps/v1 validation (ValidateDeploymentSpec and alike): "empty selector is invalid for
 * deployment" and "selector does not match template labels"; a ReplicationController's
 * selector, when set, must match its template's labels too.
 */
function selectorIssues(obj: SnapshotObject, path: string, object: ValidationIssue['object']): ValidationIssue[] {
  if (!isWorkload(obj) || obj.kind === 'CronJob' || obj.kind === 'Job') return [];
  const selector = obj.kind === 'ReplicationController' ? (obj.spec.selector ? { matchLabels: obj.spec.selector } : null) : obj.spec.selector;
  if (!selector) return [];
  const compiled = compileSelector(selector);
  if (compiled.isEmpty && obj.kind !== 'ReplicationController') return [{ path: `${path}.spec.selector`, message: `empty selector is invalid for ${obj.kind}`, object }];
  // A Rollout with workloadRef has no template of its own: its selector is checked by Argo against the Deployment's.
  const template = podTemplateOf(obj);
  if (template === null || compiled.matches(template.metadata.labels)) return [];
  return [{ path: formatPath(path, [...templatePath(obj), 'metadata', 'labels']), message: 'selector does not match template labels', object }];
}

export function legacyIngressIsolation(annotations: Record<string, string>): boolean {
  const raw = annotations[LEGACY_ISOLATION_ANNOTATION];
  if (raw === undefined) return false;
  const parsed = LegacyIsolationAnnotationSchema.safeParse(JSON.parse(raw));
  return parsed.success && parsed.data.ingress?.isolation === 'DefaultDeny';
}

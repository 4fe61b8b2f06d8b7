// The verdicts and matrix bodies for any cluster, sent along or stored: POST /v1/verdicts and
// /v1/matrix answer a snapshot of the request, POST /v1/clusters/{cluster}/verdicts and …/matrix
// a stored version with the same bodies.
import { findEndpoint, FlowError, matrix, verdictFor } from '../../core/evaluate/index.js';
import type { Cluster } from '../../core/cluster.js';
import { warningMessages } from '../../core/warnings.js';
import { compileSelector } from '../../schemas/k8s/label-selector.js';
import { API_LIMITS, type FlowRequest, type MatrixRequest } from '../../schemas/api/verdicts.js';
import type { ValidationIssue } from '../../schemas/snapshot.js';
import { invalid } from '../errors.js';
import type { StoredClusters } from './stored-clusters.js';

/** Verdicts in request order; unknown names are 422s on $.flows[i]. */
export function answerVerdicts(cluster: Cluster, requested: readonly FlowRequest[]) {
  const issues: ValidationIssue[] = [];
  const verdicts = requested.map((f, i) => {
    try {
      return verdictFor(cluster, f);
    } catch (e) {
      if (!(e instanceof FlowError)) throw e;
      issues.push({ path: `$.flows[${i}].${e.field}`, message: e.message });
      return null;
    }
  });
  if (issues.length > 0) throw invalid(issues);
  return { verdicts: verdicts.filter((v) => v !== null), warnings: warningMessages(cluster.warnings) };
}

/** All-pairs truth tables of the pods the request's filter keeps, one per port/protocol. */
export function answerMatrix(cluster: Cluster, req: Omit<MatrixRequest, 'snapshot'>) {
  const filter = req.pods;
  // Names as clients write them: `ns/pod`, or a workload in any of kubectl's spellings.
  const names = filter?.names ? new Set(filter.names.map((n) => findEndpoint(cluster, n)?.key ?? n)) : null;
  const selector = filter?.selector ? compileSelector(filter.selector) : null;
  const pods = cluster.pods.filter(
    (p) =>
      !p.hostNetwork &&
      (!filter?.namespaces || filter.namespaces.includes(p.namespace)) &&
      (!names || names.has(p.key)) &&
      (!selector || selector.matches(p.labels)),
  );
  const cells = pods.length * pods.length * req.ports.length;
  if (cells > API_LIMITS.matrixCells) {
    throw invalid([{ path: '$.pods', message: `${pods.length} pods × ${pods.length} × ${req.ports.length} ports = ${cells} cells, over the limit of ${API_LIMITS.matrixCells}; narrow the pods` }]);
  }
  const family = req.ipFamily === 'IPv4' ? 4 : req.ipFamily === 'IPv6' ? 6 : null;
  const results = matrix(cluster, pods, req.ports, family);
  return { pods: pods.map((p) => p.key), results, warnings: warningMessages(cluster.warnings) };
}

/** An answer from a stored version (the latest when `version` is undefined), with the version it came from. */
export async function answerStored<T>(clusters: StoredClusters, name: string, version: string | undefined, answer: (cluster: Cluster) => T): Promise<{ version: string; body: T }> {
  const stored = await clusters.load(name, version);
  return { version: stored.version, body: answer(stored.cluster) };
}

// Random mutations deep inside a valid JSON value (delete, retype, replace with an interesting or
// a random value, rename, duplicate, wrap): bodies for the HTTP fuzz properties, and inputs on
// which the compiled schemas must answer as the schemas do.
import fc from 'fast-check';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };


type Key = string | number;
type Container = Json[] | { [k: string]: Json };

export const isContainer = (v: Json): v is Container => typeof v === 'object' && v !== null;

/** Every path to a value inside `root` (not the root itself). */
function pathsOf(root: Json): Key[][] {
  const out: Key[][] = [];
  const walk = (v: Json, path: Key[]) => {
    if (!isContainer(v)) return;
    const entries: [Key, Json][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    for (const [k, child] of entries) {
      const p = [...path, k];
      out.push(p);
      walk(child, p);
    }
  };
  walk(root, []);
  return out;
}

function parentOf(root: Json, path: Key[]): Container | null {
  let cur: Json = root;
  for (const k of path.slice(0, -1)) {
    if (!isContainer(cur)) return null;
    cur = (cur as Record<Key, Json>)[k] as Json;
  }
  return isContainer(cur) ? cur : null;
}

const FIELD_NAMES = [
  'apiVersion', 'kind', 'metadata', 'name', 'namespace', 'labels', 'annotations', 'spec', 'status', 'items',
  'podSelector', 'namespaceSelector', 'ipBlock', 'cidr', 'except', 'policyTypes', 'ingress', 'egress', 'from', 'to', 'ports',
  'port', 'endPort', 'protocol', 'matchLabels', 'matchExpressions', 'key', 'operator', 'values',
  'priority', 'subject', 'namespaces', 'pods', 'nodes', 'networks', 'domainNames', 'action',
  'portNumber', 'namedPort', 'portRange', 'start', 'end', 'related', 'sameLabels', 'notSameLabels',
  'tier', 'protocols', 'tcp', 'udp', 'sctp', 'destinationPort', 'destinationNamedPort', 'number', 'range',
  'podIP', 'podIPs', 'ip', 'hostNetwork', 'nodeName', 'containers', 'containerPort', 'addresses', 'address', 'type', 'phase',
  'flows', 'snapshot', 'ipFamily', 'selector', 'names', '__proto__', 'constructor', 'toString', '',
];

const INTERESTING: Json[] = [
  null, true, false, 0, -1, 1, 1.5, 65535, 65536, 1000, 1001, 1e308, -0, Number.MAX_SAFE_INTEGER + 2,
  '', ' ', 'x', 'x/a', 'y/c', 'default', 'List', 'v1', 'Pod', 'Namespace', 'Node', 'NetworkPolicy', 'AdminNetworkPolicy',
  'BaselineAdminNetworkPolicy', 'ClusterNetworkPolicy', 'networking.k8s.io/v1', 'extensions/v1beta1',
  'policy.networking.k8s.io/v1alpha1', 'policy.networking.k8s.io/v1alpha2', 'Ingress', 'Egress', 'In', 'NotIn', 'Exists',
  'DoesNotExist', 'Allow', 'Accept', 'Deny', 'Pass', 'Admin', 'Baseline', 'TCP', 'UDP', 'SCTP', 'ICMP', 'IPv4', 'IPv6',
  'Self', 'NotSelf', 'self', 'http', 'dns', 'HTTP', '10.0.0.1', '10.0.0.0/8', '10.0.0.1/32', '0.0.0.0/0', '::', '::/0',
  'fd00::1', 'fd00::/64', '::ffff:10.0.0.1', '10.0.0.0/33', 'fe80::1%eth0', '1.2.3', 'not an ip', '{"ingress": {"isolation": "DefaultDeny"}}',
  '{', 'a'.repeat(300), '__proto__', 'constructor', [], {}, [null], [{}], [[]], { kind: 'List', items: [] }, { namespaces: {} },
  { matchLabels: {} }, { pods: { podSelector: {} } }, { networks: ['10.0.0.0/8'] }, { nodes: {} }, { domainNames: ['a.example'] },
  { ipBlock: { cidr: '10.0.0.0/8' } }, { podSelector: {} }, { portNumber: { port: 80 } }, { namedPort: 'http' },
  { tcp: { destinationPort: { number: 80 } } }, { destinationNamedPort: 'http' }, { ip: '10.0.0.1' }, { pod: 'x/a' },
  { key: 'app', operator: 'In', values: ['a'] }, { related: 'NotSelf' }, { sameLabels: [] },
];

function retype(v: Json): Json {
  if (v === null) return {};
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v.length;
  if (typeof v === 'boolean') return v ? 'true' : 0;
  if (Array.isArray(v)) return v.length > 0 ? v[0]! : {};
  return Object.values(v);
}

type Op =
  | { op: 'delete' }
  | { op: 'retype' }
  | { op: 'interesting'; value: Json }
  | { op: 'replace'; value: Json }
  | { op: 'rename'; name: string }
  | { op: 'duplicate' }
  | { op: 'wrap' };

interface Mutation {
  readonly at: number;
  readonly op: Op;
}

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Op>({ op: 'delete' }) },
  { weight: 3, arbitrary: fc.constant<Op>({ op: 'retype' }) },
  { weight: 4, arbitrary: fc.constantFrom(...INTERESTING).map((value): Op => ({ op: 'interesting', value })) },
  { weight: 2, arbitrary: (fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>).map((value): Op => ({ op: 'replace', value })) },
  { weight: 2, arbitrary: fc.constantFrom(...FIELD_NAMES).map((name): Op => ({ op: 'rename', name })) },
  { weight: 1, arbitrary: fc.constant<Op>({ op: 'duplicate' }) },
  { weight: 1, arbitrary: fc.constant<Op>({ op: 'wrap' }) },
);

export const mutationsArb: fc.Arbitrary<Mutation[]> = fc.array(fc.record({ at: fc.nat(), op: opArb }), { minLength: 1, maxLength: 4 });

/** Applies the mutations in order; each picks its target among the paths that exist at that moment. */
export function mutate(base: Json, mutations: readonly Mutation[]): Json {
  const root = structuredClone(base);
  for (const { at, op } of mutations) {
    const paths = pathsOf(root);
    if (paths.length === 0) break;
    const path = paths[at % paths.length]!;
    const parent = parentOf(root, path);
    if (!parent) continue;
    const key = path[path.length - 1]!;
    const p = parent as Record<Key, Json>;
    const current = p[key] as Json;
    switch (op.op) {
      case 'delete':
        if (Array.isArray(parent)) parent.splice(key as number, 1);
        else delete p[key];
        break;
      case 'retype':
        p[key] = retype(current);
        break;
      case 'interesting':
      case 'replace':
        p[key] = structuredClone(op.value);
        break;
      case 'rename':
        if (Array.isArray(parent)) {
          p[key] = { [op.name]: current };
        } else {
          delete p[key];
          // defineProperty keeps "__proto__" an own data property, as JSON.parse would.
          Object.defineProperty(p, op.name, { value: current, enumerable: true, writable: true, configurable: true });
        }
        break;
      case 'duplicate':
        if (Array.isArray(parent)) parent.splice(key as number, 0, structuredClone(current));
        else p[key] = [current, structuredClone(current)];
        break;
      case 'wrap':
        p[key] = Array.isArray(current) ? { kind: 'List', items: current } : [current];
        break;
    }
  }
  return root;
}

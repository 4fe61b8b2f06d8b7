// Deterministic generators of realistic cluster snapshots for the benchmarks: Kubernetes
// List JSON as `kubectl get ns,nodes,pods,networkpolicies,adminnetworkpolicies,… -o json`
// prints it (trimmed of status noise the compiler never reads, but with the usual metadata
// so JSON.parse and schema parsing see realistic objects).
//
// Shape: system namespaces (default, kube-system, monitoring, ingress-nginx) plus user
// namespaces labelled team/tenant/env; control-plane and worker nodes, each worker with a
// /24 pod CIDR and an InternalIP; user pods come in Deployments sharing app/tier labels and
// named container ports, spread across workers; kube-proxy and node-exporter are
// host-network DaemonSets; a few finished Job pods. NetworkPolicies per namespace are the
// usual kinds: default-deny, allow-same-namespace, allow app→app on named ports, allow from
// other namespaces by label, monitoring scrape, ingress controller, DNS egress to
// kube-system on UDP/TCP 53, egress to external ipBlocks with excepts, endPort ranges.
// AdminNetworkPolicies use Allow/Deny/Pass with namespaces/pods/nodes/networks peers and
// ports; the BaselineAdminNetworkPolicy denies.
//
// Same spec + same seed → byte-identical JSON (one seeded PRNG, no clock, no Math.random).

export type SizeName = 'S' | 'M' | 'L';

export interface SizeSpec {
  readonly name: SizeName;
  /** Total namespaces, the 4 system ones included. */
  readonly namespaces: number;
  /** Total Pod objects: user Deployments, system pods, host-network DaemonSets, finished Jobs. */
  readonly pods: number;
  /** Total nodes; the first 3 are control-plane nodes that only run DaemonSets. */
  readonly nodes: number;
  readonly networkPolicies: number;
  readonly adminNetworkPolicies: number;
  readonly baselineAdminNetworkPolicy: boolean;
  readonly seed: number;
}

export const SIZES: Readonly<Record<SizeName, SizeSpec>> = {
  S: { name: 'S', namespaces: 20, pods: 1_000, nodes: 10, networkPolicies: 100, adminNetworkPolicies: 5, baselineAdminNetworkPolicy: true, seed: 1 },
  M: { name: 'M', namespaces: 1_000, pods: 10_000, nodes: 100, networkPolicies: 10_000, adminNetworkPolicies: 20, baselineAdminNetworkPolicy: true, seed: 2 },
  L: { name: 'L', namespaces: 5_000, pods: 100_000, nodes: 1_000, networkPolicies: 75_000, adminNetworkPolicies: 20, baselineAdminNetworkPolicy: true, seed: 3 },
};

export type Labels = Record<string, string>;

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Labels; [k: string]: unknown };
  [k: string]: unknown;
}

export interface SnapshotList {
  apiVersion: 'v1';
  kind: 'List';
  metadata: { resourceVersion: string };
  items: K8sObject[];
}

/** What was generated, for reports and tests. */
export interface GeneratedSummary {
  readonly namespaces: number;
  readonly nodes: number;
  readonly pods: number;
  readonly hostNetworkPods: number;
  readonly finishedPods: number;
  readonly networkPolicies: number;
  readonly adminNetworkPolicies: number;
  readonly baselineAdminNetworkPolicies: number;
}

// ---------------------------------------------------------------------------------------
// PRNG: mulberry32, seeded; every choice goes through it.

export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }
  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.next() * list.length)]!;
  }
  /** Weighted pick: [[value, weight], …]. */
  weighted<T>(list: readonly (readonly [T, number])[]): T {
    const total = list.reduce((s, [, w]) => s + w, 0);
    let x = this.next() * total;
    for (const [v, w] of list) {
      if ((x -= w) < 0) return v;
    }
    return list[list.length - 1]![0];
  }
  hex(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += '0123456789abcdef'[Math.floor(this.next() * 16)];
    return s;
  }
  uid(): string {
    return `${this.hex(8)}-${this.hex(4)}-4${this.hex(3)}-a${this.hex(3)}-${this.hex(12)}`;
  }
}

// ---------------------------------------------------------------------------------------
// Addresses: pods 10.64.0.0/14 (one /24 per node), nodes 172.20.0.0/16.

function ipv4(n: number): string {
  return `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}
const POD_NET_BASE = (10 << 24) | (64 << 16); // 10.64.0.0
const NODE_NET_BASE = ((172 << 24) | (20 << 16)) >>> 0; // 172.20.0.0
const podCidrBase = (nodeIdx: number) => (POD_NET_BASE + nodeIdx * 256) >>> 0;
const nodeIp = (nodeIdx: number) => ipv4(NODE_NET_BASE + 10 + nodeIdx);
/** Usable pod addresses per node /24 (.1 is the gateway, .255 broadcast). */
const PODS_PER_NODE_CIDR = 253;

export const POD_NETWORK = '10.64.0.0/14';
export const NODE_NETWORK = '172.20.0.0/16';

// ---------------------------------------------------------------------------------------
// Catalogue of workloads.

type Proto = 'TCP' | 'UDP' | 'SCTP';
interface PortSpec {
  readonly name: string;
  readonly port: number;
  readonly protocol?: Proto;
}
interface AppSpec {
  readonly app: string;
  readonly tier: 'frontend' | 'backend' | 'data';
  readonly image: string;
  readonly ports: readonly PortSpec[];
  readonly replicas: readonly [number, number];
  /** Apps that typically call this one (in the same namespace). */
  readonly clients: readonly string[];
}

const APPS: readonly AppSpec[] = [
  { app: 'web', tier: 'frontend', image: 'nginx:1.27', ports: [{ name: 'http', port: 8080 }, { name: 'metrics', port: 9113 }], replicas: [2, 4], clients: [] },
  { app: 'frontend', tier: 'frontend', image: 'node:20-alpine', ports: [{ name: 'http', port: 3000 }, { name: 'metrics', port: 9090 }], replicas: [2, 3], clients: [] },
  { app: 'api', tier: 'backend', image: 'registry.local/api:2.14.1', ports: [{ name: 'http', port: 8080 }, { name: 'grpc', port: 9000 }, { name: 'metrics', port: 9090 }], replicas: [2, 5], clients: ['web', 'frontend', 'worker'] },
  { app: 'auth', tier: 'backend', image: 'registry.local/auth:1.8.0', ports: [{ name: 'http', port: 8080 }, { name: 'grpc', port: 9000 }, { name: 'metrics', port: 9090 }], replicas: [1, 3], clients: ['api', 'web'] },
  { app: 'worker', tier: 'backend', image: 'registry.local/worker:2.14.1', ports: [{ name: 'metrics', port: 9090 }], replicas: [1, 4], clients: [] },
  { app: 'postgres', tier: 'data', image: 'postgres:16', ports: [{ name: 'postgres', port: 5432 }, { name: 'metrics', port: 9187 }], replicas: [1, 2], clients: ['api', 'worker', 'auth'] },
  { app: 'redis', tier: 'data', image: 'redis:7.2', ports: [{ name: 'redis', port: 6379 }, { name: 'metrics', port: 9121 }], replicas: [1, 3], clients: ['api', 'web', 'worker'] },
  { app: 'rabbitmq', tier: 'data', image: 'rabbitmq:3.13', ports: [{ name: 'amqp', port: 5672 }, { name: 'metrics', port: 15692 }], replicas: [1, 3], clients: ['api', 'worker'] },
  { app: 'search', tier: 'data', image: 'opensearch:2.13', ports: [{ name: 'http', port: 9200 }, { name: 'transport', port: 9300 }], replicas: [1, 3], clients: ['api'] },
  { app: 'media', tier: 'backend', image: 'registry.local/media:0.9', ports: [{ name: 'http', port: 8080 }, { name: 'rtp', port: 10000, protocol: 'UDP' }], replicas: [1, 2], clients: ['web'] },
];

const WORDS = ['checkout', 'payments', 'catalog', 'orders', 'billing', 'search', 'ledger', 'profile', 'inventory', 'shipping', 'reviews', 'ads', 'media', 'notify', 'identity', 'analytics', 'pricing', 'cart', 'loyalty', 'support'];
const ZONES = ['zone-a', 'zone-b', 'zone-c'];
const INSTANCE_TYPES = ['m6i.2xlarge', 'm6i.4xlarge', 'c6i.4xlarge', 'r6i.2xlarge'];
const CREATED = Date.UTC(2024, 4, 1) / 1000;
const timestamp = (offsetSeconds: number) => new Date((CREATED + offsetSeconds) * 1000).toISOString().replace('.000Z', 'Z');

/** External destinations: a CIDR and its excepts (strict subsets), as egress ipBlocks write them. */
const EXTERNAL_BLOCKS: readonly { cidr: string; except: string[] }[] = [
  { cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'] },
  { cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.169.254/32'] },
  { cidr: '203.0.113.0/24', except: ['203.0.113.128/25'] },
  { cidr: '198.51.100.0/24', except: ['198.51.100.16/28', '198.51.100.200/29'] },
  { cidr: '52.94.0.0/16', except: ['52.94.8.0/21'] },
  { cidr: '35.190.0.0/17', except: [] },
  { cidr: '140.82.112.0/20', except: ['140.82.112.0/24'] },
];

// ---------------------------------------------------------------------------------------

interface NsInfo {
  readonly name: string;
  readonly labels: Labels;
  readonly team: string | null;
  readonly tenant: string | null;
  readonly env: string | null;
  readonly deployments: { name: string; app: AppSpec }[];
}

function selector(matchLabels: Labels): { matchLabels: Labels } {
  return { matchLabels };
}
const nsName = (name: string) => selector({ 'kubernetes.io/metadata.name': name });

export function generateSnapshot(spec: SizeSpec, seed: number = spec.seed): SnapshotList {
  const rng = new Rng(seed);
  const items: K8sObject[] = [];
  let rv = 1000;
  const meta = (name: string, namespace: string | null, labels: Labels, extra: Record<string, unknown> = {}) => ({
    name,
    ...(namespace !== null ? { namespace } : {}),
    uid: rng.uid(),
    resourceVersion: String(rv++),
    creationTimestamp: timestamp(rng.int(0, 86_400 * 90)),
    labels,
    ...extra,
  });

  // --- Namespaces ------------------------------------------------------------------------
  const system: NsInfo[] = ['default', 'kube-system', 'monitoring', 'ingress-nginx'].map((name) => ({
    name,
    labels: { 'kubernetes.io/metadata.name': name, ...(name === 'default' ? {} : { 'app.kubernetes.io/part-of': 'platform' }) },
    team: null,
    tenant: null,
    env: null,
    deployments: [],
  }));
  const userCount = Math.max(1, spec.namespaces - system.length);
  const teams = Math.max(2, Math.ceil(userCount / 5));
  const tenants = Math.max(2, Math.ceil(teams / 4));
  const user: NsInfo[] = [];
  for (let i = 0; i < userCount; i++) {
    const team = `team-${rng.int(0, teams - 1)}`;
    const tenant = `tenant-${Number(team.slice(5)) % tenants}`;
    const env = rng.weighted([['prod', 5], ['staging', 3], ['dev', 2]] as const);
    const name = `${rng.pick(WORDS)}-${env}-${i}`;
    user.push({ name, labels: { 'kubernetes.io/metadata.name': name, team, tenant, env }, team, tenant, env, deployments: [] });
  }
  for (const ns of [...system, ...user]) {
    items.push({ apiVersion: 'v1', kind: 'Namespace', metadata: meta(ns.name, null, ns.labels), spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
  }

  // --- Nodes -------------------------------------------------------------------------------
  const controlPlanes = Math.min(3, Math.max(1, spec.nodes - 1));
  const nodeNames: string[] = [];
  for (let i = 0; i < spec.nodes; i++) {
    const cp = i < controlPlanes;
    const name = cp ? `cp-${i}` : `worker-${String(i - controlPlanes).padStart(4, '0')}`;
    nodeNames.push(name);
    const zone = ZONES[i % ZONES.length]!;
    const labels: Labels = {
      'kubernetes.io/hostname': name,
      'kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'amd64',
      'topology.kubernetes.io/zone': zone,
      'node.kubernetes.io/instance-type': cp ? 'm6i.xlarge' : rng.pick(INSTANCE_TYPES),
      ...(cp ? { 'node-role.kubernetes.io/control-plane': '' } : { 'node-role.kubernetes.io/worker': '' }),
    };
    items.push({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: meta(name, null, labels),
      spec: { podCIDR: `${ipv4(podCidrBase(i))}/24`, podCIDRs: [`${ipv4(podCidrBase(i))}/24`], ...(cp ? { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] } : {}) },
      status: {
        addresses: [
          { type: 'InternalIP', address: nodeIp(i) },
          { type: 'Hostname', address: name },
        ],
        nodeInfo: { kubeletVersion: 'v1.30.2', containerRuntimeVersion: 'containerd://1.7.18', osImage: 'Ubuntu 22.04.4 LTS' },
      },
    });
  }
  const workers = Array.from({ length: spec.nodes - controlPlanes }, (_, k) => controlPlanes + k);
  if (workers.length === 0) workers.push(0);
  const nextHost = new Array<number>(spec.nodes).fill(2);
  /** A worker with a free pod address, uniformly at random (linear probe when full). */
  const place = (): { node: number; ip: string } => {
    let k = rng.int(0, workers.length - 1);
    for (let tries = 0; tries < workers.length; tries++, k = (k + 1) % workers.length) {
      const n = workers[k]!;
      if (nextHost[n]! < 2 + PODS_PER_NODE_CIDR) {
        const host = nextHost[n]!;
        nextHost[n] = host + 1;
        return { node: n, ip: ipv4(podCidrBase(n) + host) };
      }
    }
    throw new Error(`no pod addresses left: ${spec.pods} pods do not fit ${workers.length} workers × ${PODS_PER_NODE_CIDR}`);
  };

  // --- Pods --------------------------------------------------------------------------------
  let podCount = 0;
  const podKeys = new Set<string>();
  /** `prefix` plus a random suffix, redrawn until the name is unused in the namespace. */
  const podName = (ns: string, prefix: string): string => {
    for (;;) {
      const name = `${prefix}-${rng.hex(5)}`;
      if (!podKeys.has(`${ns}/${name}`)) {
        podKeys.add(`${ns}/${name}`);
        return name;
      }
    }
  };
  let hostNetworkPods = 0;
  let finishedPods = 0;
  const pod = (o: { name: string; ns: string; labels: Labels; node: number; ip: string; ports: readonly PortSpec[]; image: string; hostNetwork?: boolean; phase?: string; owner: { kind: string; name: string } }) => {
    podCount++;
    items.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: meta(o.name, o.ns, o.labels, { ownerReferences: [{ apiVersion: o.owner.kind === 'ReplicaSet' ? 'apps/v1' : o.owner.kind === 'Job' ? 'batch/v1' : 'apps/v1', kind: o.owner.kind, name: o.owner.name, uid: rng.uid(), controller: true }] }),
      spec: {
        nodeName: nodeNames[o.node],
        ...(o.hostNetwork ? { hostNetwork: true } : {}),
        serviceAccountName: 'default',
        containers: [
          {
            name: 'main',
            image: o.image,
            ...(o.ports.length > 0 ? { ports: o.ports.map((p) => ({ name: p.name, containerPort: p.port, protocol: p.protocol ?? 'TCP' })) } : {}),
            resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' } },
          },
        ],
      },
      status: {
        phase: o.phase ?? 'Running',
        hostIP: nodeIp(o.node),
        podIP: o.ip,
        podIPs: [{ ip: o.ip }],
        qosClass: 'Burstable',
        startTime: timestamp(rng.int(0, 86_400 * 90)),
      },
    });
  };

  // Host-network DaemonSets on every node.
  for (let n = 0; n < spec.nodes; n++) {
    pod({ name: podName('kube-system', 'kube-proxy'), ns: 'kube-system', labels: { 'k8s-app': 'kube-proxy' }, node: n, ip: nodeIp(n), ports: [], image: 'registry.k8s.io/kube-proxy:v1.30.2', hostNetwork: true, owner: { kind: 'DaemonSet', name: 'kube-proxy' } });
    pod({ name: podName('monitoring', 'node-exporter'), ns: 'monitoring', labels: { app: 'node-exporter', 'app.kubernetes.io/name': 'node-exporter' }, node: n, ip: nodeIp(n), ports: [{ name: 'metrics', port: 9100 }], image: 'quay.io/prometheus/node-exporter:v1.8.1', hostNetwork: true, owner: { kind: 'DaemonSet', name: 'node-exporter' } });
    hostNetworkPods += 2;
  }
  // System Deployments.
  const systemDeployments: { ns: string; name: string; labels: Labels; ports: PortSpec[]; image: string; replicas: number }[] = [
    { ns: 'kube-system', name: 'coredns', labels: { 'k8s-app': 'kube-dns' }, ports: [{ name: 'dns', port: 53, protocol: 'UDP' }, { name: 'dns-tcp', port: 53 }, { name: 'metrics', port: 9153 }], image: 'registry.k8s.io/coredns/coredns:v1.11.1', replicas: 2 + Math.floor(spec.nodes / 50) },
    { ns: 'monitoring', name: 'prometheus', labels: { app: 'prometheus', 'app.kubernetes.io/name': 'prometheus' }, ports: [{ name: 'web', port: 9090 }], image: 'quay.io/prometheus/prometheus:v2.53.0', replicas: 1 + Math.floor(spec.nodes / 200) },
    { ns: 'ingress-nginx', name: 'ingress-nginx-controller', labels: { 'app.kubernetes.io/name': 'ingress-nginx', 'app.kubernetes.io/component': 'controller' }, ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }], image: 'registry.k8s.io/ingress-nginx/controller:v1.10.1', replicas: 2 + Math.floor(spec.nodes / 100) },
  ];
  for (const d of systemDeployments) {
    const hash = rng.hex(10);
    for (let r = 0; r < d.replicas; r++) {
      const at = place();
      pod({ name: podName(d.ns, `${d.name}-${hash}`), ns: d.ns, labels: { ...d.labels, 'pod-template-hash': hash }, node: at.node, ip: at.ip, ports: d.ports, image: d.image, owner: { kind: 'ReplicaSet', name: `${d.name}-${hash}` } });
    }
  }

  // User Deployments: fill each namespace's share of the remaining pods.
  const remaining = spec.pods - podCount;
  if (remaining < user.length) throw new Error(`${spec.name}: ${spec.pods} pods is too few for ${user.length} user namespaces`);
  const jobPods = Math.floor(remaining / 100);
  const deploymentPods = remaining - jobPods;
  user.forEach((ns, i) => {
    let budget = Math.floor(deploymentPods / user.length) + (i < deploymentPods % user.length ? 1 : 0);
    const used = new Map<string, number>();
    while (budget > 0) {
      // Most namespaces run a web/api/db stack; the rest draws from the catalogue.
      const app = ns.deployments.length < 3 ? APPS[[0, 2, 5][ns.deployments.length]!]! : rng.pick(APPS);
      const k = used.get(app.app) ?? 0;
      used.set(app.app, k + 1);
      const name = k === 0 ? app.app : `${app.app}-${k + 1}`;
      const replicas = Math.min(budget, rng.int(app.replicas[0], app.replicas[1]));
      ns.deployments.push({ name, app });
      const hash = rng.hex(10);
      const version = rng.weighted([['v1', 6], ['v2', 3], ['canary', 1]] as const);
      for (let r = 0; r < replicas; r++) {
        const at = place();
        pod({
          name: podName(ns.name, `${name}-${hash}`),
          ns: ns.name,
          labels: { app: name, tier: app.tier, version, 'pod-template-hash': hash, 'app.kubernetes.io/part-of': ns.name },
          node: at.node,
          ip: at.ip,
          ports: app.ports,
          image: app.image,
          owner: { kind: 'ReplicaSet', name: `${name}-${hash}` },
        });
      }
      budget -= replicas;
    }
  });
  // Finished Job pods (Succeeded: not endpoints, but present in the snapshot).
  for (let j = 0; j < jobPods; j++) {
    const ns = rng.pick(user);
    const at = place();
    pod({ name: podName(ns.name, `migrate-${rng.hex(8)}`), ns: ns.name, labels: { 'job-name': 'migrate', 'batch.kubernetes.io/job-name': 'migrate' }, node: at.node, ip: at.ip, ports: [], image: 'registry.local/migrate:1.0', phase: 'Succeeded', owner: { kind: 'Job', name: 'migrate' } });
    finishedPods++;
  }

  // --- NetworkPolicies ---------------------------------------------------------------------
  let npCount = 0;
  const np = (ns: NsInfo, name: string, spec: Record<string, unknown>) => {
    npCount++;
    items.push({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: meta(name, ns.name, {}, { generation: 1 }), spec });
  };
  const DNS_EGRESS = {
    to: [{ namespaceSelector: nsName('kube-system'), podSelector: selector({ 'k8s-app': 'kube-dns' }) }],
    ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }],
  };
  user.forEach((ns, i) => {
    const quota = Math.floor(spec.networkPolicies / user.length) + (i < spec.networkPolicies % user.length ? 1 : 0);
    const candidates: [string, Record<string, unknown>][] = [];
    const egressIsolated = ns.env === 'prod' || rng.chance(0.3);
    candidates.push(
      egressIsolated
        ? ['default-deny-all', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] }]
        : ['default-deny-ingress', { podSelector: {}, policyTypes: ['Ingress'] }],
    );
    if (egressIsolated) candidates.push(['allow-dns-egress', { podSelector: {}, policyTypes: ['Egress'], egress: [DNS_EGRESS] }]);
    candidates.push(['allow-monitoring-scrape', { podSelector: {}, policyTypes: ['Ingress'], ingress: [{ from: [{ namespaceSelector: nsName('monitoring'), podSelector: selector({ app: 'prometheus' }) }], ports: [{ protocol: 'TCP', port: 'metrics' }] }] }]);
    if (rng.chance(0.5)) candidates.push(['allow-same-namespace', { podSelector: {}, ingress: [{ from: [{ podSelector: {} }] }] }]);
    const perDeployment: [string, Record<string, unknown>][] = [];
    for (const d of ns.deployments) {
      const app = d.app;
      const serving = app.ports.filter((p) => p.name !== 'metrics');
      if (app.tier === 'frontend') {
        perDeployment.push([`allow-${d.name}-from-ingress`, { podSelector: selector({ app: d.name }), policyTypes: ['Ingress'], ingress: [{ from: [{ namespaceSelector: nsName('ingress-nginx'), podSelector: selector({ 'app.kubernetes.io/name': 'ingress-nginx' }) }], ports: [{ protocol: 'TCP', port: 'http' }] }] }]);
      }
      const clients = ns.deployments.filter((c) => app.clients.includes(c.app.app));
      if (clients.length > 0 && serving.length > 0) {
        // app=X from app=Y on named and numbered ports.
        const ports = serving.map((p) => (rng.chance(0.6) ? { protocol: p.protocol ?? 'TCP', port: p.name } : { protocol: p.protocol ?? 'TCP', port: p.port }));
        perDeployment.push([`allow-${d.name}-from-clients`, { podSelector: selector({ app: d.name }), policyTypes: ['Ingress'], ingress: [{ from: clients.map((c) => ({ podSelector: selector({ app: c.name }) })), ports }] }]);
      }
      if (app.tier === 'backend' && serving.length > 0 && ns.team) {
        // Other namespaces of the same team, optionally narrowed to their frontends.
        const peer = rng.chance(0.5) ? { namespaceSelector: selector({ team: ns.team }) } : { namespaceSelector: selector({ team: ns.team }), podSelector: selector({ tier: 'frontend' }) };
        perDeployment.push([`allow-${d.name}-from-team`, { podSelector: selector({ app: d.name }), policyTypes: ['Ingress'], ingress: [{ from: [peer], ports: [{ protocol: 'TCP', port: serving[0]!.port }] }] }]);
      }
      if (app.app === 'media') {
        perDeployment.push([`allow-${d.name}-rtp-range`, { podSelector: selector({ app: d.name }), policyTypes: ['Ingress'], ingress: [{ from: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8'] } }], ports: [{ protocol: 'UDP', port: 10000, endPort: 10999 }] }] }]);
      }
      if (egressIsolated && app.tier !== 'data') {
        const deps = ns.deployments.filter((t) => t.app.clients.includes(app.app));
        if (deps.length > 0) {
          const to = deps.map((t) => ({ podSelector: selector({ app: t.name }) }));
          const ports = [...new Set(deps.flatMap((t) => t.app.ports.filter((p) => p.name !== 'metrics').map((p) => p.name)))].map((name) => ({ protocol: 'TCP', port: name }));
          perDeployment.push([`allow-${d.name}-egress-deps`, { podSelector: selector({ app: d.name }), policyTypes: ['Egress'], egress: [{ to, ports }] }]);
        }
        if (rng.chance(0.4)) {
          const block = rng.pick(EXTERNAL_BLOCKS);
          const ports = rng.chance(0.3) ? [{ protocol: 'TCP', port: 8000, endPort: 8100 }] : [{ protocol: 'TCP', port: 443 }];
          perDeployment.push([`allow-${d.name}-egress-external`, { podSelector: selector({ app: d.name }), policyTypes: ['Egress'], egress: [{ to: [{ ipBlock: { cidr: block.cidr, except: block.except } }], ports }] }]);
        }
        if (ns.team && rng.chance(0.3)) {
          perDeployment.push([`allow-${d.name}-egress-team-api`, { podSelector: selector({ app: d.name }), policyTypes: ['Egress'], egress: [{ to: [{ namespaceSelector: selector({ team: ns.team }), podSelector: selector({ app: 'api' }) }], ports: [{ protocol: 'TCP', port: 'http' }, { protocol: 'TCP', port: 'grpc' }] }] }]);
        }
      }
    }
    candidates.push(...perDeployment);
    // Filler when the quota exceeds what the namespace naturally has: more of the same kinds
    // (per-version rules, partner ranges with endPort, cross-tenant exceptions).
    let extra = 0;
    while (candidates.length < quota) {
      const d = ns.deployments[extra % ns.deployments.length]!;
      const kind = extra % 3;
      const sel = selector({ app: d.name, version: rng.pick(['v1', 'v2', 'canary']) });
      if (kind === 0) {
        const block = rng.pick(EXTERNAL_BLOCKS);
        candidates.push([`allow-${d.name}-partner-${extra}`, { podSelector: sel, policyTypes: ['Egress'], egress: [{ to: [{ ipBlock: { cidr: block.cidr, except: block.except } }], ports: [{ protocol: 'TCP', port: 8443 }, { protocol: 'TCP', port: 9000, endPort: 9100 }] }] }]);
      } else if (kind === 1) {
        candidates.push([`allow-${d.name}-from-tenant-${extra}`, { podSelector: sel, policyTypes: ['Ingress'], ingress: [{ from: [{ namespaceSelector: { matchLabels: { tenant: ns.tenant ?? 'none' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'staging'] }] } }], ports: [{ protocol: 'TCP', port: d.app.ports[0]?.port ?? 8080 }] }] }]);
      } else {
        candidates.push([`allow-${d.name}-debug-${extra}`, { podSelector: sel, policyTypes: ['Ingress'], ingress: [{ from: [{ podSelector: selector({ tier: 'backend' }) }], ports: [{ protocol: 'TCP', port: 40000, endPort: 40100 }] }] }]);
      }
      extra++;
    }
    for (const [name, s] of candidates.slice(0, quota)) np(ns, name, s);
  });
  if (npCount !== spec.networkPolicies) throw new Error(`${spec.name}: generated ${npCount} NetworkPolicies, wanted ${spec.networkPolicies}`);

  // --- AdminNetworkPolicies and the BaselineAdminNetworkPolicy ---------------------------
  const anps = adminNetworkPolicies(spec.adminNetworkPolicies, tenants);
  for (const a of anps) items.push({ apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'AdminNetworkPolicy', metadata: meta(a.name, null, {}, { generation: 1 }), spec: a.spec });
  if (spec.baselineAdminNetworkPolicy) {
    items.push({
      apiVersion: 'policy.networking.k8s.io/v1alpha1',
      kind: 'BaselineAdminNetworkPolicy',
      metadata: meta('default', null, {}, { generation: 1 }),
      spec: {
        subject: { namespaces: { matchExpressions: [{ key: 'tenant', operator: 'Exists' }] } },
        ingress: [
          { name: 'allow-same-tenant-prod', action: 'Allow', from: [{ namespaces: { matchLabels: { env: 'prod' }, matchExpressions: [{ key: 'tenant', operator: 'Exists' }] } }], ports: [{ portNumber: { protocol: 'TCP', port: 8080 } }] },
          { name: 'deny-other-namespaces', action: 'Deny', from: [{ namespaces: {} }] },
        ],
        egress: [
          { name: 'deny-node-ssh', action: 'Deny', to: [{ nodes: {} }], ports: [{ portNumber: { protocol: 'TCP', port: 22 } }] },
          { name: 'deny-internet', action: 'Deny', to: [{ networks: ['0.0.0.0/0'] }] },
        ],
      },
    });
  }

  if (podCount !== spec.pods) throw new Error(`${spec.name}: generated ${podCount} pods, wanted ${spec.pods}`);
  const list: SnapshotList = { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: String(rv) }, items };
  summaries.set(list, {
    namespaces: system.length + user.length,
    nodes: spec.nodes,
    pods: podCount,
    hostNetworkPods,
    finishedPods,
    networkPolicies: npCount,
    adminNetworkPolicies: anps.length,
    baselineAdminNetworkPolicies: spec.baselineAdminNetworkPolicy ? 1 : 0,
  });
  return list;
}

const summaries = new WeakMap<SnapshotList, GeneratedSummary>();

/** Counts of what a generated snapshot holds. */
export function summaryOf(list: SnapshotList): GeneratedSummary {
  const s = summaries.get(list);
  if (s) return s;
  const count = (kind: string) => list.items.filter((o) => o.kind === kind).length;
  const pods = list.items.filter((o) => o.kind === 'Pod');
  return {
    namespaces: count('Namespace'),
    nodes: count('Node'),
    pods: pods.length,
    hostNetworkPods: pods.filter((p) => (p.spec as { hostNetwork?: boolean }).hostNetwork === true).length,
    finishedPods: pods.filter((p) => (p.status as { phase?: string }).phase === 'Succeeded').length,
    networkPolicies: count('NetworkPolicy'),
    adminNetworkPolicies: count('AdminNetworkPolicy'),
    baselineAdminNetworkPolicies: count('BaselineAdminNetworkPolicy'),
  };
}

/**
 * Cluster-wide guardrails: a fixed set of platform ANPs, then one tenant-isolation ANP per
 * tenant (Pass within the tenant, Deny from the rest) until the count is reached.
 */
function adminNetworkPolicies(count: number, tenants: number): { name: string; spec: Record<string, unknown> }[] {
  const all = { namespaces: {} };
  const platform: { name: string; spec: Record<string, unknown> }[] = [
    {
      name: 'allow-monitoring',
      spec: { subject: all, ingress: [{ name: 'allow-prometheus', action: 'Allow', from: [{ pods: { namespaceSelector: nsName('monitoring'), podSelector: selector({ app: 'prometheus' }) } }], ports: [{ namedPort: 'metrics' }] }] },
    },
    {
      name: 'egress-guardrails',
      spec: {
        subject: all,
        egress: [
          { name: 'allow-kube-dns', action: 'Allow', to: [{ pods: { namespaceSelector: nsName('kube-system'), podSelector: selector({ 'k8s-app': 'kube-dns' }) } }], ports: [{ portNumber: { protocol: 'UDP', port: 53 } }, { portNumber: { protocol: 'TCP', port: 53 } }] },
          { name: 'deny-cloud-metadata', action: 'Deny', to: [{ networks: ['169.254.169.254/32', '100.100.100.200/32'] }] },
          { name: 'deny-kubelet', action: 'Deny', to: [{ nodes: { matchExpressions: [{ key: 'node-role.kubernetes.io/worker', operator: 'Exists' }] } }], ports: [{ portNumber: { protocol: 'TCP', port: 10250 } }, { portRange: { protocol: 'TCP', start: 30000, end: 32767 } }] },
          { name: 'allow-apiserver', action: 'Allow', to: [{ nodes: { matchExpressions: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists' }] } }], ports: [{ portNumber: { protocol: 'TCP', port: 6443 } }] },
        ],
      },
    },
    {
      name: 'prod-isolation',
      spec: {
        subject: { namespaces: selector({ env: 'prod' }) },
        ingress: [{ name: 'deny-from-dev', action: 'Deny', from: [{ namespaces: selector({ env: 'dev' }) }] }],
        egress: [{ name: 'deny-to-dev', action: 'Deny', to: [{ namespaces: selector({ env: 'dev' }) }] }],
      },
    },
    {
      name: 'ingress-controller',
      spec: {
        subject: { pods: { namespaceSelector: { matchExpressions: [{ key: 'tenant', operator: 'Exists' }] }, podSelector: selector({ tier: 'frontend' }) } },
        ingress: [{ name: 'pass-from-ingress-nginx', action: 'Pass', from: [{ pods: { namespaceSelector: nsName('ingress-nginx'), podSelector: selector({ 'app.kubernetes.io/name': 'ingress-nginx' }) } }], ports: [{ namedPort: 'http' }] }],
      },
    },
    {
      name: 'deny-nodeport-range',
      spec: {
        subject: { namespaces: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'staging'] }] } },
        ingress: [{ name: 'deny-high-ports', action: 'Deny', from: [{ namespaces: {} }], ports: [{ portRange: { protocol: 'TCP', start: 30000, end: 32767 } }, { portRange: { protocol: 'UDP', start: 30000, end: 32767 } }] }],
      },
    },
    {
      name: 'partner-egress',
      spec: {
        subject: { namespaces: selector({ env: 'prod' }) },
        egress: [{ name: 'allow-partners', action: 'Allow', to: [{ networks: ['203.0.113.0/24', '198.51.100.0/24'] }], ports: [{ portRange: { protocol: 'TCP', start: 8000, end: 8100 } }, { portNumber: { protocol: 'TCP', port: 443 } }] }],
      },
    },
  ];
  const out: { name: string; spec: Record<string, unknown> }[] = [];
  for (let i = 0; i < count; i++) {
    if (i < platform.length) {
      out.push({ name: platform[i]!.name, spec: { priority: 10 + i * 5, ...platform[i]!.spec } });
      continue;
    }
    const t = `tenant-${(i - platform.length) % tenants}`;
    out.push({
      name: `isolate-${t}${i - platform.length >= tenants ? `-${i}` : ''}`,
      spec: {
        priority: 100 + i,
        subject: { namespaces: selector({ tenant: t }) },
        ingress: [
          { name: 'pass-same-tenant', action: 'Pass', from: [{ namespaces: selector({ tenant: t }) }] },
          { name: 'pass-platform', action: 'Pass', from: [{ namespaces: selector({ 'app.kubernetes.io/part-of': 'platform' }) }] },
          { name: 'deny-other-tenants', action: 'Deny', from: [{ namespaces: { matchExpressions: [{ key: 'tenant', operator: 'Exists' }] } }] },
        ],
        egress: [
          { name: 'pass-same-tenant', action: 'Pass', to: [{ namespaces: selector({ tenant: t }) }] },
          { name: 'deny-other-tenants', action: 'Deny', to: [{ namespaces: { matchExpressions: [{ key: 'tenant', operator: 'Exists' }] } }] },
        ],
      },
    });
  }
  return out;
}

export const generateS = (seed?: number): SnapshotList => generateSnapshot(SIZES.S, seed);
export const generateM = (seed?: number): SnapshotList => generateSnapshot(SIZES.M, seed);
export const generateL = (seed?: number): SnapshotList => generateSnapshot(SIZES.L, seed);
export const GENERATORS: Readonly<Record<SizeName, (seed?: number) => SnapshotList>> = { S: generateS, M: generateM, L: generateL };

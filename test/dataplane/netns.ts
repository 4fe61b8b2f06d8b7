// A cluster snapshot as Linux network namespaces: a fabric namespace with a bridge, one router
// namespace per node (its InternalIPs on the fabric link), one namespace per pod with a veth to
// its node (host routes both ways, like a routed CNI). Host-network pods live in their node's
// namespace. Every name starts with the run's prefix, so teardown finds what this run made.
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import readline from 'node:readline';

export interface NodeNs {
  readonly name: string;
  readonly ns: string;
  readonly v4: string;
  readonly v6: string | null;
}

export interface PodNs {
  readonly key: string;
  readonly node: string;
  /** The pod's own namespace, or its node's for host-network pods. */
  readonly ns: string;
  readonly v4: string;
  readonly v6: string | null;
}

export interface Topology {
  readonly nodes: Map<string, NodeNs>;
  readonly pods: Map<string, PodNs>;
  readonly namespaces: string[];
}

interface SnapshotPod {
  metadata: { name: string; namespace?: string };
  spec?: { nodeName?: string; hostNetwork?: boolean };
  status?: { podIPs?: { ip: string }[] };
}

interface SnapshotNode {
  metadata: { name: string };
  status?: { addresses?: { type: string; address: string }[] };
}

export function run(cmd: string, args: readonly string[], input?: string): string {
  try {
    return execFileSync(cmd, args, { input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'], timeout: 20_000 });
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')} failed: ${err.stderr?.trim() || err.message}`);
  }
}

const ip = (...args: string[]) => run('ip', args);
const inNs = (ns: string, cmd: string, ...args: string[]) => run('ip', ['netns', 'exec', ns, cmd, ...args]);
const isV6 = (a: string) => a.includes(':');

/** Per-namespace sysctls, written through /proc/sys as seen from inside the namespace. */
function sysctl(ns: string, settings: Record<string, string>) {
  const script = Object.entries(settings).map(([k, v]) => `echo ${v} > /proc/sys/${k.replaceAll('.', '/')}`).join(' && ');
  inNs(ns, 'sh', '-c', script);
}

/** Namespaces of earlier runs (`npc<pid>-…`) whose process is gone: a run killed before its afterAll. */
/**
 * Why the real-kernel tests cannot run here, or null: the opt-in variable, root, each tool
 * (`[binary, version flag]`), and a network namespace with nftables in it. Namespaces left by
 * killed runs are removed first (and named).
 */
export function dataplaneBlocker(prefix: string, tools: readonly (readonly [string, string])[], apt: string): string | null {
  if (process.env.NETPOLC_DATAPLANE !== '1') return `NETPOLC_DATAPLANE is not set; run \`npm run test:dataplane\` (root, ${apt})`;
  if (process.getuid?.() !== 0) return 'not running as root: network namespaces and nft need CAP_NET_ADMIN';
  for (const [bin, arg] of tools) {
    try {
      run(bin, [arg]);
    } catch {
      return `${bin} is not installed (apt-get install ${apt})`;
    }
  }
  try {
    const stale = removeStale();
    if (stale.length > 0) console.warn(`[dataplane] removed ${stale.length} namespaces of earlier, killed runs: ${stale.join(' ')}`);
    run('ip', ['netns', 'add', `${prefix}check`]);
    run('ip', ['netns', 'exec', `${prefix}check`, 'nft', 'list', 'ruleset']);
  } catch (e) {
    return `cannot create a network namespace with nftables in it: ${(e as Error).message}`;
  } finally {
    teardown(`${prefix}check`);
  }
  return null;
}

export function removeStale(): string[] {
  const stale = run('ip', ['netns', 'list'])
    .split('\n')
    .map((l) => l.split(' ')[0]!)
    .filter((n) => {
      const pid = /^npc(\d+)-/.exec(n)?.[1];
      if (!pid || Number(pid) === process.pid) return false;
      try {
        process.kill(Number(pid), 0);
        return false;
      } catch {
        return true;
      }
    });
  for (const ns of stale) ip('netns', 'del', ns);
  return stale;
}

/** Namespaces left by this prefix (a crashed earlier attempt of this run included). */
export function teardown(prefix: string): string[] {
  const listed = run('ip', ['netns', 'list']).split('\n').map((l) => l.split(' ')[0]!).filter((n) => n.startsWith(prefix));
  for (const ns of listed) ip('netns', 'del', ns);
  return listed;
}

export function buildTopology(objects: readonly { kind: string }[], prefix: string, ipv6: boolean): Topology {
  const namespaces: string[] = [];
  const addNs = (name: string) => {
    ip('netns', 'add', name);
    namespaces.push(name);
    // No duplicate-address detection: addresses are usable at once, and they are unique by construction.
    if (ipv6) sysctl(name, { 'net.ipv6.conf.all.accept_dad': '0', 'net.ipv6.conf.default.accept_dad': '0' });
    ip('-n', name, 'link', 'set', 'lo', 'up');
    return name;
  };
  const fabric = addNs(`${prefix}fab`);
  ip('-n', fabric, 'link', 'add', 'br0', 'type', 'bridge');
  ip('-n', fabric, 'link', 'set', 'br0', 'up');

  const nodes = new Map<string, NodeNs>();
  (objects.filter((o) => o.kind === 'Node') as unknown as SnapshotNode[]).forEach((n, k) => {
    const internal = (n.status?.addresses ?? []).filter((a) => a.type === 'InternalIP').map((a) => a.address);
    const v4 = internal.find((a) => !isV6(a));
    if (!v4) throw new Error(`node ${n.metadata.name} has no IPv4 InternalIP`);
    const ns = addNs(`${prefix}n${k}`);
    sysctl(ns, { 'net.ipv4.ip_forward': '1', 'net.ipv4.conf.all.rp_filter': '0', 'net.ipv4.conf.default.rp_filter': '0', ...(ipv6 ? { 'net.ipv6.conf.all.forwarding': '1' } : {}) });
    ip('-n', fabric, 'link', 'add', `f${k}`, 'type', 'veth', 'peer', 'name', 'fab0', 'netns', ns);
    ip('-n', fabric, 'link', 'set', `f${k}`, 'master', 'br0', 'up');
    ip('-n', ns, 'link', 'set', 'fab0', 'up');
    ip('-n', ns, 'addr', 'add', `${v4}/32`, 'dev', 'fab0');
    const v6 = ipv6 ? (internal.find(isV6) ?? null) : null;
    if (v6) ip('-n', ns, 'addr', 'add', `${v6}/128`, 'dev', 'fab0', 'nodad');
    nodes.set(n.metadata.name, { name: n.metadata.name, ns, v4, v6 });
  });
  // Node addresses are host addresses on one link: each node reaches the others on-link.
  for (const a of nodes.values())
    for (const b of nodes.values()) {
      if (a === b) continue;
      ip('-n', a.ns, 'route', 'add', `${b.v4}/32`, 'dev', 'fab0');
      if (a.v6 && b.v6) ip('-n', a.ns, '-6', 'route', 'add', `${b.v6}/128`, 'dev', 'fab0');
    }

  const pods = new Map<string, PodNs>();
  (objects.filter((o) => o.kind === 'Pod') as unknown as SnapshotPod[]).forEach((p, i) => {
    const key = `${p.metadata.namespace ?? 'default'}/${p.metadata.name}`;
    const node = nodes.get(p.spec?.nodeName ?? '');
    if (!node) throw new Error(`pod ${key} is on no known node`);
    const addrs = (p.status?.podIPs ?? []).map((x) => x.ip);
    const v4 = addrs.find((a) => !isV6(a));
    if (!v4) throw new Error(`pod ${key} has no IPv4 address`);
    const v6 = ipv6 ? (addrs.find(isV6) ?? null) : null;
    if (p.spec?.hostNetwork) {
      pods.set(key, { key, node: node.name, ns: node.ns, v4, v6 });
      return;
    }
    const ns = addNs(`${prefix}p${i}`);
    const veth = `v${i}`;
    ip('-n', node.ns, 'link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
    ip('-n', node.ns, 'link', 'set', veth, 'up');
    ip('-n', ns, 'link', 'set', 'eth0', 'up');
    ip('-n', ns, 'addr', 'add', `${v4}/32`, 'dev', 'eth0');
    ip('-n', ns, 'route', 'add', 'default', 'via', node.v4, 'dev', 'eth0', 'onlink');
    ip('-n', node.ns, 'route', 'add', `${v4}/32`, 'dev', veth, 'src', node.v4);
    if (v6 && node.v6) {
      // The pod's gateway is a link-local address on the node's end of its veth.
      ip('-n', node.ns, '-6', 'addr', 'add', 'fe80::1/64', 'dev', veth, 'nodad');
      ip('-n', ns, '-6', 'addr', 'add', `${v6}/128`, 'dev', 'eth0', 'nodad');
      ip('-n', ns, '-6', 'route', 'add', 'default', 'via', 'fe80::1', 'dev', 'eth0');
      ip('-n', node.ns, '-6', 'route', 'add', `${v6}/128`, 'dev', veth, 'src', node.v6);
    }
    for (const other of nodes.values()) {
      if (other === node) continue;
      ip('-n', other.ns, 'route', 'add', `${v4}/32`, 'via', node.v4, 'dev', 'fab0');
      if (v6 && node.v6 && other.v6) ip('-n', other.ns, '-6', 'route', 'add', `${v6}/128`, 'via', node.v6, 'dev', 'fab0');
    }
    pods.set(key, { key, node: node.name, ns, v4, v6 });
  });
  return { nodes, pods, namespaces };
}

export type ProbeResult = 'open' | 'timeout' | 'refused' | `error:${string}`;

export interface ProbeRequest {
  readonly host: string;
  readonly port: number;
  readonly protocol: 'TCP' | 'UDP' | 'SCTP';
}

/** A pod-agent process in one namespace: listeners there, and probes sent from there. */
export class Agent {
  private nextId = 0;
  private readonly waiting = new Map<number, (results: ProbeResult[]) => void>();

  private constructor(
    readonly ns: string,
    private readonly child: ChildProcessWithoutNullStreams,
  ) {}

  static start(ns: string, config: { ports: number[]; ipv6: boolean; sctp: boolean }): Promise<Agent> {
    const child = spawn('ip', ['netns', 'exec', ns, process.execPath, join(import.meta.dirname, 'pod-agent.mjs'), JSON.stringify(config)], { stdio: ['pipe', 'pipe', 'pipe'] });
    const agent = new Agent(ns, child);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`agent in ${ns} not ready after 10 s: ${stderr}`)), 10_000);
      child.once('exit', (code) => reject(new Error(`agent in ${ns} exited with ${code}: ${stderr}`)));
      readline.createInterface({ input: child.stdout }).on('line', (line) => {
        const msg = JSON.parse(line) as { ready?: boolean; fatal?: string; id?: number; results?: ProbeResult[] };
        if (msg.ready) {
          clearTimeout(timer);
          resolve(agent);
        } else if (msg.fatal) reject(new Error(`agent in ${ns}: ${msg.fatal}`));
        else if (msg.id !== undefined) agent.waiting.get(msg.id)?.(msg.results ?? []);
      });
    });
  }

  probe(probes: readonly ProbeRequest[], timeoutMs: number): Promise<ProbeResult[]> {
    if (probes.length === 0) return Promise.resolve([]);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      // Probes run concurrently, each bounded by timeoutMs; the margin covers process scheduling.
      const timer = setTimeout(() => reject(new Error(`agent in ${this.ns} did not answer request ${id}`)), timeoutMs * 3 + 5_000);
      this.waiting.set(id, (results) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(results);
      });
      this.child.stdin.write(`${JSON.stringify({ id, timeoutMs, probes })}\n`);
    });
  }

  /** Closing stdin stops the agent; SIGKILL (by its pid) if it lingers. */
  stop(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null) return resolve();
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 2_000);
      this.child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      this.child.stdin.end();
    });
  }
}

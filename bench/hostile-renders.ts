// Small snapshots that are hard for the formats without sets or ranges, for the lints, or for the
// questions, each compiled (or linted, previewed, asked) through the CLI in its own process (as a
// pipeline runs it), per format: wall time, exit code, output bytes and the last line of stderr
// (a refusal names its limit), or of stdout for lint (what its budgets left unchecked). Run it
// from two checkouts to compare. Besides the compile formats:
//   lint      netpolc lint FILE
//   preview   netpolc preview --base FILE --head (FILE less its last policy) --no-tables
//   matrix    netpolc matrix --port 80 FILE
//   ask-cidr  netpolc ask "can 0.0.0.0/0 reach POD on 80?" FILE (POD: the first pod)
//   ask-what  netpolc ask "what can POD reach?" FILE
//   node --import tsx bench/hostile-renders.ts [--timeout-s N] [--only NAME] [--formats a,b]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminRules, exceptedAddresses, exceptedPorts, lcg } from '../test/support/hostile.js';

const argv = process.argv.slice(2);
const opt = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const timeoutS = Number(opt('--timeout-s') ?? 300);
const formats = (opt('--formats') ?? 'ir,ir-flat,nftables,iptables,openstack-sg,vpp-acl,vpp-session,lint,preview,matrix,ask-cidr,ask-what').split(',');

const list = (items: object[]) => ({ apiVersion: 'v1', kind: 'List', items });
const node = (name: string, cidr: string, ip: string) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: { podCIDR: cidr }, status: { addresses: [{ type: 'InternalIP', address: ip }] } });

/** 200 pods, 150 NetworkPolicies: each rule 30 excepted /32s of 0.0.0.0/0 and a port to 65535 (endPort). */
function exceptsAndRanges() {
  const rnd = lcg(1);
  const items: object[] = [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a', labels: { 'kubernetes.io/metadata.name': 'a' } } }, node('n1', '10.0.0.0/24', '172.16.0.1')];
  for (let i = 0; i < 200; i++) items.push({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}`, namespace: 'a', labels: { app: `x${i % 50}`, i: String(i) } }, spec: { nodeName: 'n1', containers: [{ name: 'c', ports: [{ name: `h${i % 7}`, containerPort: 1000 + i }] }] }, status: { phase: 'Running', podIP: `10.0.0.${i + 1}`, podIPs: [{ ip: `10.0.0.${i + 1}` }] } });
  for (let p = 0; p < 150; p++) {
    const rules = [];
    for (let k = 0; k < 5; k++) {
      const except = Array.from({ length: 30 }, () => `${(rnd() % 223) + 1}.${rnd() % 256}.${rnd() % 256}.${rnd() % 256}/32`);
      rules.push({ from: [{ ipBlock: { cidr: '0.0.0.0/0', except } }, { podSelector: { matchLabels: { app: `x${rnd() % 50}` } } }], ports: [{ port: (rnd() % 60000) + 1, endPort: 65535, protocol: 'TCP' }, { port: `h${rnd() % 7}` }] });
    }
    items.push({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: `np${p}`, namespace: 'a' }, spec: { podSelector: { matchLabels: { app: `x${p % 50}` } }, ingress: rules, egress: rules.map((r) => ({ to: r.from, ports: r.ports })), policyTypes: ['Ingress', 'Egress'] } });
  }
  return list(items);
}

/** 100 pods, 50 NetworkPolicies of one egress rule to 0.0.0.0/0 less 450 /32s on 10 ports, all denied first by an AdminNetworkPolicy: np-rule-overridden walks ~10^6 cells per rule. */
function overriddenByAdmin() {
  const rnd = lcg(1);
  const items: object[] = [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a', labels: { 'kubernetes.io/metadata.name': 'a' } } }, node('n1', '10.0.0.0/16', '172.16.0.1')];
  for (let i = 0; i < 100; i++) items.push({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}`, namespace: 'a', labels: { app: 'x', i: String(i) } }, spec: { nodeName: 'n1' }, status: { phase: 'Running', podIP: `10.0.0.${i + 1}` } });
  for (let p = 0; p < 50; p++) {
    const except = Array.from({ length: 450 }, () => `${(rnd() % 223) + 1}.${rnd() % 256}.${rnd() % 256}.${rnd() % 256}/32`).filter((c) => !c.startsWith('10.'));
    items.push({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: `np${p}`, namespace: 'a' }, spec: { podSelector: {}, policyTypes: ['Egress'], egress: [{ to: [{ ipBlock: { cidr: '0.0.0.0/0', except } }], ports: Array.from({ length: 10 }, (_, k) => ({ port: 100 + k * 7 + p })) }] } });
  }
  items.push({ apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'AdminNetworkPolicy', metadata: { name: 'guard' }, spec: { priority: 1, subject: { namespaces: {} }, egress: [{ name: 'deny', action: 'Deny', to: [{ networks: ['0.0.0.0/0'] }] }] } });
  return list(items);
}

/** 100 pods, one NetworkPolicy: 400 excepted /32s of 192.168.0.0/16 on 100 single ports. */
function exceptsAndPorts() {
  const items: object[] = [node('n1', '10.0.0.0/24', '172.16.0.1')];
  for (let i = 0; i < 100; i++) items.push({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}`, namespace: 'a', labels: { app: 'x' } }, spec: { nodeName: 'n1' }, status: { phase: 'Running', podIP: `10.0.0.${i + 1}` } });
  const except = Array.from({ length: 400 }, (_, e) => `192.168.${e >> 8}.${e & 255}/32`);
  const ports = Array.from({ length: 100 }, (_, k) => ({ port: 1000 + k * 3, protocol: 'TCP' }));
  items.push({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'np', namespace: 'a' }, spec: { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '192.168.0.0/16', except } }], ports }] } });
  return list(items);
}

/** Two NetworkPolicies of one ingress rule each from the same 10,000 /32 ipBlocks: one address set per rule, 10,000 peers. */
function addressPeers() {
  const items = exceptedAddresses(0).filter((o) => o.kind !== 'NetworkPolicy');
  const from = Array.from({ length: 10_000 }, (_, k) => ({ ipBlock: { cidr: `192.${168 + (k >> 14)}.${(k >> 6) & 255}.${(k & 63) * 4}/32` } }));
  for (const name of ['first', 'second']) items.push({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace: 'a' }, spec: { podSelector: {}, ingress: [{ from }] } });
  return list(items);
}

const SNAPSHOTS: Record<string, () => object> = {
  'excepts-ranges': exceptsAndRanges,
  'excepts-ports': exceptsAndPorts,
  'excepted-1000-ports': () => list(exceptedPorts()),
  'admin-1': () => list(adminRules(1)),
  'admin-60': () => list(adminRules(60)),
  'overridden-by-admin': overriddenByAdmin,
  'excepted-addresses': () => list(exceptedAddresses(20_000)),
  'address-peers': addressPeers,
};

/** The CLI arguments of one format on `file` (written from `snapshot`). */
function commandOf(format: string, file: string, snapshot: { items: { kind: string; metadata: { name: string; namespace?: string } }[] }): string[] {
  const pod = snapshot.items.find((o) => o.kind === 'Pod')!.metadata;
  const podName = `${pod.namespace}/${pod.name}`;
  switch (format) {
    case 'lint':
      return ['lint', file];
    case 'preview': {
      const last = snapshot.items.map((o) => o.kind.endsWith('Policy')).lastIndexOf(true);
      const head = file.replace(/\.json$/, '.head.json');
      writeFileSync(head, JSON.stringify({ ...snapshot, items: snapshot.items.filter((_, i) => i !== last) }));
      return ['preview', '--base', file, '--head', head, '--no-tables'];
    }
    case 'matrix':
      return ['matrix', '--port', '80', file];
    case 'ask-cidr':
      return ['ask', `can 0.0.0.0/0 reach ${podName} on 80?`, file];
    case 'ask-what':
      return ['ask', `what can ${podName} reach?`, file];
    default:
      return ['compile', '--format', format, file];
  }
}
const dir = mkdtempSync(join(tmpdir(), 'netpolc-hostile-'));
const bin = join(import.meta.dirname, '..', 'bin', 'netpolc.mjs');
const rows: object[] = [];
for (const [name, make] of Object.entries(SNAPSHOTS)) {
  if (opt('--only') && opt('--only') !== name) continue;
  const snapshot = make() as Parameters<typeof commandOf>[2];
  const text = JSON.stringify(snapshot);
  const file = join(dir, `${name}.json`);
  writeFileSync(file, text);
  for (const format of formats) {
    const started = performance.now();
    const command = commandOf(format, file, snapshot);
    const r = spawnSync(process.execPath, ['--max-old-space-size=8192', bin, ...command], { encoding: 'buffer', timeout: timeoutS * 1000, maxBuffer: 2 ** 31 - 1, env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' } });
    const seconds = (performance.now() - started) / 1000;
    const last = (format === 'lint' || (format.startsWith('ask') && r.status === 0) ? r.stdout : r.stderr).toString().trim().split('\n').filter((l) => !/^\s+at /.test(l) && l.trim() !== '').at(-1) ?? '';
    rows.push({ snapshot: name, kB: Math.round(text.length / 1024), format, s: Number(seconds.toFixed(1)), exit: r.status ?? r.signal ?? 'timeout', outMB: Number((r.stdout.length / 2 ** 20).toFixed(1)), last: last.slice(0, 110) });
    console.log(JSON.stringify(rows.at(-1)));
  }
}
console.table(rows);

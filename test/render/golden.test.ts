// Worked examples with their exact output under review: the example cluster (examples/cluster.json,
// two nodes) rendered in every format for each node, and the nftables and iptables deltas of the
// README's walkthrough (shop/web relabelled, then a NetworkPolicy added), compared byte for byte
// with the files in test/render/golden/. A change to what a renderer writes shows as a change to
// those files in review. After a deliberate change:
//   UPDATE_GOLDEN=1 npx vitest run test/render/golden.test.ts   (then read `git diff test/render/golden`)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';
import { main } from '../../functions/cli/main.js';
import { createMemoryStore } from '../../infra/store/memory.js';

const ROOT = join(import.meta.dirname, '..', '..');
const GOLDEN = join(import.meta.dirname, 'golden');
const CLUSTER = join(ROOT, 'examples', 'cluster.json');
const NODES = ['node-1', 'node-2'];
const update = process.env.UPDATE_GOLDEN === '1';

/** Compares `text` with the golden file `name` (or writes it under UPDATE_GOLDEN=1). */
function golden(name: string, text: string): void {
  const file = join(GOLDEN, name);
  if (update) {
    mkdirSync(GOLDEN, { recursive: true });
    writeFileSync(file, text);
    return;
  }
  let expected: string;
  try {
    expected = readFileSync(file, 'utf8');
  } catch {
    throw new Error(`no golden file ${name}: run UPDATE_GOLDEN=1 npx vitest run test/render/golden.test.ts and review it`);
  }
  expect(text, `${name} differs from its golden file: if the change is meant, run UPDATE_GOLDEN=1 npx vitest run test/render/golden.test.ts and review git diff test/render/golden`).toBe(expected);
}

/** `netpolc compile …` in process: what it prints on stdout. */
function cli(args: string[]): string {
  let out = '';
  let err = '';
  const code = main(['compile', ...args, CLUSTER], { out: (s) => (out += `${s}\n`), err: (s) => (err += `${s}\n`), stdin: () => '' });
  if (code !== 0) throw new Error(`netpolc compile ${args.join(' ')}: exit ${code}\n${err}`);
  return out;
}

describe('renderers: worked examples under review', () => {
  it.each(NODES)('every format of %s, as `netpolc compile --format F --node N` prints it', (node) => {
    for (const format of ['nftables', 'vpp-acl', 'vpp-session', 'openstack-sg', 'ir-flat']) golden(`${node}.${format}.txt`, cli(['--format', format, '--node', node]));
    for (const part of ['ipset', 'ipv4', 'ipv6']) golden(`${node}.iptables-${part}.txt`, cli(['--format', 'iptables', '--node', node, '--part', part]));
  });

  it('the set form of the whole cluster', () => {
    golden('cluster.ir.json', cli(['--format', 'ir']));
  });

  it("the README walkthrough's deltas: nftables and iptables, version 1 → 2 (a pod relabelled) → 3 (a policy added)", async () => {
    const app = createApp({ store: createMemoryStore(), access: { kind: 'anonymous' }, logAccess: null });
    const put = async (rv: string, body: unknown) => {
      const res = await app.request(`/v1/clusters/prod/snapshots/${rv}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status, await res.clone().text()).toBe(201);
    };
    const list = JSON.parse(readFileSync(CLUSTER, 'utf8')) as { items: { metadata: { name: string; labels?: Record<string, string> } }[] };
    await put('1', list);
    const web = list.items.find((o) => o.metadata.name === 'web')!;
    await put('2', { base: '1', changes: { apply: [{ ...web, metadata: { ...web.metadata, labels: { app: 'web2' } } }] } });
    const policy = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'api-from-shop', namespace: 'payments' },
      spec: { podSelector: { matchLabels: { app: 'api' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { tenant: 'shop' } } }], ports: [{ port: 8443 }] }] },
    };
    await put('3', { base: '2', changes: { apply: [policy] } });
    for (const [from, to] of [['1', '2'], ['2', '3']] as const) {
      for (const node of NODES) {
        const nft = await app.request(`/v1/clusters/prod/nodes/${node}/tables?version=${to}&since=${from}&format=nftables`, { headers: { accept: 'text/plain' } });
        expect(nft.headers.get('x-netpolc-full')).toBe('false');
        golden(`${node}.nftables-delta-${from}-${to}.txt`, await nft.text());
        const ipt = (await (await app.request(`/v1/clusters/prod/nodes/${node}/tables?version=${to}&since=${from}&format=iptables`)).json()) as { full: boolean; rendered: Record<string, unknown> };
        expect(ipt.full).toBe(false);
        // Each part as its tool reads it; the hooks (a list of rules) as JSON.
        golden(`${node}.iptables-delta-${from}-${to}.txt`, Object.entries(ipt.rendered).map(([part, text]) => `# ---- ${part}\n${typeof text === 'string' ? text : JSON.stringify(text, null, 2)}`).join('\n'));
      }
    }
  });
});

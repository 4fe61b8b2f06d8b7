// Services as kube-proxy routes them: a flow to a Service's name, its ClusterIP or a node address
// on its NodePort is answered for each backing pod on its targetPort, and that answer equals the
// verdict engine's for the backing pod directly. Named targetPorts resolve per pod (two backends
// with different numbers for one name; a pod without the name is no backend); selector-less,
// ExternalName and backend-less Services are answered with what cannot be known.
import { describe, expect, it } from 'vitest';
import { ask, type GroupAnswer } from '../../core/ask/answer.js';
import { isParseFailure } from '../../core/ask/parse.js';
import { NoVerdict } from '../../core/evaluate/resolve.js';
import { verdictFor, type GroupVerdict } from '../../core/evaluate/verdicts.js';
import { clusterOf, namespace, networkPolicy, node, pod, verdict, type K8sObject } from '../support/cluster-builders.js';

const service = (name: string, spec: Record<string, unknown>): K8sObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'shop' }, spec });
const api = { app: 'api' };
const objects: K8sObject[] = [
  namespace('shop'),
  node('n1', '172.18.0.2'),
  node('n2', '172.18.0.3'),
  pod('shop/api-1', { ip: '10.0.1.1', node: 'n1', labels: api, ports: [{ name: 'http', containerPort: 8080 }] }),
  pod('shop/api-2', { ip: '10.0.2.1', node: 'n2', labels: api, ports: [{ name: 'http', containerPort: 9090 }] }),
  pod('shop/api-3', { ip: '10.0.2.2', node: 'n2', labels: api }),
  pod('shop/client', { ip: '10.0.1.9', node: 'n1', labels: { app: 'client' } }),
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'api-4', namespace: 'shop', labels: api }, spec: { containers: [{ name: 'c' }] }, status: { phase: 'Pending' } },
  // Clients may reach the api pods on 8080 only.
  networkPolicy('shop/api', { podSelector: { matchLabels: api }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'client' } } }], ports: [{ port: 8080 }] }] }),
  service('api', { type: 'NodePort', selector: api, clusterIP: '10.96.0.10', ports: [{ port: 80, targetPort: 'http', nodePort: 30080 }] }),
  service('num', { selector: api, clusterIP: '10.96.0.11', ports: [{ port: 81, targetPort: 8080 }, { port: 53, protocol: 'UDP' }] }),
  service('same', { selector: api, clusterIP: '10.96.0.12', ports: [{ port: 9090 }] }),
  service('ghost', { selector: { app: 'ghost' }, clusterIP: '10.96.0.13', ports: [{ port: 80 }] }),
  service('external', { type: 'ExternalName', externalName: 'db.example.com' }),
  service('manual', { clusterIP: '10.96.0.14', ports: [{ port: 443 }] }),
  service('headless', { clusterIP: 'None', selector: api, ports: [{ port: 80, targetPort: 'http' }] }),
];
const cluster = clusterOf(objects);

function group(question: string): GroupAnswer {
  const a = ask(cluster, question);
  if (isParseFailure(a)) throw new Error(a.error);
  expect(a.kind, a.text).toBe('can-group');
  return a as GroupAnswer;
}

/** Each member of the answer against the engine on the backing pod directly. */
function expectBackends(g: GroupAnswer, expected: [string, number][]) {
  expect(g.members.map((m) => [m.to, m.port])).toEqual(expected.map(([to, port]) => [to, `TCP ${port}`]));
  for (const m of g.members) {
    const direct = verdict(cluster, 'shop/client', m.to, Number(m.port.slice(4)));
    expect(m.allowed, `${m.to} ${m.port}`).toBe(direct.allowed);
  }
  const yes = g.members.filter((m) => m.allowed).length;
  expect(g.allowed).toBe(yes === g.members.length ? 'all' : yes === 0 ? 'none' : 'some');
}

describe('a flow to a Service is answered for its backing pods', () => {
  it('by name: a named targetPort resolves per pod; a pod without the name is no backend; an unready pod is no endpoint', () => {
    const g = group('can shop/client reach shop/svc/api on 80');
    expectBackends(g, [['shop/api-1', 8080], ['shop/api-2', 9090]]);
    expect(g.allowed).toBe('some');
    expect(g.resolved).toEqual(['shop/svc/api → 3 backing pods (selector app=api), port 80 → targetPort http (8080 on shop/api-1, 9090 on shop/api-2)']);
    expect(g.notes).toEqual(['1 pod selected by shop/svc/api has no address (not ready) and is not an endpoint: shop/api-4', 'shop/api-3 has no TCP port named http, so it is not a backend for port 80']);
    expect(g.text).toMatch(/^Partly: shop\/client can reach shop\/svc\/api on TCP 80 \(shop\/svc\/api → 3 backing pods .*\) — 1 of 2 pods: allowed by NetworkPolicy shop\/api rule 0: shop\/api-1 \(TCP 8080\); denied at ingress: .*: shop\/api-2 \(TCP 9090\) \(.*shop\/api-3 has no TCP port named http/);
  });

  it('by ClusterIP, and by a node address on its NodePort: the same backends', () => {
    const byName = group('can shop/client reach shop/svc/api on 80').members;
    expect(group('can shop/client reach 10.96.0.10 on 80').members).toEqual(byName);
    const nodePort = group('can shop/client reach 172.18.0.3 on 30080');
    expect(nodePort.members).toEqual(byName);
    expect(nodePort.resolved[0]).toContain('NodePort 30080 (port 80) → targetPort http');
    expect(nodePort.notes).toContain('through a NodePort the source may be rewritten to a node address (externalTrafficPolicy: Cluster); answered for the source as given');
    // The node address on any other port is the node itself.
    expect(ask(cluster, 'can shop/client reach 172.18.0.3 on 30081')).toMatchObject({ kind: 'can' });
  });

  it('a numeric targetPort, and none (the port itself); a port the Service lacks is an error naming its ports', () => {
    expectBackends(group('can shop/client reach shop/svc/num on 81'), [['shop/api-1', 8080], ['shop/api-2', 8080], ['shop/api-3', 8080]]);
    expectBackends(group('can shop/client reach shop/same on 9090'), [['shop/api-1', 9090], ['shop/api-2', 9090], ['shop/api-3', 9090]]);
    expect(ask(cluster, 'can shop/client reach shop/svc/num on 8080')).toMatchObject({ kind: 'error', text: expect.stringContaining('shop/svc/num has no TCP port 8080; its ports: 81/TCP, 53/UDP') });
  });

  it('every port of a Service when none is asked', () => {
    const g = group('can shop/client reach shop/svc/num');
    expect(g.members.map((m) => `${m.to} ${m.port}: ${m.reason}`)).toEqual([
      'shop/api-1 TCP 8080: allowed by NetworkPolicy shop/api rule 0',
      'shop/api-2 TCP 8080: allowed by NetworkPolicy shop/api rule 0',
      'shop/api-3 TCP 8080: allowed by NetworkPolicy shop/api rule 0',
      ...['shop/api-1', 'shop/api-2', 'shop/api-3'].map((p) => `${p} UDP 53: ${verdictText(p, 53, 'UDP')}`),
    ]);
  });

  it('a headless Service proxies nothing: each pod on the port asked', () => {
    const g = group('can shop/client reach shop/svc/headless on 8080');
    expectBackends(g, [['shop/api-1', 8080], ['shop/api-2', 8080], ['shop/api-3', 8080]]);
    expect(g.resolved[0]).toContain('headless');
  });

  it.each([
    ['shop/svc/manual on 443', 'shop/svc/manual is selector-less: its endpoints (EndpointSlices managed elsewhere) are not in the snapshot; no verdict'],
    ['10.96.0.14 on 443', 'shop/svc/manual is selector-less'],
    ['shop/svc/external on 5432', 'shop/svc/external is an ExternalName Service (a DNS alias of db.example.com)'],
    ['shop/svc/ghost on 80', 'shop/svc/ghost has no ready backend pods (selector app=ghost matches no pod in namespace shop)'],
  ])('what cannot be known is said, never guessed: %s', (to, said) => {
    const a = ask(cluster, `can shop/client reach ${to}`);
    expect(a).toMatchObject({ kind: 'no-verdict', text: expect.stringContaining(said) });
    expect(() => verdictFor(cluster, { from: { pod: 'shop/client' }, to: /^\d/.test(to) ? { ip: to.split(' ')[0]! } : { pod: to.split(' ')[0]! }, port: Number(to.split(' on ')[1]), protocol: 'TCP' })).toThrow(NoVerdict);
  });

  it('a Service is never a source', () => {
    expect(ask(cluster, 'can shop/svc/api reach shop/client on 80')).toMatchObject({ kind: 'error', text: expect.stringContaining('a Service sends nothing: its pods do; name them as shop/app=api') });
    expect(ask(cluster, 'can 10.96.0.10 reach shop/client on 80')).toMatchObject({ kind: 'error', text: expect.stringContaining('the ClusterIP of shop/svc/api') });
  });

  it('the verdicts route answers the same group, allowed only when every backend is', () => {
    const v = verdictFor(cluster, { from: { pod: 'shop/client' }, to: { pod: 'shop/svc/api' }, port: 80, protocol: 'TCP' }) as GroupVerdict;
    expect(v.allowed).toBe(false);
    expect(v.summary).toBe('1 of 2 allowed');
    expect(v.members.map((m) => [m.flow.to, m.flow.port, m.allowed])).toEqual([['shop/api-1', 8080, true], ['shop/api-2', 9090, false]]);
    for (const m of v.members) expect(m).toMatchObject(verdict(cluster, 'shop/client', m.flow.to, m.flow.port));
  });
});

function verdictText(to: string, port: number, protocol: 'UDP'): string {
  const v = verdict(cluster, 'shop/client', to, port, protocol);
  return v.allowed ? 'allowed by default: no policy decides' : `denied at ingress: ${v.ingress!.trace[v.ingress!.trace.length - 1]!.message}`;
}

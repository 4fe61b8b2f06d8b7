// Object names and namespaces are validated as the API server validates them, per kind
// (apimachinery ValidateObjectMeta with the kind's name validation function): a name that could
// never be in a cluster is a 422 with its JSON path, before anything is rendered from it; the
// lenient reading leaves such an object out with its issue.
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';

type Obj = Record<string, unknown>;
const app = createApp({ logError: () => {} });

const NS: Obj = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } };
const NODE: Obj = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' }, status: { addresses: [{ type: 'InternalIP', address: '172.18.0.2' }] } };
const pod = (name: string, extra: { namespace?: string; nodeName?: string; ip?: string } = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: extra.namespace ?? 'shop', labels: { app: 'x' } },
  spec: { nodeName: extra.nodeName ?? 'node-1', containers: [{ name: 'main' }] },
  status: { phase: 'Running', podIP: extra.ip ?? '10.0.0.9', podIPs: [{ ip: extra.ip ?? '10.0.0.9' }] },
});
const BASE: Obj[] = [NS, NODE, pod('db', { ip: '10.0.0.2' })];
const AT = '$.snapshot.items[3]';

const template = { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'main' }] } };
const deployment = (name: string): Obj => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'shop' }, spec: { selector: { matchLabels: { app: 'x' } }, template } });
const job = (name: string, manualSelector?: boolean): Obj => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name, namespace: 'shop' }, spec: { template, ...(manualSelector ? { manualSelector, selector: { matchLabels: { app: 'x' } } } : {}) } });
const cronJob = (name: string): Obj => ({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name, namespace: 'shop' }, spec: { jobTemplate: { spec: { template } } } });
const service = (name: string): Obj => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'shop' }, spec: { selector: { app: 'x' }, ports: [{ port: 80 }] } });
const networkPolicy = (name: string, namespace = 'shop'): Obj => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace }, spec: { podSelector: {} } });
const anp = (name: string): Obj => ({ apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'AdminNetworkPolicy', metadata: { name }, spec: { priority: 10, subject: { namespaces: {} } } });
const cnp = (name: string): Obj => ({ apiVersion: 'policy.networking.k8s.io/v1alpha2', kind: 'ClusterNetworkPolicy', metadata: { name }, spec: { tier: 'Admin', priority: 10, subject: { namespaces: {} } } });
const namespace = (name: string): Obj => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const node = (name: string): Obj => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } });

async function compile(extra: Obj[], query = '', format = 'nftables') {
  const res = await app.request(`/v1/compile${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ snapshot: { items: [...BASE, ...extra] }, format }) });
  return { status: res.status, json: (await res.json()) as any };
}

const LABEL = /lowercase RFC 1123 label/;
const SUBDOMAIN = /lowercase RFC 1123 subdomain/;
const DNS1035 = /DNS-1035 label/;
const LONG = (n: number) => /must be no more than (\d+) characters/.source.replace('(\\d+)', String(n));
const sub = (n: number) => `${'a'.repeat(n - 2)}.b`;

interface Case {
  readonly name: string;
  /** The broken object (at AT), its issue's path under AT and message. */
  readonly object: Obj;
  readonly path: string;
  readonly message: RegExp;
  /** Objects next to it that the same rule accepts (each alone is a 200). */
  readonly valid?: readonly Obj[];
}

const CASES: Case[] = [
  // Namespace: ValidateNamespaceName = NameIsDNSLabel.
  { name: 'Namespace with a "."', object: namespace('a.b'), path: '.metadata.name', message: LABEL, valid: [namespace('1a')] },
  { name: 'Namespace in upper case', object: namespace('Shop'), path: '.metadata.name', message: LABEL },
  { name: 'Namespace of 64 characters', object: namespace('a'.repeat(64)), path: '.metadata.name', message: new RegExp(LONG(63)), valid: [namespace('a'.repeat(63))] },
  // Pod: ValidatePodName = NameIsDNSSubdomain; spec.nodeName by ValidateNodeName.
  { name: 'Pod name with a newline', object: pod('web\nflush ruleset\n#'), path: '.metadata.name', message: SUBDOMAIN },
  { name: 'Pod name with a carriage return', object: pod('web\rx'), path: '.metadata.name', message: SUBDOMAIN },
  { name: 'Pod name with NUL', object: pod('web\u0000'), path: '.metadata.name', message: SUBDOMAIN },
  { name: 'Pod name with "/"', object: pod('web/x'), path: '.metadata.name', message: SUBDOMAIN },
  { name: 'Pod name of 100,000 characters', object: pod('a'.repeat(100_000)), path: '.metadata.name', message: new RegExp(LONG(253)), valid: [pod(sub(253))] },
  { name: 'Pod name ending with "-"', object: pod('web-'), path: '.metadata.name', message: SUBDOMAIN },
  { name: 'Pod name with an empty label', object: pod('web..x'), path: '.metadata.name', message: SUBDOMAIN },
  { name: 'Pod in a namespace with "/"', object: pod('web', { namespace: 'shop/web' }), path: '.metadata.namespace', message: LABEL },
  { name: 'Pod in a namespace with a newline', object: pod('web', { namespace: 'shop\n' }), path: '.metadata.namespace', message: LABEL },
  { name: 'Pod on a node named with "_"', object: pod('web', { nodeName: 'node_1' }), path: '.spec.nodeName', message: SUBDOMAIN },
  // Node: ValidateNodeName = NameIsDNSSubdomain.
  { name: 'Node with a newline', object: node('node-2\nflush ruleset'), path: '.metadata.name', message: SUBDOMAIN, valid: [node('ip-10-0-0-1.ec2.internal')] },
  // Service: ValidateServiceName = NameIsDNS1035Label.
  { name: 'Service starting with a digit', object: service('1web'), path: '.metadata.name', message: DNS1035, valid: [service('web-1')] },
  { name: 'Service with a "."', object: service('web.x'), path: '.metadata.name', message: DNS1035 },
  // NetworkPolicy: ValidateNetworkPolicyName = NameIsDNSSubdomain.
  { name: 'NetworkPolicy in upper case', object: networkPolicy('Deny'), path: '.metadata.name', message: SUBDOMAIN, valid: [networkPolicy('deny.all')] },
  { name: 'NetworkPolicy in a namespace with a "."', object: networkPolicy('deny', 'a.b'), path: '.metadata.namespace', message: LABEL },
  // Workloads: NameIsDNSSubdomain; a Job's pods are labelled job-name=<name>; CronJob ≤ 52.
  { name: 'Deployment with a space', object: deployment('web x'), path: '.metadata.name', message: SUBDOMAIN },
  { name: 'Job of 64 characters', object: job('a'.repeat(64)), path: '.metadata.name', message: new RegExp(LONG(63)), valid: [job('a'.repeat(64), true)] },
  { name: 'CronJob of 53 characters', object: cronJob('a'.repeat(53)), path: '.metadata.name', message: new RegExp(LONG(52)), valid: [cronJob('a'.repeat(52))] },
  // Custom resources: the apiextensions server checks metadata.name with NameIsDNSSubdomain.
  { name: 'AdminNetworkPolicy in upper case', object: anp('Tenants'), path: '.metadata.name', message: SUBDOMAIN },
  { name: 'ClusterNetworkPolicy with a newline', object: cnp('a\nb'), path: '.metadata.name', message: SUBDOMAIN, valid: [cnp('team.a')] },
];

describe('object names are validated per kind, as the API server does', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      for (const ok of c.valid ?? []) {
        const v = await compile([ok]);
        expect(v.status, JSON.stringify(v.json).slice(0, 500)).toBe(200);
      }
      const r = await compile([c.object]);
      expect(r.status).toBe(422);
      expect(r.json.issues.map((i: { path: string }) => i.path)).toEqual([`${AT}${c.path}`]);
      expect(r.json.issues[0].message).toMatch(c.message!);
    });
  }

  it('pod shop/web + x and shop + web/x are no longer one "duplicate object": the "/" is refused', async () => {
    const r = await compile([pod('web/x', { namespace: 'shop', ip: '10.0.0.3' }), pod('x', { namespace: 'shop/web', ip: '10.0.0.4' })]);
    expect(r.status).toBe(422);
    expect(r.json.issues.map((i: { path: string; message: string }) => [i.path, i.message.startsWith('duplicate') ? 'duplicate' : 'name'])).toEqual([
      [`${AT}.metadata.name`, 'name'],
      ['$.snapshot.items[4].metadata.namespace', 'name'],
    ]);
  });

  it('the lenient reading leaves the object out with its issue, and renders the rest', async () => {
    const r = await compile([pod('web\nflush ruleset\n#')], '?lenient=true');
    expect(r.status).toBe(200);
    const script: string = r.json.nodes['node-1'];
    expect(script.split('\n').map((l) => l.trim())).not.toContain('flush ruleset');
    expect(script).toContain('# shop/db');
    expect(r.json.warnings.some((w: string) => w.includes(`${AT}.metadata.name`) && /RFC 1123 subdomain/.test(w))).toBe(true);
  });
});

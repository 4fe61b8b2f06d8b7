// Lenient reading, opt-in: --keep-going (CLI) and ?lenient=true (API) leave invalid objects
// and unparsable YAML documents out, and say what was left out; the default stays strict.
import { createApp } from '../../functions/app.js';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { run, tempDir } from '../support/cli.js';
import { deployment, namespace } from '../workloads/support.js';

const bad = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'p', namespace: 'shop' }, spec: { podSelector: {}, ingress: [{ ports: [{ port: 80, endPort: 79 }] }] } };
const good = [namespace('shop'), deployment('shop', 'web', { app: 'web' }), deployment('shop', 'db', { app: 'db' })];
const TEXT = `${good.map((o) => stringify(o)).join('---\n')}---\n${stringify(bad)}---\nkind: [unclosed\n`;

describe('lenient reading', () => {
  it('is off by default: exit 2 at the first unparsable document', () => {
    const dir = tempDir({ 'all.yaml': TEXT });
    const r = run(['matrix', dir]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${join(dir, 'all.yaml')} (document 5): malformed YAML`);
  });

  it('--keep-going leaves out the invalid object and the broken document, says so with file, document and path, answers about the rest', () => {
    const dir = tempDir({ 'all.yaml': TEXT });
    const r = run(['matrix', '--keep-going', dir]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('80/TCP (4 allowed, 0 denied)');
    expect(r.err).toContain(`warning: left out a document (invalid, lenient reading): ${join(dir, 'all.yaml')} (document 5): malformed YAML`);
    expect(r.err).toContain(`warning: left out NetworkPolicy shop/p (invalid, lenient reading): ${join(dir, 'all.yaml')} (document 4): $.spec.ingress[0].ports[0].endPort: must be greater than or equal to \`port\` (80)`);
  });

  it('?lenient=true does the same over HTTP, with the paths into the request', async () => {
    const app = createApp({ logError: () => {} });
    const post = (query: string) => app.request(`/v1/matrix${query}`, { method: 'POST', headers: { 'content-type': 'application/yaml' }, body: `ports: [{port: 80, protocol: TCP}]\n---\n${TEXT}` });
    expect((await post('')).status).toBe(400);
    const res = await post('?lenient=true');
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.pods).toEqual(['shop/deployment/db', 'shop/deployment/web']);
    expect(body.warnings.find((w: string) => w.startsWith('left out a document (invalid, lenient reading): document 6 of the body: malformed YAML: '))).toBeDefined();
    expect(body.warnings.find((w: string) => w.startsWith('left out NetworkPolicy shop/p'))).toContain('$.snapshot.items[3].spec.ingress[0].ports[0].endPort');
  });
});

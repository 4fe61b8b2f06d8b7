// A repository as the CLI meets it: non-Kubernetes files skipped with one stderr line each,
// --exclude, CRLF and comments, typed Lists (read as the API reads them), warnings on stderr,
// and empty input as an error — all through the real binary.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createApp } from '../../functions/app.js';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ROOT, run, tempDir } from '../support/cli.js';
import { deployment, namespace } from '../workloads/support.js';

function repo(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const docs = (...objects: unknown[]) => objects.map((o) => stringify(o)).join('---\n');
const np = (name: string, ns: string, spec: object) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace: ns }, spec });
const dbFromWeb = np('db-from-web', 'shop', { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }], ports: [{ port: 5432 }] }] });
const APPS = docs(namespace('shop'), deployment('shop', 'web', { app: 'web' }), deployment('shop', 'db', { app: 'db' }, [{ name: 'postgres', containerPort: 5432 }]));

describe('netpolc on a repository', () => {
  it('skips kustomize, Helm and CI files with one stderr line each, and answers about the workloads', () => {
    const dir = repo({
      'base/apps.yaml': APPS,
      'base/policy.yaml': docs(dbFromWeb),
      'base/kustomization.yaml': 'resources: [apps.yaml, policy.yaml]\n',
      'chart/Chart.yaml': 'apiVersion: v2\nname: shop\nversion: 0.1.0\n',
      'chart/values.yaml': 'replicas: 2\n',
      'chart/templates/deployment.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n',
      '.github/workflows/ci.yml': 'on: push\njobs: {}\n',
      'renovate.json': '{"extends": ["config:base"]}',
      // A tool's JSON report: an array of records, none with a kind.
      'reports/connlist.json': '[{"src": "shop/web[Deployment]", "dst": "shop/db[Deployment]", "conn": "TCP 5432"}]',
    });
    const r = run(['verdict', '--from', 'shop/deploy/web', '--to', 'shop/deploy/db', '--port', 'postgres', '--expect', 'allow', dir]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('shop/deploy/web → shop/deploy/db postgres/TCP: ALLOWED');
    const skipped = r.err.split('\n').filter((l) => l.startsWith('skipped '));
    expect(skipped).toEqual([
      `skipped ${join(dir, '.github/workflows/ci.yml')}: under .github/ (tool configuration such as CI workflows)`,
      `skipped ${join(dir, 'base/kustomization.yaml')}: kustomize configuration (kustomize build renders the objects)`,
      `skipped ${join(dir, 'chart/Chart.yaml')}: Helm chart metadata`,
      `skipped ${join(dir, 'chart/templates/deployment.yaml')}: a Helm template source ({{ … }}); read what helm template renders`,
      `skipped ${join(dir, 'chart/values.yaml')}: Helm values (helm template renders the objects)`,
      `skipped ${join(dir, 'renovate.json')}: no Kubernetes objects (no document has apiVersion and kind)`,
      `skipped ${join(dir, 'reports/connlist.json')}: no Kubernetes objects (no document has apiVersion and kind)`,
    ]);
  });

  it('--exclude leaves out files and directories by glob', () => {
    const dir = repo({ 'apps.yaml': APPS, 'policy.yaml': docs(dbFromWeb), 'legacy/broken.yaml': 'apiVersion: v1\nkind: Pod\nmetadata: {}\n' });
    expect(run(['matrix', dir]).code).toBe(2);
    const r = run(['matrix', '--port', '80', '--exclude', 'legacy/**', dir]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('80/TCP (3 allowed, 1 denied)');
    expect(run(['matrix', '--exclude=broken.yaml', dir]).code).toBe(0);
  });

  it('reads CRLF, comments and empty documents; typed Lists whose items leave out kind, as the API does', async () => {
    const list = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicyList', items: [{ metadata: { name: 'db-from-web', namespace: 'shop' }, spec: dbFromWeb.spec }] };
    const deployments = { apiVersion: 'apps/v1', kind: 'DeploymentList', items: [deployment('shop', 'web', { app: 'web' }), deployment('shop', 'db', { app: 'db' })].map(({ apiVersion: _a, kind: _k, ...rest }) => rest) };
    const text = `# rendered\n---\n---\n${stringify(namespace('shop'))}---\n# deployments\n${stringify(deployments)}---\n${stringify(list)}`.replace(/\n/g, '\r\n');
    const dir = repo({ 'all.yaml': text });
    const cli = run(['matrix', '--output', 'json', dir]);
    expect(cli.code, cli.err).toBe(0);
    const table = JSON.parse(cli.out).results[0].table;
    expect(table).toBe('-\tshop/deployment/db\tshop/deployment/web\nshop/deployment/db\t.\t.\nshop/deployment/web\tX\t.');
    const app = createApp({ logError: () => {} });
    const res = await app.request('/v1/matrix', { method: 'POST', headers: { 'content-type': 'application/yaml' }, body: `ports: [{port: 80, protocol: TCP}]\n---\n${text}` });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).results[0].table).toBe(table);
  });

  it('says on stderr what answers leave out, for every command: policies not evaluated, ignored kinds', () => {
    const cilium = { apiVersion: 'cilium.io/v2', kind: 'CiliumNetworkPolicy', metadata: { name: 'l7', namespace: 'shop' }, spec: { endpointSelector: {} } };
    const calico = { apiVersion: 'projectcalico.org/v3', kind: 'GlobalNetworkPolicy', metadata: { name: 'deny' }, spec: { selector: 'all()' } };
    const dir = repo({ 'apps.yaml': APPS, 'other.yaml': docs(cilium, calico, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'shop' } }) });
    const warning = 'warning: policies of kinds netpolc does not evaluate: CiliumNetworkPolicy (cilium.io/v2) (1), GlobalNetworkPolicy (projectcalico.org/v3) (1); not evaluated: answers ignore them';
    for (const args of [['matrix'], ['lint'], ['compile', '--format', 'ir'], ['verdict', '--from', 'shop/deploy/web', '--to', 'shop/deploy/db', '--port', '80'], ['ask', 'who can reach shop/deploy/db?'], ['preview', '--base', dir, '--head']]) {
      const r = run([...args, dir]);
      expect(r.code, `${args[0]}: ${r.err}`).toBe(0);
      expect(r.err, args[0]).toContain(warning);
      expect(r.err, args[0]).toContain('warning: ignored objects of kinds policy evaluation does not read: ConfigMap (1)');
    }
  });

  it('no endpoints is an error: empty stdin, an empty directory, policies alone; lint says selects-no-pods needs pods', () => {
    expect(run(['matrix', '-'], '').err).toContain('no input: stdin is empty');
    expect(run(['matrix', '-'], '').code).toBe(2);
    const empty = tempDir({ 'README.md': '# nothing' });
    expect(run(['matrix', empty]).err).toContain(`no input: ${empty} holds no .yaml, .yml or .json files`);
    const policies = repo({ 'policy.yaml': docs(dbFromWeb) });
    const v = run(['verdict', '--from', 'shop/deploy/web', '--to', 'shop/deploy/db', '--port', '80', policies]);
    expect(v.code).toBe(2);
    expect(v.err).toContain('no endpoints: the input has no pods, workloads (Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController, Job, CronJob) or nodes, only NetworkPolicy (1)');
    const pv = run(['preview', '--base', policies, '--head', policies]);
    expect(pv.code).toBe(2);
    expect(pv.err).toContain('base snapshot: no endpoints: the input has no pods, workloads');
    const lint = run(['lint', policies]);
    expect(lint.code).toBe(0);
    expect(lint.out).not.toContain('selects-no-pods');
    expect(lint.err).toContain('warning: the input has no pods and no workloads: selects-no-pods and every answer about endpoints need them');
  });

  it('--changes DIR applies every file of the directory: objects, and {apply, delete} documents', () => {
    const live = join(ROOT, 'examples', 'pull-request', 'live.yaml');
    const changes = repo({
      'a/deny-web.yaml': docs(np('deny-web', 'shop', { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'] })),
      'b/drop.yaml': stringify({ delete: [{ kind: 'NetworkPolicy', namespace: 'shop', name: 'db-from-web' }] }),
    });
    const r = run(['preview', '--base', live, '--changes', changes, '--output', 'json', '--no-tables', '--allow-removed-flows']);
    expect(r.code, r.err).toBe(0);
    const p = JSON.parse(r.out);
    const seen = new Set(p.changes.map((c: any) => `${c.change} → ${c.to.workload}`));
    expect(seen).toEqual(new Set(['removed → app=web', 'added → app=db']));
  });
});

// A snapshot of a few kilobytes whose flat tables pass their limits (core/compile/flat-limits.ts):
// every route that derives flat tables answers 422 at the field that asked for them, in seconds,
// and the set form of the same snapshot is served (a preview's table delta is the set form). The
// DynamoDB store on an in-process dynalite.
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';
import { FLAT_LIMITS } from '../../core/compile/flat-limits.js';
import { createDynamoDbStore } from '../../infra/store/dynamodb.js';
import { useLocalDynamo } from '../support/local-dynamo.js';
import { exceptedPorts } from '../support/hostile.js';

const dynamo = useLocalDynamo();
const list = (items: unknown[]) => ({ apiVersion: 'v1', kind: 'List', items });
const heavy = list(exceptedPorts());
const refusal = `node n1: flat tables need more than ${FLAT_LIMITS.rulesPerNode} rules on this node (the limit)`;

function setup() {
  const app = createApp({ store: createDynamoDbStore({ client: dynamo().client, tableName: dynamo().tableName }), access: { kind: 'anonymous' }, logError: (e) => { throw e; } });
  const send = (method: string, path: string, body?: unknown) => app.request(path, { method, headers: { 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  return { app, send };
}

async function issues(res: Response): Promise<{ status: number; issues: { path: string; message: string }[] }> {
  return { status: res.status, issues: ((await res.json()) as { issues?: { path: string; message: string }[] }).issues ?? [] };
}

describe('flat tables past their limits', () => {
  it('POST /v1/compile: ir-flat and the VPP formats are a 422 at $.format; the set form and nftables are served', async () => {
    const { send } = setup();
    expect(JSON.stringify(heavy).length).toBeLessThan(64 * 1024);
    for (const format of ['ir-flat', 'vpp-acl']) {
      expect(await issues(await send('POST', '/v1/compile', { snapshot: heavy, format }))).toEqual({ status: 422, issues: [{ path: '$.format', message: expect.stringContaining(refusal) }] });
    }
    for (const format of ['ir', 'nftables']) expect((await send('POST', '/v1/compile', { snapshot: heavy, format })).status, format).toBe(200);
  });

  it('a stored version: its node in ir-flat or vpp-session is a 422 at $.query.format; ir and iptables are served', async () => {
    const { send } = setup();
    expect((await send('PUT', '/v1/clusters/heavy/snapshots/1', heavy)).status).toBe(201);
    for (const format of ['ir-flat', 'vpp-session']) {
      expect(await issues(await send('GET', `/v1/clusters/heavy/nodes/n1/tables?format=${format}`))).toEqual({ status: 422, issues: [{ path: '$.query.format', message: expect.stringContaining(refusal) }] });
    }
    // Asked again (the refusal is kept with the version's cluster): the same answer.
    expect(await issues(await send('GET', '/v1/clusters/heavy/nodes/n1/tables?format=ir-flat'))).toEqual({ status: 422, issues: [{ path: '$.query.format', message: expect.stringContaining(refusal) }] });
    for (const format of ['ir', 'iptables']) expect((await send('GET', `/v1/clusters/heavy/nodes/n1/tables?format=${format}`)).status, format).toBe(200);
  });

  it('the contract states the limits', async () => {
    const { app } = setup();
    const doc = (await (await app.request('/openapi.json')).json()) as { info: { description: string } };
    expect(doc.info.description).toContain(`${FLAT_LIMITS.rulesPerNode} flat rules (ir-flat, and the VPP formats made from it)`);
  });

  it('POST /v1/previews: the per-node table delta is the set form, served for a head whose flat tables pass their limit', async () => {
    const { send } = setup();
    const body = { base: list(exceptedPorts(40, 20)), head: heavy };
    const served = await send('POST', '/v1/previews', body);
    expect(served.status).toBe(200);
    const { tables } = (await served.json()) as { tables: { nodes: Record<string, { setsAdded: string[]; setsRemoved: string[]; rulesAdded: number }> } };
    // The head's ipBlock (a /16 less its excepts) is one set whatever its flat form would need.
    const changed = Object.values(tables.nodes);
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.every((d) => d.setsAdded.length + d.setsRemoved.length <= 2 && d.rulesAdded <= 2)).toBe(true);
    const without = await send('POST', '/v1/previews?tables=false', body);
    expect(without.status).toBe(200);
    expect(((await without.json()) as { tables: unknown }).tables).toBeNull();
  });
});

// What Lambda runs is the bundle `npm run build:lambda` writes (infra/build-lambda.ts), not the
// sources lambda.test.ts imports: a package the bundler cannot follow, or one left outside it,
// shows only there. The bundle is built into a temporary directory outside the repository (no
// node_modules to fall back on) and invoked in a Node process of its own with a clean
// environment, as infra/template.yaml configures the function, against a dynalite in this process.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildLambda, LAMBDA_HANDLER_FILE } from '../../infra/build-lambda.js';
import { expectExampleVerdicts } from '../support/example-verdicts.js';
import { httpApiEvent } from '../support/lambda-events.js';
import { useLocalDynamo } from '../support/local-dynamo.js';
import { makeToken } from '../support/tokens.js';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (...p: string[]) => readFileSync(join(ROOT, ...p), 'utf8');

// Invokes the handler once per event, in order, and writes the answers as one JSON array to a
// file (stdout is the function's log, as on Lambda).
const DRIVER = `
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const { handler } = await import(pathToFileURL(process.argv[2]).href);
const out = [];
for (const event of JSON.parse(readFileSync(process.argv[3], 'utf8'))) out.push(await handler(event));
writeFileSync(process.argv[4], JSON.stringify(out));
`;

interface Answer {
  readonly statusCode: number;
  readonly headers?: Record<string, string>;
  readonly body: string;
  readonly isBase64Encoded: boolean;
}

const dynamo = useLocalDynamo();

describe('the Lambda bundle (npm run build:lambda)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'netpolc-lambda-'));
  let handlerFile = '';
  beforeAll(async () => {
    handlerFile = await buildLambda(join(dir, 'bundle'));
    writeFileSync(join(dir, 'driver.mjs'), DRIVER);
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The answers of the bundled handler to `events`, in a process of its own (async: the dynalite it calls runs in this one). */
  async function invoke(events: unknown[], env: Record<string, string>): Promise<Answer[]> {
    writeFileSync(join(dir, 'events.json'), JSON.stringify(events));
    const child = spawn(process.execPath, [join(dir, 'driver.mjs'), handlerFile, join(dir, 'events.json'), join(dir, 'answers.json')], { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr.on('data', (d: Buffer) => (log += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`the bundled handler exited with ${code}:\n${log}`);
    return JSON.parse(readFileSync(join(dir, 'answers.json'), 'utf8')) as Answer[];
  }

  it('is where infra/template.yaml deploys it from (CodeUri, Handler)', () => {
    const template = read('infra', 'template.yaml');
    const codeUri = /^\s+CodeUri: (\S+)$/m.exec(template)?.[1];
    const handler = /^\s+Handler: (\S+)\.handler$/m.exec(template)?.[1];
    expect(codeUri).toBe('../dist/lambda');
    expect(`${handler}.mjs`).toBe(LAMBDA_HANDLER_FILE);
    expect(relative(join(dir, 'bundle'), handlerFile)).toBe(LAMBDA_HANDLER_FILE);
  });

  it('calls no require(): in an ESM bundle the bundler\'s stand-in for it throws when called, on paths this test may not take', () => {
    const text = readFileSync(handlerFile, 'utf8');
    expect(text.match(/__require\(\s*["'][^"']+["']\s*\)/g) ?? []).toEqual([]);
  });

  it('answers as the sources do: the documented verdicts, the example set form byte for byte, then a version stored in DynamoDB and a node agent reading its nftables, plain and gzipped', async () => {
    const writer = makeToken('write:cluster=prod');
    const agent = makeToken('read:cluster=prod,node=node-2');
    const cluster = read('examples', 'cluster.json');
    const answers = await invoke(
      [
        httpApiEvent('POST', '/v1/verdicts', { body: read('examples', 'verdicts-request.json'), contentType: 'application/json' }),
        httpApiEvent('POST', '/v1/compile', { body: `{"snapshot":${cluster}}`, contentType: 'application/json' }),
        httpApiEvent('PUT', '/v1/clusters/prod/snapshots/1', { body: cluster, contentType: 'application/json', headers: writer.header }),
        httpApiEvent('GET', '/v1/clusters/prod/nodes/node-2/tables', { query: 'format=nftables', headers: agent.header }),
        httpApiEvent('GET', '/v1/clusters/prod/nodes/node-2/tables', { query: 'format=nftables', headers: { ...agent.header, 'accept-encoding': 'gzip' } }),
        httpApiEvent('GET', '/v1/clusters/prod/snapshots', { headers: agent.header }),
      ],
      // As the template sets them; no AWS credentials: the endpoint is local (dummy credentials).
      { STORE: 'dynamodb', DYNAMODB_TABLE: dynamo().tableName, DYNAMODB_ENDPOINT: dynamo().endpoint, NETPOLC_TOKENS: `${writer.entry}\n${agent.entry}` },
    );
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 201, 200, 200, 403]);
    expect(answers.map((a) => a.isBase64Encoded)).toEqual([false, false, false, false, true, false]);
    expectExampleVerdicts(JSON.parse(answers[0]!.body));
    const { version, sets, tables, nodes } = JSON.parse(answers[1]!.body);
    expect(JSON.stringify({ version, sets, tables, nodes })).toBe(JSON.stringify(JSON.parse(read('examples', 'compiled-ir.json'))));
    expect(JSON.parse(answers[2]!.body)).toMatchObject({ cluster: 'prod', version: '1', status: 'created', latest: true });
    expect(answers[3]!.body).toContain('table inet netpolc');
    // Asked for gzip: base64 on the way out (zlib inside the bundle), the same script inflated.
    expect(answers[4]!.headers?.['content-encoding']).toBe('gzip');
    expect(gunzipSync(Buffer.from(answers[4]!.body, 'base64')).toString('utf8')).toBe(answers[3]!.body);
  }, 60_000);
});

// `netpolc` — the CLI over the same core as the API. Exit codes a pipeline can gate on:
// 0 fine, 1 a gate failed (--expect mismatch, …), 2 bad usage or input.
import { parseArgs } from 'node:util';
import { compile } from '../../core/compile/compile.js';
import { evaluate, type SideVerdict, type Verdict } from '../../core/evaluate/engine.js';
import { FlowError, resolveFlow, type EndpointSpec } from '../../core/evaluate/resolve.js';
import { matrix } from '../../core/evaluate/matrix.js';
import { DATAPLANES } from '../../core/render/index.js';
import { InputError, loadCluster, readSources } from './input.js';
import { nodeSha256Hex } from '../node-sha256.js';

export interface Io {
  readonly out: (s: string) => void;
  readonly err: (s: string) => void;
  readonly stdin: () => string;
}

const USAGE = `usage: netpolc <command> [options] [file|dir|- ...]
  verdict --from NS/POD|IP --to NS/POD|IP --port N|NAME [--protocol TCP|UDP|SCTP] [--ip-family IPv4|IPv6] [--expect allow|deny]
  matrix  [--port N[/PROTO] ...] [--namespace NS ...]
  compile --format ir|vpp-acl|vpp-session|nftables|iptables|openstack-sg [--node NAME ...]
common: --output text|json|markdown (default text); inputs are YAML/JSON files, directories, or stdin
        (kubectl get ns,pods,nodes,netpol,anp,banp -A -o yaml | netpolc verdict …)`;

class UsageError extends Error {}

const endpoint = (s: string): EndpointSpec => (s.includes('/') ? { pod: s } : { ip: s });

function sideText(name: string, s: SideVerdict | null): string {
  if (!s) return `  ${name}: not a policy-subject pod`;
  return `  ${name} (${s.tier}): ${s.trace.map((t) => t.message).join(' → ')}`;
}

function verdictText(v: Verdict, what: string, md: boolean): string {
  const head = `${what}: ${v.allowed ? 'ALLOWED' : 'DENIED'}${v.reason ? ` (${v.reason})` : ''}`;
  if (v.reason) return md ? `**${head}**` : head;
  const lines = [sideText('egress', v.egress), sideText('ingress', v.ingress)];
  return md ? [`**${head}**`, '', ...lines.map((l) => `- ${l.trim()}`)].join('\n') : [head, ...lines].join('\n');
}

function commandVerdict(args: string[], io: Io): number {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { from: { type: 'string' }, to: { type: 'string' }, port: { type: 'string' }, protocol: { type: 'string', default: 'TCP' }, 'ip-family': { type: 'string' }, expect: { type: 'string' }, output: { type: 'string', default: 'text' } },
  });
  if (!values.from || !values.to || !values.port) throw new UsageError('verdict needs --from, --to and --port');
  const protocol = values.protocol!.toUpperCase();
  if (!['TCP', 'UDP', 'SCTP'].includes(protocol)) throw new UsageError(`--protocol must be TCP, UDP or SCTP`);
  const cluster = loadCluster(readSources(positionals, io.stdin), io.err);
  const port = /^\d+$/.test(values.port) ? Number(values.port) : values.port;
  let v: Verdict;
  try {
    v = evaluate(cluster, resolveFlow(cluster, { from: endpoint(values.from), to: endpoint(values.to), port, protocol: protocol as 'TCP', ipFamily: values['ip-family'] as 'IPv4' | undefined }));
  } catch (e) {
    if (e instanceof FlowError) throw new InputError(`--${e.field === 'ipFamily' ? 'ip-family' : e.field}: ${e.message}`);
    throw e;
  }
  const what = `${values.from} → ${values.to} ${values.port}/${protocol}`;
  if (values.output === 'json') io.out(JSON.stringify({ ...v, warnings: cluster.warnings }, null, 2));
  else io.out(verdictText(v, what, values.output === 'markdown'));
  if (values.expect && values.expect !== (v.allowed ? 'allow' : 'deny')) {
    io.err(`expected ${values.expect}, got ${v.allowed ? 'allow' : 'deny'}`);
    return 1;
  }
  return 0;
}

function commandMatrix(args: string[], io: Io): number {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { port: { type: 'string', multiple: true }, namespace: { type: 'string', multiple: true }, output: { type: 'string', default: 'text' } } });
  const ports = (values.port ?? ['80/TCP']).map((p) => {
    const m = /^(\d+)(?:\/(tcp|udp|sctp))?$/i.exec(p);
    if (!m || Number(m[1]) < 1 || Number(m[1]) > 65535) throw new UsageError(`--port ${p}: expected N or N/PROTO`);
    return { port: Number(m[1]), protocol: (m[2] ?? 'TCP').toUpperCase() as 'TCP' };
  });
  const cluster = loadCluster(readSources(positionals, io.stdin), io.err);
  const pods = cluster.pods.filter((p) => !p.hostNetwork && (!values.namespace || values.namespace.includes(p.namespace)));
  const results = matrix(cluster, pods, ports, null);
  if (values.output === 'json') io.out(JSON.stringify({ pods: pods.map((p) => p.key), results }, null, 2));
  else io.out(results.map((r) => `${r.port}/${r.protocol} (${r.counts.allowed} allowed, ${r.counts.denied} denied)\n${values.output === 'markdown' ? '```\n' + r.table + '\n```' : r.table}`).join('\n\n'));
  return 0;
}

function commandCompile(args: string[], io: Io): number {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { format: { type: 'string', default: 'ir' }, node: { type: 'string', multiple: true }, output: { type: 'string' } } });
  const format = values.format!;
  if (format !== 'ir' && !DATAPLANES[format]) throw new UsageError(`--format must be one of ir, ${Object.keys(DATAPLANES).join(', ')}`);
  const cluster = loadCluster(readSources(positionals, io.stdin), io.err);
  const { ir, stats } = compile(cluster, { ...(values.node ? { nodes: values.node } : {}), sha256Hex: nodeSha256Hex });
  io.err(`compiled ${stats.pods} pods into ${stats.tables} tables (${stats.rules} rules) on ${Object.keys(ir.nodes).length} node(s)`);
  const nodes = format === 'ir' ? ir.nodes : DATAPLANES[format]!.render(ir);
  // A single node of a text format is printed as is, ready for `nft -f -` or `iptables-restore`.
  const only = Object.values(nodes);
  if (only.length === 1 && typeof only[0] === 'string' && values.output !== 'json') io.out(only[0]);
  else io.out(JSON.stringify(nodes, null, 2));
  return 0;
}

const COMMANDS: Record<string, (args: string[], io: Io) => number> = { verdict: commandVerdict, matrix: commandMatrix, compile: commandCompile };

export function main(argv: readonly string[], io: Io): number {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    io.out(USAGE);
    return command ? 0 : 2;
  }
  const run = COMMANDS[command];
  if (!run) {
    io.err(`unknown command "${command}"\n${USAGE}`);
    return 2;
  }
  try {
    return run(rest, io);
  } catch (e) {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`${(e as Error).message}\n${USAGE}`);
      return 2;
    }
    if (e instanceof InputError) {
      io.err((e as Error).message);
      return 2;
    }
    throw e;
  }
}

// `netpolc verdict`: can A reach B on a port, with both decision chains; `--expect` gates.
import { parseArgs } from 'node:util';
import { endLabel, FlowError, verdictFor, type AddressRegion, type EndpointSpec, type FlowVerdict, type GroupVerdict, type SideVerdict, type Verdict } from '../../../core/evaluate/index.js';
import { familyOfText } from '../../../core/net/index.js';
import { warningMessages } from '../../../core/warnings.js';
import { InputError, loadCluster, readSources } from '../input.js';
import { UsageError, type Io } from '../io.js';

// An address, else a name (names.ts: a pod, workload, Service, selector, node or CIDR).
const endpoint = (s: string): EndpointSpec => (familyOfText(s) !== null ? { ip: s } : { pod: s });

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

/** A name standing for several pods: the summary, how the names were read, then each member. */
function groupText(g: GroupVerdict, what: string, md: boolean): string {
  const head = `${what}: ${g.allowed ? 'ALLOWED' : 'DENIED'} (${g.summary})`;
  const about = [...g.resolved, ...g.notes].map((l) => (md ? `- ${l}` : `  ${l}`));
  // A member answering for a region of a CIDR is listed by the region, with the address evaluated.
  const end = (key: string, r?: AddressRegion) => (r ? `${endLabel(key, r)}${r.owner || r.via ? '' : ` (at ${key})`}` : key);
  const members = g.members.map((m) => verdictText(m, `${end(m.flow.from, m.regions?.from)} → ${end(m.flow.to, m.regions?.to)} ${m.flow.port}/${m.flow.protocol}`, md));
  return [md ? `**${head}**` : head, ...about, ...members.map((m) => (md ? `\n${m}` : m.replace(/^/gm, '  ')))].join('\n');
}

export function commandVerdict(args: string[], io: Io): number {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { from: { type: 'string' }, to: { type: 'string' }, port: { type: 'string' }, protocol: { type: 'string', default: 'TCP' }, 'ip-family': { type: 'string' }, expect: { type: 'string' }, output: { type: 'string', default: 'text' } },
  });
  if (!values.from || !values.to || !values.port) throw new UsageError('verdict needs --from, --to and --port');
  const protocol = values.protocol!.toUpperCase();
  if (!['TCP', 'UDP', 'SCTP'].includes(protocol)) throw new UsageError(`--protocol must be TCP, UDP or SCTP`);
  const cluster = loadCluster(readSources(positionals, io), io.err, io.input?.keepGoing);
  const port = /^\d+$/.test(values.port) ? Number(values.port) : values.port;
  let v: FlowVerdict | GroupVerdict;
  try {
    v = verdictFor(cluster, { from: endpoint(values.from), to: endpoint(values.to), port, protocol: protocol as 'TCP', ipFamily: values['ip-family'] as 'IPv4' | undefined });
  } catch (e) {
    if (e instanceof FlowError) throw new InputError(`--${e.field === 'ipFamily' ? 'ip-family' : e.field}: ${e.message}`);
    throw e;
  }
  const what = `${values.from} → ${values.to} ${values.port}/${protocol}`;
  if (values.output === 'json') {
    // One flow prints as it always has, the verdict alone; a group with its members.
    const body = 'members' in v ? v : (({ flow: _flow, ...verdict }: FlowVerdict): Verdict => verdict)(v);
    io.out(JSON.stringify({ ...body, warnings: warningMessages(cluster.warnings) }, null, 2));
  }
  else io.out('members' in v ? groupText(v, what, values.output === 'markdown') : verdictText(v, what, values.output === 'markdown'));
  if (values.expect && values.expect !== (v.allowed ? 'allow' : 'deny')) {
    io.err(`expected ${values.expect}, got ${v.allowed ? 'allow' : 'deny'}`);
    return 1;
  }
  return 0;
}

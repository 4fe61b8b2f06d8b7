// `netpolc compile`: the set form (ir), flat tables (ir-flat) or a rendered dataplane format.
import { nodeSha256Hex } from '../../node-sha256.js';
import { parseArgs } from 'node:util';
import { compile } from '../../../core/compile/index.js';
import { DATAPLANES, renderFormat } from '../../../core/render/index.js';
import { COMPILE_FORMATS } from '../../../schemas/formats.js';
import { compileSets } from '../../../core/sets/index.js';
import { unknownNodes } from '../../../core/snapshot/index.js';
import { loadCluster, readSources } from '../input.js';
import { outPrettyRecord, UsageError, type Io } from '../io.js';


export function commandCompile(args: string[], io: Io): number {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { format: { type: 'string', default: 'ir' }, node: { type: 'string', multiple: true }, output: { type: 'string' }, part: { type: 'string' } } });
  const format = values.format!;
  if (!(COMPILE_FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format must be one of ${COMPILE_FORMATS.join(', ')}`);
  const cluster = loadCluster(readSources(positionals, io), io.err, io.input?.keepGoing);
  const unknown = unknownNodes(cluster, values.node ?? []);
  if (unknown.length > 0) throw new UsageError(`--node: ${unknown.map((u) => u.message).join('; ')}`);
  const opts = { ...(values.node ? { nodes: values.node } : {}), sha256Hex: nodeSha256Hex };
  const sets = () => {
    const { ir, stats } = compileSets(cluster, opts);
    io.err(`compiled ${stats.pods} pods into ${stats.tables} tables (${stats.rules} rules) over ${stats.sets} sets on ${Object.keys(ir.nodes).length} node(s)`);
    return ir;
  };
  if (format === 'ir') {
    io.out(JSON.stringify(sets(), null, 2));
    return 0;
  }
  const flat = () => {
    const { ir, stats } = compile(cluster, opts);
    io.err(`compiled ${stats.pods} pods into ${stats.tables} tables (${stats.rules} flat rules) on ${Object.keys(ir.nodes).length} node(s)`);
    return ir;
  };
  const nodes = format === 'ir-flat' ? flat().nodes : renderFormat(DATAPLANES[format]!, sets, flat);
  // A single node of a text format is printed as is, ready for `nft -f -`; one part of the
  // iptables artifact likewise (`--part ipset | ipset restore`, `--part ipv4 | iptables-restore --noflush`).
  const only = Object.values(nodes);
  if (values.part !== undefined) {
    const artifact = only[0] as Record<string, unknown> | undefined;
    if (format !== 'iptables' || only.length !== 1 || !artifact || typeof artifact[values.part] !== 'string') throw new UsageError('--part ipset|ipv4|ipv6 needs --format iptables and one --node');
    io.out(artifact[values.part] as string);
    if (values.part !== 'ipset') io.err(`then, once: ${(artifact.hooks as string[]).map((h) => `${values.part === 'ipv6' ? 'ip6tables' : 'iptables'} ${h.replace(/^-I (\S+) 1/, '-C $1')} || ${values.part === 'ipv6' ? 'ip6tables' : 'iptables'} ${h}`).join('; ')}`);
    return 0;
  }
  if (only.length === 1 && typeof only[0] === 'string' && values.output !== 'json') io.out(only[0]);
  else outPrettyRecord(io, nodes);
  return 0;
}

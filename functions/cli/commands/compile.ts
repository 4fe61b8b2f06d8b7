// `netpolc compile`: per-node rule tables, as IR or rendered for a dataplane.
import { nodeSha256Hex } from '../../node-sha256.js';
import { parseArgs } from 'node:util';
import { compile } from '../../../core/compile/compile.js';
import { DATAPLANES } from '../../../core/render/index.js';
import { loadCluster, readSources } from '../input.js';
import { UsageError, type Io } from '../io.js';

export function commandCompile(args: string[], io: Io): number {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { format: { type: 'string', default: 'ir' }, node: { type: 'string', multiple: true }, output: { type: 'string' } } });
  const format = values.format!;
  if (format !== 'ir' && !DATAPLANES[format]) throw new UsageError(`--format must be one of ir, ${Object.keys(DATAPLANES).join(', ')}`);
  const cluster = loadCluster(readSources(positionals, io), io.err, io.input?.keepGoing);
  const { ir, stats } = compile(cluster, { ...(values.node ? { nodes: values.node } : {}), sha256Hex: nodeSha256Hex });
  io.err(`compiled ${stats.pods} pods into ${stats.tables} tables (${stats.rules} rules) on ${Object.keys(ir.nodes).length} node(s)`);
  const nodes = format === 'ir' ? ir.nodes : DATAPLANES[format]!.render(ir);
  // A single node of a text format is printed as is, ready for `nft -f -` or `iptables-restore`.
  const only = Object.values(nodes);
  if (only.length === 1 && typeof only[0] === 'string' && values.output !== 'json') io.out(only[0]);
  else io.out(JSON.stringify(nodes, null, 2));
  return 0;
}

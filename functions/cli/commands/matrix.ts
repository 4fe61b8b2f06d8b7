// `netpolc matrix`: all-pairs truth tables of pods, as upstream e2e prints them.
import { parseArgs } from 'node:util';
import { matrix } from '../../../core/evaluate/index.js';
import { loadCluster, readSources } from '../input.js';
import { UsageError, type Io } from '../io.js';

export function commandMatrix(args: string[], io: Io): number {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { port: { type: 'string', multiple: true }, namespace: { type: 'string', multiple: true }, output: { type: 'string', default: 'text' } } });
  const ports = (values.port ?? ['80/TCP']).map((p) => {
    const m = /^(\d+)(?:\/(tcp|udp|sctp))?$/i.exec(p);
    if (!m || Number(m[1]) < 1 || Number(m[1]) > 65535) throw new UsageError(`--port ${p}: expected N or N/PROTO`);
    return { port: Number(m[1]), protocol: (m[2] ?? 'TCP').toUpperCase() as 'TCP' };
  });
  const cluster = loadCluster(readSources(positionals, io), io.err, io.input?.keepGoing);
  const pods = cluster.pods.filter((p) => !p.hostNetwork && (!values.namespace || values.namespace.includes(p.namespace)));
  const results = matrix(cluster, pods, ports, null);
  if (values.output === 'json') io.out(JSON.stringify({ pods: pods.map((p) => p.key), results }, null, 2));
  else io.out(results.map((r) => `${r.port}/${r.protocol} (${r.counts.allowed} allowed, ${r.counts.denied} denied)\n${values.output === 'markdown' ? '```\n' + r.table + '\n```' : r.table}`).join('\n\n'));
  return 0;
}

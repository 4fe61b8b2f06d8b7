// The iptables backend's texts, without any IO: the server's artifact checked before a tool sees
// it, the steps an apply runs (with the agent's own lines added), netpolc's part of what
// `iptables-save` and `ipset save` list, its digest, and what the steps should leave there.
import { createHash } from 'node:crypto';

/** netpolc's chains and sets, by the renderer's names (iptables.ts): nothing else is ever touched. */
export const OWN_CHAIN = /^(NETPOLC|NPC)-[\w-]+$/;
export const OWN_SET = /^np[ct]-[\w-]+$/;
/** A chain nothing jumps to, holding the marker as a comment: set in the same commit as the rules. */
export const MARKER_CHAIN = 'NETPOLC-APPLIED';
export const FAMILIES = ['ipv4', 'ipv6'];
const TOOL = { ipv4: 'iptables', ipv6: 'ip6tables' };

const NAME = 'np[ct]-[\\w-]{1,27}';
const CHAIN = '(?:NETPOLC|NPC)-[\\w-]+';
const IPSET_LINE = new RegExp(`^(create ${NAME} hash:(net|ip,port) family inet6? -exist|(flush|destroy) ${NAME}|(add|del) ${NAME} [\\w.:/,-]+|swap ${NAME} ${NAME})$`);
const RESTORE_LINE = new RegExp(`^(:${CHAIN} - \\[0:0\\]|-[AD] ${CHAIN} .+|-[FX] ${CHAIN})$`);
const HOOK = /^-I (FORWARD|INPUT) 1 -j NETPOLC-[A-Z]+$/;
const CLEANUP_LINE = new RegExp(`^destroy ${NAME}$`);

const statements = (text) => text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));

/** Why the server's artifact ({ipset, ipv4, ipv6, hooks[, cleanup]}) is not one to apply, or null. */
export function artifactProblem(a, delta) {
  if (!a || typeof a !== 'object') return 'no artifact';
  const text = (part, header, line) => {
    const v = a[part];
    if (typeof v !== 'string' || !v.startsWith(header)) return `${part}: not a netpolc payload`;
    const bad = statements(v).find((l) => !line.test(l) && l !== '*filter' && l !== 'COMMIT');
    return bad === undefined ? null : `${part}: a line that is not netpolc's to run: ${bad.slice(0, 120)}`;
  };
  const restore = (f) => {
    const problem = text(f, `# netpolc: ${TOOL[f]}-restore --noflush `, RESTORE_LINE);
    if (problem) return problem;
    const s = statements(a[f]);
    return s[0] === '*filter' && s.at(-1) === 'COMMIT' && s.filter((l) => l === 'COMMIT').length === 1 ? null : `${f}: not one *filter … COMMIT`;
  };
  return (
    text('ipset', '# netpolc: ipset restore ', IPSET_LINE) ??
    restore('ipv4') ??
    restore('ipv6') ??
    (Array.isArray(a.hooks) && a.hooks.length > 0 && a.hooks.every((h) => HOOK.test(h)) ? null : 'hooks: not jumps into netpolc chains') ??
    (delta ? text('cleanup', '# netpolc: ipset restore ', CLEANUP_LINE) : a.cleanup === undefined ? null : 'cleanup in a whole artifact')
  );
}

/** netpolc's part of `iptables-save -t filter`: its chains and their rules in order, and the jumps into them from other chains. */
export function ownRules(save) {
  const chains = new Map();
  const hooks = [];
  let filter = false;
  for (const line of save.split('\n')) {
    if (line.startsWith('*')) filter = line === '*filter';
    if (!filter) continue;
    const declared = /^:(\S+) /.exec(line);
    if (declared && OWN_CHAIN.test(declared[1])) chains.set(declared[1], []);
    const rule = /^-A (\S+) (.*)$/.exec(line);
    if (rule && chains.has(rule[1])) chains.get(rule[1]).push(rule[2]);
    else if (rule && /(^| )-[jg] (NETPOLC|NPC)-/.test(rule[2])) hooks.push(line);
  }
  return { chains, hooks };
}

/** netpolc's part of `ipset save`: each set's type (without what changes by itself) and members. */
export function ownSets(save) {
  const sets = new Map();
  for (const line of save.split('\n')) {
    const m = /^(create|add) (\S+) (.*)$/.exec(line);
    if (!m || !OWN_SET.test(m[2])) continue;
    if (m[1] === 'create') sets.set(m[2], { type: m[3].replace(/ (hashsize|maxelem|bucketsize|initval) \S+/g, ''), members: [] });
    else sets.get(m[2])?.members.push(m[3]);
  }
  return sets;
}

/** What the kernel holds of netpolc's: {ipv4, ipv6: ownRules, sets: ownSets}. */
export const kernelView = ({ ipv4, ipv6, ipset }) => ({ ipv4: ownRules(ipv4), ipv6: ownRules(ipv6), sets: ownSets(ipset) });

/** The marker in one family's rules, or null when the marker chain is missing or holds anything else. */
export function markerIn(rules) {
  const r = rules.chains.get(MARKER_CHAIN);
  const m = r?.length === 1 ? /^-m comment --comment "?([0-9a-z]{1,15})"? -j RETURN$/.exec(r[0]) : null;
  return m ? m[1] : null;
}

/**
 * A digest of the view: chains by name with their rules in order, the jumps into them by text
 * (where kube-proxy or a CNI puts its own jumps is not netpolc's), sets by name with their
 * members sorted (ipset lists them in hash order).
 */
export function digestOf(view) {
  const out = [];
  for (const f of FAMILIES) {
    out.push(f);
    for (const name of [...view[f].chains.keys()].sort()) out.push(`chain ${name}`, ...view[f].chains.get(name).map((r) => `  ${r}`));
    out.push(...[...view[f].hooks].sort());
  }
  out.push('ipset');
  for (const name of [...view.sets.keys()].sort()) out.push(`set ${name} ${view.sets.get(name).type}`, ...[...view.sets.get(name).members].sort().map((m) => `  ${m}`));
  return `sha256:${createHash('sha256').update(`${out.join('\n')}\n`).digest('hex')}`;
}

const hookRule = (hook) => hook.replace(/^-I (\S+) 1 /, '-A $1 ');

/**
 * One family's payload as the agent runs it: the server's lines, then in the same commit the
 * marker, hooks missing from the built-in chains (extra copies deleted), and for a whole
 * artifact the chains it no longer declares, flushed then deleted (nothing else reaches them:
 * the payload rewrote the chains that did).
 */
export function withAgentLines(payload, { marker, hooks, present, whole }) {
  if (!/^[0-9a-z]{1,15}$/.test(marker)) throw new Error(`bad marker ${JSON.stringify(marker)}`);
  const declared = new Set(statements(payload).flatMap((l) => /^:(\S+) /.exec(l)?.[1] ?? []));
  const stale = whole ? [...present.chains.keys()].filter((c) => !declared.has(c) && c !== MARKER_CHAIN) : [];
  const hookLines = hooks.flatMap((h) => {
    const n = present.hooks.filter((l) => l === hookRule(h)).length;
    return n === 0 ? [h] : Array.from({ length: n - 1 }, () => hookRule(h).replace(/^-A /, '-D '));
  });
  return [
    payload.replace(/COMMIT\n?$/, ''),
    '# netpolc-agent: the marker, missing hooks and chains no longer declared, in the same commit\n',
    `:${MARKER_CHAIN} - [0:0]\n`,
    `-A ${MARKER_CHAIN} -m comment --comment ${marker} -j RETURN\n`,
    ...hookLines.map((l) => `${l}\n`),
    ...stale.map((c) => `-F ${c}\n`),
    ...stale.map((c) => `-X ${c}\n`),
    'COMMIT\n',
  ].join('');
}

/**
 * The steps of an apply, in the order that keeps the node enforcing throughout: sets first (new
 * ones created, members changed; the rules in place still match), then each family's rules in
 * one commit, then the sets nothing uses any more (a delta's cleanup; for a whole artifact, the
 * own sets it does not create). `present` is the kernel's view before.
 */
export function planApply(a, { marker, delta, present }) {
  const steps = [{ tool: 'ipset', what: 'ipset', input: a.ipset }];
  for (const f of FAMILIES) steps.push({ tool: f, what: f, input: withAgentLines(a[f], { marker, hooks: a.hooks, present: present[f], whole: !delta }) });
  const created = new Set(statements(a.ipset).flatMap((l) => /^create (\S+)/.exec(l)?.[1] ?? []));
  const cleanup = delta ? a.cleanup : `# netpolc-agent: own sets the whole artifact does not create\n${[...present.sets.keys()].filter((s) => !created.has(s)).map((s) => `destroy ${s}\n`).join('')}`;
  steps.push({ tool: 'ipset', what: delta ? 'cleanup' : 'stale sets', input: cleanup, bestEffort: !delta });
  return steps.filter((s) => statements(s.input).length > 0);
}

/** Rule counts per own chain, jump counts, member counts per own set: what is compared after an apply. */
export function countsOf(view) {
  const out = { sets: Object.fromEntries([...view.sets].map(([n, s]) => [n, s.members.length])) };
  for (const f of FAMILIES) {
    const hooks = {};
    for (const h of view[f].hooks) hooks[h] = (hooks[h] ?? 0) + 1;
    out[f] = { chains: Object.fromEntries([...view[f].chains].map(([n, r]) => [n, r.length])), hooks };
  }
  return out;
}

/** The counts after a step, as its text says (chains declared, rules added and deleted, members, swaps). */
export function countsAfter(counts, step) {
  const next = structuredClone(counts);
  for (const l of statements(step.input)) {
    const w = l.split(' ');
    if (step.tool === 'ipset') {
      const sets = next.sets;
      if (w[0] === 'create') sets[w[1]] ??= 0;
      else if (w[0] === 'flush') sets[w[1]] = 0;
      else if (w[0] === 'add' || w[0] === 'del') sets[w[1]] = (sets[w[1]] ?? 0) + (w[0] === 'add' ? 1 : -1);
      else if (w[0] === 'swap') [sets[w[1]], sets[w[2]]] = [sets[w[2]], sets[w[1]]];
      else if (w[0] === 'destroy') delete sets[w[1]];
      continue;
    }
    const { chains, hooks } = next[step.tool];
    const own = OWN_CHAIN.test(w[1] ?? '');
    const rule = w[0] === '-I' ? hookRule(l) : `-A ${w.slice(1).join(' ')}`;
    if (w[0].startsWith(':')) chains[w[0].slice(1)] = 0;
    else if (w[0] === '-F') chains[w[1]] = 0;
    else if (w[0] === '-X') delete chains[w[1]];
    else if (own && (w[0] === '-A' || w[0] === '-D')) chains[w[1]] += w[0] === '-A' ? 1 : -1;
    else if (w[0] === '-I' || w[0] === '-D') hooks[rule] = (hooks[rule] ?? 0) + (w[0] === '-I' ? 1 : -1);
  }
  for (const f of FAMILIES) for (const [h, n] of Object.entries(next[f].hooks)) if (n === 0) delete next[f].hooks[h];
  return next;
}

/** How the kernel's counts differ from those expected, in words ([] when they agree); `skip`: sets not compared. */
export function countsDiffer(want, got, skip = new Set()) {
  const out = [];
  const compare = (what, a, b) => {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (skip.has(k) || a[k] === b[k]) continue;
      out.push(`${what} ${k}: ${b[k] === undefined ? 'missing' : `${b[k]}`}, expected ${a[k] === undefined ? 'none' : a[k]}`);
    }
  };
  compare('set', want.sets, got.sets);
  for (const f of FAMILIES) {
    compare(`${TOOL[f]} chain`, want[f].chains, got[f].chains);
    compare(`${TOOL[f]} jump`, want[f].hooks, got[f].hooks);
  }
  return out;
}

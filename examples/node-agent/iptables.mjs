// What the agent does with the kernel under --backend iptables: the server's JSON artifact
// ({ipset, ipv4, ipv6, hooks}, and `cleanup` in a delta) applied with `ipset restore` and
// `iptables-restore` / `ip6tables-restore --noflush`, then netpolc's own chains and sets read
// back (`iptables-save -t filter`, `ipset save`) to check that the kernel holds what the steps
// should have left, and to record their digest.
//
// ipset restore is not one transaction and the two families are two commits, so an apply is not
// atomic as a whole; the order keeps the node enforcing throughout (iptables-text.mjs planApply)
// and the marker goes in each family's commit. Anything refused or not as expected afterwards is
// an ApplyRefused: after a delta the agent applies the whole artifact, which swaps every set and
// rewrites every chain, whatever a half-applied delta left.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ApplyRefused } from './kernel.mjs';
import { artifactProblem, countsAfter, countsDiffer, countsOf, digestOf, FAMILIES, kernelView, markerIn, planApply } from './iptables-text.mjs';

const WAIT = '--wait=5'; // legacy iptables: wait for the xtables lock kube-proxy also takes

/** The tools, from --iptables (iptables, iptables-legacy, iptables-nft, or a path to one) and --ipset. */
export function toolsOf(iptables, ipset) {
  const base = basename(iptables);
  if (!base.startsWith('iptables')) throw new Error(`--iptables must name iptables or a variant of it (iptables-legacy, iptables-nft), not ${iptables}`);
  const at = (name) => (iptables.includes('/') ? join(dirname(iptables), name) : name);
  const six = `ip6tables${base.slice('iptables'.length)}`;
  return { ipset, ipv4: { restore: at(`${base}-restore`), save: at(`${base}-save`) }, ipv6: { restore: at(`${six}-restore`), save: at(`${six}-save`) } };
}

function run(bin, args, input = null, timeout = 60_000) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['pipe', 'pipe', 'pipe'], timeout });
    const [out, err] = [[], []];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    child.once('error', (e) => reject(new Error(`${bin} ${args.join(' ')} failed: ${e.message}`)));
    child.once('close', (code, signal) => {
      const stderr = Buffer.concat(err).toString().trim();
      if (code === 0) resolve(Buffer.concat(out).toString());
      else reject(new Error(`${bin} ${args.join(' ')} failed: ${stderr || `exit ${code ?? signal}`}`));
    });
    child.stdin.on('error', () => {}); // a tool that exits before reading all of it: its exit code says why
    child.stdin.end(input ?? '');
  });
}

export function iptablesBackend({ iptables, ipset, stateDir, log }) {
  const tools = toolsOf(iptables, ipset);
  const commands = { ipset: `${ipset} restore`, ipv4: `${tools.ipv4.restore} ${WAIT} --noflush`, ipv6: `${tools.ipv6.restore} ${WAIT} --noflush` };
  const runStep = (s) => (s.tool === 'ipset' ? run(ipset, ['restore'], s.input) : run(tools[s.tool].restore, [WAIT, '--noflush'], s.input));
  const read = async () => {
    const [ipv4, ipv6, sets] = await Promise.all([run(tools.ipv4.save, ['-t', 'filter']), run(tools.ipv6.save, ['-t', 'filter']), run(ipset, ['save'])]);
    return kernelView({ ipv4, ipv6, ipset: sets });
  };
  const textOf = (steps) => steps.map((s) => `# ${commands[s.tool]}\n${s.input}`).join('');
  /**
   * Stale sets after a whole artifact: ipset restore stops at the first line it refuses, so the
   * lines after a refused one run again. A set another writer's rule still uses stays (it
   * matches nothing of netpolc's), named in `kept` and left out of the check.
   */
  const destroyWhatCan = async (step, kept) => {
    let lines = step.input.split('\n').filter((l) => l.startsWith('destroy '));
    while (lines.length > 0) {
      try {
        return await runStep({ ...step, input: `${lines.join('\n')}\n` });
      } catch (e) {
        const at = Number(/Error in line (\d+)/.exec(e.message)?.[1] ?? 0);
        if (!(at >= 1 && at <= lines.length)) throw e;
        kept.add(lines[at - 1].slice('destroy '.length));
        log('warn', 'cleanup_incomplete', { error: e.message });
        lines = lines.slice(at);
      }
    }
  };

  return {
    name: 'iptables',
    accept: 'application/json',
    parse(body) {
      let answer;
      try {
        answer = JSON.parse(body);
      } catch {
        return null;
      }
      const delta = answer?.full === false;
      if (answer?.format !== 'iptables' || (!delta && answer.full !== true) || artifactProblem(answer.rendered, delta) !== null) return null;
      return { delta, artifact: answer.rendered };
    },
    /** --dry-run reads nothing from the kernel: it shows every hook inserted and no stale chain or set. */
    preview(artifact, marker, delta) {
      const none = { chains: new Map(), hooks: [] };
      const script = textOf(planApply(artifact, { marker, delta, present: { ipv4: none, ipv6: none, sets: new Map() } }));
      return { script, bytes: Buffer.byteLength(script) };
    },
    async apply(artifact, marker, delta) {
      const before = await read();
      const steps = planApply(artifact, { marker, delta, present: before });
      let want = countsOf(before);
      const skip = new Set();
      for (const step of steps) {
        try {
          await (step.bestEffort ? destroyWhatCan(step, skip) : runStep(step));
        } catch (e) {
          throw new ApplyRefused(`${step.what}: ${e.message}`);
        }
        want = countsAfter(want, step);
      }
      const after = await read();
      const differ = countsDiffer(want, countsOf(after), skip);
      if (differ.length > 0) throw new ApplyRefused(`after the apply the kernel does not hold what it should: ${differ.slice(0, 5).join('; ')}`);
      const markers = FAMILIES.map((f) => markerIn(after[f]));
      if (markers.some((m) => m !== marker)) throw new ApplyRefused(`after the apply the marker reads ${markers.join(' / ')}, not ${marker}`);
      // The steps last applied, for whoever inspects the node.
      await writeFile(join(stateDir, delta ? 'delta.iptables' : 'ruleset.iptables'), textOf(steps), { mode: 0o600 });
      return { digest: digestOf(after) };
    },
    async verify(state) {
      const view = await read();
      const empty = FAMILIES.filter((f) => view[f].chains.size === 0);
      if (empty.length > 0) return { ok: false, reason: 'missing', detail: `netpolc's chains are not in the kernel (${empty.join(', ')}: none)` };
      const markers = FAMILIES.map((f) => markerIn(view[f]));
      if (markers.some((m) => m !== state.marker)) {
        return { ok: false, reason: 'marker', detail: `the kernel's chains carry marker ${markers.map((m) => (m === null ? 'none' : JSON.stringify(m))).join(' / ')} (IPv4 / IPv6), not ${JSON.stringify(state.marker)} (ETag ${state.etag}): someone else applied them` };
      }
      const digest = digestOf(view);
      if (digest !== state.digest) return { ok: false, reason: 'edited', detail: `netpolc's chains or sets differ from what was applied (${digest}, applied ${state.digest}): they were edited` };
      return { ok: true };
    },
  };
}

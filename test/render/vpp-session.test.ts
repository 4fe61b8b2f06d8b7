// Regression cases for vpp-session found by the renderer property test.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCluster } from '../../core/cluster.js';
import { compile } from '../../core/compile/compile.js';
import { vppSession } from '../../core/render/vpp-session.js';
import { parseSnapshot } from '../../schemas/snapshot.js';

describe('vpp-session', () => {
  it('evaluates local tables on the common refinement of every consulted table\'s port segments', () => {
    // p0 may send TCP 81 only; local destinations deny all ingress. Segments of the two
    // tables used to be concatenated, not refined, and TCP 1000 to a node came out allowed.
    const parsed = parseSnapshot(JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'vpp-session-segments.json'), 'utf8')));
    if (!parsed.ok) throw new Error('fixture invalid');
    const sim = vppSession.simulator(vppSession.render(compile(buildCluster(parsed.snapshot)).ir));
    expect(sim.allowed({ src: '10.0.0.10', dst: '172.18.0.2', protocol: 'TCP', port: 1000 })).toBe(false);
    expect(sim.allowed({ src: '10.0.0.10', dst: '172.18.0.2', protocol: 'TCP', port: 81 })).toBe(true);
    expect(sim.allowed({ src: '10.0.0.10', dst: '10.0.0.50', protocol: 'TCP', port: 81 })).toBe(false);
  });
});

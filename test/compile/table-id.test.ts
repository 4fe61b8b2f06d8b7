// Table ids: the canonical form built in parts equals the whole, and an injected native
// SHA-256 gives the same ids as the portable one.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { IrRule } from '../../core/compile/ir.js';
import { CanonicalChunks, canonicalRules, concatCanonical, idOfCanonical, portableSha256Hex, tableId } from '../../core/compile/table-id.js';
import { canonicalOfRuns, rulesOfRuns, type RuleRun } from '../../core/compile/runs.js';
import { nodeSha256Hex } from '../../functions/node-sha256.js';
import { assertProperty } from '../support/property.js';

const rule: fc.Arbitrary<IrRule> = fc.record({
  action: fc.constantFrom('PERMIT', 'DENY'),
  protocol: fc.constantFrom('ANY', 'TCP', 'UDP', 'SCTP'),
  srcNetwork: fc.oneof(fc.constantFrom('', '10.0.0.1/32', 'fd00::/64', 'ünïcode'), fc.string()),
  srcPortRange: fc.constant(null),
  dstNetwork: fc.constantFrom('', '0.0.0.0/0', '192.168.0.0/16'),
  dstPortRange: fc.option(fc.tuple(fc.integer({ min: 1, max: 65535 }), fc.integer({ min: 1, max: 65535 }))),
});

describe('table ids', () => {
  it('canonicalRules is JSON.stringify of the rule tuples', () => {
    assertProperty(fc.property(fc.array(rule, { maxLength: 6 }), (rules) => {
      expect(canonicalRules(rules)).toBe(JSON.stringify(rules.map((r) => [r.action, r.protocol, r.srcNetwork, r.srcPortRange, r.dstNetwork, r.dstPortRange])));
    }), { file: import.meta.url });
  });

  it('concatCanonical(a, b) is the canonical form of a followed by b', () => {
    assertProperty(fc.property(fc.array(rule, { maxLength: 5 }), fc.array(rule, { maxLength: 5 }), (a, b) => {
      expect(concatCanonical(canonicalRules(a), canonicalRules(b)).join('')).toBe(canonicalRules([...a, ...b]));
    }), { file: import.meta.url });
  });

  it('the canonical form written from runs is the canonical form of their rules', () => {
    const network = fc.oneof(fc.constant(''), fc.ipV4().map((ip) => `${ip}/32`), fc.ipV6().map((ip) => `${ip}/64`));
    const ports = fc.option(fc.tuple(fc.integer({ min: 1, max: 65535 }), fc.integer({ min: 1, max: 65535 })));
    const run: fc.Arbitrary<RuleRun> = fc.record({
      action: fc.constantFrom('PERMIT', 'DENY'),
      protocol: fc.constantFrom('ANY', 'TCP', 'UDP', 'SCTP'),
      srcPortRange: ports,
      dstPortRange: ports,
      varies: fc.constantFrom('srcNetwork', 'dstNetwork'),
      fixed: network,
      networks: fc.array(network, { maxLength: 5 }),
    });
    assertProperty(fc.property(fc.array(run, { maxLength: 5 }), (runs) => {
      expect(canonicalOfRuns(runs)).toBe(canonicalRules(rulesOfRuns(runs)));
    }), { file: import.meta.url });
  });

  it('CanonicalChunks joined is the canonical form of the items, whatever the chunking', () => {
    // Item texts up to ~70k characters, so some additions cross the 32 KiB chunk size.
    const items = fc.array(fc.array(rule, { maxLength: 4 }).chain((rules) => fc.nat({ max: 1200 }).map((copies) => Array.from({ length: copies }, () => rules).flat())), { maxLength: 6 });
    assertProperty(fc.property(items, (lists) => {
      const chunks = new CanonicalChunks();
      for (const rules of lists) chunks.add(canonicalRules(rules).slice(1, -1));
      const pieces = chunks.finish();
      expect(pieces.join('')).toBe(canonicalRules(lists.flat()));
      expect(nodeSha256Hex(pieces)).toBe(nodeSha256Hex(pieces.join('')));
      expect(portableSha256Hex(pieces)).toBe(nodeSha256Hex(pieces.join('')));
    }), { file: import.meta.url, numRuns: 60 });
  });

  it("node:crypto's SHA-256 gives the portable ids", () => {
    assertProperty(fc.property(fc.array(rule, { maxLength: 8 }), (rules) => {
      expect(tableId(rules, nodeSha256Hex)).toBe(tableId(rules));
      expect(idOfCanonical(canonicalRules(rules), nodeSha256Hex)).toBe(tableId(rules, portableSha256Hex));
    }), { file: import.meta.url });
    // A fixed point, so a change of the id scheme is a visible, deliberate change.
    expect(tableId([])).toBe(`t${'4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945'.slice(0, 16)}`);
  });
});

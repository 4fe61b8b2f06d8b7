// The chat-ops question grammar, table-tested: every accepted shape with its typed query, and
// nonsense (empty, emoji, SQL, markup, very long, missing parts) that must come back as the
// accepted forms with a reason — never a throw.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACCEPTED_FORMS, isParseFailure, MAX_QUESTION_LENGTH, parseQuestion, type Query } from '../../core/ask/parse.js';
import { assertProperty } from '../support/property.js';

const pod = (key: string) => ({ pod: key });
const ip = (text: string) => ({ ip: text });
const can = (from: object, to: object, port: number | string | null = null, protocol: string | null = null) => ({ kind: 'can', from, to, port, protocol });
const who = (to: object, port: number | string | null = null, protocol: string | null = null) => ({ kind: 'who', to, port, protocol });
const what = (from: object, port: number | string | null = null, protocol: string | null = null) => ({ kind: 'what', from, port, protocol });

const web = pod('shop/web');
const db = pod('shop/db');
const api = pod('payments/api');

const ACCEPTED: [string, object][] = [
  // The examples.
  ['can shop/web reach shop/db on 5432?', can(web, db, 5432)],
  ['can shop/web talk to shop/db on tcp 5432', can(web, db, 5432, 'TCP')],
  ['can 203.0.113.7 reach x/a on udp 53?', can(ip('203.0.113.7'), pod('x/a'), 53, 'UDP')],
  ['is x/a allowed to reach y/b port 80', can(pod('x/a'), pod('y/b'), 80)],
  ['who can reach payments/api on tcp 443?', who(api, 443, 'TCP')],
  ['who can reach payments/api?', who(api)],
  ['what can x/a reach?', what(pod('x/a'))],
  ['what can x/a reach on 53/udp?', what(pod('x/a'), 53, 'UDP')],
  // Case, fillers, punctuation.
  ['Can the pod shop/web reach the pod shop/db on port 5432?', can(web, db, 5432)],
  ['CAN SHOP/WEB REACH SHOP/DB ON TCP 5432', can(web, db, 5432, 'TCP')],
  ['  can   shop/web,  reach shop/db  on 5432 !', can(web, db, 5432)],
  ['could shop/web access shop/db on 5432??', can(web, db, 5432)],
  ['can shop/web connect to shop/db on 5432.', can(web, db, 5432)],
  ['can shop/web reach shop/db on "postgres"?', can(web, db, 'postgres')],
  ['please, can shop/web reach shop/db', can(web, db)],
  // Port spellings.
  ['can shop/web reach shop/db on postgres', can(web, db, 'postgres')],
  ['can shop/web reach shop/db on 5432/tcp', can(web, db, 5432, 'TCP')],
  ['can shop/web reach shop/db on tcp/5432', can(web, db, 5432, 'TCP')],
  ['can shop/web reach shop/db 5432 udp', can(web, db, 5432, 'UDP')],
  ['can shop/web reach shop/db on sctp:9000', can(web, db, 9000, 'SCTP')],
  ['can shop/web reach shop/db on udp dns', can(web, db, 'dns', 'UDP')],
  ['can shop/web reach shop/db?', can(web, db)],
  ['can shop/web reach shop/db on port 65535', can(web, db, 65535)],
  // Addresses.
  ['can fd00::1 reach shop/db on 53 udp', can(ip('fd00::1'), db, 53, 'UDP')],
  ['can shop/web reach 10.0.0.1 on 443', can(web, ip('10.0.0.1'), 443)],
  ['is 2001:DB8::1 allowed to talk to shop/db on 53/UDP', can(ip('2001:db8::1'), db, 53, 'UDP')],
  ['can kube-system/coredns-5d78c9869d-abcde reach shop/db on 5432', can(pod('kube-system/coredns-5d78c9869d-abcde'), db, 5432)],
  ['can shop/web send traffic to shop/db on 5432', can(web, db, 5432)],
  // CIDRs, well written or not: names.ts answers them region by region, or says what is wrong.
  ['can 10.0.0.0/24 reach shop/db on 80', can(ip('10.0.0.0/24'), db, 80)],
  ['can shop/web reach FD00::/64 on 443', can(web, ip('fd00::/64'), 443)],
  ['who can reach ::/0 on udp 53', who(ip('::/0'), 53, 'UDP')],
  ['what can 10.0.0.0/8 reach?', what(ip('10.0.0.0/8'))],
  ['can 10.0.0.300/24 reach shop/db', can(ip('10.0.0.300/24'), db)],
  ['can 10.0.0.0/33 reach shop/db', can(ip('10.0.0.0/33'), db)],
  // Who / what variants.
  ['who is allowed to reach payments/api port 443', who(api, 443)],
  ['which pods can reach payments/api on https', who(api, 'https')],
  ['what can reach payments/api on tcp 443', who(api, 443, 'TCP')],
  ['who can reach payments/api on all ports', who(api)],
  ['who can talk to payments/api on udp', who(api, null, 'UDP')],
  ['what is x/a allowed to reach', what(pod('x/a'))],
  ['where can x/a connect to?', what(pod('x/a'))],
  ['what can x/a talk to on any udp port', what(pod('x/a'), null, 'UDP')],
  ['what pods can shop/web reach on sctp 9000', what(web, 9000, 'SCTP')],
];

describe('accepted questions', () => {
  it.each(ACCEPTED)('%s', (question, expected) => {
    expect(parseQuestion(question)).toEqual(expected as Query);
  });
});

const NONSENSE: [string, unknown, RegExp][] = [
  ['empty', '', /empty/],
  ['blank', '   \t\n ', /empty/],
  ['only punctuation', '?!?,;', /empty/],
  ['emoji', '🤖🔥', /starts with/],
  ['emoji as a pod', 'can 🤖 reach shop/db', /source/],
  ['SQL', 'SELECT * FROM pods; DROP TABLE users;--', /starts with/],
  ['SQL after a good question', 'can shop/web reach shop/db on 5432; DROP TABLE pods', /at most a port and a protocol/],
  ['markup', '<script>alert(1)</script>', /starts with/],
  ['path traversal as a pod', 'can ../../etc/passwd reach x/y on 80', /source/],
  ['very long', 'can '.repeat(5000), /characters long/],
  ['just over the limit', `can shop/web reach shop/db on 5432${' '.repeat(MAX_QUESTION_LENGTH)}`, /characters long/],
  ['a huge port number', `can shop/web reach shop/db on ${'9'.repeat(400)}`, /outside 1-65535/],
  ['missing everything', 'can reach?', /source .*after "can", got "reach"/],
  ['missing the destination', 'can shop/web reach?', /destination/],
  ['missing the verb', 'can shop/web?', /expected "reach"/],
  ['who without a destination', 'who can reach?', /destination/],
  ['what can reach nothing', 'what can reach?', /destination/],
  ['what without a verb', 'what can x/a?', /expected "reach"/],
  // "who reach Y" reads as "who can reach Y" (which pods reach Y); a name alone does not.
  ['who without a verb', 'who payments/api', /"can" or "is … allowed to"/],
  ['is without allowed to', 'is shop/web reach shop/db', /allowed to/],
  ['port zero', 'can shop/web reach shop/db on 0', /outside/],
  ['port too big', 'can shop/web reach shop/db on 70000', /outside/],
  ['two protocols', 'can shop/web reach shop/db on tcp udp', /two protocols/],
  ['two ports', 'can shop/web reach shop/db on 80 443', /two ports/],
  ['trailing words', 'can shop/web reach shop/db on 5432 tcp now', /at most a port and a protocol/],
  ['bad named port', 'can shop/web reach shop/db on http_alt', /not a port number/],
  ['named port too long', 'can shop/web reach shop/db on averyveryverylongname', /not a port number/],
  ['bad namespace', 'can shop_web/x reach y/z', /source/],
  ['bad address', 'can 999.1.1.1 reach shop/db', /source/],
  ['half a pod', 'can shop/ reach shop/db', /source/],
  ['two CIDRs', 'who can reach 10.0.0.0/8 10.1.0.0/16', /not a port number/],
  ['a grammar word as a node name', 'can reach reach shop/db', /source/],
  ['greeting', 'hello there', /starts with/],
  ['control characters', '\u0000\u0001\u0002', /starts with/],
  ['not text: undefined', undefined, /must be text/],
  ['not text: number', 42, /must be text/],
  ['not text: object', { question: 'can a/b reach c/d' }, /must be text/],
];

describe('nonsense comes back as the accepted forms, never a throw', () => {
  it.each(NONSENSE)('%s', (_name, question, reason) => {
    const got = parseQuestion(question);
    expect(isParseFailure(got), JSON.stringify(got)).toBe(true);
    expect(got).toEqual({ error: expect.stringMatching(reason), acceptedForms: ACCEPTED_FORMS });
  });

  it('every accepted form, stripped of its parenthesised note, parses', () => {
    for (const form of ACCEPTED_FORMS) expect(isParseFailure(parseQuestion(form.replace(/\(.*\)/, ''))), form).toBe(false);
  });

  it('arbitrary strings (any code unit, up to 600 long) never throw', () => {
    assertProperty(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 600 }), fc.array(fc.constantFrom('can', 'who', 'what', 'is', 'allowed', 'to', 'reach', 'on', 'tcp', '53/udp', 'shop/web', '10.0.0.1', '?', 'postgres', '99999'), { maxLength: 12 }).map((w) => w.join(' '))), (q) => {
        const got = parseQuestion(q);
        if (isParseFailure(got)) expect(got.acceptedForms).toBe(ACCEPTED_FORMS);
        else expect(['can', 'who', 'what']).toContain(got.kind);
      }),
      { file: import.meta.url, numRuns: 1000 },
    );
  });
});

// Object names as the API server validates them: k8s.io/apimachinery/pkg/util/validation
// (IsDNS1123Label, IsDNS1123Subdomain, IsDNS1035Label) and apimachinery/pkg/api/validation
// (NameIsDNSLabel, NameIsDNSSubdomain, NameIsDNS1035Label, ValidateObjectMeta). The one
// definition of each rule: every kind's metadata and label keys' prefixes use these.
import { z } from '../zod.js';

// validation.go: dns1123LabelFmt "[a-z0-9]([-a-z0-9]*[a-z0-9])?", DNS1123LabelMaxLength 63;
// dns1123SubdomainFmt: labels joined by ".", DNS1123SubdomainMaxLength 253;
// dns1035LabelFmt "[a-z]([-a-z0-9]*[a-z0-9])?", DNS1035LabelMaxLength 63.
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

export const isDns1123Label = (s: string): boolean => s.length <= 63 && DNS1123_LABEL.test(s);
export const isDns1123Subdomain = (s: string): boolean => s.length <= 253 && DNS1123_SUBDOMAIN.test(s);
export const isDns1035Label = (s: string): boolean => s.length <= 63 && DNS1035_LABEL.test(s);

/** A name rule: the format, its length limit and the message for a name of the wrong form. */
export interface NameRule {
  readonly max: number;
  readonly pattern: RegExp;
  readonly message: string;
}

export const NAME_RULES = {
  /** NameIsDNSLabel: Namespaces (ValidateNamespaceName), and metadata.namespace of every object. */
  dns1123Label: {
    max: 63,
    pattern: DNS1123_LABEL,
    message: 'must be a lowercase RFC 1123 label: lower-case alphanumerics or "-", starting and ending with an alphanumeric (e.g. "my-name" or "123-abc")',
  },
  /** NameIsDNSSubdomain: Pods, Nodes, NetworkPolicies, workloads, custom resources. */
  dns1123Subdomain: {
    max: 253,
    pattern: DNS1123_SUBDOMAIN,
    message: 'must be a lowercase RFC 1123 subdomain: lower-case alphanumerics, "-" or ".", each "."-separated part starting and ending with an alphanumeric (e.g. "example.com")',
  },
  /** NameIsDNS1035Label: Services (ValidateServiceName). */
  dns1035Label: {
    max: 63,
    pattern: DNS1035_LABEL,
    message: 'must be a DNS-1035 label: lower-case alphanumerics or "-", starting with a letter and ending with an alphanumeric (e.g. "my-name" or "abc-123")',
  },
} as const satisfies Record<string, NameRule>;

/** What is wrong with `name` under `rule` (apimachinery's messages: length first, then form), or null. */
export function nameProblem(name: string, rule: NameRule, max = rule.max): string | null {
  if (name.length === 0) return 'must be specified';
  if (name.length > max) return `must be no more than ${max} characters`;
  return rule.pattern.test(name) ? null : rule.message;
}

/** A name field checked by `rule` (at most `max` characters when a kind allows fewer). */
export function nameSchema(rule: NameRule, max = rule.max) {
  return z.string().superRefine((name, ctx) => {
    const problem = nameProblem(name, rule, max);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
}

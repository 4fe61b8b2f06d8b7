// Warnings for the KEP-2091 draft spellings (schemas/k8s/cluster-selection.ts) in a v1alpha2
// ClusterNetworkPolicy. netpolc reads them with their draft meaning in both apiVersions
// (docs/semantics.md, "KEP-2091 draft spellings"), but v1alpha2 has none of these fields: its
// peers and subject take `namespaces: <LabelSelector>` and `pods: {namespaceSelector,
// podSelector}` (apis/v1alpha2/clusternetworkpolicy_types.go), so the API server rejects them
// under strict field validation or prunes them (a pruned `namespaces: {related: Self}` is
// `namespaces: {}`, every namespace). The warning says so, and what netpolc read.
import type { DraftSpelling, NamespaceMatch } from '../../schemas/k8s/cluster-selection.js';
import type { ClusterWarning } from '../warnings.js';

/** What netpolc reads a draft namespace selection as, in a peer (`subject` false) or a subject. */
function reading(draft: DraftSpelling, m: NamespaceMatch, subject: boolean): string {
  if (m.type === 'selector') {
    if (draft === 'namespaceSelector') return '`subject.namespaces` with that selector';
    if (draft.startsWith('pods.')) return '`pods.namespaceSelector` with that selector';
    return '`namespaces` with that selector';
  }
  // Subjects only take label selectors (core/policy/from-cluster-policy.ts subjectOf).
  if (subject) return 'every namespace (a subject selects namespaces by label selector only)';
  const keys = 'keys' in m ? `[${m.keys.join(', ')}]` : '';
  switch (m.type) {
    case 'related':
      return m.relation === 'Self' ? "the subject pod's own namespace" : "every namespace except the subject pod's";
    case 'sameLabels':
      return `the namespaces with the subject pod's namespace's values for every key of ${keys} (none when the list is empty)`;
    case 'notSameLabels':
      return `the namespaces not sharing the subject pod's namespace's values for ${keys} (the complement of sameLabels)`;
  }
}

export function draftSpellingWarning(site: Pick<ClusterWarning, 'object'> & { path: string; where: string }, draft: DraftSpelling, m: NamespaceMatch, subject: boolean): ClusterWarning {
  const { where, path, ...about } = site;
  return {
    code: 'draft-spelling',
    ...about,
    path: `${path}.${draft}`,
    message: `${where}: \`${draft}\` is a KEP-2091 draft spelling, not a v1alpha2 field: the v1alpha2 API server rejects it (strict field validation) or prunes it; netpolc reads it as ${reading(draft, m, subject)}`,
  };
}

// Accept-header negotiation between JSON and plain text, for answers people read in a chat.

/** The q-value the Accept header gives `type`, from its most specific matching range (RFC 9110 §12.5.1). */
function quality(accept: string, type: string): number {
  const [major] = type.split('/');
  let best = { specificity: -1, q: 0 };
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.trim().toLowerCase().split(';').map((s) => s.trim());
    const specificity = range === type ? 2 : range === `${major}/*` ? 1 : range === '*/*' ? 0 : -1;
    if (specificity <= best.specificity) continue;
    const q = params.find((p) => p.startsWith('q='));
    const value = q === undefined ? 1 : Number(q.slice(2));
    best = { specificity, q: Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0 };
  }
  return best.q;
}

/** True only when text/plain is strictly preferred: no header, `*\/*` or a tie answer JSON. */
export function prefersText(accept: string | undefined): boolean {
  if (!accept) return false;
  return quality(accept, 'text/plain') > quality(accept, 'application/json');
}

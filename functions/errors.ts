// One error type for the API and one mapping to responses (hono's HTTPException + onError idea).
import type { ValidationIssue } from '../schemas/snapshot.js';

export type ErrorCode = 'bad_request' | 'unauthorized' | 'forbidden' | 'invalid' | 'too_large' | 'not_found' | 'conflict' | 'precondition_failed' | 'unsupported_media_type' | 'unavailable' | 'internal';

const STATUS: Record<ErrorCode, 400 | 401 | 403 | 404 | 409 | 412 | 413 | 415 | 422 | 500 | 503> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  invalid: 422,
  too_large: 413,
  not_found: 404,
  conflict: 409,
  // If-Match / If-None-Match on a cluster's latest version did not hold (RFC 9110 15.5.13).
  precondition_failed: 412,
  unsupported_media_type: 415,
  unavailable: 503,
  internal: 500,
};

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly issues?: ValidationIssue[],
    readonly more: {
      /** Response headers that belong to the error (WWW-Authenticate on 401). */
      readonly headers?: Readonly<Record<string, string>>;
      /** Further members of the body (acceptedForms for an unreadable question). */
      readonly body?: Readonly<Record<string, unknown>>;
    } = {},
  ) {
    super(message);
  }

  get status() {
    return STATUS[this.code];
  }

  toJSON() {
    return { error: this.code, message: this.message, ...(this.issues ? { issues: this.issues } : {}), ...this.more.body };
  }
}

/** Issues listed in one answer: a snapshot of 50,000 broken objects is answered in kilobytes, not megabytes. */
export const MAX_LISTED_ISSUES = 100;

export function invalid(issues: ValidationIssue[]): ApiError {
  const n = issues.length;
  if (n <= MAX_LISTED_ISSUES) return new ApiError('invalid', `${n} problem${n === 1 ? '' : 's'} in the request; see issues`, issues);
  return new ApiError('invalid', `${n} problems in the request; issues lists the first ${MAX_LISTED_ISSUES}`, issues.slice(0, MAX_LISTED_ISSUES), { body: { issuesOmitted: n - MAX_LISTED_ISSUES } });
}

// A compiled form or dataplane format a client asked for: one that cannot express the snapshot
// within its documented limits (core/limits.ts) is the client's choice to change, so it is a
// 422 at the request field that chose it, never a 500 or minutes of work.
import { LimitError } from '../core/limits.js';
import { renderFormat, type AnyDataplane } from '../core/render/index.js';
import type { Ir } from '../core/compile/index.js';
import type { SetIr } from '../core/sets/index.js';
import { invalid } from './errors.js';

/** Rethrows a limit refusal as a 422 at `path` (with `advice` after its message); anything else as it is. */
export function refusedAt(path: string, advice = ''): (e: unknown) => never {
  return (e) => {
    if (e instanceof LimitError) throw invalid([{ path, message: e.message + advice }]);
    throw e;
  };
}

/** `make()`, its limit refusals a 422 at `path`. */
export function askedWithin<T>(path: string, make: () => T, advice = ''): T {
  try {
    return make();
  } catch (e) {
    return refusedAt(path, advice)(e);
  }
}

export function renderAsked(dataplane: AnyDataplane, sets: () => SetIr, flat: () => Ir, formatPath: string): Record<string, unknown> {
  return askedWithin(formatPath, () => renderFormat(dataplane, sets, flat));
}

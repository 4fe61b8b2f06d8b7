// A dataplane format a client asked for, rendered: a format that cannot express the snapshot
// within its documented limits (core/render/limits.ts) is the client's choice to change, so it
// is a 422 at the request field that chose the format, never a 500.
import { renderFormat, RenderLimitError, type AnyDataplane } from '../core/render/index.js';
import type { Ir } from '../core/compile/index.js';
import type { SetIr } from '../core/sets/index.js';
import { invalid } from './errors.js';

export function renderAsked(dataplane: AnyDataplane, sets: () => SetIr, flat: () => Ir, formatPath: string): Record<string, unknown> {
  try {
    return renderFormat(dataplane, sets, flat);
  } catch (e) {
    if (e instanceof RenderLimitError) throw invalid([{ path: formatPath, message: e.message }]);
    throw e;
  }
}

// The dataplane formats by name, for the compile route, the stored-node route, the CLI and the
// property tests. Formats with named sets of their own render the set form (SetDataplane);
// the others render flat tables (Dataplane), derived on demand.
import { iptables } from './iptables.js';
import { nftables } from './nftables.js';
import { openstackSg } from './openstack-sg.js';
import type { CompileFormat } from '../../schemas/formats.js';
import type { Ir } from '../compile/ir.js';
import type { SetIr } from '../sets/ir.js';
import type { Dataplane, SetDataplane } from './types.js';
import { vppAcl } from './vpp-acl.js';
import { vppSession } from './vpp-session.js';

// The rest of the stage's door for other layers: the node deltas the stored-node route serves.
export { iptablesDelta } from './iptables-delta.js';
export { nftables } from './nftables.js';
export { nftDelta } from './nftables-delta.js';
export { OPENSTACK_SG_MAX_RULES_PER_GROUP } from './openstack-sg.js';
export { VPP_ACL_LIMITS } from './vpp-acl.js';
export { VPP_SESSION_LIMITS } from './vpp-session.js';

export type AnyDataplane = (Dataplane<unknown> & { readonly input?: 'flat' }) | SetDataplane<unknown>;

/** A rendered format: every compile format but the two forms themselves (schemas/formats.ts lists them once). */
export type DataplaneFormat = Exclude<CompileFormat, 'ir' | 'ir-flat'>;

// Checked against the formats the API lists: a format added there and not here (or here and not
// there) does not compile.
export const DATAPLANES: Readonly<Record<string, AnyDataplane>> = {
  'vpp-acl': vppAcl as Dataplane<unknown>,
  'vpp-session': vppSession as Dataplane<unknown>,
  nftables: nftables as SetDataplane<unknown>,
  iptables: iptables as SetDataplane<unknown>,
  'openstack-sg': openstackSg as SetDataplane<unknown>,
} satisfies Record<DataplaneFormat, AnyDataplane>;

/** Whether a format renders the set form (else the flat tables). */
export const rendersSets = (d: AnyDataplane): d is SetDataplane<unknown> => d.input === 'sets';

/** Renders a format from the form it reads: the set form, or flat tables made on demand. */
export function renderFormat(d: AnyDataplane, sets: () => SetIr, flat: () => Ir): Record<string, unknown> {
  return rendersSets(d) ? d.render(sets()) : d.render(flat());
}

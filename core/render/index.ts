// The dataplane formats by name, for the compile route, the CLI and the property tests.
import { iptables } from './iptables.js';
import { nftables } from './nftables.js';
import { openstackSg } from './openstack-sg.js';
import type { Dataplane } from './types.js';
import { vppAcl } from './vpp-acl.js';
import { vppSession } from './vpp-session.js';

export const DATAPLANES: Record<string, Dataplane<unknown>> = {
  'vpp-acl': vppAcl as Dataplane<unknown>,
  'vpp-session': vppSession as Dataplane<unknown>,
  nftables: nftables as Dataplane<unknown>,
  iptables: iptables as Dataplane<unknown>,
  'openstack-sg': openstackSg as Dataplane<unknown>,
};

// The dataplane formats by name, for the compile route, the CLI and the property tests.
import { openstackSg } from './openstack-sg.js';
import type { Dataplane } from './types.js';
import { vppAcl } from './vpp-acl.js';
import { vppSession } from './vpp-session.js';

export const DATAPLANES: Record<string, Dataplane<unknown>> = {
  'vpp-acl': vppAcl as Dataplane<unknown>,
  'vpp-session': vppSession as Dataplane<unknown>,
  'openstack-sg': openstackSg as Dataplane<unknown>,
};

/** Every output format, listed once: the two compiled forms and the rendered dataplane formats. */
export const COMPILE_FORMATS = ['ir', 'ir-flat', 'vpp-acl', 'vpp-session', 'nftables', 'iptables', 'openstack-sg'] as const;

export type CompileFormat = (typeof COMPILE_FORMATS)[number];

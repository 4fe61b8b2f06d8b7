// v1 Namespace, Pod, Node and Service: only the fields policy evaluation reads.
// Unknown fields are dropped (zod's default), as a client of a newer server would.
import { z } from '../zod.js';
import { objectMeta, ObjectMetaSchema, OwnedMetaSchema, PortName, PortNumber, PortNumberOrName, Protocol, sortedObject, sortedRecord } from './meta.js';
import { NAME_RULES, nameSchema } from './names.js';

export const LEGACY_ISOLATION_ANNOTATION = 'net.beta.kubernetes.io/network-policy';

export const NamespaceSchema = sortedObject({
  apiVersion: z.literal('v1'),
  kind: z.literal('Namespace'),
  // ValidateNamespace: ValidateObjectMeta(…, ValidateNamespaceName), a DNS-1123 label.
  metadata: objectMeta(NAME_RULES.dns1123Label),
});
export type Namespace = z.infer<typeof NamespaceSchema>;

export const ContainerPortSchema = sortedObject({
  name: PortName.optional(),
  containerPort: PortNumber,
  protocol: Protocol.default('TCP'),
});

export const ContainerSchema = sortedObject({
  // Kept when given, never read (named ports are the container ports' names): trimmed pods, as
  // other analyzers' fixtures write them, are not refused for it.
  name: z.string().optional(),
  ports: z.array(ContainerPortSchema).nullish().transform((v) => v ?? []),
});

export const PodSchema = sortedObject({
  apiVersion: z.literal('v1'),
  kind: z.literal('Pod'),
  // ValidatePodCreate: ValidateObjectMeta(…, ValidatePodName), a DNS-1123 subdomain.
  metadata: OwnedMetaSchema,
  spec: sortedObject({
      // ValidatePodSpec: "spec.nodeName" by ValidateNodeName, a DNS-1123 subdomain.
      nodeName: nameSchema(NAME_RULES.dns1123Subdomain).optional(),
      hostNetwork: z.boolean().default(false),
      containers: z.array(ContainerSchema).default([]),
      initContainers: z.array(ContainerSchema).nullish().transform((v) => v ?? []),
    })
    .default({ hostNetwork: false, containers: [], initContainers: [] }),
  status: sortedObject({
      phase: z.string().optional(),
      podIP: z.string().optional(),
      podIPs: z.array(sortedObject({ ip: z.string() })).nullish().transform((v) => v ?? []),
    })
    .default({ podIPs: [] }),
});
export type Pod = z.infer<typeof PodSchema>;

export const NodeSchema = sortedObject({
  apiVersion: z.literal('v1'),
  kind: z.literal('Node'),
  // ValidateNode: ValidateObjectMeta(…, ValidateNodeName), a DNS-1123 subdomain.
  metadata: ObjectMetaSchema,
  status: sortedObject({
      addresses: z.array(sortedObject({ type: z.string(), address: z.string() })).nullish().transform((v) => v ?? []),
    })
    .default({ addresses: [] }),
});
export type Node = z.infer<typeof NodeSchema>;

export const ServiceSchema = sortedObject({
  apiVersion: z.literal('v1'),
  kind: z.literal('Service'),
  // ValidateService: ValidateObjectMeta(…, ValidateServiceName), a DNS-1035 label.
  metadata: objectMeta(NAME_RULES.dns1035Label),
  spec: sortedObject({
      selector: z.record(z.string(), z.string()).nullish().transform((v) => (v ? sortedRecord(v) : null)),
      // Read for routing flows to a Service (core/evaluate/service.ts); absent stays absent.
      type: z.string().optional(),
      externalName: z.string().optional(),
      clusterIP: z.string().optional(),
      clusterIPs: z.array(z.string()).nullish().transform((v) => v ?? []),
      ports: z
        .array(
          sortedObject({
            name: z.string().optional(),
            protocol: Protocol.default('TCP'),
            port: PortNumber,
            targetPort: PortNumberOrName.optional(),
            nodePort: PortNumber.optional(),
          }),
        )
        .nullish()
        .transform((v) => v ?? []),
    })
    .default({ selector: null, clusterIPs: [], ports: [] }),
});
export type Service = z.infer<typeof ServiceSchema>;

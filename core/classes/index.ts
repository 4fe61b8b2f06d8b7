// The endpoint-classes stage's door for other layers: what a rule can read of an endpoint
// (features.ts), addresses by the rules that contain them (addresses.ts), what one subject's rules
// tell apart of the pods and nodes owning addresses (peer-features.ts), and policy subjects
// grouped by what a comparison sees (subjects.ts). Core's own modules import those files
// directly.
export { addressSets, addressSlots, externalRepresentatives, unownedAddress, type AddressSlots, type ExternalAddresses } from './addresses.js';
export { familiesKey, FULL_DETAIL, labelKey, namedPortsKey, namespaceKey, podKey, type PodDetail } from './features.js';
export { featureValue, ownerClasses, peerFeatures, type PeerFeature } from './peer-features.js';
export { detailFor, subjectClasses } from './subjects.js';

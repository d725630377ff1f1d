/**
 * The lease strategy (coordination.k8s.io leases): its validation, and the JSON types of `spec`
 * checked on decode, `acquireTime` and `renewTime` being `metav1.MicroTime` (six fraction digits,
 * or kube-apiserver 1.20 answers 400).
 */
import { KIND_VALIDATORS } from '../admission/validation.js';
import { type GoStruct, type TypedField, VERSION_PLACEHOLDER } from '../field-types.js';
import { strategy } from './default.js';

const LEASE_SPEC: GoStruct = {
  goType: `${VERSION_PLACEHOLDER}.LeaseSpec`,
  fields: [
    { key: 'holderIdentity', goName: 'HolderIdentity', type: 'string' },
    { key: 'leaseDurationSeconds', goName: 'LeaseDurationSeconds', type: 'integer' },
    { key: 'acquireTime', goName: 'AcquireTime', type: 'microTime' },
    { key: 'renewTime', goName: 'RenewTime', type: 'microTime' },
    { key: 'leaseTransitions', goName: 'LeaseTransitions', type: 'integer' },
  ],
};

const LEASE_FIELDS: readonly TypedField[] = [{ key: 'spec', goName: 'Spec', type: 'object', struct: LEASE_SPEC }];

const validateLease = KIND_VALIDATORS['coordination.k8s.io/Lease'];

/** The lease strategy. */
export const LEASE_STRATEGY = strategy({ typedFields: LEASE_FIELDS, ...(validateLease !== undefined ? { validate: validateLease } : {}) });

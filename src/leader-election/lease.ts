import type { KubeObject, ObjectMeta } from '../api/kube-object.js';

/** `spec` of a `coordination.k8s.io/v1` Lease. Timestamps are RFC 3339 strings with microseconds. */
export interface LeaseSpec {
  readonly holderIdentity?: string;
  readonly leaseDurationSeconds?: number;
  readonly acquireTime?: string;
  readonly renewTime?: string;
  readonly leaseTransitions?: number;
  readonly strategy?: string;
  readonly preferredHolder?: string;
}

/** A `coordination.k8s.io/v1` Lease object. */
export interface Lease extends KubeObject {
  readonly metadata?: ObjectMeta;
  readonly spec?: LeaseSpec;
}

/**
 * The leader-election view of a Lease (docs/semantics.md LE-2). Times are milliseconds on the writer's
 * clock (`scheduler.now()`); an empty `holderIdentity` means the lease is free.
 */
export interface LeaderElectionRecord {
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  readonly acquireTime: number;
  readonly renewTime: number;
  readonly leaseTransitions: number;
  readonly strategy?: string;
  readonly preferredHolder?: string;
}

/** Formats milliseconds since the epoch as a Kubernetes MicroTime (`2024-01-02T03:04:05.678000Z`). */
export function formatMicroTime(ms: number): string {
  const whole = Math.floor(ms);
  const micros = Math.round((ms - whole) * 1000);
  const iso = new Date(whole).toISOString(); // ...T03:04:05.678Z
  return `${iso.slice(0, -1)}${String(micros).padStart(3, '0')}Z`;
}

/** Parses a Kubernetes (Micro)Time into milliseconds since the epoch; `undefined`/invalid → 0. */
export function parseMicroTime(value: string | undefined): number {
  if (value === undefined || value === '') return 0;
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(value);
  if (m === null) return 0;
  const base = Date.parse(`${m[1]}${m[3]}`);
  if (Number.isNaN(base)) return 0;
  const fraction = m[2] ?? '';
  return base + (fraction === '' ? 0 : Number(`0.${fraction}`) * 1000);
}

/** Reads the record out of a Lease's spec (missing fields become empty / zero). */
export function leaseSpecToRecord(spec: LeaseSpec | undefined): LeaderElectionRecord {
  return {
    holderIdentity: spec?.holderIdentity ?? '',
    leaseDurationSeconds: spec?.leaseDurationSeconds ?? 0,
    acquireTime: parseMicroTime(spec?.acquireTime),
    renewTime: parseMicroTime(spec?.renewTime),
    leaseTransitions: spec?.leaseTransitions ?? 0,
    ...(spec?.strategy !== undefined ? { strategy: spec.strategy } : {}),
    ...(spec?.preferredHolder !== undefined ? { preferredHolder: spec.preferredHolder } : {}),
  };
}

/** Writes a record as a Lease spec; the five core fields are always set (LE-2). */
export function recordToLeaseSpec(record: LeaderElectionRecord): LeaseSpec {
  return {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    acquireTime: formatMicroTime(record.acquireTime),
    renewTime: formatMicroTime(record.renewTime),
    leaseTransitions: record.leaseTransitions,
    ...(record.strategy !== undefined ? { strategy: record.strategy } : {}),
    ...(record.preferredHolder !== undefined ? { preferredHolder: record.preferredHolder } : {}),
  };
}

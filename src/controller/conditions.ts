import type { KubeObject } from '../api/kube-object.js';

/** `metav1.Condition`: one entry of `status.conditions`. Timestamps are RFC 3339 strings. */
export interface Condition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  /** CamelCase reason for the last transition. */
  readonly reason?: string;
  readonly message?: string;
  /** When `status` last changed. */
  readonly lastTransitionTime?: string;
  /** The `metadata.generation` the condition was computed from. */
  readonly observedGeneration?: number;
}

/** Formats a time as `metav1.Time` (RFC 3339, whole seconds). */
function metaTime(now: Date | number): string {
  const ms = typeof now === 'number' ? now : now.getTime();
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * `status.conditions` helpers, as apimachinery's `meta.SetStatusCondition` and friends. Pure:
 * lists are never changed, a new one is returned (or the same one when nothing changed, so
 * `next === list` tells that there is nothing to write).
 *
 * @example
 * ```ts
 * const next = conditions.set(db.status?.conditions, {
 *   type: 'Ready', status: 'True', reason: 'Provisioned', message: 'database is up',
 *   observedGeneration: db.metadata?.generation,
 * }, scheduler.now());
 * if (next !== db.status?.conditions) await ctx.objects().applyStatus({ metadata: { name }, status: { conditions: next } });
 * ```
 */
export const conditions = {
  /**
   * `list` with `condition` set: a new type is appended (with `lastTransitionTime` = its own or
   * `now`); an existing one takes the new `status`, `reason`, `message` and `observedGeneration`,
   * and a new `lastTransitionTime` only when its `status` changed. `now` defaults to the wall
   * clock; pass the scheduler's `now()` in virtual time.
   */
  set<C extends Condition = Condition>(list: readonly C[] | undefined, condition: NoInfer<C>, now: Date | number = Date.now()): readonly C[] {
    const current = list ?? [];
    const i = current.findIndex((c) => c.type === condition.type);
    if (i < 0) return [...current, { ...condition, lastTransitionTime: condition.lastTransitionTime ?? metaTime(now) }];
    const old = current[i] as C;
    const transition = old.status !== condition.status;
    const next: C = {
      ...old,
      ...condition,
      lastTransitionTime: transition ? (condition.lastTransitionTime ?? metaTime(now)) : old.lastTransitionTime,
    };
    if (next.lastTransitionTime === undefined) delete (next as { lastTransitionTime?: string }).lastTransitionTime;
    const same =
      !transition && old.reason === next.reason && old.message === next.message && old.observedGeneration === next.observedGeneration;
    return same ? current : current.map((c, j) => (j === i ? next : c));
  },

  /** The condition of `type`, if present. */
  find<C extends Condition>(list: readonly C[] | undefined, type: string): C | undefined {
    return (list ?? []).find((c) => c.type === type);
  },

  /** `list` without the condition of `type` (the same list when it had none). */
  remove<C extends Condition>(list: readonly C[] | undefined, type: string): readonly C[] {
    const current = list ?? [];
    return current.some((c) => c.type === type) ? current.filter((c) => c.type !== type) : current;
  },

  /** Whether the condition of `type` is present with status `True`. */
  isTrue(list: readonly Condition[] | undefined, type: string): boolean {
    return conditions.find(list, type)?.status === 'True';
  },

  /** Whether the condition of `type` is present with status `False`. */
  isFalse(list: readonly Condition[] | undefined, type: string): boolean {
    return conditions.find(list, type)?.status === 'False';
  },

  /** `status.conditions` of an object, if it has a list there. */
  of(object: KubeObject | undefined): readonly Condition[] | undefined {
    const status = (object as { readonly status?: unknown } | undefined)?.status;
    const list = typeof status === 'object' && status !== null ? (status as { conditions?: unknown }).conditions : undefined;
    return Array.isArray(list) ? (list as Condition[]) : undefined;
  },
} as const;

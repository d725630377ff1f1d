import { type Observable, defer, merge, mergeMap } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import { metaNamespaceKey } from '../cache/keys.js';
import type { Reflector } from '../reflector/reflector.js';
import type { ReflectorEvent } from '../reflector/reflector-event.js';

/**
 * One event stream over several namespaces, each listed and watched by its own reflector
 * (controller-runtime's `DefaultNamespaces`, for tenants whose RBAC forbids cluster-wide lists):
 * the result feeds one informer, hence one cache and one event stream.
 *
 * - Until every namespace has listed, their lists (and the watch events that follow each list) are
 *   gathered; then one `replace` with all their objects is emitted, so the informer syncs only when
 *   every namespace has.
 * - After that, events pass through; a later relist of one namespace (after a 410, an error) is a
 *   `replace` scoped to that namespace (`namespace` set), which deletes only that namespace's
 *   objects missing from the list.
 * - Bookmarks before the first `replace` are dropped. The status streams are merged.
 *
 * ```
 * a:      -ra----m--        ra: list of a, m: modified in a
 * b:      ----rb---ra'--    rb: list of b, ra': relist of a
 * result: ----R----m-ra'    R: replace(a ∪ b), ra': replace scoped to a
 * ```
 */
export function multiNamespaceReflector<T extends KubeObject>(reflectors: ReadonlyMap<string, Reflector<T>>): Reflector<T> {
  const namespaces = [...reflectors.keys()];
  const events$: Observable<ReflectorEvent<T>> = defer(() => {
    let pending: Map<string, Map<string, T>> | undefined = new Map();
    return merge(
      ...namespaces.map((ns) => (reflectors.get(ns) as Reflector<T>).events$.pipe(mergeMap((e) => [{ ns, e }]))),
    ).pipe(
      mergeMap(({ ns, e }): ReflectorEvent<T>[] => {
        if (pending === undefined) return e.type === 'replace' ? [{ ...e, namespace: ns }] : [e];
        if (e.type === 'replace') {
          pending.set(ns, new Map(e.items.map((o) => [keyOf(o), o])));
        } else if (e.type !== 'bookmark') {
          const objects = pending.get(ns);
          if (objects !== undefined) {
            if (e.type === 'deleted') objects.delete(keyOf(e.object));
            else objects.set(keyOf(e.object), e.object);
          }
        }
        if (e.type !== 'replace' || pending.size < namespaces.length) return [];
        const items: T[] = [];
        for (const objects of pending.values()) items.push(...objects.values());
        pending = undefined;
        return [{ type: 'replace', items, resourceVersion: e.resourceVersion }];
      }),
    );
  });
  const status$ = merge(...namespaces.map((ns) => (reflectors.get(ns) as Reflector<T>).status$));
  return { events$, status$ };
}

function keyOf(object: KubeObject): string {
  try {
    return metaNamespaceKey(object);
  } catch {
    return '';
  }
}

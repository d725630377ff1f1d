import type { ServedResource } from './resource-registry.js';

/** A resource route with its resource type resolved, and the request path. */
export type ResolvedRoute = Extract<Route, { type: 'resource' }> & { readonly r: ServedResource; readonly path: string };

/** What a request URL path addresses. */
export type Route =
  | { readonly type: 'root' }
  | { readonly type: 'version' }
  | { readonly type: 'health'; readonly name: string }
  | { readonly type: 'api' }
  | { readonly type: 'apis' }
  | { readonly type: 'openapi' }
  | { readonly type: 'group'; readonly group: string }
  | { readonly type: 'groupVersion'; readonly group: string; readonly version: string }
  | {
      readonly type: 'resource';
      readonly group: string;
      readonly version: string;
      readonly plural: string;
      /** Set for namespaced URLs (`/namespaces/{ns}/{plural}`). */
      readonly namespace: string | undefined;
      readonly name: string | undefined;
      readonly subresource: string | undefined;
      /** The legacy `/watch/` path prefix was used. */
      readonly watchPrefix: boolean;
    }
  | { readonly type: 'unknown' };

/**
 * Parses a kube-apiserver URL path. `isResource(group, plural)` tells whether
 * `/namespaces/{x}/{plural}` names a namespaced resource or a namespace subresource (`status`).
 */
export function parseRoute(pathname: string, isResource: (group: string, plural: string) => boolean): Route {
  let parts: string[];
  try {
    parts = pathname.split('/').filter((p) => p !== '').map((p) => decodeURIComponent(p));
  } catch {
    return { type: 'unknown' };
  }
  const [first, ...rest] = parts;
  if (first === undefined) return { type: 'root' };
  if (first === 'version' && rest.length === 0) return { type: 'version' };
  if ((first === 'healthz' || first === 'readyz' || first === 'livez') && rest.length <= 1) return { type: 'health', name: first };
  if (first === 'openapi') return { type: 'openapi' };
  let group: string;
  let version: string | undefined;
  let tail: string[];
  if (first === 'api') {
    if (rest.length === 0) return { type: 'api' };
    group = '';
    [version, ...tail] = rest;
  } else if (first === 'apis') {
    if (rest.length === 0) return { type: 'apis' };
    const [g = '', v, ...t] = rest;
    if (v === undefined) return { type: 'group', group: g };
    group = g;
    version = v;
    tail = t;
  } else return { type: 'unknown' };
  if (version === undefined) return { type: 'unknown' };
  if (tail.length === 0) return { type: 'groupVersion', group, version };
  let watchPrefix = false;
  if (tail[0] === 'watch') {
    watchPrefix = true;
    tail = tail.slice(1);
  }
  if (tail[0] === 'namespaces' && tail.length >= 3 && tail[1] !== undefined && tail[2] !== undefined && isResource(group, tail[2])) {
    if (tail.length > 5) return { type: 'unknown' };
    return { type: 'resource', group, version, plural: tail[2], namespace: tail[1], name: tail[3], subresource: tail[4], watchPrefix };
  }
  if (tail.length > 3 || tail[0] === undefined) return { type: 'unknown' };
  return { type: 'resource', group, version, plural: tail[0], namespace: undefined, name: tail[1], subresource: tail[2], watchPrefix };
}

import type { KubeObject } from '../api/kube-object.js';
import { ControllerBuildError } from './controller-errors.js';
import type { ControllerOptions, ForSpec, OwnsSpec, ResourceType, WatchSpec } from './controller-options.js';
import type { InformerFactory } from '../informer/informer-factory.js';
import { type ControllerSource, sourceName } from './controller-source.js';
import { informerSource } from './informer-source.js';

/** A spec whose source was resolved. */
export type Bound<S, U extends KubeObject = KubeObject> = Omit<S, 'source'> & { readonly source: ControllerSource<U> };

/** A controller's `for`, `owns` and `watches` with every resource type replaced by an informer source. */
export interface ResolvedSources<T extends KubeObject> {
  readonly for: Bound<ForSpec<T>, T> | undefined;
  readonly owns: readonly Bound<OwnsSpec>[];
  /** Not checked yet: each entry is checked when bound (`bindSources`). */
  readonly watches: readonly Bound<WatchSpec>[];
}

/**
 * Resolves resource types given as `for` / `owns` / `watches` (or as their `source`) through
 * `options.informers`, and checks the shape of `for` and `owns` (CR-7).
 * @throws ControllerBuildError for a second `for`, a resource without `informers`, or a `for` /
 *   `owns` entry that is not a source.
 */
export function resolveSources<T extends KubeObject>(options: ControllerOptions<T>, cluster?: { readonly name: string; readonly informers: InformerFactory }): ResolvedSources<T> {
  const informers = cluster === undefined ? options.informers : cluster.informers;
  if (Array.isArray(options.for)) {
    if (options.for.length > 1) throw new ControllerBuildError('for should only be given once; use watches for other types');
  }
  const resolve = (x: unknown, metadataOnly = false): unknown => {
    if (cluster !== undefined && isSource(x)) {
      throw new ControllerBuildError(`${sourceName(x)}: a controller over clusters needs resource types, not sources (each cluster has its own informers)`);
    }
    if (isSource(x) || !isResourceLike(x)) return x;
    if (informers === undefined) {
      throw new ControllerBuildError(`${x.kind}: a resource needs options.informers (an InformerFactory); or pass a source`);
    }
    return metadataOnly ? informerSource(informers.metadata(x), x) : informerSource(informers.for(x), x);
  };
  const forSpec = normalizeFor(resolveSpec(Array.isArray(options.for) ? (options.for as unknown[])[0] : options.for, resolve)) as
    | Bound<ForSpec<T>, T>
    | undefined;
  const owns = (options.owns ?? []).map((o) => normalizeOwns(resolveSpec(o, resolve)));
  const watches = (options.watches ?? []).map((w) => resolveSpec(w, resolve) as Bound<WatchSpec>);
  return { for: forSpec, owns, watches };
}

/** Whether `x` looks like a {@link ControllerSource}. */
export function isSource(x: unknown): x is ControllerSource {
  return (
    x !== null &&
    typeof x === 'object' &&
    typeof (x as ControllerSource).register === 'function' &&
    typeof (x as ControllerSource).resource === 'object'
  );
}

function isResourceLike(x: unknown): x is ResourceType {
  const r = x as ResourceType;
  return x !== null && typeof x === 'object' && typeof r.apiVersion === 'string' && typeof r.kind === 'string' && typeof r.namespaced === 'boolean';
}

/** Replaces a resource (or `{ source: resource }`) by an informer source. */
function resolveSpec(x: unknown, resolve: (x: unknown, metadataOnly?: boolean) => unknown): unknown {
  if (x === null || typeof x !== 'object') return x;
  if (isSource(x) || (isResourceLike(x) && !isSource(x))) return resolve(x);
  const spec = x as { source?: unknown; metadataOnly?: unknown };
  if ('source' in spec && (isSource(spec.source) || isResourceLike(spec.source))) return { ...spec, source: resolve(spec.source, spec.metadataOnly === true) };
  return x;
}

function normalizeFor(x: unknown): Bound<ForSpec<KubeObject>> | undefined {
  if (x === undefined || x === null) return undefined;
  if (isSource(x)) return { source: x };
  const spec = x as Bound<ForSpec<KubeObject>>;
  if (typeof spec === 'object' && isSource(spec.source)) return spec;
  throw new ControllerBuildError('for must be a source (an informer) or { source, predicates }');
}

function normalizeOwns(x: unknown): Bound<OwnsSpec> {
  if (isSource(x)) return { source: x };
  const spec = x as Bound<OwnsSpec>;
  if (spec !== null && typeof spec === 'object' && isSource(spec.source)) return spec;
  throw new ControllerBuildError('each owns entry must be a source (an informer) or { source, predicates }');
}

import type { KubeObject } from '../api/kube-object.js';
import type { ResourceType } from '../api/resource.js';
import type { InformerFactory } from '../informer/informer-factory.js';
import type { EventPredicate } from '../informer/predicates.js';
import { ControllerBuildError } from './controller-errors.js';
import type { ControllerSource } from './controller-source.js';
import type { DynamicWatchSpec } from './dynamic-watch-spec.js';
import { informerSource } from './informer-source.js';
import type { Bound } from './resolve-sources.js';
import type { WatchSpec } from './controller-options.js';
import { bindSources, type Binding, type EventErrorReporter } from './source-bindings.js';

/** A dynamic watch turned into a binding, with what gives its informer back. */
export interface DynamicBinding {
  readonly binding: Binding;
  /** Releases the informer lease (resource types only; a no-op for a given source). */
  release(): void;
}

/** Turns one dynamic watch spec into a binding (and its informer lease). */
export type DynamicBinder = (spec: DynamicWatchSpec) => DynamicBinding;

/**
 * The binder of a controller's dynamic watches: a source is used as given; a resource type
 * (`{ apiVersion, kind }` is enough, discovery fills in the rest) takes a lease on the informer
 * factory's shared informer, released when the watch is dropped. `common` predicates apply first,
 * as for `watches`.
 * @throws ControllerBuildError (from the binder) for an entry without a source or `map`, or a
 *   resource type without `informers`.
 */
export function dynamicBinder(informers: InformerFactory | undefined, common: readonly EventPredicate[], onError: EventErrorReporter): DynamicBinder {
  return (spec) => {
    const given = (spec as { source?: unknown } | null)?.source;
    if (given === null || typeof given !== 'object') throw new ControllerBuildError('each dynamicWatches entry needs a source and a map function');
    let source: ControllerSource;
    let release = (): void => undefined;
    if (typeof (given as ControllerSource).register === 'function') {
      source = given as ControllerSource;
    } else {
      const type = given as ResourceType;
      if (typeof type.apiVersion !== 'string' || typeof type.kind !== 'string') {
        throw new ControllerBuildError('each dynamicWatches entry needs a source (or a resource type) and a map function');
      }
      if (informers === undefined) throw new ControllerBuildError(`${type.kind}: a dynamic watch of a resource type needs options.informers`);
      const lease = spec.metadataOnly === true ? informers.acquire(type, { metadataOnly: true }) : informers.acquire(type);
      source = informerSource(lease.informer as unknown as Parameters<typeof informerSource>[0], type);
      release = () => lease.release();
    }
    try {
      const bound = { ...spec, source } as Bound<WatchSpec>;
      const [binding] = bindSources<KubeObject>({ for: undefined, owns: [], watches: [bound] }, common, onError);
      return { binding: binding as Binding, release };
    } catch (err) {
      release();
      throw err;
    }
  };
}

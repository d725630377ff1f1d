import type { ResourceType } from '../api/resource.js';
import type { DynamicWatchSpec } from './controller-options.js';
import { sourceName, type ControllerSource } from './controller-source.js';

export type { DynamicWatchSpec };

/** The key of a dynamic watch entry (see {@link DynamicWatchSpec}); `undefined` for an entry without a source. */
export function dynamicWatchKey(spec: DynamicWatchSpec): string | undefined {
  if (spec === null || typeof spec !== 'object') return undefined;
  if (typeof spec.key === 'string' && spec.key !== '') return spec.key;
  const source = spec.source as ControllerSource | ResourceType | undefined;
  if (source === null || typeof source !== 'object') return undefined;
  if (typeof (source as ControllerSource).register === 'function') return sourceName(source as ControllerSource);
  const type = source as ResourceType;
  if (typeof type.apiVersion !== 'string' || typeof type.kind !== 'string') return undefined;
  return `${type.apiVersion}/${type.kind}${spec.metadataOnly === true ? '(metadata)' : ''}`;
}

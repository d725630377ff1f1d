import type { KubeObject } from '../api/kube-object.js';
import { WebhookConfigError } from './webhook-errors.js';

/**
 * How one version (a spoke) converts to and from the hub version. Both directions get a deep copy
 * they may change and return; `apiVersion` and `kind` of the result are set by rxkube, and its
 * `metadata` is the original's except `labels` and `annotations` (the only metadata a conversion
 * may change; annotations are where a lossy conversion keeps what the other version cannot hold).
 */
export interface SpokeConverter<Spoke extends KubeObject, Hub extends KubeObject> {
  toHub(object: Spoke): Hub;
  fromHub(hub: Hub): Spoke;
}

/** Options of {@link conversionWebhook}. */
export interface ConversionWebhookOptions<Hub extends KubeObject> {
  /** The CRD's API group, e.g. `example.com`. */
  readonly group: string;
  /** The kind, e.g. `Database`. */
  readonly kind: string;
  /** The CRD's plural (for the CRD name `<plural>.<group>` in manifests). */
  readonly plural: string;
  /** The hub version every conversion goes through, e.g. `v2` (usually the storage version). */
  readonly hub: string;
  /**
   * The converter of each other version, by version name. Write each with {@link spoke} to have
   * its object types checked.
   */
  readonly spokes: Readonly<Record<string, SpokeConverter<KubeObject, Hub>>>;
  /** Path it is served at; default `/convert` (as controller-runtime). */
  readonly path?: string;
}

/** A conversion webhook for one CRD (see {@link conversionWebhook}). */
export interface ConversionWebhook {
  readonly type: 'conversion';
  readonly path: string;
  readonly group: string;
  readonly kind: string;
  readonly plural: string;
  readonly hub: string;
  /** Every version it converts between, the hub first. */
  readonly versions: readonly string[];
  /**
   * Converts one object to `desiredApiVersion` through the hub (unchanged when already there).
   * Throws when a version is unknown or a converter throws.
   */
  convert(object: KubeObject, desiredApiVersion: string): KubeObject;
}

/** Types one spoke's converter (the identity at run time). */
export function spoke<Spoke extends KubeObject, Hub extends KubeObject>(converter: SpokeConverter<Spoke, Hub>): SpokeConverter<KubeObject, Hub> {
  return converter as unknown as SpokeConverter<KubeObject, Hub>;
}

/**
 * A conversion webhook for a CRD with several versions, through a hub version (controller-runtime's
 * Hub/Convertible): an object of version A becomes version B as `fromHub_B(toHub_A(object))`, the
 * hub side skipped when A or B is the hub. Served at `/convert` for ConversionReview
 * `apiextensions.k8s.io/v1` (and `v1beta1`); the CRD's `conversion` stanza comes from
 * `crdConversion`.
 *
 * ```ts
 * const convertDatabases = conversionWebhook<DatabaseV2>({
 *   group: 'example.com', kind: 'Database', plural: 'databases', hub: 'v2',
 *   spokes: { v1: spoke<DatabaseV1, DatabaseV2>({ toHub: v1ToV2, fromHub: v2ToV1 }) },
 * });
 * ```
 */
export function conversionWebhook<Hub extends KubeObject>(options: ConversionWebhookOptions<Hub>): ConversionWebhook {
  const path = options.path ?? '/convert';
  if (!path.startsWith('/')) throw new WebhookConfigError(`conversion webhook path must start with "/", got ${JSON.stringify(path)}`, { option: 'path' });
  if (Object.hasOwn(options.spokes, options.hub)) {
    throw new WebhookConfigError(`conversion webhook ${options.kind}.${options.group}: the hub version ${options.hub} must not also be a spoke`, { option: 'spokes' });
  }
  const versions = [options.hub, ...Object.keys(options.spokes)];
  const converterOf = (version: string, side: string): SpokeConverter<KubeObject, Hub> => {
    const c = options.spokes[version];
    if (c === undefined) throw new Error(`unknown ${side} version ${options.group}/${version} (known: ${versions.join(', ')})`);
    return c;
  };
  const versionOf = (apiVersion: string, side: string): string => {
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    if (group !== options.group) throw new Error(`${side} apiVersion ${JSON.stringify(apiVersion)} is not in group ${options.group}`);
    return apiVersion.slice(slash + 1);
  };
  return {
    type: 'conversion',
    path,
    group: options.group,
    kind: options.kind,
    plural: options.plural,
    hub: options.hub,
    versions,
    convert(object, desiredApiVersion) {
      const from = versionOf(String(object.apiVersion), 'source');
      const to = versionOf(desiredApiVersion, 'desired');
      if (from === to) return object;
      const toHub = from === options.hub ? (o: KubeObject) => o as Hub : converterOf(from, 'source').toHub;
      const fromHub = to === options.hub ? (h: Hub) => h as KubeObject : converterOf(to, 'desired').fromHub;
      const hub = { ...toHub(structuredClone(object)), apiVersion: `${options.group}/${options.hub}`, kind: options.kind } as Hub;
      const converted = fromHub(hub);
      // Labels and annotations as the converter left them; every other metadata field as sent.
      const edited = converted.metadata ?? object.metadata;
      const { labels: _labels, annotations: _annotations, ...fixed } = object.metadata ?? {};
      const metadata = {
        ...fixed,
        ...(edited?.labels === undefined ? {} : { labels: edited.labels }),
        ...(edited?.annotations === undefined ? {} : { annotations: edited.annotations }),
      };
      return {
        ...converted,
        apiVersion: desiredApiVersion,
        kind: options.kind,
        ...(object.metadata === undefined && Object.keys(metadata).length === 0 ? {} : { metadata }),
      } as KubeObject;
    },
  };
}

import type { KubeObject } from '../api/kube-object.js';
import { isResolved, splitApiVersion, type ResolvedResourceType, type ResourceType } from '../api/resource.js';
import { RxkubeError, type ErrorLayer } from '../api/rxkube-error.js';
import { isNotFound } from './api-error.js';
import type { ApiConnection } from './api-connection.js';

/** One entry of an `APIResourceList`. */
interface ApiResource {
  readonly name: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

/** No resource of this kind is served in this group/version. */
export class UnknownResourceError extends RxkubeError {
  static override readonly code: string = 'CLIENT_RESOURCE_UNKNOWN';
  static override readonly layer: ErrorLayer = 'client';
  override readonly name = 'UnknownResourceError';
  constructor(
    readonly apiVersion: string,
    readonly kind: string,
    options: { cause?: unknown } = {},
  ) {
    super(`the server serves no kind ${kind} in ${apiVersion}`, options);
  }
}

/**
 * Completes a {@link ResourceType} given as `{ apiVersion, kind }` with its plural and scope through the discovery
 * endpoints `/api/v1` and `/apis/{group}/{version}`. Each group/version document is fetched once
 * and cached; a kind missing from a cached document triggers one refetch (a CRD installed since),
 * and failed fetches are not cached. A kind or group/version the server does not serve rejects
 * with {@link UnknownResourceError}.
 */
export class Discovery {
  private readonly cache = new Map<string, Promise<readonly ApiResource[]>>();

  constructor(private readonly connection: ApiConnection) {}

  /** `type` with `plural` and `namespaced` filled in; a `type` that is already complete is returned as is. */
  async resolve<T extends KubeObject>(type: ResourceType<T>, signal?: AbortSignal): Promise<ResolvedResourceType<T>> {
    if (isResolved(type)) return type;
    const ref = type;
    try {
      const found = await this.lookup(ref, signal);
      return { ...ref, plural: ref.plural ?? found.plural, namespaced: ref.namespaced ?? found.namespaced };
    } catch (err) {
      // 404 on the discovery document: the group/version itself is not served.
      if (isNotFound(err)) throw new UnknownResourceError(ref.apiVersion, ref.kind, { cause: err });
      throw err;
    }
  }

  private async lookup(ref: ResourceType, signal?: AbortSignal): Promise<ResolvedResourceType> {
    const found = (await this.resources(ref.apiVersion, false, signal)).find((r) => r.kind === ref.kind);
    if (found !== undefined) return toResource(ref.apiVersion, found);
    const fresh = (await this.resources(ref.apiVersion, true, signal)).find((r) => r.kind === ref.kind);
    if (fresh !== undefined) return toResource(ref.apiVersion, fresh);
    throw new UnknownResourceError(ref.apiVersion, ref.kind);
  }

  /** Forgets cached documents (all, or one group/version). */
  invalidate(apiVersion?: string): void {
    if (apiVersion === undefined) this.cache.clear();
    else this.cache.delete(apiVersion);
  }

  private resources(apiVersion: string, refresh: boolean, signal?: AbortSignal): Promise<readonly ApiResource[]> {
    const cached = this.cache.get(apiVersion);
    if (cached !== undefined && !refresh) return cached;
    const { group, version } = splitApiVersion(apiVersion);
    const path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
    const fetched = this.connection
      .request<{ resources?: readonly ApiResource[] }>({ path }, signal)
      // Subresources (`pods/status`) share the kind of their parent; keep top-level names only.
      .then((list) => (list?.resources ?? []).filter((r) => !r.name.includes('/')));
    this.cache.set(apiVersion, fetched);
    fetched.catch(() => {
      if (this.cache.get(apiVersion) === fetched) this.cache.delete(apiVersion);
    });
    return fetched;
  }
}

function toResource(apiVersion: string, r: ApiResource): ResolvedResourceType {
  return { apiVersion, kind: r.kind, plural: r.name, namespaced: r.namespaced };
}

/**
 * Runs admission webhooks around the synchronous write path. A write runs up to three times:
 * as a dry run stopped where mutating admission belongs (the object is captured), again stopped
 * where validating admission belongs (the mutated object replayed into it), then for real with
 * the mutated object replayed. Between the runs the webhooks are called. Should the stored
 * object change in between (another write got in while a webhook was answering), the run starts
 * over, a bounded number of times, as kube-apiserver's update loop retries on a conflict.
 */
import type { UnstructuredObject } from 'rxkube';
import type { UserInfo } from '../../access-review.js';
import { NAMESPACE_RESOURCE_ID } from '../../resource-registry.js';
import type { ObjectStore } from '../../object-store.js';
import { failure, StatusError } from '../../status-error.js';
import type { ServedResource } from '../../served-resource.js';
import type { AdmissionPoint, SystemFields, WebhookAdmissionPoint } from './admission-point.js';
import type { WebhookCallSettings } from './webhook-client.js';
import { conversionOf, convertObjects } from './crd-conversion.js';
import { anyWebhookConfiguration, mutatingWebhooks, validatingWebhooks } from './webhook-config.js';
import { dispatchMutating, dispatchValidating, type DispatchContext } from './webhook-dispatch.js';
import type { AdmissionAttributes } from './webhook-match.js';

type Obj = Record<string, unknown>;

/** The request a write belongs to. */
export interface WebhookRequest {
  readonly r: ServedResource;
  /** The version in the URL. */
  readonly version: string;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly dryRun: boolean;
  readonly user: UserInfo;
  readonly fieldManager: string | undefined;
}

/** How many times a write starts over when the stored object changed during admission. */
const MAX_ATTEMPTS = 5;

type Stage = 'captureMutate' | 'captureValidate' | 'commit';

interface Session {
  readonly stage: Stage;
  /** What the mutate point saw in the first run; a later run that sees something else starts over. */
  readonly mutateKey?: string;
  readonly mutated?: UnstructuredObject | undefined;
  /** The server-set fields of a create, from the run that reached the validation point. */
  system?: SystemFields;
}

/** A run stopped at an admission point (control flow inside the gate; never leaves it). */
class Captured {
  constructor(readonly point: AdmissionPoint, readonly object: Obj | undefined, readonly key: string) {}
}

/** The stored state changed between runs (control flow inside the gate; never leaves it). */
class StartOver {}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v as Obj).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Obj)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** The `Warning` header for webhook warnings (`299 - "text"`, several joined by commas, as HTTP allows). */
export function warningHeaders(warnings: readonly string[]): Record<string, string> {
  const unique = [...new Set(warnings)];
  return unique.length === 0 ? {} : { Warning: unique.map((w) => `299 - ${JSON.stringify(w)}`).join(', ') };
}

/** Calls the webhooks of the stored configurations for writes through the HTTP API. */
export class WebhookGate implements WebhookAdmissionPoint {
  private session: Session | undefined;

  constructor(
    private readonly store: ObjectStore,
    /** Defaults (no allocation, no validation) of an object before mutating webhooks see it. */
    private readonly defaults: (r: ServedResource, obj: UnstructuredObject, old: UnstructuredObject | undefined) => UnstructuredObject,
    private readonly settings: WebhookCallSettings,
  ) {}

  mutate(point: AdmissionPoint, obj: UnstructuredObject | undefined): UnstructuredObject | undefined {
    const s = this.session;
    if (s === undefined) return obj;
    const input = obj === undefined ? undefined : this.defaults(point.r, obj, point.old);
    // managedFields carry the time of the write (seconds): not a change between runs.
    const meta = input?.metadata as Obj | undefined;
    const key = canonical([input === undefined ? null : { ...input, metadata: { ...meta, managedFields: null } }, point.old ?? null]);
    if (s.stage === 'captureMutate') throw new Captured(point, input as Obj | undefined, key);
    if (s.mutateKey !== key) throw new StartOver();
    return s.mutated;
  }

  systemFields(_point: AdmissionPoint, fresh: SystemFields): SystemFields {
    const s = this.session;
    if (s === undefined || s.stage === 'captureMutate') return fresh;
    if (s.system === undefined) s.system = fresh;
    return s.system;
  }

  validate(point: AdmissionPoint, obj: UnstructuredObject | undefined): void {
    if (this.session?.stage === 'captureValidate') throw new Captured(point, obj as Obj | undefined, '');
  }

  /** Runs `write` under `session` (as a dry run unless committing a real write); a capture is returned, not thrown. */
  private runAs<T>(session: Session, write: () => T, asDryRun: (fn: () => T) => T): { readonly done: T } | Captured {
    this.session = session;
    try {
      return { done: asDryRun(write) };
    } catch (e) {
      if (e instanceof Captured) return e;
      throw e;
    } finally {
      this.session = undefined;
    }
  }

  private namespaceLabels = (ns: string): Record<string, string> | undefined => {
    const e = this.store.get(NAMESPACE_RESOURCE_ID, ns);
    if (e === undefined) return undefined;
    return (e.object.metadata?.labels ?? {}) as Record<string, string>;
  };

  /** A custom resource in another version of its CRD (`matchPolicy: Equivalent` webhooks). */
  private async convert(r: ServedResource, o: Obj, apiVersion: string): Promise<Obj> {
    const [converted] = await convertObjects(conversionOf(this.store, r), [o], apiVersion, this.settings);
    return converted ?? o;
  }

  private attributes(req: WebhookRequest, c: Captured): AdmissionAttributes {
    const obj = c.object ?? (c.point.old as Obj | undefined);
    const name = req.name ?? String(((obj?.['metadata'] as Obj | undefined)?.['name'] as string | undefined) ?? '');
    return {
      resource: { group: req.r.group, version: req.version, resource: req.r.plural },
      kind: req.r.kind,
      versions: req.r.versions,
      subresource: c.point.subresource ?? '',
      operation: c.point.operation,
      namespace: req.r.namespaced ? (req.namespace ?? '') : '',
      name,
      object: c.object,
      oldObject: c.point.old as Obj | undefined,
      dryRun: req.dryRun,
    };
  }

  /**
   * Runs one write with the webhooks of the stored configurations. `write` is the synchronous
   * write; `dryRun` runs a function as a dry run. Returns the write's result and the warnings
   * for the client; throws the StatusError to answer.
   */
  async admit<T>(req: WebhookRequest, write: () => T, dryRun: (fn: () => T) => T): Promise<{ readonly result: T; readonly warnings: readonly string[] }> {
    const real = (fn: () => T): T => (req.dryRun ? dryRun(fn) : fn());
    if (!anyWebhookConfiguration(this.store) || (req.r.group === 'admissionregistration.k8s.io' && req.r.plural.endsWith('webhookconfigurations'))) {
      return { result: real(write), warnings: [] };
    }
    const warnings: string[] = [];
    const ctx: DispatchContext = {
      user: req.user,
      fieldManager: req.fieldManager,
      settings: this.settings,
      namespaceLabels: this.namespaceLabels,
      defaults: (o) => o,
      warnings,
      ...(req.r.custom && req.r.versions.length > 1 ? { convert: (o: Obj, apiVersion: string) => this.convert(req.r, o, apiVersion) } : {}),
    };
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      warnings.length = 0;
      try {
        const first = this.runAs({ stage: 'captureMutate' }, write, dryRun);
        if (!(first instanceof Captured)) {
          // No admission point on the way (nothing to admit): the write itself, watched for a point all the same.
          const done = this.runAs({ stage: 'commit' }, write, real);
          if (done instanceof Captured) continue;
          return { result: done.done, warnings };
        }
        const attrs = this.attributes(req, first);
        const r = first.point.r;
        const mutated = await dispatchMutating(mutatingWebhooks(this.store), attrs, { ...ctx, defaults: (o) => this.defaults(r, o as UnstructuredObject, first.point.old) as Obj });
        const replay: Session = { stage: 'captureValidate', mutateKey: first.key, mutated: mutated as UnstructuredObject | undefined };
        const second = this.runAs(replay, write, dryRun);
        if (second instanceof Captured) {
          await dispatchValidating(validatingWebhooks(this.store), { ...attrs, object: second.object, oldObject: second.point.old as Obj | undefined }, ctx);
        }
        const done = this.runAs({ ...replay, stage: 'commit' }, write, real);
        if (done instanceof Captured) continue;
        return { result: done.done, warnings: [...new Set(warnings)] };
      } catch (e) {
        if (e instanceof StartOver) continue;
        if (e instanceof StatusError && warnings.length > 0) throw new StatusError(e.status, { ...e.headers, ...warningHeaders(warnings) });
        throw e;
      }
    }
    const target = req.r.group === '' ? req.r.plural : `${req.r.plural}.${req.r.group}`;
    throw new StatusError(failure(409, 'Conflict', `Operation cannot be fulfilled on ${target} "${req.name ?? ''}": the object has been modified; please apply your changes to the latest version and try again`, { ...(req.name !== undefined ? { name: req.name } : {}), ...(req.r.group !== '' ? { group: req.r.group } : {}), kind: req.r.plural }));
  }
}

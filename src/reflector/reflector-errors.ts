import type { KubeObject } from '../api/kube-object.js';
import type { ExpectedObjects, ListWatchTarget } from '../api/list-watcher.js';
import type { RbacSuggestion } from '../client/rbac-suggestion.js';
import { ConfigError, RxkubeError, type ErrorLayer } from '../api/rxkube-error.js';

/** A watch closed less than a second after it started without delivering any event (RE-10). */
export class VeryShortWatchError extends RxkubeError {
  static override readonly code: string = 'REFLECTOR_WATCH_TOO_SHORT';
  static override readonly layer: ErrorLayer = 'reflector';
  override readonly name = 'VeryShortWatchError';
  constructor(
    readonly durationMs: number,
    readonly resourceVersion: string,
  ) {
    super(`very short watch: closed after ${durationMs}ms with no events (resourceVersion ${resourceVersion})`);
  }
}

/** A watch stayed open and silent past its `timeoutSeconds` plus the stall margin (or the idle timeout). */
export class WatchStalledError extends RxkubeError {
  static override readonly code: string = 'REFLECTOR_WATCH_STALLED';
  static override readonly layer: ErrorLayer = 'reflector';
  override readonly name = 'WatchStalledError';
  constructor(
    readonly silentMs: number,
    readonly resourceVersion: string,
  ) {
    super(`watch stalled: no data for ${silentMs}ms past its deadline (resourceVersion ${resourceVersion})`);
  }
}

/** A watch event the reflector could not use (no metadata, a Table, …); it was skipped. */
export class UnusableWatchEventError extends RxkubeError {
  static override readonly code: string = 'REFLECTOR_WATCH_EVENT_UNUSABLE';
  static override readonly layer: ErrorLayer = 'reflector';
  override readonly name = 'UnusableWatchEventError';
  constructor(
    message: string,
    readonly event: unknown,
  ) {
    super(message);
  }
}

/** Invalid `listWatch` options; the stream errors with it at subscribe. `option` names the field. */
export class ReflectorConfigError extends ConfigError {
  static override readonly code: string = 'REFLECTOR_CONFIG_INVALID';
  static override readonly layer: ErrorLayer = 'reflector';
  override readonly name = 'ReflectorConfigError';
}

/** Options of {@link ReflectorFatalError}: the cause, and what names the reflector and the fix. */
export interface ReflectorFatalErrorOptions {
  readonly cause: unknown;
  /** The name of what ran the reflector (the informer's). */
  readonly informer?: string;
  /** What it listed and watched, and from which server. */
  readonly target?: ListWatchTarget;
  /** The API server's URL without credentials; default the target's. */
  readonly server?: string;
  /** What is likely wrong and how to fix it. */
  readonly hint?: string;
  /** The RBAC rule that lets it list and watch, after a 403 of the API server's authorizer. */
  readonly rbacRule?: RbacSuggestion;
}

/**
 * An error the reflector does not recover from (401/403 after retries, a fatal transport error).
 * It names the informer, the resource, the namespace and the server (`informer`, `target`,
 * `server`) and, after a 401 or 403, carries the `hint` (and for a 403 the `rbacRule`, with the
 * `list` and `watch` verbs a reflector needs) that points at the fix.
 */
export class ReflectorFatalError extends RxkubeError {
  static override readonly code: string = 'REFLECTOR_FATAL';
  static override readonly layer: ErrorLayer = 'reflector';
  override readonly name = 'ReflectorFatalError';
  /** The informer's name (the `name` option of `listWatch`), when given. */
  readonly informer: string | undefined;
  /** The resource, namespace and server of its transport, when it names them. */
  readonly target: ListWatchTarget | undefined;
  /** The API server's URL (without credentials), when known. */
  readonly server: string | undefined;
  readonly hint: string | undefined;
  readonly rbacRule: RbacSuggestion | undefined;

  constructor(message: string, options: ReflectorFatalErrorOptions) {
    super(message, { cause: options.cause });
    this.informer = options.informer;
    this.target = options.target;
    this.server = options.server ?? options.target?.server;
    this.hint = options.hint;
    this.rbacRule = options.rbacRule;
  }
}

const DNS_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const KIND = /^[A-Za-z][A-Za-z0-9]{0,62}$/;
const API_VERSION = /^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?\/)?v[0-9a-z]{1,20}$/;

/**
 * A short, printable identity: `v1/Secret kube-system/db-pass`; never the object's content. Only
 * values that are well-formed Kubernetes names, kinds and versions are quoted (anything else shows
 * as `<invalid>`), so a hostile server cannot smuggle text such as a credential into the message.
 */
function identity(object: KubeObject): string {
  const show = (v: unknown, form: RegExp): string => (v === undefined ? '?' : typeof v === 'string' && form.test(v) ? v : '<invalid>');
  const ns: unknown = object.metadata?.namespace;
  const name = show(object.metadata?.name, DNS_NAME);
  const where = ns === undefined || ns === '' ? name : `${show(ns, DNS_NAME)}/${name}`;
  return `${show(object.apiVersion, API_VERSION)}/${show(object.kind, KIND)} ${where}`;
}

/**
 * A list item or watch event of another `apiVersion`/`kind`, or (for a namespaced list and watch)
 * of another namespace, than the transport asked for. It was skipped, never cached. The error holds
 * only the object's identity, not the object (which may be a Secret).
 */
export class UnexpectedObjectError extends RxkubeError {
  static override readonly code: string = 'REFLECTOR_OBJECT_UNEXPECTED';
  static override readonly layer: ErrorLayer = 'reflector';
  override readonly name = 'UnexpectedObjectError';
  /** `apiVersion/kind namespace/name` of the rejected object. */
  readonly object: string;
  /** What did not match: its type (`apiVersion`/`kind`) or its namespace. */
  readonly mismatch: 'type' | 'namespace';
  /** Objects skipped with it: more than 1 when a list held several (this one is the first). */
  skipped = 1;

  constructor(where: string, object: KubeObject, readonly expected: ExpectedObjects, mismatch: 'type' | 'namespace') {
    const want =
      mismatch === 'type'
        ? (expected.types ?? []).map((t) => `${t.apiVersion}/${t.kind}`).join(' or ')
        : `namespace ${expected.namespace ?? ''}`;
    const got = identity(object);
    super(`${where}: skipped ${got}: expected ${want}; a server must not send objects of another kind or namespace`);
    this.object = got;
    this.mismatch = mismatch;
  }
}

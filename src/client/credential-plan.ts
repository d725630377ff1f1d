import type https from 'node:https';
import type { SchedulerLike } from 'rxjs';
import { rememberSecret } from '../logging/known-secrets.js';
import { type ExecConfig, ExecCredentialSource } from './exec-credential-source.js';
import type { KubeConfigUser } from './kube-config-entries.js';
import { KubeConfigError } from './kubeconfig-errors.js';
import { isHeaderSafe, TokenFileSource } from './token-file-source.js';

/**
 * The credentials rxkube supplies itself instead of client-node: a token file (re-read every
 * minute, trimmed), an exec plugin (bounded, killed on timeout and on close, errors naming it) or
 * a static token that needs trimming (one that cannot be a header value fails with
 * `KubeConfigError` when the client is built). Everything else (client certificates, basic auth, OIDC and
 * other auth providers, TLS settings) still comes from the kubeconfig's `applyToHTTPSOptions`.
 */
export interface CredentialPlan {
  /** What the plan takes over from the kubeconfig's user (those fields are removed from the copy client-node sees). */
  readonly replaces: { readonly token: boolean; readonly exec: boolean; readonly authProvider: boolean };
  /** Sets `Authorization` (and an exec plugin's client certificate and key) on `opts`. */
  apply(opts: https.RequestOptions): Promise<void>;
  /** The server answered 401: a cached exec credential is dropped. */
  refused(): void;
  /** Kills any exec plugin still running. */
  close(): void;
}

type AuthProvider = { readonly name?: unknown; readonly config?: { readonly tokenFile?: unknown; readonly exec?: unknown } };

/** The exec section of a user (its own, or an `exec` auth provider's), if any. */
function execOf(user: KubeConfigUser): ExecConfig | undefined {
  const provider = user.authProvider as AuthProvider | undefined;
  const exec = (user.exec ?? provider?.config?.exec) as Partial<ExecConfig> | undefined;
  return typeof exec === 'object' && exec !== null && typeof exec.command === 'string' ? (exec as ExecConfig) : undefined;
}

/** The token file of a user: `token-file` (kept by rxkube's loader) or a `tokenFile` auth provider (in-cluster). */
export function tokenFileOf(user: KubeConfigUser): string | undefined {
  if (typeof user.tokenFile === 'string' && user.tokenFile !== '') return user.tokenFile;
  const file = (user.authProvider as AuthProvider | undefined)?.config?.tokenFile;
  return typeof file === 'string' && file !== '' ? file : undefined;
}

/** The plan for `user`, or undefined when client-node can be left to do everything. */
export function credentialPlanFor(user: KubeConfigUser | null, scheduler: SchedulerLike, execTimeoutMs: number | undefined): CredentialPlan | undefined {
  if (user === null) return undefined;
  const tokenFile = tokenFileOf(user);
  const exec = execOf(user);
  const providerIsOurs = tokenFileOf({ ...user, tokenFile: undefined }) !== undefined || (user.authProvider as AuthProvider | undefined)?.name === 'exec';
  const replaces = { token: true, exec: exec !== undefined, authProvider: providerIsOurs };
  const setToken = (opts: https.RequestOptions, token: string): void => {
    const headers = { ...(opts.headers as Record<string, unknown> | undefined) };
    delete headers['authorization'];
    headers['Authorization'] = `Bearer ${token}`;
    opts.headers = headers as https.RequestOptions['headers'];
  };
  if (tokenFile !== undefined) {
    const source = new TokenFileSource(tokenFile, scheduler);
    return { replaces, apply: async (opts) => setToken(opts, source.token()), refused: () => undefined, close: () => undefined };
  }
  if (typeof user.token === 'string' && user.token !== '') {
    const token = user.token.trim();
    if (exec === undefined && !providerIsOurs && user.token === token && isHeaderSafe(token)) return undefined;
    if (token === '' || !isHeaderSafe(token)) {
      // fail when the client is built, not with a TypeError on every request
      throw new KubeConfigError('CLIENT_KUBECONFIG_INVALID', `kubeconfig user "${user.name}": its token is ${token === '' ? 'blank' : 'not a valid HTTP header value'}`);
    }
    rememberSecret(token);
    return { replaces, apply: async (opts) => setToken(opts, token), refused: () => undefined, close: () => undefined };
  }
  if (exec === undefined) return undefined;
  const source = new ExecCredentialSource(exec, user.name, scheduler, execTimeoutMs);
  return {
    replaces,
    apply: async (opts) => {
      const credential = await source.credential();
      if (credential.token !== undefined) setToken(opts, credential.token);
      if (credential.clientCertificateData !== undefined && credential.clientKeyData !== undefined) {
        opts.cert = credential.clientCertificateData;
        opts.key = credential.clientKeyData;
      }
    },
    refused: () => source.invalidate(),
    close: () => source.close(),
  };
}

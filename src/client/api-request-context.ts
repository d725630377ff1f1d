import { redactSecrets } from '../logging/known-secrets.js';
import type { KubeConfigUser } from './kube-config-entries.js';

/** How a client proves who it is (never the credential itself). */
export type CredentialKind =
  | 'token'
  | 'tokenFile'
  | 'clientCertificate'
  | 'exec'
  | 'authProvider'
  | 'basicAuth'
  /** `FetchConnection`'s `token` function. */
  | 'tokenProvider'
  | 'none';

/** Who a client authenticates as, as its configuration says: names and kinds, never a credential. */
export interface ClientIdentity {
  /** The kubeconfig's user entry (`users[].name`), when the client has a kubeconfig. */
  readonly user?: string;
  readonly credential: CredentialKind;
  /** The exec plugin's command (file name only), the auth provider's name, the token or certificate file. */
  readonly detail?: string;
}

/** The request an {@link rxkube!ApiError} answers: where it went and as whom. Holds no credential. */
export interface ApiRequestContext {
  /** The server URL without user info (`https://10.0.0.1:6443`, with its path prefix if any). */
  readonly server: string;
  readonly method: string;
  /** The API path with its query string (`/api/v1/namespaces/x/pods?limit=500`). */
  readonly path: string;
  readonly identity?: ClientIdentity;
}

/** `url` as it may be printed: origin and path prefix, never `user:password@`, query or fragment. */
export function printableServer(url: URL): string {
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${path}`;
}

/** `…/bin/aws-iam-authenticator` → `aws-iam-authenticator`; masked if it holds a credential in use. */
function fileName(command: string): string {
  return redactSecrets(command.split(/[\\/]/).pop() ?? command);
}

type AuthProvider = { readonly name?: unknown; readonly config?: { readonly tokenFile?: unknown; readonly exec?: { readonly command?: unknown } } };

/** The identity a kubeconfig user entry stands for (what {@link ClientIdentity} says of it). */
export function identityOfUser(user: KubeConfigUser | null): ClientIdentity {
  if (user === null) return { credential: 'none' };
  const named = { user: user.name };
  const provider = user.authProvider as AuthProvider | undefined;
  const exec = (user.exec ?? provider?.config?.exec) as { readonly command?: unknown } | undefined;
  if (typeof exec?.command === 'string') return { ...named, credential: 'exec', detail: fileName(exec.command) };
  const tokenFile = user.tokenFile ?? provider?.config?.tokenFile;
  if (typeof tokenFile === 'string' && tokenFile !== '') return { ...named, credential: 'tokenFile', detail: redactSecrets(tokenFile) };
  if (typeof provider?.name === 'string') return { ...named, credential: 'authProvider', detail: redactSecrets(provider.name) };
  if (typeof user.token === 'string' && user.token !== '') return { ...named, credential: 'token' };
  if (user.certFile !== undefined || user.certData !== undefined) {
    return user.certFile === undefined ? { ...named, credential: 'clientCertificate' } : { ...named, credential: 'clientCertificate', detail: redactSecrets(user.certFile) };
  }
  if (user.username !== undefined || user.password !== undefined) return { ...named, credential: 'basicAuth' };
  return { ...named, credential: 'none' };
}

const CREDENTIAL_TEXT: Readonly<Record<CredentialKind, string>> = {
  token: 'a bearer token',
  tokenFile: 'a token file',
  clientCertificate: 'a client certificate',
  exec: 'an exec plugin',
  authProvider: 'an auth provider',
  basicAuth: 'basic auth',
  tokenProvider: 'a token from its token provider',
  none: 'no credentials',
};

/** `kubeconfig user "alice" (an exec plugin "aws")`: who, and how, in words. */
export function describeIdentity(identity: ClientIdentity): string {
  const who = identity.user === undefined ? 'the client' : `kubeconfig user ${JSON.stringify(identity.user)}`;
  const how = CREDENTIAL_TEXT[identity.credential];
  return `${who} (${how}${identity.detail === undefined ? '' : ` ${JSON.stringify(identity.detail)}`})`;
}

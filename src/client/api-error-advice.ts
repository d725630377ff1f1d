import type { Status } from '../api/status.js';
import { type ApiRequestContext, type CredentialKind, describeIdentity } from './api-request-context.js';
import { type DeniedRequest, deniedRequestOf } from './denied-request.js';
import { describeRbacSuggestion, describeSubject, type RbacSuggestion, suggestRbac } from './rbac-suggestion.js';

/**
 * What an error response's body was: a Kubernetes `Status` (what kube-apiserver always sends for
 * an API error), other JSON, an HTML page, plain text, or nothing.
 */
export type ResponseBodyShape = 'status' | 'json' | 'html' | 'text' | 'empty';

/** What an {@link ApiError} can tell about the fix, beyond the server's message. */
export interface ApiErrorAdvice {
  /** One or more sentences naming the likely cause and the fix. */
  readonly hint?: string;
  /** A 403 of kube-apiserver's authorizer: the refused request as its message states it. */
  readonly denied?: DeniedRequest;
  /** The RBAC rule that would allow the refused request. */
  readonly rbac?: RbacSuggestion;
  /** A 404 whose body says another server answered: not a Kubernetes API server. */
  readonly notKubernetes: boolean;
}

/** `404 page not found` is Go's `http.NotFound`, which kube-apiserver answers for a group or version it does not serve. */
const GO_NOT_FOUND = /^(404 page not found|404: page not found)$/i;

const SHAPE_TEXT: Readonly<Record<ResponseBodyShape, string>> = {
  status: 'a Kubernetes Status',
  json: 'JSON that is not a Kubernetes Status',
  html: 'an HTML page',
  text: 'plain text',
  empty: 'an empty body',
};

const WHY_REFUSED: Readonly<Record<CredentialKind, string>> = {
  token: 'the token may have expired (TokenRequest and projected ServiceAccount tokens do), been revoked, or be meant for another cluster; get a fresh one, or use a token-file that is kept current (rxkube re-reads it every minute)',
  tokenFile: 'the token in that file may have expired or be meant for another cluster; rxkube re-reads the file every minute, so check whatever writes it',
  clientCertificate: 'the certificate may have expired, or not be signed by a CA this server trusts (its --client-ca-file)',
  exec: 'the plugin is asked again on the next request; run it yourself to check its login and the cluster it gets credentials for',
  authProvider: 'log in again to refresh its token',
  basicAuth: 'kube-apiserver accepts no basic auth since 1.19; use a token, a client certificate or an exec plugin',
  tokenProvider: 'the token it supplied may have expired or be meant for another cluster',
  none: 'none were sent, and the server does not allow anonymous requests; give the kubeconfig user a token, a client certificate or an exec plugin',
};

const serverOf = (request: ApiRequestContext | undefined): string => request?.server ?? 'the server';

function probe(request: ApiRequestContext | undefined): string {
  return request === undefined
    ? 'A Kubernetes API server answers GET /version with JSON naming its gitVersion.'
    : `A Kubernetes API server answers GET ${request.server}/version with JSON naming its gitVersion.`;
}

function notFoundAdvice(status: Status, request: ApiRequestContext | undefined, shape: ResponseBodyShape): ApiErrorAdvice {
  const server = serverOf(request);
  if (shape === 'text' && GO_NOT_FOUND.test((status.message ?? '').trim())) {
    return {
      notKubernetes: false,
      hint:
        `The answer is Go's plain "404 page not found", not a Kubernetes Status: kube-apiserver answers so for an API group or version it does not serve ` +
        `(is the CustomResourceDefinition installed? \`kubectl api-versions\` lists what it serves), or ${server} is not a Kubernetes API server ` +
        `(a web server, a proxy, a wrong port or path prefix in the kubeconfig's server URL). ${probe(request)}`,
    };
  }
  return {
    notKubernetes: true,
    hint:
      `${server} is not a Kubernetes API server, or something in front of it answered: it sent ${SHAPE_TEXT[shape]}, where an API server sends a Status. ` +
      `Check the server URL in the kubeconfig (the host, the port, a path prefix, a proxy). ${probe(request)}`,
  };
}

function unauthorizedAdvice(request: ApiRequestContext | undefined, shape: ResponseBodyShape | undefined): ApiErrorAdvice {
  const identity = request?.identity;
  const who = identity === undefined ? 'the credentials sent' : `the credentials of ${describeIdentity(identity)}`;
  const why = identity === undefined ? 'they may have expired, been revoked, or be meant for another cluster' : WHY_REFUSED[identity.credential];
  const proxy = shape !== undefined && shape !== 'status' ? ` (The answer is ${SHAPE_TEXT[shape]}, not a Status: a proxy in front of the API server may have refused them.)` : '';
  return { notKubernetes: false, hint: `${serverOf(request)} did not accept ${who}: ${why}.${proxy}` };
}

function what(denied: DeniedRequest): string {
  if (denied.path !== undefined) return `path ${denied.path}`;
  const group = denied.apiGroup ?? '';
  const [resource = '', sub] = (denied.resource ?? '').split('/');
  const named = group === '' ? resource : `${resource}.${group}`;
  return sub === undefined ? named : `${named} (subresource ${sub})`;
}

function forbiddenAdvice(status: Status, request: ApiRequestContext | undefined, shape: ResponseBodyShape | undefined): ApiErrorAdvice {
  if (shape !== undefined && shape !== 'status') {
    return {
      notKubernetes: false,
      hint: `The answer is ${SHAPE_TEXT[shape]}, not a Kubernetes Status: a proxy, gateway or load balancer in front of ${serverOf(request)} refused the request, not the API server's RBAC.`,
    };
  }
  const denied = deniedRequestOf(status.message);
  if (denied === undefined) {
    return { notKubernetes: false, hint: 'Not an RBAC denial: an admission plugin or webhook refused the request (see the message).' };
  }
  if (denied.user === 'system:anonymous') {
    const client = request?.identity === undefined ? 'the client' : describeIdentity(request.identity);
    return {
      notKubernetes: false,
      denied,
      hint: `The server saw no credentials (user system:anonymous): ${client} sent none it accepts. Fix the credentials rather than grant anonymous access.`,
    };
  }
  const rbac = suggestRbac(denied);
  const where = denied.path !== undefined ? '' : denied.namespace === undefined ? ' at the cluster scope' : ` in namespace ${denied.namespace}`;
  const subject = rbac.subject === undefined ? `User ${JSON.stringify(denied.user)}` : describeSubject(rbac.subject);
  return { notKubernetes: false, denied, rbac, hint: `${subject} may not ${denied.verb} ${what(denied)}${where}. ${describeRbacSuggestion(rbac)}` };
}

/**
 * The advice for an error answer: for a 404 whose body is not a Status, that the server is not
 * (or may not be) a Kubernetes API server; for a 401, which credentials were refused and why they
 * may have been; for a 403, the refused request and the RBAC rule that allows it. `shape` is
 * undefined when the status did not come from a response body (a watch ERROR event).
 */
export function adviseApiError(code: number, status: Status, request: ApiRequestContext | undefined, shape: ResponseBodyShape | undefined): ApiErrorAdvice {
  if (code === 404 && shape !== undefined && shape !== 'status') return notFoundAdvice(status, request, shape);
  if (code === 401) return unauthorizedAdvice(request, shape);
  if (code === 403) return forbiddenAdvice(status, request, shape);
  return { notKubernetes: false };
}

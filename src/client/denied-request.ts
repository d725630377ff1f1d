/**
 * What kube-apiserver's authorizer refused, read back from the message of its 403 Status:
 *
 * `pods is forbidden: User "system:serviceaccount:ns:sa" cannot list resource "pods" in API group "" in the namespace "x"`
 * `nodes "n1" is forbidden: User "alice" cannot get resource "nodes" in API group "" at the cluster scope`
 * `forbidden: User "bob" cannot get path "/metrics"`
 *
 * (apiserver's `forbiddenMessage`, unchanged since 1.11). A 403 an admission plugin or webhook
 * answered says something else and yields nothing.
 */
export interface DeniedRequest {
  /** The user name the server authenticated (`system:serviceaccount:ns:sa`, `system:anonymous`, …). */
  readonly user: string;
  /** The RBAC verb: `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `deletecollection`, … */
  readonly verb: string;
  /** The resource, with `/subresource` when there is one (`pods/log`); absent for a non-resource path. */
  readonly resource?: string;
  /** The API group (`""` for the core group); set with `resource`. */
  readonly apiGroup?: string;
  /** The namespace; absent at the cluster scope. */
  readonly namespace?: string;
  /** The non-resource URL (`/metrics`), for a request that was not for a resource. */
  readonly path?: string;
}

// A Go %q string: no raw quote inside, escapes as \" \\ \n …
const Q = '"((?:[^"\\\\]|\\\\.){0,512})"';
const RESOURCE_DENIAL = new RegExp(`User ${Q} cannot (\\S{1,64}) resource ${Q} in API group ${Q}(?: in the namespace ${Q}| at the cluster scope)`);
const PATH_DENIAL = new RegExp(`User ${Q} cannot (\\S{1,64}) path ${Q}`);

// Only values of the shape Kubernetes gives them are taken: nothing else reaches a suggested rule.
const VERB = /^(\*|[a-z]{1,63})$/;
const RESOURCE = /^(\*|[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?)(\/(\*|[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?))?$/;
const GROUP = /^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?)?$/;
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const URL_PATH = /^\/[A-Za-z0-9\-._~/*%]{0,512}$/;
/** A user name: 1 to 512 printable characters, no quote or backslash (they would not survive into YAML unchanged). */
function isUserName(user: string): boolean {
  if (user.length === 0 || user.length > 512) return false;
  for (const ch of user) {
    const c = ch.codePointAt(0) ?? 0;
    if (c < 0x20 || c === 0x7f || ch === '"' || ch === '\\') return false;
  }
  return true;
}

function unquote(goQuoted: string): string {
  return goQuoted.replace(/\\(.)/g, '$1');
}

/** The refused request a 403 Status message describes, or undefined when it describes none. */
export function deniedRequestOf(message: string | undefined): DeniedRequest | undefined {
  if (message === undefined) return undefined;
  const resource = RESOURCE_DENIAL.exec(message);
  if (resource !== null) {
    const [, user = '', verb = '', res = '', group = '', namespace] = resource.map((g) => (g === undefined ? undefined : unquote(g)));
    if (!isUserName(user) || !VERB.test(verb) || !RESOURCE.test(res) || !GROUP.test(group)) return undefined;
    if (namespace !== undefined && !NAMESPACE.test(namespace)) return undefined;
    return { user, verb, resource: res, apiGroup: group, ...(namespace === undefined ? {} : { namespace }) };
  }
  const path = PATH_DENIAL.exec(message);
  if (path !== null) {
    const [, user = '', verb = '', url = ''] = path.map((g) => unquote(g));
    if (!isUserName(user) || !VERB.test(verb) || !URL_PATH.test(url)) return undefined;
    return { user, verb, path: url };
  }
  return undefined;
}

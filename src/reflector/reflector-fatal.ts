import type { ListWatchTarget } from '../api/list-watcher.js';
import { ApiError } from '../client/api-error.js';
import { describeRbacSuggestion, describeSubject, suggestRbac } from '../client/rbac-suggestion.js';
import { redactSecrets } from '../logging/known-secrets.js';
import { ReflectorFatalError } from './reflector-errors.js';

/** Who stopped: the informer's name, and what its reflector lists and watches from where. */
export interface FatalContext {
  readonly informer: string | undefined;
  readonly target: ListWatchTarget | undefined;
  /** Consecutive 401/403 answers, when that is why it stops. */
  readonly authFailures: number;
}

/** `informer "pods" (v1 Pod in namespace default, server https://10.0.0.1:6443)`. */
function who(context: FatalContext, server: string | undefined): string {
  const t = context.target;
  const parts: string[] = [];
  if (t !== undefined) parts.push(`${t.apiVersion} ${t.kind}${t.namespace === undefined ? ' in every namespace' : ` in namespace ${t.namespace}`}`);
  if (server !== undefined) parts.push(`server ${server}`);
  const named = context.informer === undefined ? 'reflector' : `reflector of informer ${JSON.stringify(context.informer)}`;
  return parts.length === 0 ? named : `${named} (${parts.join(', ')})`;
}

const LIST_WATCH = ['list', 'watch'];

/**
 * The error that stops a reflector for `err`: it names the informer, the resource and the server,
 * says how many refusals it took, and for a 401 or 403 carries the hint; for a 403 of the API
 * server's authorizer, the rule that grants what a reflector needs (`list` and `watch`).
 */
export function reflectorFatalError(err: unknown, context: FatalContext): ReflectorFatalError {
  const api = err instanceof ApiError ? err : undefined;
  const server = context.target?.server ?? api?.request?.server;
  const why = context.authFailures > 0 && api !== undefined ? ` after ${context.authFailures} consecutive ${api.statusCode} answer${context.authFailures === 1 ? '' : 's'}` : '';
  const text = err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
  let hint = api?.hint;
  let rbacRule = undefined;
  if (api?.denied !== undefined && api.rbacRule !== undefined) {
    const verbs = [...new Set([...LIST_WATCH, api.denied.verb])];
    rbacRule = suggestRbac(api.denied, verbs);
    const subject = rbacRule.subject === undefined ? `User ${JSON.stringify(api.denied.user)}` : describeSubject(rbacRule.subject);
    hint = `${subject} may not ${api.denied.verb} what this informer caches, and a reflector needs list and watch. ${describeRbacSuggestion(rbacRule)}`;
  }
  const message = redactSecrets(`${who(context, server)} stopped${why}: ${text}${hint === undefined ? '' : `\n  hint: ${hint}`}`);
  return new ReflectorFatalError(message, {
    cause: err,
    ...(context.informer === undefined ? {} : { informer: context.informer }),
    ...(context.target === undefined ? {} : { target: context.target }),
    ...(server === undefined ? {} : { server }),
    ...(hint === undefined ? {} : { hint }),
    ...(rbacRule === undefined ? {} : { rbacRule }),
  });
}

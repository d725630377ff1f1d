/**
 * Applies a webhook's JSON patch, failing with the text of the json-patch library kube-apiserver
 * 1.20 vendors for webhook patches (evanphx/json-patch v4: `replace operation does not apply:
 * doc is missing path: /a/b: missing value`), which differs from the PATCH verb's.
 */
import { jsonPatch } from '../../patch.js';
import { StatusError } from '../../status-error.js';

type Obj = Record<string, unknown>;

/** Why a webhook's patch did not apply (becomes an internal error). */
export class WebhookPatchFailure {
  constructor(readonly message: string) {}
}

function text(op: Obj, message: string): string {
  const path = typeof op['path'] === 'string' ? op['path'] : '';
  const from = typeof op['from'] === 'string' ? op['from'] : '';
  const missing = message.startsWith('doc is missing path');
  switch (op['op']) {
    case 'add': return missing ? `add operation does not apply: doc is missing path: "${path}": missing value` : message;
    case 'remove': {
      if (missing) return `remove operation does not apply: doc is missing path: "${path}": missing value`;
      const key = /nonexistent key: (.*): missing value$/.exec(message)?.[1];
      return key !== undefined ? `error in remove for path: '${path}': Unable to remove nonexistent key: ${key}: missing value` : message;
    }
    case 'replace': return missing ? `replace operation does not apply: doc is missing path: ${path}: missing value` : message;
    case 'move': return missing ? `move operation does not apply: doc is missing from path: ${from}: missing value` : message;
    case 'copy': return missing ? `copy operation does not apply: doc is missing from path: ${from}: missing value` : message;
    case 'test': return missing ? `test operation does not apply: is missing path: ${path}: missing value` : message;
    default: return message;
  }
}

/** `obj` with `ops` applied; throws {@link WebhookPatchFailure}. */
export function applyWebhookPatch(obj: Obj, ops: readonly unknown[]): Obj {
  let doc: unknown = obj;
  for (const op of ops) {
    try {
      doc = jsonPatch(doc, [op]);
    } catch (e) {
      const message = e instanceof StatusError ? (e.status.message ?? '') : e instanceof Error ? e.message : String(e);
      throw new WebhookPatchFailure(typeof op === 'object' && op !== null ? text(op as Obj, message) : message);
    }
  }
  return doc as Obj;
}

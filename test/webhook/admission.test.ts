/**
 * Admission reviews answered by rxkube's webhooks (no server): typed handlers, verdicts, the JSON
 * patch of a mutating webhook, AdmissionReview v1 and v1beta1, dry run, and every failure
 * (bad review, throw, timeout, bad return) answered as a denial with a message.
 */
import { VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { ResourceType } from '../../src/api/resource.js';
import { noopLogger } from '../../src/logging/noop-logger.js';
import { allow, deny, mutatingWebhook, reviewAdmission, validatingWebhook, type AdmissionRequest } from '../../src/webhook/index.js';

type Database = KubeObject & { spec?: { team?: string; sizeGi?: number; tags?: string[] } };
const DATABASES: ResourceType<Database> = { apiVersion: 'example.com/v1', kind: 'Database', plural: 'databases', namespaced: true };

function db(spec: Database['spec'], name = 'orders'): Database {
  return { apiVersion: 'example.com/v1', kind: 'Database', metadata: { name, namespace: 'shop' }, spec };
}

function review(object: Database | undefined, o: { operation?: string; oldObject?: Database; version?: string; dryRun?: boolean; uid?: string } = {}): Record<string, unknown> {
  return {
    apiVersion: o.version ?? 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: o.uid ?? 'uid-1',
      kind: { group: 'example.com', version: 'v1', kind: 'Database' },
      resource: { group: 'example.com', version: 'v1', resource: 'databases' },
      name: object?.metadata?.name ?? o.oldObject?.metadata?.name,
      namespace: 'shop',
      operation: o.operation ?? 'CREATE',
      userInfo: { username: 'alice', groups: ['devs'] },
      object: object ?? null,
      oldObject: o.oldObject ?? null,
      dryRun: o.dryRun ?? false,
    },
  };
}

const env = () => ({ scheduler: new VirtualTimeScheduler(), logger: noopLogger });

/** RFC 6902 add/replace/remove applied to a JSON copy (enough for these patches). */
function applyPatch(doc: unknown, ops: { op: string; path: string; value?: unknown }[]): unknown {
  const out = structuredClone(doc) as Record<string, unknown>;
  for (const op of ops) {
    const tokens = op.path.split('/').slice(1).map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = tokens.pop() as string;
    let parent: Record<string, unknown> | unknown[] = out;
    for (const t of tokens) parent = (parent as Record<string, unknown>)[t] as Record<string, unknown>;
    if (Array.isArray(parent)) {
      const i = last === '-' ? parent.length : Number(last);
      if (op.op === 'add') parent.splice(i, 0, op.value);
      else if (op.op === 'remove') parent.splice(i, 1);
      else parent[i] = op.value;
    } else if (op.op === 'remove') delete parent[last];
    else parent[last] = op.value;
  }
  return out;
}

function responseOf(outcome: { review: Readonly<Record<string, unknown>> }): {
  uid: string;
  allowed: boolean;
  status?: { code: number; reason?: string; message: string };
  patch?: string;
  patchType?: string;
  warnings?: string[];
} {
  return outcome.review.response as never;
}

describe('validating webhooks', () => {
  const validate = validatingWebhook({
    resource: DATABASES,
    validate: (req) => {
      const size = req.object?.spec?.sizeGi ?? 0;
      if (size > 100) return deny(`spec.sizeGi: ${size} is over the limit of 100`);
      if (req.operation === 'UPDATE' && req.oldObject?.spec?.team !== req.object?.spec?.team) return deny('spec.team is immutable', { code: 422, reason: 'Invalid' });
      return size > 50 ? allow(`large database (${size} GiB) requested by ${req.userInfo.username ?? '?'}`) : undefined;
    },
  });

  it('derives its path and name as controller-runtime does', () => {
    expect(validate.path).toBe('/validate-example-com-v1-database');
    expect(validate.name).toBe('vdatabase.example.com');
    expect(validate.operations).toEqual(['CREATE', 'UPDATE']);
  });

  it('allows, with warnings, answering the request uid in the request version', async () => {
    const out = await reviewAdmission(validate, review(db({ team: 'a', sizeGi: 60 })), env());
    expect(out.review.apiVersion).toBe('admission.k8s.io/v1');
    expect(out.review.kind).toBe('AdmissionReview');
    expect(responseOf(out)).toEqual({ uid: 'uid-1', allowed: true, warnings: ['large database (60 GiB) requested by alice'] });
  });

  it('denies with the handler message, 403 Forbidden by default, or the code it gave', async () => {
    const out = await reviewAdmission(validate, review(db({ team: 'a', sizeGi: 200 })), env());
    expect(out.allowed).toBe(false);
    expect(responseOf(out)).toEqual({ uid: 'uid-1', allowed: false, status: { code: 403, reason: 'Forbidden', message: 'spec.sizeGi: 200 is over the limit of 100' } });
    const update = await reviewAdmission(validate, review(db({ team: 'b' }), { operation: 'UPDATE', oldObject: db({ team: 'a' }) }), env());
    expect(responseOf(update).status).toEqual({ code: 422, reason: 'Invalid', message: 'spec.team is immutable' });
  });

  it('answers an admission.k8s.io/v1beta1 review in v1beta1', async () => {
    const out = await reviewAdmission(validate, review(db({ sizeGi: 1 }), { version: 'admission.k8s.io/v1beta1' }), env());
    expect(out.review.apiVersion).toBe('admission.k8s.io/v1beta1');
    expect(responseOf(out)).toEqual({ uid: 'uid-1', allowed: true });
  });

  it('gives the handler the typed request: object, old object, operation, user, dry run', async () => {
    let seen: AdmissionRequest<Database> | undefined;
    const w = validatingWebhook({ resource: DATABASES, validate: (req) => void (seen = req) });
    await reviewAdmission(w, review(db({ team: 'b' }), { operation: 'UPDATE', oldObject: db({ team: 'a' }), dryRun: true }), env());
    expect(seen?.operation).toBe('UPDATE');
    expect(seen?.object?.spec?.team).toBe('b');
    expect(seen?.oldObject?.spec?.team).toBe('a');
    expect(seen?.userInfo).toEqual({ username: 'alice', groups: ['devs'] });
    expect(seen?.dryRun).toBe(true);
    expect(seen?.namespace).toBe('shop');
  });
});

describe('mutating webhooks', () => {
  const defaults = mutatingWebhook({
    resource: DATABASES,
    mutate: (draft) => {
      draft.spec ??= {};
      draft.spec.sizeGi ??= 10;
      draft.metadata ??= {};
      draft.metadata.labels = { ...draft.metadata.labels, 'example.com/team': draft.spec.team ?? 'none' };
    },
  });

  it('answers the JSON patch from the object to the draft result', async () => {
    const object = db({ team: 'a' });
    const out = await reviewAdmission(defaults, review(object), env());
    const response = responseOf(out);
    expect(response.allowed).toBe(true);
    expect(response.patchType).toBe('JSONPatch');
    const ops = JSON.parse(Buffer.from(response.patch ?? '', 'base64').toString('utf8')) as { op: string; path: string; value?: unknown }[];
    expect(ops).toContainEqual({ op: 'add', path: '/metadata/labels', value: { 'example.com/team': 'a' } });
    expect(applyPatch(object, ops)).toEqual({ ...object, metadata: { ...object.metadata, labels: { 'example.com/team': 'a' } }, spec: { team: 'a', sizeGi: 10 } });
    expect(defaults.path).toBe('/mutate-example-com-v1-database');
  });

  it('sends no patch when nothing changed, and escapes path segments', async () => {
    const object: Database = { ...db({ team: 'a', sizeGi: 5 }), metadata: { name: 'orders', namespace: 'shop', labels: { 'example.com/team': 'a' } } };
    expect(responseOf(await reviewAdmission(defaults, review(object), env()))).toEqual({ uid: 'uid-1', allowed: true });
    const relabel = mutatingWebhook({ resource: DATABASES, mutate: (d) => void ((d.metadata ??= {}).labels = { keep: 'k', 'a/b~c': 'x' }) });
    const ops = JSON.parse(Buffer.from(responseOf(await reviewAdmission(relabel, review({ ...object, metadata: { name: 'o', labels: { keep: 'k', 'a/b~c': 'y' } } }), env())).patch ?? '', 'base64').toString());
    expect(ops).toEqual([{ op: 'replace', path: '/metadata/labels/a~1b~0c', value: 'x' }]);
  });

  it('is not called without an object (DELETE), and denying sends no patch', async () => {
    let calls = 0;
    const w = mutatingWebhook({
      resource: DATABASES,
      operations: ['CREATE', 'DELETE'],
      mutate: (d) => {
        calls++;
        d.spec = { sizeGi: 1 };
        return deny('no');
      },
    });
    expect(responseOf(await reviewAdmission(w, review(undefined, { operation: 'DELETE', oldObject: db({}) }), env()))).toEqual({ uid: 'uid-1', allowed: true });
    expect(calls).toBe(0);
    const denied = responseOf(await reviewAdmission(w, review(db({})), env()));
    expect(denied.patch).toBeUndefined();
    expect(denied.allowed).toBe(false);
  });

  it('may be async; the request keeps the object as sent', async () => {
    const w = mutatingWebhook({
      resource: DATABASES,
      mutate: async (d, req) => {
        await Promise.resolve();
        (d.spec ??= {}).tags = ['x'];
        expect(req.object?.spec?.tags).toBeUndefined();
      },
    });
    const ops = JSON.parse(Buffer.from(responseOf(await reviewAdmission(w, review(db({ team: 'a' })), env())).patch ?? '', 'base64').toString());
    expect(ops).toEqual([{ op: 'add', path: '/spec/tags', value: ['x'] }]);
  });
});

describe('dry run', () => {
  it('tells the handler, and the side-effect guard skips effects on a dry run', async () => {
    const effects: string[] = [];
    const w = validatingWebhook({
      resource: DATABASES,
      sideEffects: 'NoneOnDryRun',
      validate: (req, ctx) => {
        ctx.sideEffect(() => effects.push(`reserve ${req.name ?? ''}`));
        return ctx.dryRun ? allow('dry run: nothing reserved') : allow();
      },
    });
    expect(responseOf(await reviewAdmission(w, review(db({}), { dryRun: true }), env())).warnings).toEqual(['dry run: nothing reserved']);
    expect(effects).toEqual([]);
    await reviewAdmission(w, review(db({})), env());
    expect(effects).toEqual(['reserve orders']);
  });
});

describe('failures are denials with a message, never a crash', () => {
  it('a handler that throws: 500, naming the webhook, the object and the error', async () => {
    const w = validatingWebhook({ resource: DATABASES, validate: () => { throw new Error('quota service unreachable'); } });
    const out = await reviewAdmission(w, review(db({})), env());
    expect(responseOf(out)).toEqual({
      uid: 'uid-1',
      allowed: false,
      status: { code: 500, reason: 'InternalError', message: 'webhook /validate-example-com-v1-database (shop/orders): handler failed: quota service unreachable' },
    });
    expect(out.error?.name).toBe('WebhookHandlerError');
  });

  it('a handler past its timeout (scheduler time): 504, its signal aborted', async () => {
    let signal: AbortSignal | undefined;
    const w = validatingWebhook({ resource: DATABASES, timeoutMs: 2_000, validate: (_req, ctx) => new Promise<void>(() => void (signal = ctx.signal)) });
    const scheduler = new VirtualTimeScheduler();
    const pending = reviewAdmission(w, review(db({})), { scheduler, logger: noopLogger });
    await Promise.resolve();
    expect(signal?.aborted).toBe(false);
    scheduler.flush();
    const out = await pending;
    expect(responseOf(out).status).toEqual({ code: 504, reason: 'Timeout', message: 'webhook /validate-example-com-v1-database: handler did not answer within 2000 ms (shop/orders)' });
    expect(signal?.aborted).toBe(true);
  });

  it('a handler returning something that is not a verdict: 500, saying so', async () => {
    const w = validatingWebhook({ resource: DATABASES, validate: () => 'yes' as never });
    expect(responseOf(await reviewAdmission(w, review(db({})), env())).status?.message).toContain('handler returned "yes", expected nothing or allow()/deny()');
  });

  it.each([
    ['not an object', 'hello', 'bad review: the body is not a JSON object'],
    ['another kind', { apiVersion: 'admission.k8s.io/v1', kind: 'ConversionReview' }, 'bad review (kind): expected AdmissionReview, got "ConversionReview"'],
    ['an unknown version', { ...review(db({})), apiVersion: 'admission.k8s.io/v2' }, 'bad review (apiVersion)'],
    ['no uid', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { operation: 'CREATE' } }, 'bad review (request.uid): missing'],
    ['a bad operation', review(db({}), { operation: 'PATCH' }), 'bad review (request.operation)'],
  ])('a bad review (%s): 400 BadRequest with the field', async (_what, body, message) => {
    const w = validatingWebhook({ resource: DATABASES, validate: () => allow() });
    const out = await reviewAdmission(w, body, env());
    expect(out.allowed).toBe(false);
    expect(responseOf(out).status?.code).toBe(400);
    expect(responseOf(out).status?.message).toContain(message);
    expect(out.error?.name).toBe('WebhookReviewError');
  });

  it('a bad review keeps the uid it had, so the API server can match the answer', async () => {
    const body = review(db({}), { operation: 'PATCH', uid: 'keep-me' });
    const w = validatingWebhook({ resource: DATABASES, validate: () => allow() });
    expect(responseOf(await reviewAdmission(w, body, env())).uid).toBe('keep-me');
  });

  it('rejects bad options when the webhook is defined', () => {
    expect(() => validatingWebhook({ resource: DATABASES, timeoutMs: 31_000, validate: () => allow() })).toThrow(/timeoutMs must be a number in \(0, 30000\]/);
    expect(() => validatingWebhook({ resource: DATABASES, path: 'x', validate: () => allow() })).toThrow(/must start with "\/"/);
    expect(() => validatingWebhook({ resource: DATABASES, operations: [], validate: () => allow() })).toThrow(/operations must not be empty/);
  });
});

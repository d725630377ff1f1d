/**
 * Differential test of admission webhooks: the same node:https webhook answers the embedded API
 * server and a real kube-apiserver 1.20, and what each server sends to it (the AdmissionReview
 * requests) and answers its clients (admitted objects, denials and call failures: status code
 * and message, Warning headers) are compared. Fields that differ by nature (uids, timestamps,
 * resourceVersions, managedFields, ports) are masked.
 *
 * The real server: KUBECONFIG from the e2e runner, or one started with ../shared/kube-apiserver/start.sh.
 */
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { noRealKubeApiServer, realKubeApiServer } from './helpers/real-kube-apiserver.js';
import { answer, patchAnswer, startFakeWebhook, type FakeWebhook, type Json } from '../../packages/testkit/test/webhook-fixture.js';

interface Reply {
  readonly status: number;
  readonly warning: string | undefined;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
}

interface Target {
  readonly name: string;
  call(method: string, path: string, body?: unknown, contentType?: string): Promise<Reply>;
}

function target(name: string, server: string, token: string | undefined, ca: string | undefined): Target {
  const agent = ca !== undefined ? new HttpsAgent({ ca }) : undefined;
  return {
    name,
    call(method, path, body, contentType = 'application/json') {
      const h: Record<string, string> = { Accept: 'application/json' };
      if (token !== undefined) h['Authorization'] = `Bearer ${token}`;
      const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      if (data !== undefined) {
        h['Content-Type'] = contentType;
        h['Content-Length'] = String(data.length);
      }
      const url = new URL(path, server);
      const fn = url.protocol === 'https:' ? httpsRequest : httpRequest;
      return new Promise((resolvePromise, reject) => {
        const req = fn(url, { method, headers: h, ...(agent !== undefined ? { agent } : {}) }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {
              // keep the text
            }
            const w = res.headers['warning'];
            resolvePromise({ status: res.statusCode ?? 0, warning: Array.isArray(w) ? w.join(', ') : w, body: parsed });
          });
          res.on('error', reject);
        });
        req.on('error', reject);
        if (data !== undefined) req.write(data);
        req.end();
      });
    },
  };
}

const MASKED = ['metadata.uid', 'metadata.creationTimestamp', 'metadata.resourceVersion', 'metadata.managedFields', 'metadata.selfLink', 'uid'];

/** Masks what differs by nature between two servers. */
function normalize(v: unknown, ns: string, path = ''): unknown {
  if (Array.isArray(v)) return v.map((x) => normalize(x, ns, path));
  if (typeof v === 'string') {
    return v.replaceAll(ns, '<ns>').replaceAll(ns.slice(-6), '<id>').replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uid>').replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>');
  }
  if (v === null || typeof v !== 'object') return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v as Json).sort(([a], [b]) => a.localeCompare(b))) {
    const p = path === '' ? k : `${path}.${k}`;
    if (MASKED.some((m) => p === m || p.endsWith(`.${m}`))) continue;
    out[k] = normalize(x, ns, p);
  }
  return out;
}

/** The differences between two normalized values, as `path: a != b` lines. */
function diff(a: unknown, b: unknown, path = ''): string[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) => diff((a as Json)[k], (b as Json)[k], path === '' ? k : `${path}.${k}`));
  }
  return [`${path}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`];
}

async function closedPort(): Promise<number> {
  return new Promise((resolvePromise) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolvePromise(port));
    });
  });
}

/** A ConversionReview answer: v1 has `spec.size`, v2 `spec.replicas`. */
function convertReview(review: Json & { request: Json }): Json {
  const req = review.request as Json & { objects: (Json & { spec?: Json })[]; desiredAPIVersion: string };
  const convertedObjects = req.objects.map((o) => {
    const spec = { ...(o.spec ?? {}) };
    const [from, to] = req.desiredAPIVersion.endsWith('/v2') ? ['size', 'replicas'] : ['replicas', 'size'];
    if (from in spec) {
      spec[to] = spec[from];
      delete spec[from];
    }
    return { ...o, apiVersion: req.desiredAPIVersion, spec };
  });
  return { apiVersion: review['apiVersion'], kind: 'ConversionReview', response: { uid: req['uid'], convertedObjects, result: { status: 'Success' } } };
}

/** The webhook's behaviour per path (the first segment). */
function handler(review: Json & { request: Json }, path: string): Json | undefined {
  const route = path.split('?')[0]?.split('/')[1] ?? '';
  switch (route) {
    case 'label': return patchAnswer(review, [{ op: 'add', path: '/metadata/labels/injected', value: 'yes' }], { warnings: ['label injected'] });
    case 'deny': return answer(review, { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'not this one' } });
    case 'deny-bare': return answer(review, { allowed: false });
    case 'bad-uid': return { ...answer(review, { allowed: true }), response: { uid: 'not-the-uid', allowed: true } };
    case 'slow': return undefined; // never answers
    case 'convert': return convertReview(review);
    case 'convert-fail': return { apiVersion: review['apiVersion'], kind: 'ConversionReview', response: { uid: review.request['uid'], result: { status: 'Failure', message: 'cannot convert' } } };
    case 'bad-patch': return patchAnswer(review, [{ op: 'replace', path: '/nope/deeper', value: 1 }]);
    default: return answer(review, { allowed: true });
  }
}

async function scenario(t: Target, wh: FakeWebhook): Promise<Map<string, unknown>> {
  const seen = new Map<string, unknown>();
  const id = randomBytes(3).toString('hex');
  const ns = `rxkube-webhooks-${id}`;
  const reg = '/apis/admissionregistration.k8s.io/v1';
  const names: [string, string][] = [];
  const port = await closedPort();
  const hook = (name: string, route: string, extra: Json = {}): Json => ({
    name: `${name}.${id}.example.com`,
    clientConfig: { url: `${wh.url}/${route}`, caBundle: wh.caBundle },
    rules: [{ operations: ['CREATE', 'UPDATE', 'DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    // Only this scenario's namespace: the real server may be shared with other tests.
    namespaceSelector: { matchLabels: { 'rxkube-webhooks': id } },
    objectSelector: { matchLabels: { hook: name } },
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    timeoutSeconds: 2,
    ...extra,
  });
  const configure = async (type: 'mutating' | 'validating', webhooks: Json[], version = 'v1', suffix = ''): Promise<void> => {
    const plural = `${type}webhookconfigurations`;
    const name = `rxkube-${type}-${id}${suffix}`;
    const res = await t.call('POST', `/apis/admissionregistration.k8s.io/${version}/${plural}`, { apiVersion: `admissionregistration.k8s.io/${version}`, kind: type === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration', metadata: { name }, webhooks });
    seen.set(`configure ${type} ${version}${suffix}`, [res.status, normalize(res.status < 300 ? res.body.webhooks : res.body.message, ns)]);
    if (res.status < 300) names.push([plural, name]);
  };
  const cm = (name: string, hookName: string): Json => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { hook: hookName } }, data: { a: 'b' } });
  const cms = `/api/v1/namespaces/${ns}/configmaps`;
  const record = (step: string, r: Reply): void => {
    seen.set(step, [r.status, r.warning, r.status < 300 ? normalize(r.body, ns) : normalize([r.body?.reason, r.body?.message, r.body?.details], ns)]);
  };

  await t.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { 'rxkube-webhooks': id } } });
  try {
    await configure('mutating', [
      hook('label', 'label', { rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }),
      hook('bad-patch', 'bad-patch'),
      { ...hook('pod', 'allow', { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] }), name: `pod-mutating.${id}.example.com` },
    ]);
    // sideEffects Some: v1 refuses it (422); v1beta1 stores it (and defaults the rest the v1beta1 way).
    await configure('mutating', [hook('some', 'allow', { sideEffects: 'Some' })], 'v1', '-some');
    await configure('mutating', [hook('some', 'allow', { sideEffects: 'Some' })], 'v1beta1', '-some');
    await configure('validating', [{ name: `defaults.${id}.example.com`, clientConfig: { url: `${wh.url}/allow`, caBundle: wh.caBundle }, sideEffects: 'None', admissionReviewVersions: ['v1'] }], 'v1', '-defaults');
    await configure('validating', [{ name: `defaults.${id}.example.com`, clientConfig: { url: `${wh.url}/allow`, caBundle: wh.caBundle } }], 'v1beta1', '-defaults');
    await configure('validating', [{ name: `no-side-effects.${id}.example.com`, clientConfig: { url: `${wh.url}/allow` }, admissionReviewVersions: ['v1'] }], 'v1', '-invalid');
    await configure('validating', [
      hook('deny', 'deny'), hook('deny-bare', 'deny-bare'), hook('bad-uid', 'bad-uid'),
      hook('down', 'allow', { clientConfig: { url: `https://127.0.0.1:${port}/down` } }),
      hook('down-ignored', 'allow', { failurePolicy: 'Ignore', clientConfig: { url: `https://127.0.0.1:${port}/down` } }),
      hook('slow', 'slow', { timeoutSeconds: 1 }),
      { ...hook('label', 'allow', { rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }), name: `label-delete.${id}.example.com` },
      { ...hook('pod', 'allow', { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] }) },
    ]);
    // Configurations take effect asynchronously in kube-apiserver (its informer): wait for the first to bite.
    for (let i = 0; i < 50; i++) {
      const probe = await t.call('POST', `${cms}?dryRun=All`, cm('probe', 'deny'));
      if (probe.status === 403) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    wh.calls.length = 0;
    record('mutating webhook adds a label', await t.call('POST', cms, cm('labelled', 'label')));
    seen.set('review sent on create', normalize(wh.calls.at(-1)?.review, ns));
    wh.calls.length = 0;
    record('update through the mutating webhook', await t.call('PATCH', `${cms}/labelled`, { data: { c: 'd' } }, 'application/merge-patch+json'));
    seen.set('review sent on update', normalize(wh.calls.at(-1)?.review, ns));
    wh.calls.length = 0;
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { hook: 'pod' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.19', ports: [{ containerPort: 80 }] }] } };
    record('pod through the validating webhook', await t.call('POST', `/api/v1/namespaces/${ns}/pods`, pod));
    seen.set('reviews sent on pod create (mutating: defaulted; validating: the final object)', wh.calls.map((c) => normalize(c.review, ns)));
    record('dry run through a webhook with side effects', await t.call('POST', `${cms}?dryRun=All`, cm('some', 'some')));
    record('a patch that does not apply', await t.call('POST', cms, cm('bad-patch', 'bad-patch')));
    record('denied with code and reason', await t.call('POST', cms, cm('denied', 'deny')));
    record('denied without explanation', await t.call('POST', cms, cm('bare', 'deny-bare')));
    record('answer with the wrong uid', await t.call('POST', cms, cm('bad-uid', 'bad-uid')));
    record('unreachable, failurePolicy Fail', await t.call('POST', cms, cm('down', 'down')));
    record('unreachable, failurePolicy Ignore', await t.call('POST', cms, cm('down-ignored', 'down-ignored')));
    record('timeout', await t.call('POST', cms, cm('slow', 'slow')));
    wh.calls.length = 0;
    record('delete (validating webhooks see it)', await t.call('DELETE', `${cms}/labelled`));
    seen.set('review sent on delete', normalize(wh.calls.at(-1)?.review, ns));
  } finally {
    for (const [plural, name] of names) await t.call('DELETE', `${reg}/${plural}/${name}`);
    await t.call('DELETE', `/api/v1/namespaces/${ns}`);
  }
  return seen;
}

/** CRD conversion through the webhook: reads and lists in the other version, and a failing webhook. */
async function conversionScenario(t: Target, wh: FakeWebhook): Promise<Map<string, unknown>> {
  const seen = new Map<string, unknown>();
  const id = randomBytes(3).toString('hex');
  const ns = `rxkube-conversion-${id}`;
  const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  const groups = [`ok${id}.example.com`, `fail${id}.example.com`];
  await t.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  try {
    for (const [i, group] of groups.entries()) {
      const res = await t.call('POST', crdPath, {
        apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `widgets.${group}` },
        spec: {
          group, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
          versions: ['v1', 'v2'].map((name) => ({ name, served: true, storage: name === 'v1', schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } })),
          conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: `${wh.url}/${i === 0 ? 'convert' : 'convert-fail'}`, caBundle: wh.caBundle }, conversionReviewVersions: ['v1'] } },
        },
      });
      seen.set(`create CRD ${i}`, res.status);
    }
    // Wait until both are served.
    for (const group of groups) {
      for (let i = 0; i < 50 && (await t.call('GET', `/apis/${group}/v2/namespaces/${ns}/widgets`)).status !== 200; i++) await new Promise((r) => setTimeout(r, 200));
    }
    for (const [i, group] of groups.entries()) {
      const created = await t.call('POST', `/apis/${group}/v1/namespaces/${ns}/widgets`, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w', labels: { a: 'b' } }, spec: { size: 3 } });
      seen.set(`create widget ${i}`, [created.status, normalize(created.body?.spec, ns)]);
      wh.calls.length = 0;
      const got = await t.call('GET', `/apis/${group}/v2/namespaces/${ns}/widgets/w`);
      seen.set(`get v2 ${i}`, [got.status, normalize(got.status < 300 ? got.body : [got.body?.reason, got.body?.message, got.body?.details], ns)]);
      seen.set(`conversion review ${i}`, normalize(wh.calls.at(-1)?.review, ns));
      seen.set(`conversion path ${i}`, wh.calls.at(-1)?.path);
      const list = await t.call('GET', `/apis/${group}/v2/namespaces/${ns}/widgets`);
      seen.set(`list v2 ${i}`, [list.status, list.status < 300 ? normalize(list.body.items, ns) : normalize([list.body?.reason, list.body?.message, list.body?.details], ns)]);
    }
  } finally {
    for (const group of groups) await t.call('DELETE', `${crdPath}/widgets.${group}`);
    await t.call('DELETE', `/api/v1/namespaces/${ns}`);
  }
  return seen;
}


function realTarget(): { t: Target; stop?: () => void } | undefined {
  const real = realKubeApiServer('rxkube-webhooks');
  if (real === undefined) return undefined;
  return { t: target('real', real.server, real.token, real.ca), ...(real.stop !== undefined ? { stop: real.stop } : {}) };
}

/** Observations where the embedded server differs from kube-apiserver 1.20 on purpose, with the path prefixes that differ. */
const KNOWN: Readonly<Record<string, readonly string[]>> = {
  // The embedded server's admin token is the user system:admin; the real server's token file names it admin.
  'review sent on create': ['request.userInfo.username'],
  'review sent on update': ['request.userInfo.username'],
  'review sent on delete': ['request.userInfo.username'],
  'reviews sent on pod create (mutating: defaulted; validating: the final object)': ['0.request.userInfo.username', '1.request.userInfo.username'],
};

describe('differential: admission webhooks, embedded server vs kube-apiserver 1.20', () => {
  let embedded: ApiServer;
  let wh: FakeWebhook;
  let stopReal: (() => void) | undefined;
  let mine: Map<string, unknown>;
  let theirs: Map<string, unknown> | undefined;

  beforeAll(async () => {
    wh = await startFakeWebhook(handler);
    embedded = await startApiServer({ token: true, tls: true, kubernetesVersion: '1.20' });
    const embeddedTarget = target('embedded', embedded.url, embedded.token, embedded.caPem);
    mine = new Map([...(await scenario(embeddedTarget, wh)), ...(await conversionScenario(embeddedTarget, wh))]);
    const real = realTarget();
    if (real === undefined) {
      noRealKubeApiServer('webhook');
      return;
    }
    stopReal = real.stop;
    theirs = new Map([...(await scenario(real.t, wh)), ...(await conversionScenario(real.t, wh))]);
  }, 900_000);

  afterAll(async () => {
    await embedded?.close();
    await wh?.close();
    stopReal?.();
  });

  it('the embedded server calls the webhooks', () => {
    expect(mine.get('reviews sent on pod create (mutating: defaulted; validating: the final object)')).toHaveLength(2);
    expect(mine.get('review sent on delete')).toMatchObject({ request: { operation: 'DELETE' } });
    expect(mine.get('mutating webhook adds a label')).toEqual([201, '299 - "label injected"', expect.objectContaining({ metadata: expect.objectContaining({ labels: { hook: 'label', injected: 'yes' } }) })]);
  });

  it('every observation matches kube-apiserver 1.20, but for the listed differences', () => {
    if (theirs === undefined) return;
    const problems: string[] = [];
    for (const [step, real] of theirs) {
      const known = KNOWN[step] ?? [];
      const lines = diff(mine.get(step), real).filter((l) => !known.some((k) => l.startsWith(k)));
      if (lines.length > 0) problems.push(`${step}:\n    ${lines.join('\n    ')}`);
    }
    expect(problems.join('\n')).toBe('');
  });
});

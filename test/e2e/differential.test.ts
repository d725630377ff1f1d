/**
 * Differential test: one scripted scenario runs against the embedded API server and against a
 * real kube-apiserver; what a client observes (status codes, reasons, watch event type sequences,
 * page shapes) must be the same. Differences we keep are listed in docs/embedded-api-server.md.
 *
 * The real server: KUBECONFIG (+ RXKUBE_E2E_DIR) from .ci/run, or, locally, one started here with
 * ../shared/kube-apiserver/start.sh (and stopped afterwards). Without either, the comparison is
 * skipped loudly (and fails when CI is set).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { noRealKubeApiServer, realKubeApiServer } from './helpers/real-kube-apiserver.js';

interface Reply {
  readonly status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
}

interface WatchEventSeen {
  readonly type: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly object: any;
}

/** How the scenario talks to one server. */
interface Target {
  readonly name: string;
  call(method: string, path: string, body?: unknown, contentType?: string): Promise<Reply>;
  /** Reads a watch until `stop` says so, the server ends it, or `maxMs` passes. */
  watch(path: string, stop: (events: readonly WatchEventSeen[]) => boolean, maxMs: number): Promise<WatchEventSeen[]>;
  /** Makes resourceVersions before now unavailable (410) for watches and continue tokens. */
  loseHistory(churn: () => Promise<void>): Promise<void>;
}

function httpTarget(name: string, server: string, token: string | undefined, ca: string | undefined, loseHistory: Target['loseHistory']): Target {
  // Fresh connections after a restart: the old pooled sockets are dead.
  const newAgent = () => (ca !== undefined ? new HttpsAgent({ ca, keepAlive: true }) : new HttpAgent({ keepAlive: true }));
  let agent = newAgent();
  const send = (method: string, path: string, data: string | undefined, contentType: string, onResponse: (res: import('node:http').IncomingMessage) => void, onError: (e: Error) => void) => {
    const url = new URL(path, server);
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (token !== undefined) headers['Authorization'] = `Bearer ${token}`;
    if (data !== undefined) {
      headers['Content-Type'] = contentType;
      headers['Content-Length'] = String(Buffer.byteLength(data));
    }
    const fn = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = fn(url, { method, headers, agent }, onResponse);
    req.on('error', onError);
    if (data !== undefined) req.write(data);
    req.end();
    return req;
  };
  return {
    name,
    async loseHistory(churn) {
      await loseHistory(churn);
      agent.destroy();
      agent = newAgent();
    },
    call(method, path, body, contentType = 'application/json') {
      const data = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      return new Promise((resolvePromise, reject) => {
        send(method, path, data, contentType, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown;
            try {
              parsed = JSON.parse(text);
            } catch {
              parsed = text;
            }
            resolvePromise({ status: res.statusCode ?? 0, body: parsed });
          });
        }, reject);
      });
    },
    watch(path, stop, maxMs) {
      return new Promise((resolvePromise, reject) => {
        const events: WatchEventSeen[] = [];
        let buf = '';
        let done = false;
        const finish = () => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          req.destroy();
          resolvePromise(events);
        };
        const timer = setTimeout(finish, maxMs);
        const req = send('GET', path, undefined, '', (res) => {
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            buf += c;
            let i: number;
            while ((i = buf.indexOf('\n')) >= 0) {
              const line = buf.slice(0, i).trim();
              buf = buf.slice(i + 1);
              if (line !== '') events.push(JSON.parse(line) as WatchEventSeen);
            }
            if (stop(events)) finish();
          });
          res.on('end', finish);
          res.on('close', finish);
        }, (e) => (done ? undefined : reject(e)));
      });
    },
  };
}

/** One observation: a step name and what the client saw. */
type Observation = readonly [step: string, seen: unknown];

/** The Status message with the random namespace and numbers masked. */
const messageOf = (r: Reply, ns: string) => String(r.body?.message ?? '').replaceAll(ns, '<ns>').replace(/\d+/g, 'N').replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<uid>');
const statusOf = (r: Reply) => (typeof r.body === 'object' && r.body !== null && r.body.kind === 'Status' ? { code: r.status, reason: r.body.reason ?? '', status: r.body.status } : { code: r.status, kind: r.body?.kind });
/** Watch types with runs of BOOKMARKs collapsed (servers differ in how often they send them). */
const typesOf = (events: readonly WatchEventSeen[]) => events.map((e) => e.type).filter((t, i, a) => !(t === 'BOOKMARK' && a[i - 1] === 'BOOKMARK'));

async function scenario(t: Target): Promise<Observation[]> {
  const out: Observation[] = [];
  const ns = `rxkube-diff-${randomBytes(3).toString('hex')}`;
  const cms = `/api/v1/namespaces/${ns}/configmaps`;
  const cm = (name: string, data: Record<string, string> = { k: name }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'diff', idx: name } }, data });
  const see = (step: string, seen: unknown) => out.push([step, seen]);

  see('create namespace', statusOf(await t.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })));
  try {
    const created: Reply[] = [];
    for (const n of ['a', 'b', 'c', 'd', 'e']) created.push(await t.call('POST', cms, cm(n)));
    see('create 5', created.map(statusOf));
    const rvs = created.map((r) => Number(r.body.metadata.resourceVersion));
    see('resourceVersions increase', rvs.every((v, i) => i === 0 || v > (rvs[i - 1] ?? 0)));
    const startRv = String(rvs[0]);

    const dup = await t.call('POST', cms, cm('a'));
    see('create duplicate', [statusOf(dup), messageOf(dup, ns), dup.body.details]);
    const missing = await t.call('GET', `${cms}/missing`);
    see('get missing', [statusOf(missing), messageOf(missing, ns), missing.body.details]);
    const a = (await t.call('GET', `${cms}/a`)).body;
    see('get has server metadata', [typeof a.metadata.uid, typeof a.metadata.creationTimestamp, a.metadata.namespace === ns]);
    const upd = await t.call('PUT', `${cms}/a`, { ...a, data: { k: 'a2' } });
    see('update with current resourceVersion', statusOf(upd));
    const stale = await t.call('PUT', `${cms}/a`, { ...a, data: { k: 'a3' } });
    see('update with stale resourceVersion (conflict)', statusOf(stale));
    see('conflict message', [messageOf(stale, ns), stale.body.details]);
    see('merge patch', statusOf(await t.call('PATCH', `${cms}/b`, { data: { k: 'b2' } }, 'application/merge-patch+json')));
    see('strategic merge patch', statusOf(await t.call('PATCH', `${cms}/b`, { metadata: { labels: { extra: 'x' } } }, 'application/strategic-merge-patch+json')));
    see('json patch', statusOf(await t.call('PATCH', `${cms}/c`, [{ op: 'replace', path: '/data/k', value: 'c2' }], 'application/json-patch+json')));
    see('delete precondition conflict', statusOf(await t.call('DELETE', `${cms}/e`, { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: '00000000-0000-0000-0000-000000000000' } })));
    see('delete', statusOf(await t.call('DELETE', `${cms}/e`)));
    see('get deleted', statusOf(await t.call('GET', `${cms}/e`)));

    // Ill-typed fields and deep nesting: kube-apiserver's typed decode answers 400 naming the Go field
    // (less the bytes around the error it appends); the embedded server the same (issue 26, finding 11).
    const decodeMessage = (r: Reply) => messageOf(r, ns).replace(/, error found in #.*$/s, '');
    const illTyped: readonly (readonly [string, unknown])[] = [
      ['metadata.name a number', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 5 } }],
      ['a label value a number', { metadata: { name: 'x', labels: { a: 5 } } }],
      ['a data value a number', { metadata: { name: 'x' }, data: { a: 5 } }],
      ['metadata not an object', { metadata: 5 }],
      ['JSON nested 100,000 deep', `{"metadata":{"name":"deep"},"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`],
    ];
    for (const [step, body] of illTyped) {
      const r = await t.call('POST', cms, body);
      see(`ill-typed: ${step}`, [statusOf(r), decodeMessage(r)]);
    }

    // Finalizers: delete sets deletionTimestamp; removing the last finalizer deletes.
    await t.call('POST', cms, { ...cm('fin'), metadata: { name: 'fin', finalizers: ['example.com/hold'] } });
    const pending = await t.call('DELETE', `${cms}/fin`);
    see('delete with finalizer', [pending.status, pending.body.kind, typeof pending.body.metadata?.deletionTimestamp]);
    see('still there', statusOf(await t.call('GET', `${cms}/fin`)));
    see('drop finalizer', statusOf(await t.call('PATCH', `${cms}/fin`, { metadata: { finalizers: null } }, 'application/merge-patch+json')));
    see('gone after finalizer', statusOf(await t.call('GET', `${cms}/fin`)));

    // Paging: 4 objects (a..d) in pages of 3.
    const p1 = await t.call('GET', `${cms}?limit=3`);
    see('page 1', [p1.status, p1.body.items.map((i: { metadata: { name: string } }) => i.metadata.name), typeof p1.body.metadata.continue, p1.body.metadata.remainingItemCount]);
    const p2 = await t.call('GET', `${cms}?limit=3&continue=${encodeURIComponent(p1.body.metadata.continue)}`);
    see('page 2', [p2.status, p2.body.items.map((i: { metadata: { name: string } }) => i.metadata.name), p2.body.metadata.continue ?? '', p2.body.metadata.resourceVersion === p1.body.metadata.resourceVersion]);
    const sel = await t.call('GET', `${cms}?labelSelector=${encodeURIComponent('idx in (a,c),app=diff')}`);
    see('label selector', sel.body.items.map((i: { metadata: { name: string } }) => i.metadata.name));
    const fsel = await t.call('GET', `${cms}?fieldSelector=metadata.name%3Db`);
    see('field selector', fsel.body.items.map((i: { metadata: { name: string } }) => i.metadata.name));
    see('bad label selector', statusOf(await t.call('GET', `${cms}?labelSelector=${encodeURIComponent('a in (b')}`)));
    see('unsupported field selector', statusOf(await t.call('GET', `${cms}?fieldSelector=spec.x%3D1`)));
    see('unknown resource', statusOf(await t.call('GET', `/api/v1/namespaces/${ns}/widgets`)));
    see('malformed JSON', statusOf(await t.call('POST', cms, '{"metadata": {')));
    see('wrong kind', statusOf(await t.call('POST', cms, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' } })));
    const noName = await t.call('POST', cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} });
    see('missing name', [statusOf(noName), messageOf(noName, ns), noName.body.details]);
    const mismatch = await t.call('POST', cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'other' } });
    see('namespace mismatch', [statusOf(mismatch), messageOf(mismatch, ns)]);

    // resourceVersion semantics of lists.
    const beforeLater = (await t.call('GET', cms)).body.metadata.resourceVersion as string;
    await t.call('POST', cms, cm('later'));
    const exact = await t.call('GET', `${cms}?resourceVersion=${beforeLater}&resourceVersionMatch=Exact`);
    see('list Exact in the past', [exact.status, exact.body.metadata.resourceVersion === beforeLater, exact.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)]);
    const notOlder = await t.call('GET', `${cms}?resourceVersion=${beforeLater}&resourceVersionMatch=NotOlderThan`);
    // Served from kube-apiserver 1.20's watch cache: unordered (newer versions sort), so sorted here.
    see('list NotOlderThan', [notOlder.status, notOlder.body.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort()]);
    const future = await t.call('GET', `${cms}?resourceVersion=${Number(beforeLater) + 100000}&resourceVersionMatch=NotOlderThan`);
    see('list NotOlderThan in the future', [statusOf(future), future.body.details?.causes]);
    see('resourceVersionMatch without resourceVersion', [statusOf(await t.call('GET', `${cms}?resourceVersionMatch=Exact`))]);
    see('Exact with resourceVersion 0', [statusOf(await t.call('GET', `${cms}?resourceVersion=0&resourceVersionMatch=Exact`))]);
    see('bad limit', statusOf(await t.call('GET', `${cms}?limit=abc`)));
    // Server-side apply, in the part where the simplified embedded version agrees.
    const ssa = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { a: '1' } };
    const ssaNoManager = await t.call('PATCH', `${cms}/ssa`, ssa, 'application/apply-patch+yaml');
    see('apply without fieldManager', [ssaNoManager.status, ssaNoManager.body.reason]);
    const ssaCreate = await t.call('PATCH', `${cms}/ssa?fieldManager=diff`, ssa, 'application/apply-patch+yaml');
    see('apply creates', [ssaCreate.status, ssaCreate.body.data]);
    const ssaUpdate = await t.call('PATCH', `${cms}/ssa?fieldManager=diff`, { ...ssa, data: { a: '2' } }, 'application/apply-patch+yaml');
    see('apply updates', [ssaUpdate.status, ssaUpdate.body.data]);
    await t.call('DELETE', `${cms}/ssa`);
    const withRv = await t.call('POST', cms, { ...cm('rv'), metadata: { name: 'rv', resourceVersion: '5' } });
    see('create with a resourceVersion', [withRv.status, withRv.body.reason, withRv.body.message]);
    await t.call('POST', cms, cm('dc1'));
    const dc = await t.call('DELETE', `${cms}?labelSelector=idx%3Ddc1`);
    see('deletecollection', [dc.status, dc.body.kind, dc.body.items?.map((i: { metadata: { name: string } }) => i.metadata.name)]);
    const pods = `/api/v1/namespaces/${ns}/pods`;
    const pod = await t.call('POST', pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] }, status: { phase: 'Running' } });
    see('pod create drops status', [pod.status, pod.body.status?.phase]);
    const podDel = await t.call('DELETE', `${pods}/p`, { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 });
    see('pod delete returns the pod', [podDel.status, podDel.body.kind]);
    await t.call('DELETE', `${cms}/later`);

    // metadata.generation and the /status subresource (deployments).
    const deploys = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const deployment = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    const dep = await t.call('POST', deploys, deployment);
    see('deployment create', [statusOf(dep), dep.body.metadata.generation]);
    const relabel = await t.call('PATCH', `${deploys}/web`, { metadata: { labels: { x: 'y' } } }, 'application/merge-patch+json');
    see('deployment metadata change keeps generation', relabel.body.metadata.generation);
    const scale = await t.call('PATCH', `${deploys}/web`, { spec: { replicas: 3 } }, 'application/merge-patch+json');
    see('deployment spec change bumps generation', scale.body.metadata.generation);
    const st = await t.call('PATCH', `${deploys}/web/status`, { status: { observedGeneration: 2 } }, 'application/merge-patch+json');
    see('status patch', [st.status, st.body.metadata.generation, st.body.status?.observedGeneration, st.body.spec.replicas]);
    const mainStatus = await t.call('PATCH', `${deploys}/web`, { status: { observedGeneration: 7 } }, 'application/merge-patch+json');
    see('status ignored on the main resource', mainStatus.body.status?.observedGeneration);

    // A CustomResourceDefinition serves its resource.
    const group = `g${ns.slice(-6)}.example.com`;
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `widgets.${group}` },
      spec: { group, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    };
    see('crd create', statusOf(await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)));
    try {
      const widgets = `/apis/${group}/v1/namespaces/${ns}/widgets`;
      let ready = false;
      for (let i = 0; i < 100 && !ready; i++) {
        ready = (await t.call('GET', widgets)).status === 200;
        if (!ready) await new Promise((r) => setTimeout(r, 100));
      }
      see('crd served', ready);
      const w = await t.call('POST', widgets, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } });
      see('custom resource create', [statusOf(w), w.body.metadata?.generation]);
      const wl = await t.call('GET', widgets);
      see('custom resource list', [wl.body.kind, wl.body.apiVersion === `${group}/v1`, wl.body.items.length]);
      see('custom resource strategic merge patch', statusOf(await t.call('PATCH', `${widgets}/w`, { spec: { size: 2 } }, 'application/strategic-merge-patch+json')));
      const wp = await t.call('PATCH', `${widgets}/w`, { spec: { size: 2 } }, 'application/merge-patch+json');
      see('custom resource merge patch', [statusOf(wp), wp.body.metadata?.generation]);
      see('custom resource delete', [(await t.call('DELETE', `${widgets}/w`)).status]);
    } finally {
      await t.call('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`);
    }

    // Watch from an old (retained) version replays what happened since, in order.
    const replay = await t.watch(`${cms}?watch=1&resourceVersion=${startRv}`, (ev) => ev.some((e) => e.type === 'DELETED' && e.object.metadata.name === 'fin'), 5000);
    const finGone = replay.findIndex((e) => e.type === 'DELETED' && e.object.metadata.name === 'fin');
    replay.splice(finGone + 1); // servers may send later events in the same chunk
    see('watch replay types', replay.map((e) => e.type));
    see('watch replay names', replay.map((e) => e.object.metadata.name));

    // Watch with no resourceVersion: synthetic ADDED for current objects.
    const initial = await t.watch(`${cms}?watch=1`, (ev) => ev.length >= 4, 3000);
    // Order is not part of the contract (kube-apiserver's watch cache sends them in map order).
    see('watch initial state', initial.map((e) => `${e.type}:${e.object.metadata.name}`).sort());

    // Selector on watch: leaving is DELETED, entering is ADDED.
    const selRv = (await t.call('GET', cms)).body.metadata.resourceVersion;
    await t.call('PATCH', `${cms}/d`, { metadata: { labels: { app: 'other' } } }, 'application/merge-patch+json');
    await t.call('PATCH', `${cms}/d`, { metadata: { labels: { app: 'diff' } } }, 'application/merge-patch+json');
    const selected = await t.watch(`${cms}?watch=1&labelSelector=app%3Ddiff&resourceVersion=${selRv}`, (ev) => ev.length >= 2, 4000);
    see('watch selector transitions', selected.map((e) => e.type));

    // Bookmarks: with allowWatchBookmarks and a timeout, at least one BOOKMARK arrives, then the end.
    const nowRv = (await t.call('GET', cms)).body.metadata.resourceVersion;
    // A change the watch does not see (another namespace) moves the resourceVersion: servers send
    // bookmarks only then (kube-apiserver 1.20: ~2 s before the timeout).
    const bmPromise = t.watch(`${cms}?watch=1&allowWatchBookmarks=true&timeoutSeconds=4&resourceVersion=${nowRv}`, () => false, 10_000);
    await new Promise((r) => setTimeout(r, 300));
    const other = `rxkube-diff-other-${ns.slice(-6)}`;
    await t.call('POST', '/api/v1/namespaces/default/configmaps', cm(other));
    const bm = await bmPromise;
    await t.call('DELETE', `/api/v1/namespaces/default/configmaps/${other}`);
    see('bookmarks', typesOf(bm));
    see('bookmark object', bm.slice(0, 1).map((e) => [e.object.kind, typeof e.object.metadata.resourceVersion]));

    // Watch from a version older than the history: HTTP 200 and an ERROR event with 410 Expired.
    const oldRv = startRv;
    const cont = (await t.call('GET', `${cms}?limit=1`)).body.metadata.continue as string;
    await t.loseHistory(async () => {
      for (let i = 0; i < 120; i++) await t.call('PATCH', `${cms}/a`, { data: { k: `churn-${i}` } }, 'application/merge-patch+json');
    });
    const gone = await t.watch(`${cms}?watch=1&resourceVersion=${oldRv}`, (ev) => ev.some((e) => e.type === 'ERROR'), 8000);
    const err = gone.find((e) => e.type === 'ERROR');
    see('watch too old', [gone.filter((e) => e.type !== 'BOOKMARK').map((e) => e.type)[0], err?.object.code, err?.object.reason, String(err?.object.message).replace(/\d+/g, 'N')]);
    see('expired continue', statusOf(await t.call('GET', `${cms}?limit=1&continue=${encodeURIComponent(cont)}`)));
  } finally {
    await t.call('DELETE', `/api/v1/namespaces/${ns}`);
  }
  return out;
}

// ---- the real server -----------------------------------------------------------------------

const repoRoot = resolve(import.meta.dirname, '..', '..');
const sharedDir = process.env['RXKUBE_E2E_SHARED'] ?? join(repoRoot, '..', 'shared');

interface Real {
  readonly server: string;
  readonly token: string | undefined;
  readonly ca: string | undefined;
  readonly etcd: string | undefined;
  /** The start.sh folder (restart.sh needs it), when known. */
  readonly dir: string | undefined;
  readonly stop: (() => void) | undefined;
}

function loadReal(): Real | undefined {
  const real = realKubeApiServer('rxkube-diff', { needDir: true });
  if (real === undefined) return undefined;
  const { server, token, ca, dir, stop } = real;
  const cmd = dir === undefined ? undefined : join(dir, 'apiserver.cmd');
  const etcd = cmd !== undefined && existsSync(cmd) ? /--etcd-servers="?([^"\s]+)"?/.exec(readFileSync(cmd, 'utf8'))?.[1] : undefined;
  return { server, token, ca, etcd, dir, stop };
}

/** Compacts etcd at its current revision through its HTTP gateway (continue tokens then expire). */
async function compactEtcd(etcd: string): Promise<void> {
  const range = (await (await fetch(`${etcd}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: Buffer.from('/').toString('base64') }) })).json()) as { header: { revision: string } };
  await fetch(`${etcd}/v3/kv/compaction`, { method: 'POST', body: JSON.stringify({ revision: range.header.revision, physical: true }) });
}

describe('differential: embedded API server vs a real kube-apiserver', () => {
  let embedded: ApiServer;
  let real: Real | undefined;
  let embeddedSeen: Observation[];
  let realSeen: Observation[] | undefined;

  beforeAll(async () => {
    embedded = await startApiServer({ token: true, tls: true, bookmarkIntervalMs: 1000, kubernetesVersion: '1.20' });
    const et = httpTarget('embedded', embedded.url, embedded.token, embedded.caPem, async (churn) => {
      await churn();
      embedded.faults.compact();
      await embedded.faults.restart();
    });
    embeddedSeen = await scenario(et);
    real = loadReal();
    if (real === undefined) {
      noRealKubeApiServer('differential');
      return;
    }
    const r = real;
    const rt = httpTarget('real', r.server, r.token, r.ca, async (churn) => {
      // kube-apiserver's watch cache grows while events are fresh, so churn alone does not expire
      // old versions. Compact etcd, then restart kube-apiserver: its watch cache starts at the
      // current version (older watches get 410) and continue tokens hit the compaction (410).
      await churn();
      if (r.etcd !== undefined) await compactEtcd(r.etcd);
      if (r.dir !== undefined) execFileSync('bash', [join(sharedDir, 'kube-apiserver', 'restart.sh'), r.dir], { stdio: 'ignore', timeout: 120_000 });
    });
    try {
      realSeen = await scenario(rt);
    } catch (e) {
      const log = r.dir !== undefined && existsSync(join(r.dir, 'apiserver.log')) ? readFileSync(join(r.dir, 'apiserver.log'), 'utf8') : '';
      if (/fatal error: fault|modern-go\/reflect2/.test(log)) {
        throw new Error(
          'the real kube-apiserver crashed while JSON-encoding a map (its vendored modern-go/reflect2 < 1.0.2 does not work with the Go it was built with); ' +
            'rebuild it with reflect2 1.0.2 (see docs/embedded-api-server.md, "The differential test")',
          { cause: e },
        );
      }
      throw e;
    }
  });

  afterAll(async () => {
    await embedded?.close();
    real?.stop?.();
  });

  it('the embedded scenario itself behaves as documented', () => {
    const seen = new Map(embeddedSeen);
    expect(seen.get('update with stale resourceVersion (conflict)')).toEqual({ code: 409, reason: 'Conflict', status: 'Failure' });
    expect(seen.get('watch too old')).toEqual(['ERROR', 410, 'Expired', 'too old resource version: N (N)']);
    expect(seen.get('expired continue')).toEqual({ code: 410, reason: 'Expired', status: 'Failure' });
    expect(seen.get('bookmarks')).toEqual(['BOOKMARK']);
  });

  it('a client observes the same on both servers, step by step', (ctx) => {
    if (realSeen === undefined) {
      ctx.skip();
      return;
    }
    const realMap = new Map(realSeen);
    console.log(`[differential] ${embeddedSeen.length} observations:\n${embeddedSeen.map(([step, seen]) => `  ${step}: ${JSON.stringify(seen)}`).join('\n')}`);
    for (const [step, seen] of embeddedSeen) {
      // Forcing 410 on the real server needs its etcd and start.sh folder (RXKUBE_E2E_DIR).
      if ((step === 'expired continue' || step === 'watch too old') && (real?.etcd === undefined || real.dir === undefined)) continue;
      expect({ step, seen }).toEqual({ step, seen: realMap.get(step) });
    }
    expect(embeddedSeen.map(([s]) => s)).toEqual(realSeen.map(([s]) => s));
  });
});

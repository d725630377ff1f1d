/**
 * The dashboard page: informers on the API server through `fetchClient` (fetch and web streams),
 * the two live views, rendered as they change.
 *
 * The API is the page's own origin by default (the embedded API server serves this page under
 * `/ui/`); `?api=<url>` points it at another server (which must allow this origin by CORS), and
 * `#token=<token>` sends a bearer token (in the fragment, so it never reaches a server log).
 */
import { fetchClient, InformerFactory } from 'rxkube/browser';
import { renderNodes, renderRollouts, renderStatus } from './render.js';
import { podsPerNode, rollouts } from './views.js';

function element(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`the page has no #${id}`);
  return el;
}

const params = new URLSearchParams(location.search);
const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? undefined;
const server = params.get('api') ?? location.origin;
const status = element('status');

const client = fetchClient({ server, ...(token === undefined ? {} : { token }) });
const informers = new InformerFactory(client);
// Every namespace: the embedded server's scenario (and a cluster) has workloads in several.
const nodes = informers.nodes();
const pods = informers.pods({ namespace: null });
const deployments = informers.deployments({ namespace: null });
const replicaSets = informers.replicaSets({ namespace: null });

// The status line: live once every cache has its list; the informers' reflector errors (a server
// that refuses this origin, a 401, a network failure) shown while they retry.
let synced = false;
const problems = new Map<string, string>();
const showStatus = (): void => {
  if (problems.size > 0) renderStatus(status, 'error', `${[...problems].map(([name, text]) => `${name}: ${text}`).join('; ')} (retrying)`);
  else if (synced) renderStatus(status, 'live', `live: ${server}`);
  else renderStatus(status, 'connecting', `connecting to ${server} …`);
};
showStatus();
podsPerNode(nodes, pods).subscribe((rows) => renderNodes(element('nodes'), rows));
rollouts(deployments, replicaSets).subscribe((table) => renderRollouts(element('rollouts'), table));
for (const informer of [nodes, pods, deployments, replicaSets] as const) {
  informer.status$.subscribe((s) => {
    if (s.type === 'error') problems.set(informer.name, s.error instanceof Error ? s.error.message : String(s.error));
    else if (s.type === 'backingOff' && !problems.has(informer.name)) problems.set(informer.name, `no answer, retrying in ${Math.round(s.delayMs)} ms`);
    else if (s.type === 'listed' || s.type === 'watching') problems.delete(informer.name);
    showStatus();
  });
}
informers.start();
// Each wait is bounded; a server that answers late still turns the page live.
const waitForSync = (): void => {
  informers.waitForCacheSync(10_000).then(
    (ok) => {
      if (!ok) return waitForSync();
      synced = true;
      showStatus();
    },
    (e: unknown) => renderStatus(status, 'error', `not synced: ${e instanceof Error ? e.message : String(e)}`),
  );
};
waitForSync();

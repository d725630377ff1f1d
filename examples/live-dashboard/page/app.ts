/**
 * The dashboard page: informers on the API server through `fetchClient` (fetch and web streams),
 * the two live views, rendered as they change.
 *
 * The API is the page's own origin by default (the embedded API server serves this page under
 * `/ui/`); `?api=<url>` points it at another server (which must allow this origin by CORS), and
 * `#token=<token>` sends a bearer token (in the fragment, so it never reaches a server log).
 */
import { fetchClient, InformerFactory } from './rxkube-browser.js';
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

renderStatus(status, 'connecting', `connecting to ${server} …`);
podsPerNode(nodes, pods).subscribe((rows) => renderNodes(element('nodes'), rows));
rollouts(deployments, replicaSets).subscribe((table) => renderRollouts(element('rollouts'), table));
for (const informer of [nodes, pods, deployments, replicaSets] as const) {
  informer.errors$.subscribe((e: unknown) => renderStatus(status, 'error', `${informer.name}: ${e instanceof Error ? e.message : String(e)}`));
}
informers.start();
informers
  .waitForCacheSync(30_000)
  .then(() => renderStatus(status, 'live', `live: ${server}`))
  .catch((e: unknown) => renderStatus(status, 'error', `not synced: ${e instanceof Error ? e.message : String(e)}`));

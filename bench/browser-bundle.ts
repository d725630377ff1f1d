/**
 * What rxkube costs a browser page: esbuild bundles (ESM, minified, platform 'browser', the build
 * fails on anything Node.js-only; see support/browser-bundle.ts) of typical dashboard code, with
 * its minified and gzipped size, with rxjs counted and with rxjs left out (a peer dependency the
 * page has anyway).
 *
 * - "informer + state$ + one operator": `fetchClient`, one pods informer from the
 *   `InformerFactory`, `informerState` and `filterEvents` from `rxkube/operators`;
 * - "informer + state$ + object client": the same plus writes (`client.objects().apply/patch`,
 *   which brings immer for `edit`);
 * - "all of rxkube/browser": every export of the door;
 * - "rxjs alone" (the operators and Observable the first bundle uses), for scale.
 *
 * Run alone: `npx tsx --conditions=source bench/browser-bundle.ts`.
 */
import { pathToFileURL } from 'node:url';
import { bundleForBrowser } from './support/browser-bundle.js';
import { fmt, row } from './support/stats.js';

const INFORMER_STATE_OPERATOR = `
import { fetchClient, InformerFactory, informerState } from './src/browser/index.ts';
import { filterEvents } from './operators/index.ts';
const client = fetchClient({ server: '/k8s' });
const pods = new InformerFactory(client, { namespace: 'default' }).pods();
informerState(pods).subscribe((snapshot) => console.log(snapshot.size));
pods.events$.pipe(filterEvents((e) => e.type !== 'delete')).subscribe((e) => console.log(e.type));
`;

const WITH_WRITES = `${INFORMER_STATE_OPERATOR}
import { resources } from './src/browser/index.ts';
const objects = client.objects(resources.configMaps, 'default', { fieldManager: 'dashboard' });
void objects.edit('settings', (cm) => { cm.data = { ...cm.data, theme: 'dark' }; });
`;

const SCENARIOS: ReadonlyArray<{ name: string; source: string }> = [
  { name: 'informer + state$ + one operator', source: INFORMER_STATE_OPERATOR },
  { name: 'informer + state$ + object client (edit)', source: WITH_WRITES },
  { name: 'all of rxkube/browser', source: `export * from './src/browser/index.ts';` },
  { name: 'rxjs alone (Observable, share, filter, map, …)', source: `export { Observable, Subject, share, filter, map, merge, defer, asyncScheduler, ReplaySubject } from 'rxjs';` },
];

export async function run(): Promise<string[]> {
  const lines = [
    'esbuild, ESM, minified, platform browser (the build fails on any Node.js-only import), gzip -9. "rxkube only": rxjs',
    'left external (a peer dependency; the page bundles it once for everything).',
    '',
    row(['bundle', 'minified, with rxjs', 'gzipped, with rxjs', 'minified, rxkube only', 'gzipped, rxkube only']),
    row(['---', '---', '---', '---', '---']),
  ];
  for (const { name, source } of SCENARIOS) {
    const whole = await bundleForBrowser(source);
    const own = name.startsWith('rxjs') ? undefined : await bundleForBrowser(source, { external: ['rxjs'] });
    lines.push(row([name, `${fmt(whole.bytes)} B`, `${fmt(whole.gzipBytes)} B`, own === undefined ? 'n/a' : `${fmt(own.bytes)} B`, own === undefined ? 'n/a' : `${fmt(own.gzipBytes)} B`]));
  }
  return lines;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const line of await run()) console.log(line);
}

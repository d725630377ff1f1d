/**
 * The live dashboard (examples/live-dashboard) in headless Chromium against the embedded API
 * server: the page's informers run over fetch and web streams in a real browser, and its tables
 * follow the cluster within a bound. Fails (does not skip) without Chromium, unless
 * RXKUBE_SKIP_BROWSER_TESTS=1; screenshots go to test-artifacts/.
 */
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { K8s } from 'rxkube';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { startLiveDashboard, type LiveDashboard } from '../../examples/live-dashboard/main.js';
import { batchPod, deployment } from '../../examples/live-dashboard/scenario.js';
import { browserTestsSkipped, collectPageErrors, launchChromium, screenshot } from './chromium.js';

/** How long the page may take to show a change (the bound the tests assert). */
const UPDATE_BOUND_MS = 15_000;

/**
 * Reads a cell of the page's tables: `[data-node=node] [data-phase=phase]`, or
 * `[data-deployment=key] [data-field=field]`. (Page code is passed as text: this file is compiled
 * without the DOM library.)
 */
async function cellText(page: Page, rowAttr: 'node' | 'deployment', row: string, cellAttr: 'phase' | 'field', cell: string): Promise<string | undefined> {
  const text = await page.evaluate(`document.querySelector(${JSON.stringify(`tr[data-${rowAttr}="${row}"] td[data-${cellAttr}="${cell}"]`)})?.textContent ?? null`);
  return typeof text === 'string' ? text : undefined;
}

/** Waits until `predicate` holds in the page; on timeout saves a screenshot and fails with what the page shows. */
async function waitInPage(page: Page, what: string, errors: readonly string[], predicate: string): Promise<void> {
  try {
    await page.waitForFunction(predicate, { timeout: UPDATE_BOUND_MS, polling: 50 });
  } catch (e) {
    const shown = await page.evaluate('document.body.innerText').catch(() => '(page unreadable)');
    const shot = await screenshot(page, `failure-${what.replace(/[^a-z0-9]+/gi, '-')}`).catch(() => '(no screenshot)');
    throw new Error(`the page did not show ${what} within ${UPDATE_BOUND_MS} ms (${(e as Error).message}).\nPage:\n${shown}\nErrors: ${errors.join('\n') || 'none'}\nScreenshot: ${shot}`);
  }
}

const nodeCell = (node: string, phase: string, n: number): string =>
  `document.querySelector('tr[data-node="${node}"] td[data-phase="${phase}"]')?.textContent === '${n}'`;
const rolloutCell = (key: string, field: string, value: string): string =>
  `document.querySelector('tr[data-deployment="${key}"] td[data-field="${field}"]')?.textContent === '${value}'`;
const live = `document.getElementById('status')?.dataset.state === 'live'`;

describe.skipIf(browserTestsSkipped())('live dashboard in headless Chromium', () => {
  let browser: Browser | undefined;
  let dashboard: LiveDashboard | undefined;

  beforeAll(async () => {
    browser = await launchChromium();
    dashboard = await startLiveDashboard({ scenario: false, nodes: ['node-a', 'node-b'] });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await dashboard?.stop();
  });

  it('loads from the embedded server and follows pods, a scale-up and a rollout', async () => {
    const d = dashboard as LiveDashboard;
    const page = await (browser as Browser).newPage();
    const errors = collectPageErrors(page);
    await page.setViewport({ width: 1200, height: 800 });
    await page.goto(d.url, { waitUntil: 'load' });
    await waitInPage(page, 'the live status', errors, live);
    await waitInPage(page, 'both stand-in nodes', errors, `${nodeCell('node-a', 'Running', 0)} && ${nodeCell('node-b', 'Running', 0)}`);

    // A pod on node-a: Pending or Running at once (the stand-in kubelet starts it), then Running.
    const pods = d.client.objects<K8s.Pod>({ apiVersion: 'v1', kind: 'Pod' }, 'default');
    await pods.create(batchPod('probe', 'node-a'));
    await waitInPage(page, 'the new pod Running on node-a', errors, nodeCell('node-a', 'Running', 1));
    expect(await cellText(page, 'node', 'node-a', 'field', 'total')).toBe('1');

    // A Deployment: the controllers make a ReplicaSet and pods; the rollout view shows it complete.
    const deployments = d.client.objects<K8s.Deployment>({ apiVersion: 'apps/v1', kind: 'Deployment' }, 'default');
    await deployments.create(deployment('web', 2, 'web:1'));
    await waitInPage(page, 'web complete at 2/2', errors, `${rolloutCell('default/web', 'ready', '2/2')} && ${rolloutCell('default/web', 'phase', 'complete')}`);

    // Scaled to 4: the rollout row and the pods per node follow.
    await deployments.patch('web', { spec: { replicas: 4 } });
    await waitInPage(page, 'web complete at 4/4', errors, `${rolloutCell('default/web', 'ready', '4/4')} && ${rolloutCell('default/web', 'phase', 'complete')}`);
    await waitInPage(
      page, 'five Running pods over the two nodes', errors,
      `[...document.querySelectorAll('#nodes td[data-phase="Running"]')].reduce((n, td) => n + Number(td.textContent), 0) === 5`,
    );

    // A new template: revision 2 rolls out, the old ReplicaSet goes to 0.
    await deployments.patch('web', { spec: { template: { spec: { containers: [{ name: 'main', image: 'web:2' }] } } } }, 'strategic');
    await waitInPage(page, 'web at revision 2, complete', errors, `${rolloutCell('default/web', 'revision', '2')} && ${rolloutCell('default/web', 'old', '0')} && ${rolloutCell('default/web', 'phase', 'complete')}`);

    // The pod leaves node-a.
    await pods.delete('probe', { gracePeriodSeconds: 0 });
    await waitInPage(page, 'the probe pod gone from node-a', errors, `!document.querySelector('tr[data-node="node-a"] td.pods')?.textContent?.includes('probe')`);

    await screenshot(page, 'live-dashboard');
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('reads another origin\'s API server through CORS, with a bearer token from the fragment', async () => {
    const d = dashboard as LiveDashboard;
    const pageOrigin = new URL(d.url).origin;
    const token = 'browser-test-token';
    const other: ApiServer = await startApiServer({ token, cors: { origins: [pageOrigin] } });
    const page = await (browser as Browser).newPage();
    const errors = collectPageErrors(page);
    try {
      expect(new URL(other.url).origin).not.toBe(pageOrigin);
      await other.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'far-node' } });
      await page.goto(`${d.url}?api=${encodeURIComponent(other.url)}#token=${token}`, { waitUntil: 'load' });
      await waitInPage(page, 'the live status against the other server', errors, live);
      await waitInPage(page, 'far-node', errors, nodeCell('far-node', 'Pending', 0));
      await other.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'far-pod', namespace: 'default' }, spec: { nodeName: 'far-node', containers: [{ name: 'c', image: 'busybox' }] } });
      await waitInPage(page, 'far-pod Pending on far-node', errors, nodeCell('far-node', 'Pending', 1));
      // The page's lists and watches went to the other server (which refuses requests without the token).
      const watches = other.requests.all().filter((r) => r.watch);
      expect(watches.length).toBeGreaterThan(0);
      // The embedded dashboard's own nodes are not shown: the page reads only the other server.
      expect(await cellText(page, 'node', 'node-a', 'phase', 'Running')).toBeUndefined();
      await screenshot(page, 'live-dashboard-cors');
      expect(errors).toEqual([]);
    } finally {
      await page.close();
      await other.close();
    }
  }, 120_000);

  it('shows why when the API server does not allow the page\'s origin (CORS is off by default)', async () => {
    const d = dashboard as LiveDashboard;
    const closed: ApiServer = await startApiServer();
    const page = await (browser as Browser).newPage();
    collectPageErrors(page);
    try {
      await page.goto(`${d.url}?api=${encodeURIComponent(closed.url)}`, { waitUntil: 'load' });
      await waitInPage(page, 'the error status', [], `document.getElementById('status')?.dataset.state === 'error'`);
      expect(await page.evaluate(`document.getElementById('status').textContent`)).toMatch(/nodes|pods|deployments|replicasets/i);
      expect(await cellText(page, 'node', 'node-a', 'phase', 'Running')).toBeUndefined();
      await screenshot(page, 'live-dashboard-refused');
    } finally {
      await page.close();
      await closed.close();
    }
  }, 120_000);
});

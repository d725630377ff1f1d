// rxkube/browser must bundle for a browser: no Node.js builtin, no client-node, no free `Buffer`
// or `process` anywhere in its module graph (esbuild, platform 'browser'; see
// bench/support/browser-bundle.ts). Sizes are printed, not asserted (bench/browser-bundle.ts).
import { describe, expect, it } from 'vitest';
import { bundleForBrowser } from '../../bench/support/browser-bundle.js';

describe('browser bundle', () => {
  it('rxkube/browser bundles for the browser with nothing of Node.js', async () => {
    const bundle = await bundleForBrowser(`export * from './src/browser/index.ts';`);
    expect(bundle.inputs.some((f) => f.endsWith('src/client/fetch-connection.ts'))).toBe(true);
    expect(bundle.inputs.filter((f) => /kube-connection|client-node|require-node|lazy-module|kubeconfig/.test(f) && !f.endsWith('require-node.ts'))).toEqual([]);
    console.log(`rxkube/browser, everything: ${bundle.bytes} bytes minified, ${bundle.gzipBytes} gzipped`);
  });

  it('rxkube/operators bundles for the browser too', async () => {
    const bundle = await bundleForBrowser(`export * from './operators/index.ts';`);
    expect(bundle.bytes).toBeGreaterThan(0);
  });

  it('the check itself fails on a Node.js import anywhere in the graph', async () => {
    await expect(bundleForBrowser(`export { KubeClient } from './src/client/kube-client.ts';`)).rejects.toThrow(/Node\.js-only import/);
    await expect(bundleForBrowser(`import fs from 'fs'; export const f = fs;`)).rejects.toThrow(/Node\.js-only import "fs"/);
  });

  it('the check fails on a free Buffer', async () => {
    await expect(bundleForBrowser(`export const b = (x: string) => Buffer.from(x);`)).rejects.toThrow(/Buffer/);
  });
});

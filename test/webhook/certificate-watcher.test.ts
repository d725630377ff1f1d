/** The certificate files are polled on the scheduler (virtual time here): a change is picked up at the next poll, not before. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateTlsMaterial } from '../../packages/testkit/src/index.js';
import { noopLogger } from '../../src/logging/noop-logger.js';
import { loadCertificatePair, watchCertificates, type CertificatePair } from '../../src/webhook/certificate-watcher.js';
import { virtualTime } from '../manager/virtual-time.js';

describe('watchCertificates', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rxkube-cert-watch-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves the new pair at the first poll after the files changed, and not again', async () => {
    const [a, b] = await Promise.all([generateTlsMaterial(), generateTlsMaterial()]);
    const tls = { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key'), pollIntervalMs: 10_000 };
    writeFileSync(tls.certFile, a.cert);
    writeFileSync(tls.keyFile, a.key);
    const vt = virtualTime();
    const served: CertificatePair[] = [];
    const watch = watchCertificates(tls, await loadCertificatePair(tls), (p) => served.push(p), vt.scheduler, noopLogger);
    // The files change before the first poll is due (a poll reads them asynchronously: changing
    // them while one reads would race with it).
    writeFileSync(tls.certFile, b.cert);
    writeFileSync(tls.keyFile, b.key);
    await vt.advance(9_999);
    await new Promise((r) => setTimeout(r, 50));
    expect(served).toEqual([]); // no poll yet: the change is not seen before it
    await vt.advance(1);
    for (let i = 0; i < 200 && served.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(served).toEqual([{ cert: b.cert, key: b.key }]);
    await vt.advance(20_000); // two more polls find the files as served
    await new Promise((r) => setTimeout(r, 50));
    expect(served).toHaveLength(1);
    watch?.unsubscribe();
  });

  it('does not watch a pair given in memory', async () => {
    const a = await generateTlsMaterial();
    expect(watchCertificates({ cert: a.cert, key: a.key }, a, () => undefined, virtualTime().scheduler, noopLogger)).toBeUndefined();
  });
});

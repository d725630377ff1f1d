import { readFile } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import type { SchedulerLike, Subscription } from 'rxjs';
import type { Logger } from '../logging/logger.js';
import { WebhookTlsError } from './webhook-errors.js';

/** A serving certificate (chain) and its private key, PEM. */
export interface CertificatePair {
  readonly cert: string;
  readonly key: string;
}

/**
 * Where the webhook server's certificate comes from: files (re-read when they change, as
 * cert-manager rotates them: `tls.crt` and `tls.key` of the mounted Secret), or PEM in memory
 * (a pair made for development, e.g. by the test kit).
 */
export type WebhookTlsOptions =
  | {
      readonly certFile: string;
      readonly keyFile: string;
      /** How often the files are compared with what is served. Default 10 000 ms. */
      readonly pollIntervalMs?: number;
    }
  | CertificatePair;

const DEFAULT_POLL_MS = 10_000;

/** Reads the pair, checks that the key matches the certificate, and says what is wrong otherwise. */
export async function loadCertificatePair(tls: WebhookTlsOptions): Promise<CertificatePair> {
  const source = 'certFile' in tls ? `${tls.certFile}, ${tls.keyFile}` : 'inline';
  let pair: CertificatePair;
  if ('certFile' in tls) {
    const read = async (file: string, what: string): Promise<string> => {
      try {
        return await readFile(file, 'utf8');
      } catch (err) {
        throw new WebhookTlsError(source, `cannot read the ${what} ${file}: ${(err as Error).message}`, { cause: err });
      }
    };
    pair = { cert: await read(tls.certFile, 'certificate'), key: await read(tls.keyFile, 'key') };
  } else pair = { cert: tls.cert, key: tls.key };
  try {
    createSecureContext(pair);
  } catch (err) {
    throw new WebhookTlsError(source, `unusable certificate or key: ${(err as Error).message}`, { cause: err });
  }
  return pair;
}

/**
 * Polls the certificate files on `scheduler` and calls `changed` with the new pair when either
 * file's content differs from the pair last served and the new pair is usable. A pair that is not
 * (cert-manager writes the two files one after the other; a key not matching yet) is logged once
 * and retried at the next poll; the old pair stays in use. A poll still reading when the next is
 * due is not overlapped. In-memory pairs are not watched. Unsubscribe to stop.
 */
export function watchCertificates(
  tls: WebhookTlsOptions,
  current: CertificatePair,
  changed: (pair: CertificatePair) => void,
  scheduler: SchedulerLike,
  logger: Logger,
): Subscription | undefined {
  if (!('certFile' in tls)) return undefined;
  const interval = tls.pollIntervalMs ?? DEFAULT_POLL_MS;
  let served = current;
  let busy = false;
  let lastProblem: string | undefined;
  let stopped = false;
  const poll = async (): Promise<void> => {
    try {
      const [cert, key] = await Promise.all([readFile(tls.certFile, 'utf8'), readFile(tls.keyFile, 'utf8')]);
      if (stopped || (cert === served.cert && key === served.key)) return;
      const next = await loadCertificatePair({ cert, key });
      if (stopped) return;
      served = next;
      lastProblem = undefined;
      changed(next);
      logger.info('serving certificate reloaded', { certFile: tls.certFile });
    } catch (err) {
      const problem = (err as Error).message;
      if (problem !== lastProblem) logger.warn('certificate files changed but cannot be used yet; keeping the served pair', { certFile: tls.certFile, keyFile: tls.keyFile, err });
      lastProblem = problem;
    }
  };
  const subscription = scheduler.schedule(function tick(this: { schedule(state?: undefined, delay?: number): void }) {
    if (!busy) {
      busy = true;
      void poll().finally(() => (busy = false));
    }
    this.schedule(undefined, interval);
  }, interval);
  subscription.add(() => (stopped = true));
  return subscription;
}

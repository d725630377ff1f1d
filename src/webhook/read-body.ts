import type { IncomingMessage } from 'node:http';

/** The body was longer than allowed. */
export class BodyLimitExceeded {
  constructor(readonly limitBytes: number) {}
}

/**
 * Reads a request body up to `limitBytes`: resolves with the text, resolves with
 * {@link BodyLimitExceeded} as soon as more arrives (without buffering the rest; the caller
 * answers and closes), rejects when the stream fails or is aborted.
 */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<string | BodyLimitExceeded> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limitBytes) {
      resolve(new BodyLimitExceeded(limitBytes));
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limitBytes) {
        cleanup();
        req.resume();
        resolve(new BodyLimitExceeded(limitBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    const onAborted = (): void => onError(new Error('request aborted by the client'));
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}

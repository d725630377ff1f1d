import type { ServerResponse } from 'node:http';
import { encodeWatchFrame } from './codec.js';
import { protobufWanted } from './negotiation.js';

/** The Content-Type of a protobuf watch stream. */
export const PROTOBUF_WATCH = 'application/vnd.kubernetes.protobuf;stream=watch';

/**
 * For a client that asked for protobuf, a view of the response that turns the watch hub's JSON
 * lines into length-prefixed `WatchEvent` frames (kube-apiserver's protobuf watch stream); the
 * response itself otherwise. The hub keeps writing JSON (its fast path for JSON clients).
 * Kinds without a protobuf message (custom resources) stay JSON.
 */
export function watchResponse(res: ServerResponse, kindHasMessage: boolean): { res: ServerResponse; contentType: string } {
  if (protobufWanted(res) === undefined || !kindHasMessage) return { res, contentType: 'application/json' };
  let pending = '';
  const write = (chunk: string | Buffer): boolean => {
    pending += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    const frames: Buffer[] = [];
    for (let i = pending.indexOf('\n'); i >= 0; i = pending.indexOf('\n')) {
      const line = pending.slice(0, i);
      pending = pending.slice(i + 1);
      if (line.trim() === '') continue;
      const ev = JSON.parse(line) as { type: string; object: Record<string, unknown> };
      const frame = encodeWatchFrame(ev.type, ev.object);
      if (frame !== undefined) frames.push(frame);
    }
    return frames.length === 0 ? true : res.write(Buffer.concat(frames));
  };
  const view = new Proxy(res, {
    get(target, prop) {
      if (prop === 'write') return write;
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === 'function' ? (v as (...args: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { res: view, contentType: PROTOBUF_WATCH };
}

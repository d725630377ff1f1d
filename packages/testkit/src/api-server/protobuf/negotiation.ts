import type { ServerResponse } from 'node:http';
import { encodeObject } from './codec.js';

/** The protobuf media type of Kubernetes. */
export const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** How a response's client asked for protobuf: preferred (JSON acceptable too) or only protobuf. */
type Wanted = 'prefer' | 'only';
const wanted = new WeakMap<ServerResponse, Wanted>();

/**
 * Reads the Accept header as kube-apiserver's negotiation does for objects: protobuf when the first
 * acceptable media type is `application/vnd.kubernetes.protobuf` (Table requests stay JSON).
 */
export function negotiate(res: ServerResponse, accept: string | undefined): void {
  if (accept === undefined || !accept.includes(PROTOBUF)) return;
  const types = accept.split(',').map((t) => t.trim().toLowerCase()).filter((t) => t !== '');
  const first = types[0] ?? '';
  if (!first.startsWith(PROTOBUF) || first.includes('as=')) return;
  const only = types.every((t) => t.startsWith(PROTOBUF));
  wanted.set(res, only ? 'only' : 'prefer');
}

/** Whether the response should be protobuf. */
export function protobufWanted(res: ServerResponse): Wanted | undefined {
  return wanted.get(res);
}

/** The protobuf body of an object about to be sent as JSON, when the client asked for it and the kind has a message. */
export function protobufBody(res: ServerResponse, body: string | object): Buffer | undefined {
  if (!wanted.has(res)) return undefined;
  const obj = (typeof body === 'string' ? JSON.parse(body) : body) as Record<string, unknown>;
  return encodeObject(obj);
}

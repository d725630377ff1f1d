import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeObject, ProtobufDecodeError } from './protobuf/codec.js';
import { protobufBody, PROTOBUF } from './protobuf/negotiation.js';
import { MAX_BODY_DEPTH, opensAtMost, tooDeepAt } from './json-depth.js';
import { badRequest, StatusError, tooLarge } from './status-error.js';

/** Writes a JSON body (a string is sent as is: stored objects are already serialized). */
export function sendJson(res: ServerResponse, code: number, body: string | object, headers: Record<string, string> = {}): void {
  // A client that asked for protobuf gets it for every kind the emulated version has a message for.
  const pb = protobufBody(res, body);
  if (pb !== undefined) {
    res.writeHead(code, { 'Content-Type': PROTOBUF, 'Content-Length': pb.length, ...headers });
    res.end(pb);
    return;
  }
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Writes a Status error (or drops the connection when a response already started). */
export function sendStatus(res: ServerResponse, err: StatusError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, err.status.code, err.status, { ...err.headers });
}

/** `true` or `1`, as kube-apiserver reads boolean query parameters. */
export function isTrue(v: string | null): boolean {
  return v === 'true' || v === '1';
}

/** Reads a request body up to `max` bytes (413 beyond). */
export function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? '0');
    if (declared > max) {
      req.resume();
      reject(tooLarge(max));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > max) {
        failed = true;
        reject(tooLarge(max));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
    req.on('close', () => {
      // The client went away before the body was complete: nothing to answer.
      if (!req.complete && !failed) {
        failed = true;
        reject(badRequest('the client closed the connection before the request body was complete'));
      }
    });
    req.on('error', (e) => {
      if (!failed) reject(e);
    });
  });
}

/** Parses a JSON body; malformed or empty JSON is a 400 like kube-apiserver's decoder error. */
export function parseJsonBody(buf: Buffer, r: { readonly kind: string } | undefined): unknown {
  const text = buf.toString('utf8');
  if (text.trim() === '') throw badRequest(`the object provided is unrecognized (must be of type ${r?.kind ?? 'object'}): couldn't get version/kind; json parse error: unexpected end of JSON input`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch (e) {
    const snippet = text.length > 30 ? `${text.slice(0, 30)} ...` : text;
    throw badRequest(`the object provided is unrecognized (must be of type ${r?.kind ?? 'object'}): couldn't get version/kind; json parse error: ${(e as Error).message} (${snippet})`);
  }
  // Most bodies open fewer objects and arrays than the limit in all: no need to walk the parsed value.
  const deep = opensAtMost(text, MAX_BODY_DEPTH) ? undefined : tooDeepAt(parsed, MAX_BODY_DEPTH);
  if (deep !== undefined) throw tooDeep(r, deep, text.length > 30 ? `${text.slice(0, 30)} ...` : text);
  return parsed;
}

/**
 * 400 for a body nested deeper than {@link MAX_BODY_DEPTH}, worded as kube-apiserver's decoder words
 * its own limit: the character that opened the level too many, and the start of the body.
 */
export function tooDeep(r: { readonly kind: string } | undefined, opening: '{' | '[', snippet: string | undefined): StatusError {
  return badRequest(`the object provided is unrecognized (must be of type ${r?.kind ?? 'object'}): couldn't get version/kind; json parse error: invalid character '${opening}' exceeded max depth${snippet !== undefined ? ` (${snippet})` : ''}`);
}

/** Parses a JSON or Kubernetes protobuf (`application/vnd.kubernetes.protobuf`) request body. */
export function parseBody(buf: Buffer, contentType: string, r: { readonly kind: string } | undefined): unknown {
  if (contentType !== PROTOBUF) return parseJsonBody(buf, r);
  let decoded: unknown;
  try {
    decoded = decodeObject(buf);
  } catch (e) {
    if (e instanceof ProtobufDecodeError) throw badRequest(`the object provided is unrecognized (must be of type ${r?.kind ?? 'object'}): ${e.message}`);
    throw e;
  }
  const deep = tooDeepAt(decoded, MAX_BODY_DEPTH);
  if (deep !== undefined) throw tooDeep(r, deep, undefined);
  return decoded;
}

/** An optional integer query parameter (400 when not an integer). */
export function optionalInt(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw badRequest(`invalid ${name}: ${v}`);
  return Number(v);
}

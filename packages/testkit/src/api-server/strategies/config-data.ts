/**
 * ConfigMaps and Secrets: their `data` (and `binaryData`, `stringData`) are maps of strings, which
 * the decoder checks (`data: {"a": 5}` is a 400, as kube-apiserver's typed decode answers; `[]byte`
 * values must be base64).
 */
import { childObject, dflt, type Defaulter } from '../admission/defaults.js';
import { CONFIG_KEY, CONFIG_KEY_MSG, o, str, type Causes } from '../admission/field-rules.js';
import { sameJsonIgnoringKeyOrder } from '../json-equal.js';
import type { Validator } from '../admission/validation.js';
import type { TypedField } from '../field-types.js';
import { strategy } from './default.js';

type Obj = Record<string, unknown>;

function validateData(c: Causes, field: string, data: unknown): number {
  let size = 0;
  for (const [k, v] of Object.entries(o(data) ?? {})) {
    if (!CONFIG_KEY.test(k) || k.length > 253) c.invalidValue(`${field}[${k}]`, k, CONFIG_KEY_MSG);
    size += typeof v === 'string' ? v.length : 0;
  }
  return size;
}

function immutableData(c: Causes, obj: Obj, old: Obj | undefined, fields: readonly string[]): void {
  if (old === undefined) return;
  if (old['immutable'] === true) {
    for (const f of fields) if (!sameJsonIgnoringKeyOrder(obj[f] ?? {}, old[f] ?? {})) c.forbidden(f, 'field is immutable when `immutable` is set');
    if (obj['immutable'] !== true) c.forbidden('immutable', 'field is immutable when `immutable` is set');
  }
}

/** `ValidateSecret`: keys, size, the keys its type needs, immutability. */
const validateSecret: Validator = (c, secret, old) => {
  const size = validateData(c, 'data', secret['data']);
  if (size > 1024 * 1024 * 4 / 3) c.list.push({ reason: 'FieldValueTooLong', message: 'Too long: must have at most 1048576 bytes', field: 'data' });
  const data = o(secret['data']) ?? {};
  const type = str(secret['type']);
  const need = (key: string) => {
    if (data[key] === undefined) c.required(`data[${key}]`);
  };
  if (type === 'kubernetes.io/tls') {
    need('tls.crt');
    need('tls.key');
  } else if (type === 'kubernetes.io/dockerconfigjson') need('.dockerconfigjson');
  else if (type === 'kubernetes.io/dockercfg') need('.dockercfg');
  else if (type === 'kubernetes.io/service-account-token') {
    const ann = o(o(secret['metadata'])?.['annotations']) ?? {};
    if (str(ann['kubernetes.io/service-account.name']) === '') c.required('metadata.annotations[kubernetes.io/service-account.name]');
  }
  if (old !== undefined && old['type'] !== secret['type']) c.immutable('type', secret['type'] ?? '');
  immutableData(c, secret, old, ['data']);
};

/** A config map: data keys, and immutability. */
const validateConfigMap: Validator = (c, obj, old) => {
  validateData(c, 'data', obj['data']);
  validateData(c, 'binaryData', obj['binaryData']);
  immutableData(c, obj, old, ['data', 'binaryData']);
};

/** A secret: type Opaque, `stringData` encoded into `data`. */
const defaultSecret: Defaulter = (o) => {
  dflt(o, 'type', 'Opaque');
  const sd = o['stringData'];
  if (sd !== null && typeof sd === 'object') {
    const data = childObject(o, 'data');
    for (const [k, v] of Object.entries(sd as Obj)) data[k] = Buffer.from(String(v)).toString('base64');
  }
  delete o['stringData'];
};

const CONFIG_MAP_FIELDS: readonly TypedField[] = [
  { key: 'data', goName: 'Data', type: 'stringMap' },
  { key: 'binaryData', goName: 'BinaryData', type: 'bytesMap' },
  { key: 'immutable', goName: 'Immutable', type: 'boolean' },
];

const SECRET_FIELDS: readonly TypedField[] = [
  { key: 'data', goName: 'Data', type: 'bytesMap' },
  { key: 'stringData', goName: 'StringData', type: 'stringMap' },
  { key: 'type', goName: 'Type', type: 'string' },
  { key: 'immutable', goName: 'Immutable', type: 'boolean' },
];

/** The config map strategy (core/v1 configmaps). */
export const CONFIG_MAP_STRATEGY = strategy({ typedFields: CONFIG_MAP_FIELDS, validate: validateConfigMap });

/** The secret strategy (core/v1 secrets). */
export const SECRET_STRATEGY = strategy({ typedFields: SECRET_FIELDS, defaults: defaultSecret, validate: validateSecret });

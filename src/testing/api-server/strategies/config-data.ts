/**
 * ConfigMaps and Secrets: their `data` (and `binaryData`, `stringData`) are maps of strings, which
 * the decoder checks (`data: {"a": 5}` is a 400, as kube-apiserver's typed decode answers).
 */
import { defaultSecret } from '../admission/defaults.js';
import { validateConfigMap, validateSecretObject } from '../admission/validation.js';
import type { TypedField } from '../field-types.js';
import { strategy } from './default.js';

const CONFIG_MAP_FIELDS: readonly TypedField[] = [
  { key: 'data', goName: 'Data', type: 'stringMap' },
  { key: 'binaryData', goName: 'BinaryData', type: 'stringMap' },
  { key: 'immutable', goName: 'Immutable', type: 'boolean' },
];

const SECRET_FIELDS: readonly TypedField[] = [
  { key: 'data', goName: 'Data', type: 'stringMap' },
  { key: 'stringData', goName: 'StringData', type: 'stringMap' },
  { key: 'type', goName: 'Type', type: 'string' },
  { key: 'immutable', goName: 'Immutable', type: 'boolean' },
];

/** The config map strategy (core/v1 configmaps). */
export const CONFIG_MAP_STRATEGY = strategy({ typedFields: CONFIG_MAP_FIELDS, validate: validateConfigMap });

/** The secret strategy (core/v1 secrets). */
export const SECRET_STRATEGY = strategy({ typedFields: SECRET_FIELDS, defaults: defaultSecret, validate: validateSecretObject });

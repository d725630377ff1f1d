import { afterEach, describe, expect, it } from 'vitest';
import { forgetSecrets, MAX_KNOWN_SECRETS, redactedExcerpt, redactSecrets, redactSecretsDeep, rememberSecret } from '../../src/logging/known-secrets.js';
import { jsonLogger } from '../../src/logging/json-logger.js';
import { textLogger } from '../../src/logging/text-logger.js';

const TOKEN = 'sa-token-7c1d9e2f';

afterEach(() => forgetSecrets());

describe('known secrets', () => {
  it('masks a bare token in every log line once the client uses it (pattern redaction alone misses it)', () => {
    rememberSecret(TOKEN);
    const lines: string[] = [];
    const json = jsonLogger({ write: (l) => lines.push(l) });
    const text = textLogger({ write: (l) => lines.push(l) });
    for (const log of [json, text]) {
      log.info(`server said ${TOKEN}`, { detail: `x${TOKEN}y`, nested: { list: [TOKEN] }, err: new Error(`bad ${TOKEN}`), [TOKEN]: 1 });
    }
    expect(lines.join('')).not.toContain(TOKEN);
    expect(lines.join('')).toContain('[REDACTED]');
  });

  it('masks before cutting an excerpt, so a token across the cut leaves no prefix', () => {
    rememberSecret(TOKEN);
    const text = `${'x'.repeat(75)}${TOKEN}${'y'.repeat(100)}`;
    const excerpt = redactedExcerpt(text, 80);
    expect(excerpt).not.toContain(TOKEN.slice(0, 5));
    expect(excerpt.endsWith('…')).toBe(true);
  });

  it('keeps values untouched when nothing matches, and copies only what changed', () => {
    rememberSecret(TOKEN);
    const clean = { a: ['b', { c: 'd' }] };
    expect(redactSecretsDeep(clean)).toBe(clean);
    expect(redactSecretsDeep({ a: [`${TOKEN}`] })).toEqual({ a: ['[REDACTED]'] });
  });

  it('is bounded: the least recently used value is forgotten', () => {
    rememberSecret(TOKEN);
    for (let i = 0; i < MAX_KNOWN_SECRETS; i++) rememberSecret(`other-secret-${i}`);
    expect(redactSecrets(TOKEN)).toBe(TOKEN);
    expect(redactSecrets('other-secret-5')).toBe('[REDACTED]');
  });
});

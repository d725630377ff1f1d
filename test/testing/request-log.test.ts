import { describe, expect, it } from 'vitest';
import { RequestLog } from '../../src/testing/api-server/request-log.js';

describe('RequestLog', () => {
  it('counts by method, path (exact or RegExp), watch and resource', () => {
    const log = new RequestLog();
    log.record('GET', '/api/v1/pods', '?watch=1', true, '/pods');
    log.record('GET', '/api/v1/pods', '', false, '/pods');
    log.record('POST', '/api/v1/namespaces/a/configmaps', '', false, '/configmaps');
    expect(log.count()).toBe(3);
    expect(log.count({ method: 'get' })).toBe(2);
    expect(log.count({ watch: true, resourceId: '/pods' })).toBe(1);
    expect(log.count({ path: /configmaps$/ })).toBe(1);
    expect(log.count({ path: '/api/v1/pods' })).toBe(2);
    log.clear();
    expect(log.all()).toEqual([]);
  });

  it('keeps only the newest records beyond its limit', () => {
    const log = new RequestLog(10);
    for (let i = 0; i < 100; i++) log.record('GET', `/p${i}`, '', false, undefined);
    const all = log.all();
    expect(all.length).toBeGreaterThanOrEqual(10);
    expect(all.length).toBeLessThanOrEqual(13);
    expect(all[all.length - 1]?.path).toBe('/p99');
  });
});

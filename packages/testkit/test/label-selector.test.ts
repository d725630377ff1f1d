import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileLabelSelector, LabelSelectorError } from 'rxkube/api';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient } from './helpers.js';
import { parseFieldSelector, COMMON_FIELDS } from '../src/api-server/field-selector.js';
import { requestLabelSelector } from '../src/api-server/request-selectors.js';
import { StatusError } from '../src/api-server/status-error.js';

describe('label selector', () => {
  const l = { app: 'web', tier: 'front', 'example.com/x': '5' };
  const cases: [string, boolean][] = [
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app=db', false],
    ['app!=db', true],
    ['missing!=x', true],
    ['app in (web,db)', true],
    ['app in (db)', false],
    ['app notin (db)', true],
    ['missing notin (db)', true],
    ['app', true],
    ['!app', false],
    ['!missing', true],
    ['example.com/x', true],
    ['example.com/x>3', true],
    ['example.com/x<3', false],
    ['app=web,tier=back', false],
    ['app=web, tier in (front, back)', true],
    ['missing=', false],
    ['app in ()', false],
    ['missing notin ()', true],
  ];
  for (const [sel, want] of cases) {
    it(`"${sel}" → ${want}`, () => expect(requestLabelSelector(sel).matches(l)).toBe(want));
  }
  for (const bad of ['a in (b', 'x>5.0', '=b', '-a=b', 'a=b c', 'a==b==c', 'a>b', 'a)']) {
    it(`"${bad}" is a 400 BadRequest`, () => {
      try {
        requestLabelSelector(bad);
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(StatusError);
        expect((e as StatusError).status).toMatchObject({ code: 400, reason: 'BadRequest' });
      }
    });
  }
});

describe('label selector: the embedded server over HTTP agrees with the client matcher', () => {
  let server: ApiServer;
  let call: ReturnType<typeof makeClient>;
  const cms = '/api/v1/namespaces/default/configmaps';
  const values = ['5', '5.0', '1e0', '+5', '05', '-0', '-5', '', '3', '9223372036854775807', '9223372036854775808', 'a'];
  const labelSets: Record<string, string>[] = [{}, ...values.map((x) => ({ x })), { y: 'a' }];

  beforeAll(async () => {
    // Lenient: label values such as '+5' and '-5' are a 422 on a cluster, but they probe how the
    // server's selector parses numbers (as Go's strconv), which the client matcher must copy.
    server = await startApiServer({ strict: false });
    call = makeClient(server.url);
    server.seed(labelSets.map((labels, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm${String(i).padStart(2, '0')}`, namespace: 'default', labels } })));
  });
  afterAll(() => server.close());

  const selectors = [
    'x>3', 'x<3', 'x>4', 'x<6', 'x>05', 'x<1', 'x>0', 'x notin ()', 'x in ()', 'x in (5,5.0)', 'x notin (5,,a)', 'x=05', 'x!=5.0', 'x', '!x', 'x,y', '',
    'x>5.0', 'x>+5', 'x>-1', 'x>1e0', 'x>9223372036854775808', 'x in (a', 'x=+5',
  ];
  for (const sel of selectors) {
    it(`${JSON.stringify(sel)}: same objects, or a 400 exactly when the client rejects it`, async () => {
      const r = await call('GET', `${cms}?labelSelector=${encodeURIComponent(sel)}`);
      let client: ReturnType<typeof compileLabelSelector> | undefined;
      try {
        client = compileLabelSelector(sel);
      } catch (e) {
        expect(e).toBeInstanceOf(LabelSelectorError);
      }
      if (client === undefined) {
        expect([r.status, r.body.reason]).toEqual([400, 'BadRequest']);
        return;
      }
      expect(r.status).toBe(200);
      const want = labelSets.flatMap((labels, i) => (client(labels) ? [`cm${String(i).padStart(2, '0')}`] : []));
      expect(r.body.items.map((o: { metadata: { name: string } }) => o.metadata.name)).toEqual(want);
    });
  }

  it('regressions over HTTP: x>3 skips 5.0 and 1e0 but takes +5 and 05; x notin () skips only x=""', async () => {
    const names = async (sel: string): Promise<string[]> =>
      (await call('GET', `${cms}?labelSelector=${encodeURIComponent(sel)}`)).body.items.map((o: { metadata: { labels?: Record<string, string> } }) => o.metadata.labels?.['x'] ?? '-');
    expect(await names('x>3')).toEqual(['5', '+5', '05', '9223372036854775807']);
    expect(await names('x notin ()')).toEqual(['-', ...values.filter((v) => v !== ''), '-']);
  });
});

describe('field selector', () => {
  it('=, ==, != on supported fields; unknown fields are 400', () => {
    const o = { metadata: { name: 'a', namespace: 'n' } };
    expect(parseFieldSelector('metadata.name=a', COMMON_FIELDS).matches(o)).toBe(true);
    expect(parseFieldSelector('metadata.name==a,metadata.namespace!=n', COMMON_FIELDS).matches(o)).toBe(false);
    expect(parseFieldSelector('metadata.namespace!=x', COMMON_FIELDS).matches(o)).toBe(true);
    expect(() => parseFieldSelector('spec.x=1', COMMON_FIELDS)).toThrow(StatusError);
    expect(() => parseFieldSelector('garbage', COMMON_FIELDS)).toThrow(StatusError);
  });
});

/**
 * Pipelined paging over a transport with `listParts`: page N+1 is requested when page N's head
 * (continue token) arrives, within `pagesInFlight`; pages are assembled in order.
 */
import { Observable, VirtualAction, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { ListOptions, ListPage } from '../../src/api/list-watcher.js';
import type { ListPagePart, ListPartsOptions, PipelinedListWatcher } from '../../src/client/list-parts.js';
import { ResponseDecodeError } from '../../src/client/response-decode-error.js';
import { type AssembledList, ListTimeoutError, listPages } from '../../src/reflector/list-pages.js';
import { apiError, expired, obj } from './fake-list-watcher.js';

/** A scripted page: its head after `headAt` ms, the page after `pageAt` ms (both from the request). */
interface Script {
  readonly items: KubeObject[];
  readonly continue?: string;
  /** Token the head announces, when it differs from the page's (default: the page's). */
  readonly headContinue?: string;
  readonly headAt?: number;
  readonly pageAt: number;
  readonly error?: unknown;
  /** The body delivered unparsed, when not the page's JSON. */
  readonly raw?: string;
}

interface Call {
  readonly options: ListOptions;
  readonly how: ListPartsOptions;
  readonly at: number;
  unsubscribedAt?: number;
}

/** A PipelinedListWatcher whose pages are keyed by the request's continue token ('' = first). */
function transport(scheduler: VirtualTimeScheduler, pages: Record<string, Script>, rv = '10') {
  const calls: Call[] = [];
  const parts = (options: ListOptions, how: ListPartsOptions = {}): Observable<ListPagePart> =>
    new Observable<ListPagePart>((sub) => {
      const call: Call = { options, how, at: scheduler.now() };
      calls.push(call);
      const s = pages[options.continue ?? ''];
      if (s === undefined) {
        sub.error(new Error(`no page for ${options.continue}`));
        return undefined;
      }
      const page: ListPage = { items: s.items, resourceVersion: rv, ...(s.continue !== undefined ? { continue: s.continue } : {}) };
      const headToken = s.headContinue ?? s.continue;
      let ended = false;
      const timers = [
        ...(s.headAt !== undefined ? [scheduler.schedule(() => sub.next({ type: 'head', resourceVersion: rv, ...(headToken !== undefined ? { continue: headToken } : {}) }), s.headAt)] : []),
        scheduler.schedule(() => {
          ended = true;
          if (s.error !== undefined) return sub.error(s.error);
          if (how.unparsed === true && how.decode === undefined && s.headAt !== undefined) {
            const body = s.raw ?? JSON.stringify({ kind: 'List', metadata: { resourceVersion: rv, continue: s.continue }, items: s.items });
            sub.next({ type: 'body', body: Buffer.from(body), path: '/api/v1/configmaps' });
          } else sub.next({ type: 'page', page });
          sub.complete();
        }, s.pageAt),
      ];
      return () => {
        if (!ended) call.unsubscribedAt = scheduler.now();
        timers.forEach((t) => t.unsubscribe());
      };
    });
  const lw: PipelinedListWatcher = {
    listParts: parts,
    list: (options) =>
      new Observable<ListPage>((sub) =>
        parts(options).subscribe({ next: (p) => (p.type === 'page' ? sub.next(p.page) : undefined), error: (e: unknown) => sub.error(e), complete: () => sub.complete() }),
      ),
    watch: () => new Observable(),
  };
  return { lw, calls };
}

/** The scheduler of the latest `run`. */
let clock: VirtualTimeScheduler | undefined;

function run(pages: Record<string, Script>, options: Parameters<typeof listPages>[2] = {}, until = 100_000) {
  const scheduler = new VirtualTimeScheduler(VirtualAction, Number.POSITIVE_INFINITY);
  clock = scheduler;
  const { lw, calls } = transport(scheduler, pages);
  let result: AssembledList | undefined;
  let error: unknown;
  let doneAt: number | undefined;
  const sub = listPages(lw, { resourceVersion: '0', limit: 2 }, { scheduler, ...options }).subscribe({
    next: (r) => {
      result = r;
      doneAt = scheduler.now();
    },
    error: (e: unknown) => {
      error = e;
      doneAt = scheduler.now();
    },
  });
  scheduler.schedule(() => sub.unsubscribe(), until);
  scheduler.flush();
  return { result, error, doneAt, calls };
}

const three: Record<string, Script> = {
  '': { items: [obj('a', '1'), obj('b', '1')], continue: 'c1', headAt: 5, pageAt: 100 },
  c1: { items: [obj('c', '1'), obj('d', '1')], continue: 'c2', headAt: 5, pageAt: 100 },
  c2: { items: [obj('e', '1')], headAt: 5, pageAt: 100 },
};

describe('listPages, pipelined', () => {
  it('requests page N+1 when page N\'s head arrives and assembles the pages in order', () => {
    const r = run(three);
    expect(r.result?.items.map((o) => o.metadata?.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(r.result).toMatchObject({ resourceVersion: '10', paginated: true, pages: 3 });
    // page 2 at the first head (5 ms); page 3 once page 2's head is in and page 1 done (in flight ≤ 2)
    expect(r.calls.map((c) => [c.at, c.options.continue ?? '', c.options.resourceVersion])).toEqual([
      [0, '', '0'],
      [5, 'c1', undefined],
      [100, 'c2', undefined],
    ]);
    expect(r.doneAt).toBe(200);
  });

  it('pagesInFlight: 3 requests further ahead; 1 is strictly sequential', () => {
    const wide = run(three, { pagesInFlight: 3 });
    expect(wide.calls.map((c) => c.at)).toEqual([0, 5, 10]);
    expect(wide.doneAt).toBe(110);
    expect(wide.result?.items).toHaveLength(5);
    const one = run(three, { pagesInFlight: 1 });
    expect(one.calls.map((c) => c.at)).toEqual([0, 100, 200]);
    expect(one.result?.items).toHaveLength(5);
  });

  it('a later page arriving first waits for the earlier ones', () => {
    const r = run({ ...three, '': { ...three['']!, pageAt: 300 }, c1: { ...three.c1!, pageAt: 20 } }, { pagesInFlight: 3 });
    expect(r.result?.items.map((o) => o.metadata?.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(r.doneAt).toBe(300);
  });

  it('a single page is not paginated; without heads it falls back to page-by-page', () => {
    const single = run({ '': { items: [obj('a', '1')], headAt: 1, pageAt: 10 } });
    expect(single.result).toEqual({ items: [obj('a', '1')], resourceVersion: '10', paginated: false, pages: 1 });
    const headless = run({ '': { items: [obj('a', '1')], continue: 'c1', pageAt: 10 }, c1: { items: [obj('b', '1')], pageAt: 10 } });
    expect(headless.calls.map((c) => c.at)).toEqual([0, 10]);
    expect(headless.result?.items).toHaveLength(2);
  });

  it('when the page carries another token than its head, what was requested on the head is dropped', () => {
    const r = run({
      '': { items: [obj('a', '1')], continue: 'real', headContinue: 'bogus', headAt: 1, pageAt: 50 },
      bogus: { items: [obj('x', '1')], pageAt: 500 },
      real: { items: [obj('b', '1')], headAt: 1, pageAt: 50 },
    }, { parse: 'perPage' });
    expect(r.calls.map((c) => [c.at, c.options.continue ?? '', c.unsubscribedAt])).toEqual([
      [0, '', undefined],
      [1, 'bogus', 50],
      [50, 'real', undefined],
    ]);
    expect(r.result?.items.map((o) => o.metadata?.name)).toEqual(['a', 'b']);
  });

  it('an error fails the list and aborts the other requests; Expired on a later page retries one full list', () => {
    const failing = run({ ...three, c1: { ...three.c1!, error: apiError(500, 'InternalError'), pageAt: 50 } }, { pagesInFlight: 3 });
    expect((failing.error as { statusCode?: number }).statusCode).toBe(500);
    expect(failing.calls[0]?.unsubscribedAt).toBe(55); // page 2 was requested at 5 and failed 50 ms later
    const expiredLater = run({ ...three, c2: { ...three.c2!, error: expired() } });
    // the full list has no continue and no limit: keyed '' again in this transport → the first page's script
    expect(expiredLater.calls.at(-1)?.options).toEqual({ resourceVersion: '0' });
    expect(expiredLater.result?.paginated).toBe(true);
    const expiredFirst = run({ '': { items: [], error: expired(), pageAt: 1 } });
    expect(expiredFirst.error).toMatchObject({ reason: 'Expired' });
  });

  it('times out a request that delivers nothing within pageTimeoutMs', () => {
    const r = run({ ...three, c1: { ...three.c1!, headAt: undefined, pageAt: 10_000 } }, { pageTimeoutMs: 1_000 });
    expect(r.error).toBeInstanceOf(ListTimeoutError);
    expect(r.doneAt).toBe(1_005);
  });

  it('unsubscribing aborts every request in flight', () => {
    const r = run(three, { pagesInFlight: 3 }, 50);
    expect(r.calls.map((c) => c.unsubscribedAt)).toEqual([50, 50, 50]);
    expect(r.result).toBeUndefined();
  });

  it("parse 'auto' (the default) asks for bodies unparsed and, within the budget, parses them together, in order, when the last is in", () => {
    const r = run(three);
    expect(r.result?.items.map((o) => o.metadata?.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    const headless = run({ '': { items: [obj('a', '1')], continue: 'c1', pageAt: 10 }, c1: { items: [obj('b', '1')], headAt: 1, pageAt: 10 } });
    expect(headless.result?.items.map((o) => o.metadata?.name)).toEqual(['a', 'b']); // a parsed page and a body, mixed
    const broken = run({ ...three, c1: { ...three.c1!, raw: '{"items":[' } });
    expect(broken.error).toBeInstanceOf(ResponseDecodeError);
    const moved = run({ ...three, '': { ...three['']!, headContinue: 'c9' }, c9: { items: [], headAt: 1, pageAt: 1 } });
    expect(String(moved.error)).toMatch(/continue token differs/);
    const perPage = run(three, { parse: 'perPage' });
    expect(perPage.result).toEqual(r.result);
    expect(r.calls.map((c) => c.how)).toEqual([{ unparsed: true }, { unparsed: true }, { unparsed: true }]);
    expect(perPage.calls.map((c) => c.how)).toEqual([{}, {}, {}]);
    const atEnd = run(three, { parse: 'atEnd', memoryBudget: 1 });
    expect(atEnd.calls.map((c) => c.how)).toEqual([{ unparsed: true }, { unparsed: true }, { unparsed: true }]);
    expect(atEnd.result).toEqual(r.result);
  });

  it("parse 'auto': a body that takes the kept bytes past memoryBudget has the kept bodies parsed at once; later pages are parsed item by item", () => {
    const bytes = (s: Script) => Buffer.byteLength(JSON.stringify({ kind: 'List', metadata: { resourceVersion: '10', continue: s.continue }, items: s.items }));
    const first = bytes(three['']!);
    // page 1's body alone is past the budget (at 100): parsed at once; page 2 was requested
    // before (at page 1's head), page 3 after it
    const r = run(three, { memoryBudget: first - 1 });
    expect(r.result?.items.map((o) => o.metadata?.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(r.result).toMatchObject({ resourceVersion: '10', paginated: true, pages: 3 });
    expect(r.calls.map((c) => c.how)).toEqual([{ unparsed: true }, { unparsed: true }, { decode: 'items' }]);
    // room for page 1 only: page 2's body (at 105) takes the kept bytes past the budget, and the
    // kept bodies are parsed then (here failing on page 2's), not when the last page is in (200)
    const broken = run({ ...three, c1: { ...three.c1!, raw: '{"items":[' } }, { memoryBudget: first + 1 });
    expect(broken.error).toBeInstanceOf(ResponseDecodeError);
    expect(broken.doneAt).toBe(105);
    expect(broken.calls[2]?.unsubscribedAt).toBe(105);
    const within = run({ ...three, c1: { ...three.c1!, raw: '{"items":[' } });
    expect(within.doneAt).toBe(200);
  });

  it('mapItem runs on each page as soon as it is parsed; an item it throws on is kept as it was', () => {
    const mappedAt: string[] = [];
    const spy = (o: KubeObject): KubeObject => {
      mappedAt.push(`${o.metadata?.name}@${clock?.now()}`);
      if (o.metadata?.name === 'c') throw new Error('no c');
      return { ...o, kind: 'Mapped' };
    };
    const items = run(three, { parse: 'items', mapItem: spy });
    expect(items.result?.items.map((o) => `${o.metadata?.name}:${o.kind ?? ''}`)).toEqual(['a:Mapped', 'b:Mapped', 'c:ConfigMap', 'd:Mapped', 'e:Mapped']);
    // pages end at 100 (page 1), 105 (page 2, requested at page 1's head) and 200 (page 3)
    expect(mappedAt).toEqual(['a@100', 'b@100', 'c@105', 'd@105', 'e@200']);
    // kept bodies are mapped when they are parsed: within the budget, when the last is in
    mappedAt.length = 0;
    run(three, { mapItem: spy });
    expect(mappedAt).toEqual(['a@200', 'b@200', 'c@200', 'd@200', 'e@200']);
  });

  it("parse 'items' (or memoryBudget 0) asks for every page item by item", () => {
    for (const options of [{ parse: 'items' as const }, { memoryBudget: 0 }]) {
      const r = run(three, options);
      expect(r.calls.map((c) => c.how)).toEqual([{ decode: 'items' }, { decode: 'items' }, { decode: 'items' }]);
      expect(r.result?.items.map((o) => o.metadata?.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    }
  });
});

/**
 * Renders the views into the page's tables. Rows carry `data-*` attributes (`data-node`,
 * `data-phase`, `data-deployment`, `data-field`) so a test can read the page as data.
 */
import { PHASES, type NodeRow, type Progress } from './views.js';

function cell(text: string, attrs: Readonly<Record<string, string>> = {}): HTMLTableCellElement {
  const td = document.createElement('td');
  td.textContent = text;
  for (const [k, v] of Object.entries(attrs)) td.setAttribute(k, v);
  return td;
}

/** Replaces the body of the pods-per-node table. */
export function renderNodes(body: HTMLElement, rows: readonly NodeRow[]): void {
  body.replaceChildren(
    ...rows.map((r) => {
      const tr = document.createElement('tr');
      tr.dataset['node'] = r.node;
      const total = PHASES.reduce((n, p) => n + r.counts[p], 0);
      const pods = cell(r.pods.map((p) => p.replace(/^default\//, '')).join(' '), { class: 'pods' });
      tr.append(
        cell(r.node, { class: 'name' }),
        ...PHASES.map((p) => cell(String(r.counts[p]), { 'data-phase': p, class: r.counts[p] > 0 ? `phase ${p}` : 'phase zero' })),
        cell(String(total), { 'data-field': 'total' }),
        pods,
      );
      return tr;
    }),
  );
}

/** Replaces the body of the rollouts table. */
export function renderRollouts(body: HTMLElement, table: ReadonlyMap<string, Progress>): void {
  body.replaceChildren(
    ...[...table.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, p]) => {
        const tr = document.createElement('tr');
        tr.dataset['deployment'] = key;
        tr.dataset['phase'] = p.phase;
        const bar = document.createElement('progress');
        bar.max = Math.max(p.desired, 1);
        bar.value = Math.min(p.ready, p.desired);
        const barCell = cell('');
        barCell.append(bar);
        tr.append(
          cell(key, { class: 'name' }),
          cell(p.revision, { 'data-field': 'revision' }),
          cell(`${p.updated}/${p.desired}`, { 'data-field': 'updated' }),
          cell(`${p.ready}/${p.desired}`, { 'data-field': 'ready' }),
          cell(String(p.old), { 'data-field': 'old' }),
          barCell,
          cell(p.phase, { 'data-field': 'phase', class: p.phase }),
        );
        return tr;
      }),
  );
}

/** Shows the connection state (`connecting`, `live`, or an error) in the page's status line. */
export function renderStatus(el: HTMLElement, state: 'connecting' | 'live' | 'error', text: string): void {
  el.dataset['state'] = state;
  el.textContent = text;
}

/**
 * What a card shows under its summary: a read's cells as cells, a run's output, a read's
 * result. Long results show their first lines only; the model's results hold the whole
 * text (the notebook's kernel sends only those lines, saying how much it left out).
 */
import { el, summary } from './dom';
import { readCellsNode } from './readcells';
import { IOperatorItem } from './types';

/** Lines of a result a card shows. */
export const DETAILS_SHOWN_LINES = 200;

/**
 * The first `DETAILS_SHOWN_LINES` lines of `text`, and how many characters are left out:
 * those cut here and `more` the sender cut already.
 */
export function shownLines(text: string, more = 0): { text: string; more: number } {
  let end = -1;
  for (let n = 0; n < DETAILS_SHOWN_LINES; n++) {
    end = text.indexOf('\n', end + 1);
    if (end < 0) {
      return { text, more };
    }
  }
  return { text: text.slice(0, end + 1), more: more + text.length - (end + 1) };
}

function textNode(item: IOperatorItem, details: string): HTMLElement {
  const { text, more } = shownLines(details, item.details_more ?? 0);
  const pre = el('pre', 'jp-Operator-details-text', text);
  if (!more) {
    return pre;
  }
  const box = el('div', 'jp-Operator-details-box');
  const note = `${more.toLocaleString('en-US')} more character${more === 1 ? '' : 's'} not ` +
    'shown (the results for the model hold the whole text).';
  box.append(pre, el('p', 'jp-Operator-note jp-Operator-details-more', note));
  return box;
}

/** The node under a card's summary for `item`, or null. */
export function detailsNode(item: IOperatorItem): HTMLElement | null {
  const cells = item.action === 'nb.readCells' && item.ok ? readCellsNode(item.details ?? '') : null;
  if (cells) {
    // Cells as cells; the model's one line of JSON stays in the results box.
    const details = el('details', 'jp-Operator-details');
    details.open = true;
    details.append(summary('Cells'), cells);
    return details;
  }
  if (item.status === 'running') {
    return el('p', 'jp-Operator-run-running', 'Running in the notebook\u2026');
  }
  if (!item.details) {
    return null;
  }
  const body = textNode(item, item.details);
  if (item.execution?.outcome) {
    const details = el('details', 'jp-Operator-details jp-Operator-run-output');
    details.open = true;
    details.append(summary('Output (as the model reads it)'), body);
    return details;
  }
  if (item.kind === 'read') {
    const details = el('details', 'jp-Operator-details');
    details.open = item.details.length < 4000;
    details.append(summary('Result'), body);
    return details;
  }
  return body;
}

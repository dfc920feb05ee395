/**
 * What kind of text the panel runs: detected from the text (the default), or
 * chosen: OPERATOR_CMD blocks, JSON operations, or string commands (`/open`,
 * `/write`, bash lines), which the server answers one card per request.
 */
import { el } from './dom';
import { OperatorRequestError } from './client';

/** The `dialect` of `POST scan`. */
export type DialectChoice = 'auto' | 'operator' | 'json' | 'commands';

const CHOICES: [DialectChoice, string][] = [
  ['auto', 'Detect from the text'],
  ['operator', 'OPERATOR_CMD blocks'],
  ['json', 'JSON operations'],
  ['commands', 'String commands (/open, /write, bash lines)']
];

/** The labelled dialect row and its select (value: a `DialectChoice`). */
export function dialectRow(): { row: HTMLElement; select: HTMLSelectElement } {
  const row = el('label', 'jp-Operator-row');
  row.append(el('span', 'jp-Operator-label', 'Dialect'));
  const select = el('select', 'jp-mod-styled jp-Operator-dialect');
  select.setAttribute('aria-label', 'Dialect of the reply');
  select.title =
    'How to read the pasted text; a script of slash commands is detected when it starts with one';
  for (const [value, label] of CHOICES) {
    const option = el('option', '', label);
    option.value = value;
    select.append(option);
  }
  row.append(select);
  return { row, select };
}

/**
 * The server's message when a remembered session ended with it (string-command
 * sessions live in the server's memory only), or null for any other failure.
 */
export function endedMessage(reason: unknown): string | null {
  return reason instanceof OperatorRequestError && reason.code === 'session_ended'
    ? reason.message
    : null;
}

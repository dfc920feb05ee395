/**
 * JSON operations in the panel: recognising them in a cell, and the block a
 * shell item's card shows (the exact command, its working folder, the extra
 * environment, whether it is sandboxed, then its output). Text nodes only.
 */
import { el, summary } from './dom';
import { IOperatorItem } from './types';

const JSON_START = /^\s*[[{]\s*(?:\{\s*)?"(?:type|operations|id)"\s*:/;
const JSON_FENCE = /^[ \t]*```[ \t]*json[ \t]*$/im;

/** Whether a text is clearly JSON operations (the server's `detect`, in short). */
export function looksLikeJsonOperations(text: string): boolean {
  if (text.includes('OPERATOR_CMD')) {
    return false;
  }
  return JSON_START.test(text) || JSON_FENCE.test(text);
}

function row(label: string, value: string, className = ''): HTMLElement {
  const node = el('div', `jp-Operator-shell-row ${className}`.trim());
  node.append(el('span', 'jp-Operator-shell-label', label), el('code', '', value));
  return node;
}

/** The shell block of a card, or null for items that are not commands. */
export function shellBlock(item: IOperatorItem): HTMLElement | null {
  const shell = item.shell;
  if (!shell) {
    return null;
  }
  const node = el('div', 'jp-Operator-shell');
  node.append(el('pre', 'jp-Operator-shell-command', shell.command));
  node.append(row('Working folder', shell.cwd));
  const env = Object.entries(shell.env).map(([name, value]) => `${name}=${value}`);
  node.append(row('Extra environment', env.length ? env.join(' ') : '(none)'));
  const sandbox = shell.sandboxed
    ? `Sandboxed: only the workspace is writable, ${shell.network ? 'network on' : 'no network'}.`
    : 'Not sandboxed: bubblewrap is not available, the command runs with your permissions.';
  node.append(el('p', shell.sandboxed ? 'jp-Operator-note' : 'jp-Operator-warning', sandbox));
  node.append(el('p', 'jp-Operator-note', 'Undo covers file operations only: what a command changes is not journaled.'));
  if (shell.status === 'finished') {
    const outcome = shell.timed_out
      ? `Timed out after ${shell.duration_ms} ms (exit code 124).`
      : `Exit code ${shell.exit_code} in ${shell.duration_ms} ms.`;
    node.append(el('p', shell.exit_code === 0 ? 'jp-Operator-note' : 'jp-Operator-warning', outcome));
  }
  for (const [label, text] of [
    ['stdout', shell.stdout],
    ['stderr', shell.stderr]
  ] as const) {
    if (text) {
      const details = el('details', 'jp-Operator-details');
      details.open = true;
      details.append(summary(label), el('pre', 'jp-Operator-details-text', text));
      node.append(details);
    }
  }
  return node;
}

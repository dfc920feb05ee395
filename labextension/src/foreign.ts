/**
 * A call the model wrote in its own tool-call format (Hermes `<tool_call>`, Harmony,
 * DeepSeek tokens, ...): the card says so and shows the OPERATOR_CMD block it was
 * translated to. The server never lets a rule approve a translation; the person does.
 */
import { visibleText } from './diff';
import { el, summary } from './dom';
import { IForeignCall } from './types';

/** What the card says of a translated (or untranslatable) call. */
export function foreignSentence(foreign: IForeignCall): string {
  const said =
    `The model used its own tool-call format (${foreign.family_name}: ` +
    `${visibleText(foreign.name)}), not an OPERATOR_CMD block.`;
  if (foreign.block === null) {
    return `${said} Its intent is not clear, so nothing can run; the model is asked for a block.`;
  }
  return `${said} It was translated to the block below: approve it like any other command. The model is told either way.`;
}

/** The note and the translated block, as text nodes only (the block is model text). */
export function foreignNode(foreign: IForeignCall): HTMLElement {
  const node = el('div', 'jp-Operator-foreign');
  node.setAttribute('role', 'note');
  node.append(el('p', 'jp-Operator-foreign-said', foreignSentence(foreign)));
  if (foreign.block !== null) {
    const details = el('details', 'jp-Operator-foreign-block');
    details.open = true;
    details.append(summary('Translation'), el('pre', undefined, visibleText(foreign.block)));
    node.append(details);
  }
  return node;
}

/**
 * The panel's Workspace row: the select of the server's workspaces (the folder a reply's
 * paths are relative to) and, under it, what no workspace may reach. Apart from panel.ts
 * because it keeps the server's workspace list, which paths and card headers are read from;
 * the rules on that list are pure functions in workspaces.ts.
 */
import { OperatorClient } from './client';
import { el, summary } from './dom';
import { IWorkspace } from './types';
import { pickWorkspace, whereText } from './workspaces';

/** The workspace select and the out-of-reach list, with the workspaces they show. */
export class WorkspaceSelect {
  /** The labelled row holding the select. */
  readonly row: HTMLLabelElement;
  /** What no workspace may reach; hidden until the server lists something. */
  readonly outOfReach: HTMLDetailsElement;
  private _select: HTMLSelectElement;
  private _workspaces: IWorkspace[] = [];

  constructor(
    private _client: OperatorClient,
    onChange: () => void
  ) {
    this.row = el('label', 'jp-Operator-row');
    this.row.append(el('span', 'jp-Operator-label', 'Workspace'));
    this._select = el('select', 'jp-mod-styled jp-Operator-workspace');
    this._select.title = 'The folder the reply\'s paths are relative to';
    this._select.setAttribute('aria-label', 'Workspace');
    this._select.addEventListener('change', onChange);
    this.row.append(this._select);
    // Out of reach whatever the rules say (the server's token lives in Jupyter's runtime folder).
    this.outOfReach = el('details', 'jp-Operator-out-of-reach');
    this.outOfReach.append(summary('Out of reach of every workspace'));
    this.outOfReach.hidden = true;
  }

  /** The name of the chosen workspace ('' before the list has loaded). */
  get value(): string {
    return this._select.value;
  }

  set value(name: string) {
    this._select.value = name;
  }

  /** The workspaces as the server last listed them. */
  get list(): readonly IWorkspace[] {
    return this._workspaces;
  }

  /** Load the workspaces (names and folders) from the server; a failure is thrown. */
  async refresh(): Promise<void> {
    const workspaces = (this._workspaces = await this._client.workspaces());
    const current = this._select.value;
    this._select.replaceChildren();
    for (const ws of workspaces) {
      const folder = ws.path === '.' ? 'the server root' : ws.path ?? 'outside the server root';
      const option = el('option', '', `${ws.name}: ${folder}`);
      option.value = ws.name;
      this._select.append(option);
    }
    if (workspaces.some(w => w.name === current)) {
      this._select.value = current;
    }
    this._select.disabled = workspaces.length <= 1;
  }

  /** List what no workspace may reach, under the select. */
  async showOutOfReach(): Promise<void> {
    try {
      const paths = await this._client.outOfReach();
      const list = el('p', 'jp-Operator-out-of-reach-list', paths.join(', '));
      const note = el(
        'p',
        'jp-Operator-out-of-reach-note',
        'Refused for every action, reads included, whatever the rules say: Jupyter\'s ' +
          'runtime, config and data folders hold the server\'s token and settings.'
      );
      this.outOfReach.append(note, list);
      this.outOfReach.hidden = paths.length === 0;
    } catch {
      // An older server without the list: nothing to show.
    }
  }

  /** The folder of a workspace (and subfolder) as shown on cards, relative to the server root. */
  where(workspace: string, folder?: string | null): string {
    return whereText(this._workspaces, workspace, folder);
  }

  /** The workspace that holds `folder` (server-relative) most closely, and `folder` within it. */
  pick(folder: string): { workspace: string; folder: string | null } | null {
    return pickWorkspace(this._workspaces, folder);
  }
}

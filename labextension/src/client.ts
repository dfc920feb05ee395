/**
 * The jupyter-operator REST client used by the panel.
 *
 * Requests go through `ServerConnection.makeRequest`, so they carry the page's
 * token and XSRF cookie and work behind a non-root `base_url`.
 */
import { ServerConnection } from '@jupyterlab/services';

import type { IRunOutcome } from './liverun';

import {
  buildRequest,
  decisionBody,
  describeHttpError,
  IPanelError,
  NETWORK_ERROR,
  scanBody
} from './request';
import {
  Decision,
  IDecideResponse,
  IEditContent,
  IHistoryResponse,
  IScanResponse,
  ISessionsResponse,
  IUndoResponse,
  IUndoRunResponse,
  IWorkspace,
  IWorkspacesResponse
} from './types';

/** Body of `POST undo` / `POST redo`: only the fields that are set. */
function undoBody(
  workspace: string,
  id?: string,
  session?: string,
  folder?: string | null
): Record<string, string> {
  const body: Record<string, string> = { workspace };
  for (const [key, value] of Object.entries({ id, session, folder })) {
    if (value) {
      body[key] = value;
    }
  }
  return body;
}

/** A failed API call, carrying a code and a message fit for the panel. */
export class OperatorRequestError extends Error implements IPanelError {
  constructor(
    readonly code: string,
    message: string
  ) {
    super(message);
  }
}

/** Typed calls to `{baseUrl}jupyter-operator/api/`. */
export class OperatorClient {
  constructor(
    readonly settings: ServerConnection.ISettings = ServerConnection.makeSettings()
  ) {}

  /** The workspaces the server offers (names, and roots relative to the server's root). */
  async workspaces(): Promise<IWorkspace[]> {
    const data = await this._call<IWorkspacesResponse>(['workspaces']);
    return data.workspaces ?? [];
  }

  /** A session as it is now (also after a reload or a server restart). */
  session(id: string): Promise<IScanResponse> {
    return this._call(['sessions', id]);
  }

  /** Sessions still waiting for decisions. */
  sessions(workspace?: string): Promise<ISessionsResponse> {
    return this._call(['sessions'], undefined, { workspace });
  }

  /** The changes applied in a workspace, oldest first. */
  history(workspace: string, folder?: string | null): Promise<IHistoryResponse> {
    return this._call(['history'], undefined, { workspace, folder: folder || undefined });
  }

  /** Apply an undone change again. */
  redo(
    workspace: string,
    id?: string,
    session?: string,
    folder?: string | null,
    live?: { state: string; cell?: string }
  ): Promise<IUndoResponse> {
    return this._call(['redo'], { ...undoBody(workspace, id, session, folder), ...(live ? { live } : {}) });
  }

  /** The interface specification text to give a model. */
  async spec(): Promise<string> {
    return (await this._call<{ spec: string }>(['spec'])).spec;
  }

  /** What no workspace may reach (Jupyter's folders, credential stores), home-relative. */
  async outOfReach(): Promise<string[]> {
    return (await this._call<{ out_of_reach?: string[] }>(['spec'])).out_of_reach ?? [];
  }

  /** Scan a reply: reads run at once, mutations come back pending. */
  scan(
    text: string,
    workspace?: string | null,
    folder?: string | null,
    dialect?: string | null
  ): Promise<IScanResponse> {
    const body = scanBody(text, workspace) as Record<string, unknown>;
    if (folder) {
      body.folder = folder;
    }
    if (dialect && dialect !== 'auto') {
      body.dialect = dialect;
    }
    return this._call(['scan'], body);
  }

  /** Approve or reject one pending item. */
  decide(
    session: string,
    id: string,
    decision: Decision,
    reason?: string | null,
    content?: string | null,
    andRun = false
  ): Promise<IDecideResponse> {
    const body: Record<string, unknown> = decisionBody(decision, id, reason, content);
    if (andRun && decision === 'approve') {
      body.and_run = true; // Approve & Run: apply the cell change, then run the cell
    }
    return this._call(['sessions', session, 'decide'], body);
  }

  /** What the open notebook's kernel did with a running item (liverun.ts). */
  execution(session: string, id: string, outcome: IRunOutcome): Promise<IDecideResponse> {
    return this._call(['sessions', session, 'items', id, 'execution'], outcome);
  }

  /** This page still runs the cell of this item (a run without word from its page ends). */
  executionAlive(session: string, id: string): Promise<unknown> {
    return this._call(['sessions', session, 'items', id, 'execution', 'alive'], {});
  }

  /**
   * This page goes away while it runs the cell of this item: the run ends as interrupted.
   * Sent with `keepalive`, so the request outlives the page that sends it.
   */
  executionGone(session: string, id: string): void {
    const spec = buildRequest(this.settings.baseUrl, ['sessions', session, 'items', id, 'execution', 'alive'], {
      gone: true
    });
    const init: RequestInit = { ...spec.init, keepalive: true };
    void ServerConnection.makeRequest(spec.url, init, this.settings).catch(() => undefined);
  }

  /** What this page did with a change sent to a notebook open here (livecells.ts). */
  live(session: string, id: string, answer: { state: string; cell?: string }): Promise<IDecideResponse> {
    return this._call(['sessions', session, 'items', id, 'live'], answer);
  }

  /** The notebooks open in this page (server paths); `closing`: the page goes away. */
  openNotebooks(page: string, paths: string[], closing = false): Promise<unknown> {
    return this._call(['open-notebooks'], { page, paths, closing });
  }

  /** The proposed new text of an item and the file's text it was previewed on (to edit). */
  content(session: string, id: string): Promise<IEditContent> {
    return this._call(['sessions', session, 'items', id, 'content']);
  }

  /** Approve or reject every pending item of a session. */
  decideAll(session: string, decision: Decision, reason?: string | null): Promise<IDecideResponse> {
    return this._call(
      ['sessions', session, 'decide-all'],
      decisionBody(decision, undefined, reason)
    );
  }

  /** Undo the last applied change in a workspace (or a given history entry). */
  /** Undo a change; `live`: this page's answer to an undo the server sent it (`IUndoResponse.live`). */
  undo(
    workspace: string,
    id?: string,
    session?: string,
    folder?: string | null,
    live?: { state: string; cell?: string }
  ): Promise<IUndoResponse> {
    return this._call(['undo'], { ...undoBody(workspace, id, session, folder), ...(live ? { live } : {}) });
  }

  /** Undo every change of one run in one step (the server refuses it as a whole or does it
   * all); `preview`: only list what it would restore. */
  undoRun(
    workspace: string,
    run: string,
    folder?: string | null,
    preview = false,
    live?: { state: string; cell?: string }
  ): Promise<IUndoRunResponse> {
    return this._call(['undo-run'], { workspace, run, preview, ...(folder ? { folder } : {}), ...(live ? { live } : {}) });
  }

  private async _call<T>(
    segments: string[],
    body?: unknown,
    query?: Record<string, string | undefined>
  ): Promise<T> {
    const spec = buildRequest(this.settings.baseUrl, segments, body, query);
    let response: Response;
    try {
      response = await ServerConnection.makeRequest(spec.url, spec.init, this.settings);
    } catch {
      throw new OperatorRequestError(NETWORK_ERROR.code, NETWORK_ERROR.message);
    }
    const text = await response.text();
    if (!response.ok) {
      const error = describeHttpError(response.status, text);
      throw new OperatorRequestError(error.code, error.message);
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new OperatorRequestError(
        'BAD_RESPONSE',
        'The server sent an answer the panel could not read.'
      );
    }
  }
}

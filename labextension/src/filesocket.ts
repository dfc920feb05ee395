/**
 * One WebSocket connection to `{baseUrl}jupyter-operator/files`, opened on
 * first use and again after it drops. Every request carries a `request_id`
 * and its promise settles with the reply that echoes it, so answers are
 * matched even if the server ever answers out of order. Free of JupyterLab
 * runtime imports so it can be unit tested with a fake WebSocket.
 */
import type { ServerConnection } from '@jupyterlab/services';

import {
  BAD_REPLY,
  CONNECTION_LOST,
  FileApiError,
  FileRequest,
  IFileReply,
  parseReply
} from './fileproto';

interface IPending {
  resolve: (reply: IFileReply) => void;
  reject: (error: FileApiError) => void;
}

/** What the connection needs from JupyterLab's server settings. */
export type ISocketSettings = Pick<
  ServerConnection.ISettings,
  'wsUrl' | 'token' | 'appendToken' | 'WebSocket'
>;

/** The socket's URL: the page's base_url, and the token when the settings carry one. */
export function fileSocketUrl(settings: ISocketSettings): string {
  let url = `${settings.wsUrl.replace(/\/*$/, '/')}jupyter-operator/files`;
  // Like Lab's own kernel sockets: browsers cannot set headers on a WebSocket, so a token
  // (when Lab was opened with one and not through a cookie) travels in the query.
  if (settings.appendToken && settings.token) {
    url += `?token=${encodeURIComponent(settings.token)}`;
  }
  return url;
}

/** A request/reply client of the Editor File API. */
export class FileSocket {
  private _socket: WebSocket | null = null;
  private _opening: Promise<WebSocket> | null = null;
  private _pending = new Map<string, IPending>();
  private _next = 1;
  private _disposed = false;

  constructor(readonly settings: ISocketSettings) {}

  /** Send one request; resolves with its `*_result`, rejects with a `FileApiError`. */
  async request(message: FileRequest): Promise<IFileReply> {
    const socket = await this._connect();
    const requestId = `r${this._next++}`;
    return new Promise<IFileReply>((resolve, reject) => {
      this._pending.set(requestId, { resolve, reject });
      try {
        socket.send(JSON.stringify({ ...message, request_id: requestId }));
      } catch {
        this._pending.delete(requestId);
        reject(new FileApiError(CONNECTION_LOST));
      }
    });
  }

  /** Close the connection; pending requests fail. */
  dispose(): void {
    this._disposed = true;
    this._socket?.close();
    this._dropAll();
  }

  private _connect(): Promise<WebSocket> {
    if (this._disposed) {
      return Promise.reject(new FileApiError(CONNECTION_LOST));
    }
    // 1 is WebSocket.OPEN (the constant is not a global outside browsers).
    if (this._socket && this._socket.readyState === 1) {
      return Promise.resolve(this._socket);
    }
    if (!this._opening) {
      this._opening = new Promise<WebSocket>((resolve, reject) => {
        const Socket = this.settings.WebSocket;
        let socket: WebSocket;
        try {
          socket = new Socket(fileSocketUrl(this.settings));
        } catch {
          this._opening = null;
          reject(new FileApiError(CONNECTION_LOST));
          return;
        }
        socket.onopen = () => {
          this._socket = socket;
          this._opening = null;
          resolve(socket);
        };
        socket.onmessage = event => this._onMessage(event.data);
        socket.onclose = () => {
          if (this._socket === socket) {
            this._socket = null;
          }
          this._opening = null;
          this._dropAll();
          reject(new FileApiError(CONNECTION_LOST));
        };
      });
    }
    return this._opening;
  }

  private _onMessage(data: unknown): void {
    const reply = parseReply(data);
    const id = reply?.request_id;
    const pending = id !== undefined ? this._pending.get(String(id)) : undefined;
    if (!reply || !pending) {
      console.warn('jupyter-operator: an unmatched file API reply was ignored');
      return;
    }
    this._pending.delete(String(id));
    if (reply.type === 'error') {
      pending.reject(new FileApiError(reply.code ?? BAD_REPLY, reply.message ?? ''));
    } else {
      pending.resolve(reply);
    }
  }

  private _dropAll(): void {
    const pending = [...this._pending.values()];
    this._pending.clear();
    for (const p of pending) {
      p.reject(new FileApiError(CONNECTION_LOST));
    }
  }
}

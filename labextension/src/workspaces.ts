/**
 * Where a reply's paths are taken from (workspaces, a notebook's folder) and which session the
 * panel reopens after a reload. Pure apart from local storage, so the rules are unit tested.
 */
import { IWorkspace } from './types';

/** Where the panel remembers its open session, so a page reload reattaches to it. */
export const SESSION_KEY = 'jupyter-operator:session';

export function remember(session: string | null): void {
  try {
    if (session) {
      window.localStorage.setItem(SESSION_KEY, session);
    } else {
      window.localStorage.removeItem(SESSION_KEY);
    }
  } catch {
    // Storage may be disabled; reattaching is a convenience.
  }
}

export function remembered(): string | null {
  try {
    return window.localStorage.getItem(SESSION_KEY);
  } catch {
    return null;
  }
}

/** `a/b` under `base` (both relative to the server root, `.` for the root): `b`, or null. */
export function folderUnder(base: string, folder: string): string | null {
  const clean = (p: string) => p.split('/').filter(s => s && s !== '.').join('/');
  const b = clean(base);
  const f = clean(folder);
  if (!b) {
    return f;
  }
  if (f === b) {
    return '';
  }
  return f.startsWith(b + '/') ? f.slice(b.length + 1) : null;
}

/** The workspace that holds `folder` most closely, and `folder` relative to its root. */
export function pickWorkspace(
  workspaces: readonly IWorkspace[],
  folder: string
): { workspace: string; folder: string | null } | null {
  let best: { workspace: string; folder: string | null } | null = null;
  let depth = -1;
  for (const ws of workspaces) {
    if (ws.path === null || ws.path === undefined) {
      continue;
    }
    const under = folderUnder(ws.path, folder);
    const length = ws.path === '.' ? 0 : ws.path.length;
    if (under !== null && length > depth) {
      depth = length;
      best = { workspace: ws.name, folder: under || null };
    }
  }
  return best;
}

/** How a card names the folder its path is taken from (relative to the server root). */
export function whereText(
  workspaces: readonly IWorkspace[],
  workspace: string,
  folder?: string | null
): string {
  const ws = workspaces.find(w => w.name === workspace);
  const base = ws?.path ?? null;
  const sub = folder ? folder.replace(/\/+$/, '') : '';
  if (base === null) {
    return sub ? `${workspace}/${sub}` : `workspace ${workspace}`;
  }
  const path = base === '.' ? sub || '.' : sub ? `${base}/${sub}` : base;
  return path === '.' ? 'the server root (.)' : `${path}/`;
}
